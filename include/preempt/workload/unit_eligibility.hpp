// preempt/workload/unit_eligibility.hpp - which units may be preempted, and whether a pod group
// may preempt now (upstream's isPreemptionAllowed, isPreemptionAllowedAcrossAllVictimNodes,
// preemptorEligibleToPreemptOthers and isOngoingPreemption).
//
// group_eligibility(preemptor, cluster, groups):
//   - policy Never: not_eligible ("not eligible due to preemptionPolicy=Never.");
//   - some member's nominated node hosts a pod of lower effective priority than the group that is
//     terminating because a scheduler preempted it: ongoing (upstream v1.37 answers Success
//     "ongoing preemption on nominated nodes" and keeps every member's current nomination,
//     without searching for victims). Terminating pods on other nodes do not count, and a
//     nominated node that became unresolvable gives no escape (as upstream);
//   - otherwise eligible.
// is_potential_victim_unit(unit, priority): strictly lower priority (terminating pods included),
// the only condition of the pod-group path.
// unit_eligible_everywhere(unit, members, cluster, preemptor, policy): the single-pod path's
// condition: strictly lower priority than the preemptor pod, and the policy's
// is_eligible_unit(node, unit, members, preemptor) (upstream IsEligiblePod, called once per
// affected node) on every node that hosts a member; a policy without it but with the single-pod
// hook is_eligible_victim(node, pod, preemptor) (preempt/policy.hpp) is asked about every member
// on its node, so that clusters without groups decide as before.
//
// Complexity: group_eligibility is O(m² + pods on the members' nominated nodes · max_tree_depth)
// for m members (each distinct nominated node is visited once); unit_eligible_everywhere O(k²) for
// a unit of k members. No allocation; no exceptions of their own.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WORKLOAD_UNIT_ELIGIBILITY_HPP
#define PREEMPT_WORKLOAD_UNIT_ELIGIBILITY_HPP

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "preempt/cluster.hpp"
#include "preempt/config.hpp"
#include "preempt/pod.hpp"
#include "preempt/workload/group_preemptor.hpp"
#include "preempt/workload/group_set.hpp"
#include "preempt/workload/victim_unit.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace workload {

inline constexpr std::string_view not_eligible_never =
    "not eligible due to preemptionPolicy=Never.";
inline constexpr std::string_view ongoing_preemption = "ongoing preemption on nominated nodes";

enum class group_eligibility_kind : std::uint8_t { eligible, not_eligible, ongoing };

struct group_eligibility_fn {
  template <cluster C, class W>
    requires group_set<W, cluster_pod_t<C>>
  constexpr group_eligibility_kind operator()(const group_preemptor<cluster_pod_t<C>>& preemptor,
                                              const C& cluster, const W& groups) const {
    using P = cluster_pod_t<C>;
    if (preemptor.policy == preemption_policy::never) return group_eligibility_kind::not_eligible;
    const std::size_t nodes = static_cast<std::size_t>(cluster.size());
    for (std::size_t i = 0; i < preemptor.members.size(); ++i) {
      const std::size_t n = preemptor.nominated_node(i);
      if (n >= nodes) continue;
      bool seen = false;  // upstream visits each distinct nominated node once
      for (std::size_t j = 0; j < i && !seen; ++j) seen = preemptor.nominated_node(j) == n;
      if (seen) continue;
      for (const P& p : ::preempt::pods_of(cluster[n]))
        if (::preempt::workload::effective_priority(groups, p) < preemptor.priority &&
            ::preempt::is_terminating_by_preemption(p))
          return group_eligibility_kind::ongoing;
    }
    return group_eligibility_kind::eligible;
  }
};
inline constexpr group_eligibility_fn group_eligibility{};

struct is_potential_victim_unit_fn {
  constexpr bool operator()(const victim_unit& unit,
                            std::int32_t preemptor_priority) const noexcept {
    return unit.priority < preemptor_priority;
  }
};
inline constexpr is_potential_victim_unit_fn is_potential_victim_unit{};

struct unit_eligible_everywhere_fn {
  template <cluster C, class Policy>
  constexpr bool operator()(const victim_unit& unit,
                            std::span<const unit_member<cluster_pod_t<C>>> members,
                            const C& cluster, const cluster_pod_t<C>& preemptor,
                            const Policy& policy) const {
    if (unit.priority >= ::preempt::priority_of(preemptor)) return false;
    if constexpr (requires {
                    policy.is_eligible_unit(cluster[std::size_t{}], unit, members, preemptor);
                  }) {
      for (std::size_t k = 0; k < members.size(); ++k) {
        bool seen = false;  // once per affected node
        for (std::size_t j = 0; j < k && !seen; ++j) seen = members[j].node == members[k].node;
        if (seen) continue;
        if (!policy.is_eligible_unit(cluster[members[k].node], unit, members, preemptor))
          return false;
      }
    } else if constexpr (requires {
                           policy.is_eligible_victim(cluster[std::size_t{}], preemptor, preemptor);
                         }) {
      for (const unit_member<cluster_pod_t<C>>& m : members)
        if (!policy.is_eligible_victim(cluster[m.node], *m.pod, preemptor)) return false;
    }
    return true;
  }
};
inline constexpr unit_eligible_everywhere_fn unit_eligible_everywhere{};

}  // namespace workload
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_WORKLOAD_UNIT_ELIGIBILITY_HPP
