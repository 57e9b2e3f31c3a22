// examples/whatif/analysis/group_placement.hpp - the tool's placement of a pending pod group (first
// fit) through kube-scheduler's filters, for workload::pod_group_evaluator.
//
// first_fit_placement is the workload::placement_function of `--pod-group` (group_placement_method
// in the README): the pending members in input order, each on the first node in input order that
// passes its node filters (the caller's per-member rows: NodeUnschedulable, NodeName,
// TaintToleration, NodeAffinity) and then, with the pods nominated there,
// kubernetes::filter_cluster's (NodePorts, NodeResourcesFit, PodTopologySpread, InterPodAffinity,
// NodeDeclaredFeatures), as upstream's pod-group algorithm runs them:
//   - each member's PreFilter (filter_cluster::prefilter) reads the cluster as the placement sees
//     it: the potential victims removed (the evaluator's states say which: recording_cluster) and
//     the members placed before it assumed (counted by spread and affinity, their anti-affinity
//     binding the later ones);
//   - an assumed member's nomination no longer counts (the scheduler's assume deletes it) while
//     the later members are placed; the placement reverts that afterwards, as upstream does;
//   - each placed member keeps its state (assignment_state(k)): the evaluator's reprieve adds the
//     victims back to it, through the PreFilter extensions for pods of other nodes.
// Success: at least one member placed and, for a gang, at least `needed` (minCount less the
// scheduled members). Under v1.38, inside a preemption, the evaluator hands it a
// workload::victim_cost_ranking: each member then tries the nodes in RankNodes' order (fewest
// and least important victims to condemn first, input order among equals) and condemns the
// victims of the node it takes (DefaultPreemption's Reserve); still first fit, no scoring.
//
// Complexity per call: O(m · (p + n · f)) for m members, p pods, n nodes and f one fit check with
// the nominated pods, plus each member's PreFilter. Allocates per call (example code). Not
// thread-safe; one evaluation at a time.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_GROUP_PLACEMENT_HPP
#define PREEMPT_WHATIF_GROUP_PLACEMENT_HPP

#include <algorithm>
#include <compare>
#include <cstddef>
#include <iterator>
#include <memory>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/kubernetes/filter_cluster.hpp"
#include "preempt/preempt.hpp"

namespace whatif::group {

namespace wl = preempt::workload;

// Base, with node states that remember which of the node's pods they no longer count and which
// others they count: the pod-group evaluator removes every potential victim from its states
// before it places the group, and the placement rebuilds that victim-free cluster from them.
template <preempt::cluster Base>
class recording_cluster {
 public:
  using pod_type = preempt::cluster_pod_t<Base>;

  class state_type {
   public:
    preempt::status remove_pod(const pod_type& p) {
      if (preempt::status st = base_.remove_pod(p); !st) return st;
      if (!forget(added_, &p)) removed_.push_back(&p);
      return preempt::status::ok();
    }
    preempt::status add_pod(const pod_type& p) {
      if (preempt::status st = base_.add_pod(p); !st) return st;
      if (!forget(removed_, &p)) added_.push_back(&p);
      return preempt::status::ok();
    }
    preempt::status fits(const pod_type& p) { return base_.fits(p); }
    // The node's pods this state no longer counts, and the pods it counts beyond them.
    std::span<const pod_type* const> removed() const noexcept { return removed_; }
    std::span<const pod_type* const> added() const noexcept { return added_; }

   private:
    friend class recording_cluster;
    explicit state_type(typename Base::state_type base) : base_(std::move(base)) {}
    static bool forget(std::vector<const pod_type*>& v, const pod_type* p) {
      const auto it = std::find(v.begin(), v.end(), p);
      if (it == v.end()) return false;
      v.erase(it);
      return true;
    }
    typename Base::state_type base_;
    std::vector<const pod_type*> removed_, added_;
  };

  explicit recording_cluster(const Base& base) : base_(&base) {}
  std::size_t size() const noexcept { return base_->size(); }
  decltype(auto) operator[](std::size_t i) const noexcept { return (*base_)[i]; }
  state_type make_state() const { return state_type(base_->make_state()); }
  void prepare_state(std::size_t i, state_type& s) const {
    base_->prepare_state(i, s.base_);
    s.removed_.clear();
    s.added_.clear();
  }

 private:
  const Base* base_;
};

// The cluster as one member's PreFilter and filters see it: Base's nodes less the pods removed,
// with the pods added (the members placed before), each node's pods listed, and what was removed
// and added (upstream's NodeInfo drops a removed pod's host ports though another pod of the node
// holds them too: seed 5755 of the conformance draw, a port held twice on one node). A
// filter_cluster keeps positions into these lists, so a changed_cluster is not changed once a view
// reads it.
template <preempt::cluster Base>
class changed_cluster {
 public:
  using pod_type = preempt::cluster_pod_t<Base>;

  class node_type {
   public:
    std::string_view name() const { return preempt::name_of(*base_); }
    // Pointers: a node's pods() may yield proxies (preempt/pod.hpp, read through pods_of).
    std::span<const pod_type* const> pods() const { return {pods_.data(), pods_.size()}; }
    // How pods() came to be (filter_cluster replays them on the host ports in use, which
    // upstream's NodeInfo keeps as a set): the node's pods removed, then the pods added.
    std::span<const pod_type* const> removed_pods() const { return removed_; }
    std::span<const pod_type* const> added_pods() const { return added_; }

   private:
    friend class changed_cluster;
    const preempt::cluster_node_t<Base>* base_ = nullptr;
    std::vector<const pod_type*> pods_, removed_, added_;
  };
  using state_type = typename Base::state_type;

  // Base as it is, less `removed(i)` on each node i (pods of that node).
  template <class Removed>
  changed_cluster(const Base& base, Removed&& removed) : base_(&base), nodes_(base.size()) {
    std::vector<const pod_type*> gone;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      node_type& n = nodes_[i];
      n.base_ = &base[i];
      const auto r = removed(i);
      n.removed_.assign(r.begin(), r.end());
      gone.assign(r.begin(), r.end());
      std::sort(gone.begin(), gone.end());
      for (const pod_type& p : preempt::pods_of(base[i]))
        if (!std::binary_search(gone.begin(), gone.end(), &p)) n.pods_.push_back(&p);
    }
  }
  changed_cluster(const changed_cluster&) = default;

  // Counts p on node i from now on (an assumed member).
  void add(std::size_t i, const pod_type& p) {
    nodes_[i].pods_.push_back(&p);
    nodes_[i].added_.push_back(&p);
  }

  std::size_t size() const noexcept { return nodes_.size(); }
  const node_type& operator[](std::size_t i) const noexcept { return nodes_[i]; }
  state_type make_state() const { return base_->make_state(); }
  void prepare_state(std::size_t i, state_type& s) const {
    base_->prepare_state(i, s);
    for (const pod_type* p : nodes_[i].removed_) (void)s.remove_pod(*p);
    for (const pod_type* p : nodes_[i].added_) (void)s.add_pod(*p);
  }

 private:
  const Base* base_;
  std::vector<node_type> nodes_;
};

// A member of the group as the placement reads it: the pod as the filters read it, and per node
// whether the node filters pass.
struct placing_member {
  preempt::kubernetes::placing_pod pod;
  std::vector<char> allowed;
};

template <preempt::cluster Base, class PodFacts, class NodeFacts, class Nominated>
class first_fit_placement {
 public:
  using pod_type = preempt::cluster_pod_t<Base>;
  using view_type = preempt::kubernetes::filter_cluster<changed_cluster<Base>, PodFacts, NodeFacts>;
  using state_type = typename view_type::state_type;

  // `nominated(i)`: the pods nominated to node i (a range of const pod_type*). Everything given
  // must outlive the placement and the evaluation that calls it.
  first_fit_placement(const Base& base, PodFacts pod_facts, NodeFacts node_facts,
                      std::span<const preempt::kubernetes::namespace_facts> namespaces,
                      Nominated nominated, std::span<const placing_member> members,
                      std::size_t needed)
      : base_(&base),
        pod_facts_(std::move(pod_facts)),
        node_facts_(std::move(node_facts)),
        namespaces_(namespaces),
        nominated_(std::move(nominated)),
        members_(members),
        needed_(needed) {}

  template <class S>
  preempt::status operator()(std::span<const pod_type* const> members, wl::node_states<S>& states,
                             std::span<std::size_t> out) {
    return place(members, states, out, static_cast<wl::victim_cost_ranking<>*>(nullptr));
  }

  // v1.38's placement inside a preemption: each member tries the nodes in RankNodes' order (the
  // victims it would condemn there, then input order) and condemns the victims of the node it
  // takes (Reserve); the condemnations are undone before it returns (upstream reverts them).
  template <class S, class Ranking>
  preempt::status operator()(std::span<const pod_type* const> members, wl::node_states<S>& states,
                             std::span<std::size_t> out, Ranking& ranking) {
    const std::size_t mark = ranking.condemn_mark();
    const preempt::status st = place(members, states, out, &ranking);
    ranking.release(mark);
    return st;
  }

  // Whether `q` is one of the assumed members. By identity, not address: the nominations are the
  // ledger's own copies of the pods.
  static bool is_assumed(std::span<const pod_type* const> assumed, const pod_type& q) {
    return std::any_of(assumed.begin(), assumed.end(), [&](const pod_type* m) {
      return ::preempt::uid_of(*m) == ::preempt::uid_of(q);
    });
  }

  // Member k's state on its node, as its filters ran when it was placed (the last call placed it).
  state_type& assignment_state(std::size_t k) { return *assignments_[k]->state; }

  // The failure message of the last call (it outlives the evaluation's decision).
  const std::string& message() const noexcept { return message_; }

 private:
  template <class S, class Ranking>
  preempt::status place(std::span<const pod_type* const> members, wl::node_states<S>& states,
                        std::span<std::size_t> out, Ranking* ranking) {
    assignments_.clear();
    assignments_.resize(members.size());
    changed_cluster<Base> now(*base_, [&](std::size_t i) { return states[i].removed(); });
    for (std::size_t i = 0; i < states.size(); ++i)
      for (const pod_type* p : states[i].added()) now.add(i, *p);
    std::vector<const pod_type*> assumed, nominees;
    std::size_t placed = 0;
    for (std::size_t k = 0; k < members.size(); ++k) {
      out[k] = wl::no_node;
      auto a = std::make_unique<assignment>(now, pod_facts_, node_facts_);
      a->view.prefilter(members_[k].pod, namespaces_);
      a->state.emplace(a->view.make_state());
      order_.clear();
      for (std::size_t i = 0; i < states.size(); ++i)
        if (members_[k].allowed[i]) order_.push_back(i);
      if (ranking != nullptr)
        std::stable_sort(order_.begin(), order_.end(),
                         [&](std::size_t x, std::size_t y) { return ranking->compare(x, y) < 0; });
      for (const std::size_t i : order_) {
        nominees.clear();
        for (const pod_type* q : nominated_(i))
          if (!is_assumed(assumed, *q)) nominees.push_back(q);
        a->view.prepare_state(i, *a->state);
        if (preempt::fits_with_nominated(*a->state, *members[k], nominees).is_success()) {
          out[k] = i;
          break;
        }
      }
      if (out[k] == wl::no_node) continue;
      if (ranking != nullptr) (void)ranking->condemn(out[k]);
      now.add(out[k], *members[k]);
      assumed.push_back(members[k]);
      assignments_[k] = std::move(a);
      ++placed;
    }
    const std::size_t needed = std::max<std::size_t>(needed_, 1);
    if (placed >= needed) return preempt::status::ok();
    message_ = std::to_string(placed) + " of " + std::to_string(members.size()) +
               " pending member(s) placed, " + std::to_string(needed) + " needed";
    return preempt::status::unschedulable(message_);
  }

  struct assignment {
    assignment(const changed_cluster<Base>& now, const PodFacts& p, const NodeFacts& n)
        : cluster(now), view(cluster, p, n) {}
    changed_cluster<Base> cluster;
    view_type view;
    std::optional<state_type> state;
  };

  const Base* base_;
  PodFacts pod_facts_;
  NodeFacts node_facts_;
  std::span<const preempt::kubernetes::namespace_facts> namespaces_;
  Nominated nominated_;
  std::span<const placing_member> members_;
  std::size_t needed_;
  std::vector<std::unique_ptr<assignment>> assignments_;
  std::vector<std::size_t> order_;  // one member's nodes in the order it tries them
  std::string message_;
};

}  // namespace whatif::group

#endif  // PREEMPT_WHATIF_GROUP_PLACEMENT_HPP
