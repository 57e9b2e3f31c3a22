// preempt/workload/group_preemptor.hpp - a pod group as the preemptor (upstream's
// podGroupPreemptor, newPodGroupPreemptor, resolvePreemptionPolicy).
//
// `group_preemptor<P>` is what the pod-group evaluator reads about the group being scheduled:
//   priority         the group's priority (PodGroupPriority, CompositePodGroupPriority; unset = 0)
//   policy           the group's resolved preemption policy (resolve_preemption_policy)
//   kind             pod_group, or composite_pod_group for a CompositePodGroup root
//   members          the group's unscheduled member pods of this cycle, in placement order
//                    (already scheduled members are not part of it; they stay in the cluster and
//                    are never victims, having the group's priority)
//   nominated_nodes  empty, or per member its nominated node (status.nominatedNodeName) or
//                    no_node
// The spans are the caller's; they must outlive the evaluation and its decision.
//
// resolve_preemption_policy(group_policy, members, group_policy_enabled) is upstream's rule: with
// the PodGroupPreemptionPolicy feature on, the group's spec.preemptionPolicy (unset means
// PreemptLowerPriority, whatever the members say); with it off, Never when any member's
// spec.preemptionPolicy is Never, else PreemptLowerPriority.
//
// Complexity O(members). No allocation; no exceptions. Values: thread-safe to copy.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WORKLOAD_GROUP_PREEMPTOR_HPP
#define PREEMPT_WORKLOAD_GROUP_PREEMPTOR_HPP

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>

#include "preempt/config.hpp"
#include "preempt/pod.hpp"
#include "preempt/workload/victim_unit.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace workload {

// "No node": a member without a nomination, or without a place in a placement.
inline constexpr std::size_t no_node = std::numeric_limits<std::size_t>::max();

template <pod P>
struct group_preemptor {
  std::int32_t priority = 0;
  preemption_policy policy = preemption_policy::preempt_lower_priority;
  unit_kind kind = unit_kind::pod_group;
  std::span<const P* const> members;
  std::span<const std::size_t> nominated_nodes;

  // Member i's nominated node, or no_node.
  constexpr std::size_t nominated_node(std::size_t i) const noexcept {
    return i < nominated_nodes.size() ? nominated_nodes[i] : no_node;
  }
};

struct resolve_preemption_policy_fn {
  template <pod P>
  constexpr preemption_policy operator()(std::optional<preemption_policy> group_policy,
                                         std::span<const P* const> members,
                                         bool group_policy_enabled) const {
    if (group_policy_enabled)
      return group_policy.value_or(preemption_policy::preempt_lower_priority);
    for (const P* m : members)
      if (::preempt::preemption_policy_of(*m) == preemption_policy::never)
        return preemption_policy::never;
    return preemption_policy::preempt_lower_priority;
  }
};
inline constexpr resolve_preemption_policy_fn resolve_preemption_policy{};

}  // namespace workload
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_WORKLOAD_GROUP_PREEMPTOR_HPP
