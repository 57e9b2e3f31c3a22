// preempt/eligibility.hpp - may this pod preempt others now? (upstream's
// PodEligibleToPreemptOthers)
//
// check_eligibility(preemptor, nominated_node, nominated_node_status, policy):
//   1. A pod whose preemption policy is Never is not eligible:
//      "not eligible due to preemptionPolicy=Never."
//   2. A pod already nominated to a node N (pass N, else nullptr) is eligible again when N is now
//      UnschedulableAndUnresolvable for it. Otherwise, if N hosts a pod that would be a legal
//      victim (strictly lower priority and eligible under the policy) and is terminating because
//      of preemption, the earlier preemption is still under way and the pod is not eligible:
//      "not eligible due to a terminating pod on the nominated node."
//   3. Otherwise the pod is eligible.
// Returns status::ok() or an unschedulable status with the upstream message. `victim_priority`
// reads a pod's priority on the nominated node (priority_of; with pod groups, its group's: the
// evaluator passes workload::effective_priority).
//
// O(p) for p pods on the nominated node; no allocation; no exceptions of its own.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_ELIGIBILITY_HPP
#define PREEMPT_ELIGIBILITY_HPP

#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

#include "preempt/config.hpp"
#include "preempt/filter_statuses.hpp"
#include "preempt/node.hpp"
#include "preempt/pod.hpp"
#include "preempt/policy.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN

inline constexpr std::string_view not_eligible_policy_never =
    "not eligible due to preemptionPolicy=Never.";
inline constexpr std::string_view not_eligible_terminating_victim =
    "not eligible due to a terminating pod on the nominated node.";

template <node N, victim_policy<N, node_pod_t<N>> Policy = default_policy,
          class VictimPriority = detail::priority_of_fn>
status check_eligibility(const node_pod_t<N>& preemptor, const N* nominated_node,
                         status_code nominated_node_status, const Policy& policy = {},
                         const VictimPriority& victim_priority = {}) {
  if (::preempt::preemption_policy_of(preemptor) == preemption_policy::never)
    return status::unschedulable(not_eligible_policy_never);
  if (nominated_node == nullptr) return status::ok();
  if (nominated_node_status == status_code::unschedulable_and_unresolvable) return status::ok();
  for (const auto& p : ::preempt::pods_of(*nominated_node)) {
    if (victim_priority(p) < ::preempt::priority_of(preemptor) &&
        ::preempt::is_terminating_by_preemption(p) &&
        policy.is_eligible_victim(*nominated_node, p, preemptor))
      return status::unschedulable(not_eligible_terminating_victim);
  }
  return status::ok();
}

namespace detail {
// Step 1 of an evaluation on a cluster: the preemptor's nominated node `nominated` (an index into
// the cluster) read with its filter status. A nominated node the cluster does not have is ignored,
// as upstream ignores one missing from its snapshot.
template <class C, class P, class S, class Policy, class VictimPriority = priority_of_fn>
status check_eligibility_on(const C& cluster, const P& preemptor,
                            std::optional<std::size_t> nominated, const S& statuses,
                            const Policy& policy, const VictimPriority& victim_priority = {}) {
  using N = std::remove_cvref_t<decltype(cluster[std::size_t{}])>;
  if (!nominated || *nominated >= cluster.size())
    return ::preempt::check_eligibility<N>(preemptor, nullptr, status_code::unschedulable, policy);
  const auto& node = cluster[*nominated];  // may be a proxy returned by value
  return ::preempt::check_eligibility(
      preemptor, &node, ::preempt::detail::code_of(statuses, *nominated), policy, victim_priority);
}
}  // namespace detail

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_ELIGIBILITY_HPP
