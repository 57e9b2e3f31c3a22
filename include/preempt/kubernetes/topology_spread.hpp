// preempt/kubernetes/topology_spread.hpp - kube-scheduler's PodTopologySpread filter, with its
// PreFilter state and the AddPod/RemovePod extensions preemption relies on.
//
// Only DoNotSchedule constraints filter (ScheduleAnyway ones, and upstream's system default
// constraints, which are all ScheduleAnyway, only score). A pod without DoNotSchedule constraints
// skips the plugin. For each constraint, in order (upstream's Filter):
//   - a node without the topologyKey label: UnschedulableAndUnresolvable,
//     "node(s) didn't match pod topology spread constraints (missing required label)";
//   - skew = matching pods in the node's domain + (1 if the constraint's selector matches the pod
//     itself) - the minimum over all domains (0 while there are fewer domains than minDomains);
//     skew > maxSkew: Unschedulable, "node(s) didn't match pod topology spread constraints".
// The selector is the labelSelector with matchLabelKeys merged in (key=value for each listed key
// the pod has a label of); a nil selector matches nothing.
//
// topology_spread_prefilter is upstream's PreFilter state, computed once per pod to place over
// the whole cluster and read-only afterwards (it may be shared by threads);
// topology_spread_overlay is the per-node what-if part (upstream's updateWithPod), which keeps
// only the changed counts. Which nodes and pods count is at each.
//
// Complexity: prefilter O(n · c + p · c · s) for n nodes, p pods, c constraints, s selector size;
// reset O(c), update O(c · (s + t)) for t domains touched, filter O(c · t). Allocation: in
// prefilter; an overlay's buffers grow once. No exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_TOPOLOGY_SPREAD_HPP
#define PREEMPT_KUBERNETES_TOPOLOGY_SPREAD_HPP

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/filters.hpp"
#include "preempt/kubernetes/labels.hpp"
#include "preempt/kubernetes/pod_facts.hpp"
#include "preempt/kubernetes/taints.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

inline constexpr std::string_view spread_reason =
    "node(s) didn't match pod topology spread constraints";
inline constexpr std::string_view spread_missing_label_reason =
    "node(s) didn't match pod topology spread constraints (missing required label)";

enum class node_inclusion_policy : std::uint8_t { honor, ignore };

// One v1.TopologySpreadConstraint.
struct spread_constraint {
  std::int32_t max_skew = 1;
  std::string topology_key;
  bool do_not_schedule =
      false;  // whenUnsatisfiable is DoNotSchedule (else: ScheduleAnyway, or unset)
  std::optional<label_selector> selector;                     // nullopt: nil
  std::optional<std::int32_t> min_domains;                    // nullopt: 1
  std::optional<node_inclusion_policy> node_affinity_policy;  // nullopt: Honor
  std::optional<node_inclusion_policy> node_taints_policy;    // nullopt: Ignore
  std::vector<std::string> match_label_keys;
};

// The pod to place, as PodTopologySpread reads it.
struct spread_pod {
  std::string_view ns;
  const label_set* labels = nullptr;
  std::span<const spread_constraint> constraints;
  const pod_placement* placement = nullptr;  // nodeSelector, node affinity, tolerations
};

// topology_spread_prefilter is upstream's PreFilter state, computed once per pod to place over
// the whole cluster: a node takes part when it has the topology keys of all constraints and, per
// constraint, passes nodeAffinityPolicy (Honor, the default: the pod's nodeSelector and required
// node affinity) and nodeTaintsPolicy (Honor: no untolerated NoSchedule/NoExecute taint; Ignore,
// the default); its domain counts the pods of the pod's namespace that the selector matches
// (terminating pods not counted; an empty selector counts none). It is read-only afterwards and
// may be shared by threads.
class topology_spread_prefilter {
 public:
  // Computes the state for `pod` over nodes [0, node_count): node_at(i) returns node i's
  // node_facts; pods_at(i, visit) calls visit(const pod_facts&) for each pod of node i.
  template <class NodeAt, class PodsAt>
  void prefilter(const spread_pod& pod, std::size_t node_count, NodeAt&& node_at,
                 PodsAt&& pods_at) {
    constraints_.clear();
    ns_ = std::string(pod.ns);
    const label_set none;
    const label_set& own = pod.labels != nullptr ? *pod.labels : none;
    for (const spread_constraint& c : pod.constraints) {
      if (!c.do_not_schedule) continue;
      constraint k;
      k.max_skew = c.max_skew;
      k.key = c.topology_key;
      k.min_domains = c.min_domains.value_or(1);
      k.honor_affinity = c.node_affinity_policy.value_or(node_inclusion_policy::honor) ==
                         node_inclusion_policy::honor;
      k.honor_taints = c.node_taints_policy.value_or(node_inclusion_policy::ignore) ==
                       node_inclusion_policy::honor;
      k.selector = c.selector;
      if (k.selector) {
        for (const std::string& key : c.match_label_keys)
          if (const std::string* v = own.find(key)) k.selector->match_labels.emplace_back(key, *v);
      }
      k.self_match = k.matches(own);
      constraints_.push_back(std::move(k));
    }
    const std::size_t c = constraints_.size();
    node_domain_.assign(node_count * c, -1);
    node_counted_.assign(node_count * c, 0);
    node_has_keys_.assign(node_count, 0);
    if (c == 0) return;
    // Domains per constraint: collect (value, count) from the nodes that take part.
    std::vector<std::vector<std::pair<std::string_view, std::int64_t>>> raw(c);
    for (std::size_t i = 0; i < node_count; ++i) {
      const node_facts& n = node_at(i);
      const label_set& labels = n.labels != nullptr ? *n.labels : none;
      bool all = true;
      for (const constraint& k : constraints_)
        if (labels.find(k.key) == nullptr) all = false;
      node_has_keys_[i] = all ? 1 : 0;
      if (!all) continue;
      for (std::size_t j = 0; j < c; ++j) {
        const constraint& k = constraints_[j];
        if (k.honor_affinity && pod.placement != nullptr &&
            !matches_node_selector_and_affinity(pod.placement->node_selector_map,
                                                pod.placement->required_node_affinity, labels,
                                                n.name))
          continue;
        if (k.honor_taints &&
            first_untolerated(n.taints,
                              pod.placement != nullptr
                                  ? std::span<const toleration>(pod.placement->tolerations)
                                  : std::span<const toleration>()) != nullptr)
          continue;
        node_counted_[i * c + j] = 1;
        std::int64_t count = 0;
        if (k.selector && !k.selector->empty())
          pods_at(i, [&](const pod_facts& p) {
            if (!p.terminating && p.ns == pod.ns && k.matches(p.label_or_empty())) ++count;
          });
        raw[j].emplace_back(*labels.find(k.key), count);
      }
    }
    for (std::size_t j = 0; j < c; ++j) {
      constraint& k = constraints_[j];
      auto& r = raw[j];
      std::sort(r.begin(), r.end());
      k.domains.clear();
      for (const auto& [v, n] : r) {
        if (!k.domains.empty() && k.domains.back().first == v)
          k.domains.back().second += n;
        else
          k.domains.emplace_back(std::string(v), n);
      }
      constexpr std::int64_t none_yet = std::numeric_limits<std::int32_t>::max();
      k.min1 = k.min2 = none_yet;
      k.min1_domain = k.min2_domain = -1;
      for (std::size_t d = 0; d < k.domains.size(); ++d) {
        const std::int64_t n = k.domains[d].second;
        if (n < k.min1) {
          k.min2 = k.min1;
          k.min2_domain = k.min1_domain;
          k.min1 = n;
          k.min1_domain = static_cast<std::int64_t>(d);
        } else if (n < k.min2) {
          k.min2 = n;
          k.min2_domain = static_cast<std::int64_t>(d);
        }
      }
    }
    for (std::size_t i = 0; i < node_count; ++i) {
      const node_facts& n = node_at(i);
      const label_set& labels = n.labels != nullptr ? *n.labels : none;
      for (std::size_t j = 0; j < c; ++j) {
        const std::string* v = labels.find(constraints_[j].key);
        node_domain_[i * c + j] = v != nullptr ? constraints_[j].domain_of(*v) : missing_label;
      }
    }
  }

  // Whether the plugin filters at all (the pod has DoNotSchedule constraints).
  bool active() const noexcept { return !constraints_.empty(); }
  std::size_t constraint_count() const noexcept { return constraints_.size(); }

  // The constraints whose domain counts pod `p` of node `node` (as the overlay's update_on counts
  // it): visit(topology_key) for each, in order. O(c · s).
  template <class Visit>
  void for_each_counting_constraint(std::size_t node, const pod_facts& p, Visit&& visit) const {
    if (!active() || p.ns != ns_ || !node_has_keys_[node]) return;
    const std::size_t c = constraints_.size();
    for (std::size_t j = 0; j < c; ++j)
      if (node_counted_[node * c + j] && node_domain_[node * c + j] >= 0 &&
          constraints_[j].matches(p.label_or_empty()))
        visit(std::string_view(constraints_[j].key));
  }

 private:
  friend class topology_spread_overlay;
  struct constraint {
    std::int32_t max_skew = 1;
    std::string key;
    std::int32_t min_domains = 1;
    bool honor_affinity = true;
    bool honor_taints = false;
    bool self_match = false;
    std::optional<label_selector> selector;
    std::vector<std::pair<std::string, std::int64_t>> domains;  // sorted by value
    // upstream's critical paths: the two smallest counts and their domains (-1: none yet).
    std::int64_t min1 = 0, min2 = 0, min1_domain = -1, min2_domain = -1;

    bool matches(const label_set& labels) const {
      return selector && kubernetes::matches(*selector, labels);
    }
    std::int64_t domain_of(std::string_view v) const noexcept {
      const auto it =
          std::lower_bound(domains.begin(), domains.end(), v,
                           [](const auto& d, std::string_view x) { return d.first < x; });
      return it != domains.end() && it->first == v ? it - domains.begin() : -1;
    }
  };
  std::vector<constraint> constraints_;
  std::string ns_;
  static constexpr std::int64_t missing_label = -2;
  std::vector<std::int64_t> node_domain_;  // node × constraint: its domain, -1 none, missing_label
  std::vector<char> node_counted_;         // node × constraint: the node takes part
  std::vector<char> node_has_keys_;        // node: it has every topology key
};

// topology_spread_overlay is the per-node what-if part: reset(i) for node i, then update(pod, ±1)
// as victims are removed and pods added back (upstream's updateWithPod: pods of the namespace that
// the selector matches, on a node that takes part, terminating or not), then filter();
// update_on(node, pod, ±1) for a pod of another node (a pod group's member evicted with its
// group: upstream calls RemovePod/AddPod with that node). It keeps the changed counts only (one
// delta per domain touched) and upstream's two critical paths, updated as upstream updates them.
class topology_spread_overlay {
 public:
  explicit topology_spread_overlay(const topology_spread_prefilter* pre = nullptr) noexcept
      : pre_(pre) {}

  // Starts over on node i as the prefilter saw it.
  void reset(std::size_t i) {
    node_ = i;
    changed_.clear();
    if (pre_ == nullptr) return;
    paths_.resize(pre_->constraints_.size());
    for (std::size_t j = 0; j < paths_.size(); ++j) {
      const auto& k = pre_->constraints_[j];
      paths_[j] = {path{k.min1_domain, k.min1}, path{k.min2_domain, k.min2}};
    }
  }

  // upstream's updateWithPod for a pod added (+1) or removed (-1) on the current node.
  void update(const pod_facts& p, std::int64_t delta) { update_on(node_, p, delta); }

  // The same for a pod of node `node`, which may be another node than the current one (a member
  // of a pod group evicted whole): upstream's RemovePod/AddPod with that node's NodeInfo.
  void update_on(std::size_t node, const pod_facts& p, std::int64_t delta) {
    if (pre_ == nullptr || !pre_->active() || p.ns != pre_->ns_ || !pre_->node_has_keys_[node])
      return;
    const std::size_t c = pre_->constraints_.size();
    for (std::size_t j = 0; j < c; ++j) {
      if (!pre_->node_counted_[node * c + j] || !pre_->constraints_[j].matches(p.label_or_empty()))
        continue;
      const std::int64_t d = pre_->node_domain_[node * c + j];
      if (d < 0) continue;  // a node that takes part always has its domain
      std::int64_t& changed = change_of(j, d);
      changed += delta;
      update_paths(j, d,
                   pre_->constraints_[j].domains[static_cast<std::size_t>(d)].second + changed);
    }
  }

  // The filter on the current node.
  status filter() const {
    if (pre_ == nullptr || !pre_->active()) return status::ok();
    const std::size_t c = pre_->constraints_.size();
    for (std::size_t j = 0; j < c; ++j) {
      const auto& k = pre_->constraints_[j];
      const std::int64_t d = pre_->node_domain_[node_ * c + j];
      if (d == topology_spread_prefilter::missing_label)
        return status::unresolvable(spread_missing_label_reason);
      const std::int64_t own =
          d >= 0 ? k.domains[static_cast<std::size_t>(d)].second + change(j, d) : 0;
      const std::int64_t min =
          static_cast<std::int64_t>(k.domains.size()) < k.min_domains ? 0 : paths_[j][0].num;
      if (own + (k.self_match ? 1 : 0) - min > k.max_skew)
        return status::unschedulable(spread_reason);
    }
    return status::ok();
  }

 private:
  struct path {
    std::int64_t domain;  // -1: none
    std::int64_t num;
  };
  struct changed_count {
    std::size_t constraint;
    std::int64_t domain;
    std::int64_t delta;
  };
  std::int64_t change(std::size_t j, std::int64_t d) const noexcept {
    for (const changed_count& x : changed_)
      if (x.constraint == j && x.domain == d) return x.delta;
    return 0;
  }
  std::int64_t& change_of(std::size_t j, std::int64_t d) {
    for (changed_count& x : changed_)
      if (x.constraint == j && x.domain == d) return x.delta;
    changed_.push_back(changed_count{j, d, 0});
    return changed_.back().delta;
  }
  // upstream's criticalPaths.update: the two paths are kept approximately, as upstream keeps
  // them (a path whose count grows is not replaced by a third domain it now exceeds).
  void update_paths(std::size_t j, std::int64_t d, std::int64_t num) {
    auto& p = paths_[j];
    if (p[0].domain == d || p[1].domain == d) {
      (p[0].domain == d ? p[0] : p[1]).num = num;
      if (p[0].num > p[1].num) std::swap(p[0], p[1]);
    } else if (num < p[0].num) {
      p[1] = p[0];
      p[0] = path{d, num};
    } else if (num < p[1].num) {
      p[1] = path{d, num};
    }
  }

  const topology_spread_prefilter* pre_;
  std::size_t node_ = 0;
  std::vector<std::array<path, 2>> paths_;  // per constraint
  std::vector<changed_count> changed_;      // the domains whose count changed, and by how much
};

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_TOPOLOGY_SPREAD_HPP
