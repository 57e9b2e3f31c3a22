// preempt/workload/placement.hpp - the caller's placement of a pod group (upstream's
// PodGroupSchedulingFunc, the pod-group scheduling algorithm re-run on the victim-free cluster).
//
// Workload-aware preemption places the group once, on the cluster with every potential victim
// removed, and only then decides whom to reprieve. Upstream places with the profile's filters and
// scores; the library leaves placement to the caller. A callable F models
// `placement_function<F, P, S>` when
//   f(members, states, out) -> status
// takes the group's unscheduled members in placement order (std::span<const P* const>), the
// what-if state of every node (node_states<S>: states.size(), states[i]) and an output span with
// one entry per member, and writes each member's node index or no_node (not placed). It returns
// success when the placement is feasible (for a gang: at least minCount placed; basic: at least
// one) and otherwise the status upstream's algorithm would give (unschedulable, an error, ...),
// which the evaluator returns unchanged. It may add and remove pods on the states while it works
// (a member placed earlier is assumed for the next), but must leave every state as it found it.
//
// Under upstream_profile::kubernetes_1_38 the evaluator calls f(members, states, out, ranking)
// instead when F takes it: `ranking` is a workload::victim_cost_ranking (victim_cost_ranking.hpp),
// v1.38's PodGroupPreemptionState. A placement that places as v1.38 does tries each member's nodes
// in its order (RankNodes: ranking.compare) and calls ranking.condemn(node) for each member it
// places (Reserve), ranking.release(mark) for one it takes back (Unreserve).
//
// Optionally the placement keeps the state it filtered each placed member with (upstream's
// ProposedAssignment and its CycleState, made by PreFilter on the victim-free cluster with the
// members before it assumed). F models `assignment_states<F, P>` when, after a successful call,
// f.assignment_state(k) returns member k's state on its node: a node_state for P that counts the
// members placed before k, and, when its filters read pods of other nodes (spread, affinity),
// has add_pod_elsewhere(p, node) and remove_pod_elsewhere(p, node) (the PreFilter AddPod and
// RemovePod extensions for a pod of another node). The evaluator then reprieves as upstream does
// with those cycle states (group_evaluator.hpp); without them, with the shared node states.
//
// Header-only declarations; no allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WORKLOAD_PLACEMENT_HPP
#define PREEMPT_WORKLOAD_PLACEMENT_HPP

#include <concepts>
#include <cstddef>
#include <span>
#include <type_traits>

#include "preempt/config.hpp"
#include "preempt/node_state.hpp"
#include "preempt/status.hpp"
#include "preempt/workload/group_preemptor.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace workload {

// The what-if state of every node of the cluster, by node index.
template <class S>
class node_states {
 public:
  constexpr explicit node_states(std::span<S> states) noexcept : states_(states) {}
  constexpr std::size_t size() const noexcept { return states_.size(); }
  constexpr S& operator[](std::size_t i) const noexcept { return states_[i]; }

 private:
  std::span<S> states_;
};

template <class F, class P, class S>
concept placement_function = requires(F& f, std::span<const P* const> members,
                                      node_states<S>& states, std::span<std::size_t> out) {
  { f(members, states, out) } -> std::convertible_to<status>;
};

template <class F, class P>
concept assignment_states = requires(F& f, std::size_t k) {
  f.assignment_state(k);
  requires node_state<std::remove_cvref_t<decltype(f.assignment_state(k))>, P>;
};

}  // namespace workload
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_WORKLOAD_PLACEMENT_HPP
