// preempt/kubernetes/filter_cluster.hpp - a cluster view that adds kube-scheduler's
// pod-dependent filters (NodePorts, the volume plugins, PodTopologySpread, InterPodAffinity,
// DynamicResources, NodeDeclaredFeatures) to another cluster's node state, for one pod to place.
//
// filter_cluster<Base, PodFacts, NodeFacts> models preempt::cluster over a Base cluster (such as
// model::resource_cluster): the same nodes and pods, and a state that runs, in the default
// profile's order, NodePorts, then Base's own state (NodeResourcesFit for resource_fit_state),
// then the volume plugins (VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone),
// then PodTopologySpread, then InterPodAffinity, then DynamicResources (a verdict per node set
// with set_dynamic_resources), then NodeDeclaredFeatures (the profile appends it last: a node that
// does not declare, in status.declaredFeatures, every feature the pod requires is
// UnschedulableAndUnresolvable), stopping at the first that rejects.
//   pod_facts(p)   -> const pod_filter_facts&  what the filters read of a pod of Base
//   node_facts(i)  -> const kubernetes::node_facts&  node i's name, labels, taints
// Both must stay valid, with what they refer to, while the view is used.
//
// The cluster-wide part is upstream's PreFilter: prefilter(pod, namespaces) computes it once for
// the pod to place (O(pods · terms)), and the view then holds it, read-only, for every worker's
// state. Each state keeps only node-local what-if data: the node's host ports in use and the
// overlays of topology_spread.hpp and inter_pod_affinity.hpp, which prepare_state(i) resets and
// remove_pod/add_pod update (upstream's RemovePod/AddPod PreFilter extensions) without copying
// any cluster-wide count. remove_pod_elsewhere/add_pod_elsewhere(p, node) apply those extensions
// for a pod of another node (upstream's removal of a pod group's members on other nodes while one
// node is evaluated), changing only the overlays (and VolumeRestrictions' claim count).
//
// A plugin whose PreFilter leaves it nothing to check costs nothing: without wanted host ports no
// state tracks the ports in use, and when none of the three filters, a state is Base's own plus
// a flag test per update. The state's can_fit(p) answers fits() without reasons (the reprieve
// loop's question), through Base's can_fit when it has one; its victim_score_bound (branch and
// bound) is Base's when Base has one and none of the three filters has anything to check.
// The volume plugins (volume_filters.hpp) run right after Base's state when the placing_pod
// carries a prepared volume_filters that has something to check; a state's overlay of theirs
// follows the pods added and removed (O(their volumes)), and no victim score bound is offered.
//
// Why a victim was chosen, beyond resources: a state's for_each_victim_condition(victim, visit)
// calls visit(victim_condition) for each filter condition against the pod to place (the pod of
// the last prefilter) that the victim's presence on the state's node triggers, read from the
// PreFilter state and the victim's facts (not from the state's counts: the answer does not depend
// on which pods the state has removed, and nominated pods are not considered), in this order:
//   host_port                the victim holds a host port the pod wants (NodePorts); `port`
//   victim_anti_affinity     a required anti-affinity term of the victim matches the pod, and the
//                            node has its topology key (the existing pods' anti-affinity)
//   preemptor_anti_affinity  a required anti-affinity term of the pod matches the victim, and the
//                            node has its topology key
//   topology_spread          a DoNotSchedule constraint's domain counts the victim (its namespace,
//                            the selector, a node that takes part): the victim adds to the skew
//   disk_conflict            a disk of the pod (gcePersistentDisk, awsElasticBlockStore, iscsi,
//                            rbd) conflicts with a volume of the victim (VolumeRestrictions)
//   read_write_once_pod      the victim uses a ReadWriteOncePod claim the pod wants
//   csi_attach_slot          the victim holds an attach slot of a CSI driver the pod needs new
//                            volumes of on a node with a limit for it (NodeVolumeLimits)
// `subject` names what is involved: the topology key, the disk, the claim or the driver ("" for
// a host port). Resources are not a condition: every victim frees what it requests (Base's
// state tells amounts). DynamicResources yields none: its verdict does not depend on the node's
// pods (the dry run frees no device). A condition is what the victim takes part in, not proof
// that the pod would not fit with the victim alone kept (preempt/victim_reasons.hpp answers
// that).
//
// A node of Base may tell how its pods came to be, as upstream's NodeInfo does after RemovePod
// and AddPod calls (a snapshot that a pod group's evaluator changed before it places the group):
// members removed_pods() and added_pods(), ranges of const pod_type* (pods() lists the node's pods
// now: the added ones included, the removed ones not). NodeInfo keeps the host ports in use as a
// set (HostPortInfo), so a removal drops each port of the pod even where another pod of the node
// holds it too; prepare_state replays that: the ports of pods(), less those of removed_pods(),
// plus those of added_pods(). A removed pod counts as one of the node's in add_pod/remove_pod.
//
// Where Base offers a rejection index (preempt/rejection_index.hpp), the view offers it too for a
// pod that wants no host port: every filter after Base's runs only where Base's passes.
//
// Complexity: prepare_state O(pods of the node) when the pod wants host ports or a volume plugin
// reads pods, else Base's; remove_pod/add_pod O(overlays), plus O(pods of the node) for a pod with
// host ports (to tell the node's pods from nominated ones, whose ports are added temporarily: see
// node_ports.hpp); a pod of the node hands InterPodAffinity's overlay what its PreFilter found of
// it (found by address: O(1) when Base's pods() is contiguous, else O(pods of the node)).
// Allocation: prefilter; a state's buffers grow to the largest node once. No exceptions of its
// own. The view is read by many threads once prefilter has returned; each state by one.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_FILTER_CLUSTER_HPP
#define PREEMPT_KUBERNETES_FILTER_CLUSTER_HPP

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "preempt/cluster.hpp"
#include "preempt/config.hpp"
#include "preempt/kubernetes/filters.hpp"
#include "preempt/kubernetes/inter_pod_affinity.hpp"
#include "preempt/kubernetes/node_ports.hpp"
#include "preempt/kubernetes/pod_facts.hpp"
#include "preempt/kubernetes/topology_spread.hpp"
#include "preempt/kubernetes/volume_filters.hpp"
#include "preempt/node_state.hpp"
#include "preempt/pod.hpp"
#include "preempt/rejection_index.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

// What the pod-dependent filters read of a pod.
struct pod_filter_facts {
  pod_facts pod;
  std::span<const host_port> host_ports;
  pod_volume_facts volumes = {};  // VolumeRestrictions, NodeVolumeLimits
};

// A filter condition a victim's presence triggers against the pod to place (see the header).
enum class victim_condition_kind : std::uint8_t {
  host_port,
  victim_anti_affinity,
  preemptor_anti_affinity,
  topology_spread,
  disk_conflict,
  read_write_once_pod,
  csi_attach_slot,
};

constexpr std::string_view to_string(victim_condition_kind k) noexcept {
  switch (k) {
    case victim_condition_kind::host_port: return "host-port";
    case victim_condition_kind::victim_anti_affinity: return "victim-anti-affinity";
    case victim_condition_kind::preemptor_anti_affinity: return "preemptor-anti-affinity";
    case victim_condition_kind::topology_spread: return "topology-spread";
    case victim_condition_kind::disk_conflict: return "disk-conflict";
    case victim_condition_kind::read_write_once_pod: return "read-write-once-pod";
    case victim_condition_kind::csi_attach_slot: return "csi-attach-slot";
  }
  return "unknown";
}

struct victim_condition {
  victim_condition_kind kind = victim_condition_kind::host_port;
  std::string_view subject;         // topology key, disk, claim or driver; "" for a host port
  const host_port* port = nullptr;  // host_port: the pod's wanted port the victim holds
};

// NodeDeclaredFeatures' reason: a node that does not declare a feature the pod requires.
inline constexpr std::string_view node_declared_features_reason =
    "node(s) didn't match Pod's required features";

// The pod to place, as the pod-dependent filters read it.
struct placing_pod {
  pod_facts pod;
  std::span<const host_port> host_ports;
  std::span<const affinity_term> required_affinity;
  std::span<const affinity_term> required_anti_affinity;
  std::span<const spread_constraint> spread;
  const pod_placement* placement = nullptr;
  // The node features the pod requires (NodeDeclaredFeatures' InferForPodScheduling).
  std::span<const std::string> required_features = {};
  // The volume plugins' PreFilter for this pod, prepared by the caller (nullptr: none), which
  // must outlive the view's use.
  const volume_filters* volumes = nullptr;
};

namespace detail {
// A node that tells how its pods came to be (see the header): removed_pods() and added_pods().
template <class Node, class Pod>
concept records_pod_changes = requires(const Node& n) {
  { *std::ranges::begin(n.removed_pods()) } -> std::convertible_to<const Pod*>;
  { *std::ranges::begin(n.added_pods()) } -> std::convertible_to<const Pod*>;
};
}  // namespace detail

template <cluster Base, class PodFacts, class NodeFacts>
class filter_cluster {
 public:
  using pod_type = cluster_pod_t<Base>;

  class state_type {
   public:
    status remove_pod(const pod_type& p) {
      if (status st = base_.remove_pod(p); !st) return st;
      if (!owner_->reads_pods_) return status::ok();
      const pod_filter_facts& f = owner_->pod_facts_(p);
      if (owner_->checks_ports() && !f.host_ports.empty()) {
        if (on_node(p))
          ports_.remove(f.host_ports);
        else
          ports_.remove_temporary(reinterpret_cast<std::uintptr_t>(&p));
      }
      volumes_.update(f.volumes, -1);
      spread_.update(f.pod, -1);
      affinity_.update(f.pod, -1, known_match(p));
      return status::ok();
    }
    status add_pod(const pod_type& p) {
      if (status st = base_.add_pod(p); !st) return st;
      if (!owner_->reads_pods_) return status::ok();
      const pod_filter_facts& f = owner_->pod_facts_(p);
      if (owner_->checks_ports() && !f.host_ports.empty()) {
        if (on_node(p))
          ports_.add(f.host_ports);
        else
          ports_.add_temporary(f.host_ports, reinterpret_cast<std::uintptr_t>(&p));
      }
      volumes_.update(f.volumes, +1);
      spread_.update(f.pod, +1);
      affinity_.update(f.pod, +1, known_match(p));
      return status::ok();
    }
    // upstream's RemovePod/AddPod PreFilter extensions for a pod of another node `node`: a
    // member of a pod group evicted whole (or added back) while this node is evaluated. Only the
    // PreFilter state changes (PodTopologySpread's and InterPodAffinity's counts,
    // VolumeRestrictions' ReadWriteOncePod count); neither node's pods nor ports do, as upstream
    // mutates only the evaluated node's NodeInfo.
    status remove_pod_elsewhere(const pod_type& p, std::size_t node) {
      update_elsewhere(p, node, -1);
      return status::ok();
    }
    status add_pod_elsewhere(const pod_type& p, std::size_t node) {
      update_elsewhere(p, node, +1);
      return status::ok();
    }
    status fits(const pod_type& p) {
      if (!ports_.fits(owner_->wanted_ports_)) return status::unschedulable(node_ports_reason);
      if (status st = base_.fits(p); !st) return st;
      if (owner_->checks_volumes())
        if (status st = volumes_.filter(); !st) return st;
      if (status st = spread_.filter(); !st) return st;
      if (status st = affinity_.filter(); !st) return st;
      if (!owner_->dynamic_resources_.empty() && !owner_->dynamic_resources_[node_].is_success())
        return owner_->dynamic_resources_[node_];
      if (owner_->lacks_features(node_)) return status::unresolvable(node_declared_features_reason);
      return status::ok();
    }
    // fits() without the reasons (the reprieve loop's question): Base's own can_fit when it has
    // one, and the pod-dependent filters only where the PreFilter left them something to check.
    bool can_fit(const pod_type& p) {
      if (owner_->checks_ports() && !ports_.fits(owner_->wanted_ports_)) return false;
      if constexpr (requires {
                      { base_.can_fit(p) } -> std::convertible_to<bool>;
                    }) {
        if (!base_.can_fit(p)) return false;
      } else {
        if (!status(base_.fits(p)).is_success()) return false;
      }
      if (owner_->checks_volumes() && !volumes_.can_fit()) return false;
      if (owner_->spread_.active() && !spread_.filter().is_success()) return false;
      if (owner_->affinity_.active() && !affinity_.filter().is_success()) return false;
      return (owner_->dynamic_resources_.empty() ||
              owner_->dynamic_resources_[node_].is_success()) &&
             !owner_->lacks_features(node_);
    }

    // Branch and bound (preempt/node_state.hpp): Base's bound on the node's candidate scores, when
    // Base offers one and none of the other filters has anything to check (the bound knows only
    // Base's own filter); nullopt otherwise, and the evaluator then selects the node's victims.
    std::optional<std::array<std::int64_t, 5>> victim_score_bound(const pod_type& p,
                                                                  timestamp now) const
      requires bounds_victim_scores<typename Base::state_type, pod_type>
    {
      if (owner_->reads_pods_ || owner_->checks_volumes() || !owner_->dynamic_resources_.empty() ||
          owner_->lacks_features(node_))
        return std::nullopt;
      return base_.victim_score_bound(p, now);
    }

    // The conditions the victim's presence on this node triggers against the pod to place (see
    // the header). O(the victim's ports, terms and volumes times the pod's).
    template <class Visit>
    void for_each_victim_condition(const pod_type& victim, Visit&& visit) const {
      const filter_cluster& o = *owner_;
      const pod_filter_facts& f = o.pod_facts_(victim);
      if (o.checks_ports() && !f.host_ports.empty()) {
        used_ports held;
        held.add(f.host_ports);
        for (const host_port& w : o.wanted_ports_)
          if (held.conflicts(w)) visit(victim_condition{victim_condition_kind::host_port, {}, &w});
      }
      if (o.affinity_.active()) {
        const node_facts& n = o.node_facts_(node_);
        o.affinity_.for_each_anti_affinity_match(
            f.pod, n.labels != nullptr ? *n.labels : o.no_labels_,
            [&](bool existing, std::string_view key) {
              visit(victim_condition{existing ? victim_condition_kind::victim_anti_affinity
                                              : victim_condition_kind::preemptor_anti_affinity,
                                     key, nullptr});
            });
      }
      o.spread_.for_each_counting_constraint(node_, f.pod, [&](std::string_view key) {
        visit(victim_condition{victim_condition_kind::topology_spread, key, nullptr});
      });
      if (o.checks_volumes() && o.volumes_->restrictions().active()) {
        const auto& r = o.volumes_->restrictions();
        if (const pod_volume* disk = r.conflicting_disk(f.volumes.volumes))
          visit(victim_condition{victim_condition_kind::disk_conflict, disk->disk, nullptr});
        if (const std::string_view claim = r.referenced_claim(f.volumes.volumes); !claim.empty())
          visit(victim_condition{victim_condition_kind::read_write_once_pod, claim, nullptr});
      }
      if (o.checks_volumes())
        o.volumes_->limits().for_each_slot_held(
            node_, f.volumes.attachable, [&](std::string_view driver) {
              visit(victim_condition{victim_condition_kind::csi_attach_slot, driver, nullptr});
            });
    }

    typename Base::state_type& base() noexcept { return base_; }

   private:
    friend class filter_cluster;
    // Whether p is one of the node's pods (a victim or a reprieved pod) rather than a pod added
    // from elsewhere (a nominated pod, added and removed again around a fit check).
    bool on_node(const pod_type& p) const {
      const auto& node = (*owner_->base_)[node_];
      for (const auto& q : ::preempt::pods_of(node))
        if (&q == &p) return true;
      if constexpr (detail::records_pod_changes<cluster_node_t<Base>, pod_type>) {
        for (const pod_type* q : node.removed_pods())
          if (q == &p) return true;
      }
      return false;
    }
    void update_elsewhere(const pod_type& p, std::size_t node, std::int64_t delta) {
      if (!owner_->reads_pods_ || node == node_) return;
      const pod_filter_facts& f = owner_->pod_facts_(p);
      volumes_.update_elsewhere(f.volumes, static_cast<int>(delta));
      spread_.update_on(node, f.pod, delta);
      if (owner_->affinity_.active()) {
        const node_facts& n = owner_->node_facts_(node);
        affinity_.update_elsewhere(f.pod, delta,
                                   n.labels != nullptr ? *n.labels : owner_->no_labels_,
                                   known_match(p, node));
      }
    }
    // What InterPodAffinity's PreFilter found of p when p is one of the pods of `node` (the
    // current node by default; its position among them: an address compared, no label read),
    // else nullptr.
    const inter_pod_affinity_prefilter::pod_match* known_match(const pod_type& p) const {
      return known_match(p, node_);
    }
    const inter_pod_affinity_prefilter::pod_match* known_match(const pod_type& p,
                                                               std::size_t node) const {
      if (!owner_->affinity_.active()) return nullptr;
      // pods_of: a node whose pods() yields proxies is read as its pods.
      const auto& pods = ::preempt::pods_of((*owner_->base_)[node]);
      if constexpr (std::ranges::contiguous_range<decltype(pods)>) {
        const pod_type* first = std::ranges::data(pods);
        const pod_type* last = first + std::ranges::size(pods);
        if (std::less<>{}(&p, first) || !std::less<>{}(&p, last)) return nullptr;
        return owner_->affinity_.match_of(node, static_cast<std::size_t>(&p - first));
      } else {
        std::size_t pos = 0;
        for (const auto& q : pods) {
          if (&q == &p) return owner_->affinity_.match_of(node, pos);
          ++pos;
        }
        return nullptr;
      }
    }
    state_type(const filter_cluster* owner, typename Base::state_type base)
        : owner_(owner),
          base_(std::move(base)),
          spread_(&owner->spread_),
          affinity_(&owner->affinity_) {}
    const filter_cluster* owner_;
    std::size_t node_ = 0;
    typename Base::state_type base_;
    used_ports ports_;
    volume_filters_overlay volumes_;
    topology_spread_overlay spread_;
    inter_pod_affinity_overlay affinity_;
  };

  // Base's rejection index (preempt/rejection_index.hpp), where Base offers one: NodePorts runs
  // before Base's filter, so it answers only for a pod that wants no host port.
  template <class B>
  class base_rejection_index {
   public:
    bool prepare(const filter_cluster& c, const pod_type& p) {
      return !c.checks_ports() && base_.prepare(*c.base_, p);
    }
    node_run run_at(std::size_t i) const noexcept { return base_.run_at(i); }

   private:
    typename B::rejection_index_type base_;
  };
  using rejection_index_type =
      std::conditional_t<::preempt::detail::offers_rejection_index<Base, pod_type>,
                         base_rejection_index<Base>, void>;

  filter_cluster(const Base& base, PodFacts pod_facts, NodeFacts node_facts)
      : base_(&base), pod_facts_(std::move(pod_facts)), node_facts_(std::move(node_facts)) {}
  // The view hands its address to its states and its PreFilter state to their overlays.
  filter_cluster(const filter_cluster&) = delete;
  filter_cluster& operator=(const filter_cluster&) = delete;

  // upstream's PreFilter of the three plugins for the pod to place.
  void prefilter(const placing_pod& p, std::span<const namespace_facts> namespaces) {
    wanted_ports_ = p.host_ports;
    volumes_ = p.volumes != nullptr && p.volumes->checks() ? p.volumes : nullptr;
    const std::size_t n = base_->size();
    const auto visit_pods = [this](std::size_t i, const auto& visit) {
      for (const auto& q : ::preempt::pods_of((*base_)[i])) visit(pod_facts_(q).pod);
    };
    spread_.prefilter(
        spread_pod{p.pod.ns, p.pod.labels, p.spread, p.placement}, n,
        [this](std::size_t i) -> const node_facts& { return node_facts_(i); }, visit_pods);
    const label_set none;
    affinity_.prefilter(
        affinity_pod{p.pod.ns, p.pod.labels, p.required_affinity, p.required_anti_affinity},
        namespaces, n,
        [this, &none](std::size_t i) -> const label_set& {
          const node_facts& f = node_facts_(i);
          return f.labels != nullptr ? *f.labels : none;
        },
        visit_pods);
    reads_pods_ = checks_ports() || spread_.active() || affinity_.active() ||
                  (volumes_ != nullptr && volumes_->reads_pods());
    // NodeDeclaredFeatures: the nodes that do not declare every feature the pod requires.
    lacking_.assign(p.required_features.empty() ? 0 : n, 0);
    for (std::size_t i = 0; i < lacking_.size(); ++i) {
      const auto declared = node_facts_(i).declared_features;
      for (const std::string& f : p.required_features)
        if (std::find(declared.begin(), declared.end(), f) == declared.end()) lacking_[i] = 1;
    }
  }

  std::size_t size() const noexcept { return base_->size(); }
  decltype(auto) operator[](std::size_t i) const noexcept { return (*base_)[i]; }

  state_type make_state() const { return state_type(this, base_->make_state()); }

  // Points `state` at node i with all its pods.
  void prepare_state(std::size_t i, state_type& state) const {
    base_->prepare_state(i, state.base_);
    state.node_ = i;
    state.ports_.clear();
    if (checks_ports()) add_ports_in_use(i, state.ports_);
    state.volumes_.reset(volumes_, i);
    if (volumes_ != nullptr && volumes_->reads_pods())
      for (const auto& q : ::preempt::pods_of((*base_)[i]))
        state.volumes_.add_resident(pod_facts_(q).volumes);
    state.spread_.reset(i);
    const node_facts& f = node_facts_(i);
    state.affinity_.reset(f.labels != nullptr ? *f.labels : no_labels_);
  }

  // DynamicResources (v1.37): node i's verdict, which the node's pods do not change (the plugin
  // has no PreFilterExtensions, so the dry run frees no device); empty when the pod claims no
  // device. The statuses, and the texts their reasons view, must outlive the view's use.
  void set_dynamic_resources(std::span<const status> verdicts) noexcept {
    dynamic_resources_ = verdicts;
  }

  const topology_spread_prefilter& spread() const noexcept { return spread_; }
  const inter_pod_affinity_prefilter& affinity() const noexcept { return affinity_; }

 private:
  // NodePorts has nothing to check when the pod wants no host port: no state then tracks the
  // ports in use, and with the other two plugins skipped too, no state reads a pod's facts.
  bool checks_ports() const noexcept { return !wanted_ports_.empty(); }
  // Node i's host ports in use, as upstream's NodeInfo.UsedPorts holds them (see the header).
  void add_ports_in_use(std::size_t i, used_ports& ports) const {
    const auto& node = (*base_)[i];
    for (const auto& q : ::preempt::pods_of(node)) ports.add(pod_facts_(q).host_ports);
    if constexpr (detail::records_pod_changes<cluster_node_t<Base>, pod_type>) {
      for (const pod_type* q : node.removed_pods()) ports.remove(pod_facts_(*q).host_ports);
      for (const pod_type* q : node.added_pods()) ports.add(pod_facts_(*q).host_ports);
    }
  }
  bool lacks_features(std::size_t i) const noexcept {
    return i < lacking_.size() && lacking_[i] != 0;
  }
  // The volume plugins have something to check (their PreFilter neither skipped them all nor
  // rejected the pod: a rejection is the caller's to report on every node).
  bool checks_volumes() const noexcept { return volumes_ != nullptr; }

  const Base* base_;
  PodFacts pod_facts_;
  NodeFacts node_facts_;
  std::span<const host_port> wanted_ports_;
  const volume_filters* volumes_ = nullptr;
  bool reads_pods_ = false;    // some filter reads the facts of the pods a state adds and removes
  std::vector<char> lacking_;  // per node: lacks a required feature (empty: the pod needs none)
  topology_spread_prefilter spread_;
  inter_pod_affinity_prefilter affinity_;
  std::span<const status> dynamic_resources_;
  label_set no_labels_;
};

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_FILTER_CLUSTER_HPP
