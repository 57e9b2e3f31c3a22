// preempt/policy_1_38.hpp - the victim order of kube-scheduler v1.38 (upstream_profile::
// kubernetes_1_38), as a victim policy.
//
// v1.38 orders potential victims (MoreImportantVictim) by priority, then by start time with a
// missing one counting as the latest possible instant (GetPodStartTime's maxPodStartTime: no more
// "now" read while sorting), then by the pods' UIDs in ascending order (podIdentityLess), so that
// equally important pods no longer come out where the unstable sort leaves them. The same latest
// instant stands for a missing start time when the candidates are compared (SelectCandidate's
// earliest start time of the highest-priority victims). With pod groups (workload/), v1.38 builds
// every victim with its own priority, a pod of a group without an `all` ancestor as a plain pod,
// and orders equal units by their first pods' UIDs; the evaluator builds the units so for a
// policy whose `profile` is kubernetes_1_38.
//
//   kubernetes_1_38_policy<IdentityLess>     default_policy with v1.38's order; pass it as the
//                                            evaluator's policy to decide as v1.38 does
//   more_important_pod_1_38(a, b, less)      the order itself, `less` ordering equal pods by UID
//   uid_order                                the default `less`: preempt::uid_of(a) < uid_of(b)
//                                            where the uid type is totally ordered (a Kubernetes
//                                            UID string is); no order otherwise
// A caller whose uid_of is not the Kubernetes UID (an index, a handle) passes its own IdentityLess
// that compares the pods' metadata.uid. Since the policy declares its own order, the evaluator
// takes its general paths (no one-pass reprieve, no branch and bound): the answers are v1.38's,
// the speed that of a custom policy.
//
// Complexity O(1) per comparison (plus IdentityLess's); no allocation; no exceptions of its own.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_POLICY_1_38_HPP
#define PREEMPT_POLICY_1_38_HPP

#include <concepts>
#include <cstdint>
#include <optional>

#include "preempt/config.hpp"
#include "preempt/pod.hpp"
#include "preempt/policy.hpp"
#include "preempt/upstream_profile.hpp"

PREEMPT_NAMESPACE_BEGIN

// The start time v1.38 reads for a pod without one: the latest instant (maxPodStartTime).
inline constexpr timestamp unstarted_time_1_38 = detail::latest_time;

// Equal pods by UID, ascending (podIdentityLess), where the uid type is totally ordered.
struct uid_order {
  template <pod P>
  constexpr bool operator()(const P& a, const P& b) const {
    if constexpr (std::totally_ordered<pod_uid_t<P>>)
      return ::preempt::uid_of(a) < ::preempt::uid_of(b);
    else
      return false;
  }
};

// v1.38's MoreImportantVictim for two pods: higher priority; then the earlier start time, a
// missing one the latest; then `less` (the UIDs' order).
template <pod P, class IdentityLess>
constexpr bool more_important_pod_1_38(const P& a, const P& b, const IdentityLess& less) {
  const auto pa = ::preempt::priority_of(a);
  const auto pb = ::preempt::priority_of(b);
  if (pa != pb) return pa > pb;
  const timestamp ta = ::preempt::start_time_or(a, unstarted_time_1_38);
  const timestamp tb = ::preempt::start_time_or(b, unstarted_time_1_38);
  if (ta != tb) return ta < tb;
  return static_cast<bool>(less(a, b));
}

template <class IdentityLess = uid_order>
struct kubernetes_1_38_policy : default_policy {
  // The release this policy decides as (the evaluator reads a missing start time as
  // unstarted_time_1_38 when comparing candidates).
  static constexpr upstream_profile profile = upstream_profile::kubernetes_1_38;

  IdentityLess identity_less{};

  template <pod P>
  constexpr bool more_important(const P& a, const P& b) const {
    return ::preempt::more_important_pod_1_38(a, b, identity_less);
  }
  // v1.38 builds no order from the listing: a missing start time is the same instant for all.
  template <pod P>
  constexpr bool more_important_as_built(const P& a, std::uint32_t, const P& b,
                                         std::uint32_t) const {
    return more_important(a, b);
  }
};

namespace detail {
// v1.38's last tie-break between two victims, by their first pods: the policy's identity_less when
// it has one (kubernetes_1_38_policy), else uid_order.
template <class Policy, pod P>
constexpr bool identity_less(const Policy& policy, const P& a, const P& b) {
  if constexpr (requires { policy.identity_less(a, b); })
    return static_cast<bool>(policy.identity_less(a, b));
  else
    return uid_order{}(a, b);
}
}  // namespace detail

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_POLICY_1_38_HPP
