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
// Returns status::ok() or an unschedulable status with the upstream message.
//
// O(p) for p pods on the nominated node; no allocation; no exceptions of its own.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_ELIGIBILITY_HPP
#define PREEMPT_ELIGIBILITY_HPP

#include <string_view>

#include "preempt/config.hpp"
#include "preempt/node.hpp"
#include "preempt/pod.hpp"
#include "preempt/policy.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN

inline constexpr std::string_view not_eligible_policy_never =
    "not eligible due to preemptionPolicy=Never.";
inline constexpr std::string_view not_eligible_terminating_victim =
    "not eligible due to a terminating pod on the nominated node.";

template <node N, victim_policy<N, node_pod_t<N>> Policy = default_policy>
status check_eligibility(const node_pod_t<N>& preemptor, const N* nominated_node,
                         status_code nominated_node_status, const Policy& policy = {}) {
  if (preemption_policy_of(preemptor) == preemption_policy::never)
    return status::unschedulable(not_eligible_policy_never);
  if (nominated_node == nullptr) return status::ok();
  if (nominated_node_status == status_code::unschedulable_and_unresolvable) return status::ok();
  for (const auto& p : ::preempt::pods_of(*nominated_node)) {
    if (priority_of(p) < priority_of(preemptor) && ::preempt::is_terminating_by_preemption(p) &&
        policy.is_eligible_victim(*nominated_node, p, preemptor))
      return status::unschedulable(not_eligible_terminating_victim);
  }
  return status::ok();
}

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_ELIGIBILITY_HPP
