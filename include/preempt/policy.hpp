// preempt/policy.hpp - the hooks victim selection consults, and their upstream defaults.
//
// A policy is a small value with two members:
//   pol.is_eligible_victim(node, victim, preemptor)  may this lower-priority pod be evicted?
//                                                    (Kubernetes IsEligiblePod; applied in
//                                                    addition to "strictly lower priority")
//   pol.more_important(a, b)                         is pod a more important than pod b?
//                                                    (Kubernetes MoreImportantPod; a strict weak
//                                                    order)
// `default_policy` reproduces kube-scheduler: every lower-priority pod is eligible; higher
// priority is more important, then the earlier start time, a missing start time counting as
// `now`. Customize by deriving from default_policy and declaring the member to replace (the
// derived member hides the base one), or by writing any type that models `victim_policy`.
//
// Pods without a start time: kube-scheduler v1.37 builds each potential victim once per node's
// dry run, in the order the node's pods are listed (NodeInfo.Pods), and reads a missing start time
// as the clock at that moment (GetPodStartTime). Such victims are therefore ordered by
// construction, not tied: after every recorded start time up to `now`, and among themselves the
// one listed earlier counts as started earlier. default_policy::more_important_as_built(a,
// a_built, b, b_built), with the pods' positions in that listing, models this; victim selection
// calls it for default_policy's order (a derived policy that declares its own more_important is
// called with two pods, unless it declares its own more_important_as_built too).
//
// Complexity O(1) per call; no allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_POLICY_HPP
#define PREEMPT_POLICY_HPP

#include <concepts>
#include <cstdint>
#include <optional>

#include "preempt/config.hpp"
#include "preempt/pod.hpp"

PREEMPT_NAMESPACE_BEGIN

// Kubernetes MoreImportantPod: higher priority first, then earlier start (missing start = now).
template <pod P>
constexpr bool more_important_pod(const P& a, const P& b, timestamp now) {
  const auto pa = priority_of(a);
  const auto pb = priority_of(b);
  if (pa != pb) return pa > pb;
  return start_time_or(a, now) < start_time_or(b, now);
}

// The same, for two victims built in that order: `a_built` and `b_built` are their positions in
// the node's listing of its pods (the order the dry run builds victims in). A missing start time
// stands for the moment the victim was built: `now`, the earlier built first, after a start time
// recorded at `now` itself.
template <pod P>
constexpr bool more_important_pod(const P& a, std::uint32_t a_built, const P& b,
                                  std::uint32_t b_built, timestamp now) {
  const auto pa = priority_of(a);
  const auto pb = priority_of(b);
  if (pa != pb) return pa > pb;
  const std::optional<timestamp> sa = start_time_of(a), sb = start_time_of(b);
  const timestamp ta = sa ? *sa : now, tb = sb ? *sb : now;
  if (ta != tb) return ta < tb;
  if (sa.has_value() != sb.has_value()) return sa.has_value();
  return !sa && a_built < b_built;
}

struct default_policy {
  // The start time assumed for pods that have none (Kubernetes uses the wall clock at call time;
  // here it is injected so that results are reproducible).
  timestamp now = 0;

  template <class Node, pod P>
  constexpr bool is_eligible_victim(const Node&, const P&, const P&) const noexcept {
    return true;
  }

  template <pod P>
  constexpr bool more_important(const P& a, const P& b) const {
    return preempt::more_important_pod(a, b, now);
  }
  // Victims built in the node's pod order (see the header comment): missing start times ordered
  // by construction.
  template <pod P>
  constexpr bool more_important_as_built(const P& a, std::uint32_t a_built, const P& b,
                                         std::uint32_t b_built) const {
    return preempt::more_important_pod(a, a_built, b, b_built, now);
  }
};

template <class Pol, class N, class P>
concept victim_policy = pod<P> && requires(const Pol& pol, const N& n, const P& p) {
  { pol.is_eligible_victim(n, p, p) } -> std::convertible_to<bool>;
  { pol.more_important(p, p) } -> std::convertible_to<bool>;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_POLICY_HPP
