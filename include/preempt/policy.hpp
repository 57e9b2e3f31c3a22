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
// The clock: `now` stands for "the time of the decision", upstream's time.Now() for a pod without
// a start time; left unset, the evaluator reads the system clock once per evaluation (see now_of).
// Pods without a start time are ordered as upstream builds them (see more_important_as_built).
//
// Complexity O(1) per call (an unset `now` outside an evaluation reads the system clock per
// comparison); no allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_POLICY_HPP
#define PREEMPT_POLICY_HPP

#include <chrono>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>

#include "preempt/config.hpp"
#include "preempt/pod.hpp"
#include "preempt/upstream_profile.hpp"

PREEMPT_NAMESPACE_BEGIN

// Kubernetes MoreImportantPod: higher priority first, then earlier start (missing start = now).
template <pod P>
constexpr bool more_important_pod(const P& a, const P& b, timestamp now) {
  const auto pa = priority_of(a);
  const auto pb = priority_of(b);
  if (pa != pb) return pa > pb;
  return start_time_or(a, now) < start_time_or(b, now);
}

// Pods without a start time: kube-scheduler v1.37 builds each potential victim once per node's
// dry run, in the order the node's pods are listed (NodeInfo.Pods), and reads a missing start time
// as the clock at that moment (GetPodStartTime). Such victims are therefore ordered by
// construction, not tied: after every recorded start time up to `now`, and among themselves the
// one listed earlier counts as started earlier. default_policy::more_important_as_built(a,
// a_built, b, b_built), with the pods' positions in that listing, models this; victim selection
// calls it for default_policy's order (a derived policy that declares its own more_important is
// called with two pods, unless it declares its own more_important_as_built too).
//
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

namespace detail {
// The system clock's time, in nanoseconds since the Unix epoch.
inline timestamp system_now() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The clock: `now` stands for "the time of the decision", upstream's time.Now() for a pod without
// a start time (it then counts as the newest of its priority). Left unset (the default), the
// evaluator reads the system clock once at the start of each evaluation and holds it for the
// whole decision; set it to an instant for reproducible answers (tests, a what-if over a dump).
// A policy of another type may have a `now` member too (a timestamp or an optional one); without
// one the evaluator uses the system clock. (It used to be 0, the Unix epoch, which made pods
// without a start time the oldest: the opposite of upstream.)
//
// A policy's `now`: its instant when set, else the system clock's.
template <class T>
timestamp now_of(const T& policy) noexcept {
  if constexpr (requires { policy.now.has_value(); })
    return policy.now.has_value() ? static_cast<timestamp>(*policy.now) : system_now();
  else if constexpr (requires { static_cast<timestamp>(policy.now); })
    return static_cast<timestamp>(policy.now);
  else
    return system_now();
}
}  // namespace detail

struct default_policy {
  // The time of the decision, the start time assumed for a pod that has none (upstream:
  // time.Now()). Unset: the system clock, which the evaluator reads once per evaluation.
  std::optional<timestamp> now;

  // The time of the decision: `now` when set (during an evaluation the evaluator holds it), else
  // the system clock. What a derived policy's own comparisons read.
  timestamp current_time() const noexcept { return ::preempt::detail::now_of(*this); }

  template <class Node, pod P>
  constexpr bool is_eligible_victim(const Node&, const P&, const P&) const noexcept {
    return true;
  }

  template <pod P>
  constexpr bool more_important(const P& a, const P& b) const {
    return ::preempt::more_important_pod(a, b, current_time());
  }
  // Victims built in the node's pod order (see ::preempt::more_important_pod with positions):
  // missing start times ordered by construction.
  template <pod P>
  constexpr bool more_important_as_built(const P& a, std::uint32_t a_built, const P& b,
                                         std::uint32_t b_built) const {
    return ::preempt::more_important_pod(a, a_built, b, b_built, current_time());
  }
};

namespace detail {
// The latest instant a timestamp can hold.
inline constexpr timestamp latest_time = std::numeric_limits<timestamp>::max();

// The release a policy decides as: its static `profile` member (preempt/policy_1_38.hpp), else
// the default.
template <class Policy>
constexpr upstream_profile profile_of() noexcept {
  if constexpr (requires {
                  { Policy::profile } -> std::convertible_to<upstream_profile>;
                })
    return Policy::profile;
  else
    return default_upstream_profile;
}

// The start time a pod without one counts as when an evaluation at `now` compares candidates and
// builds victim units: the latest instant for a policy that decides as kube-scheduler v1.38,
// `now` otherwise (v1.37's time.Now()).
template <class Policy>
constexpr timestamp unstarted_time(timestamp now) noexcept {
  return detail::profile_of<Policy>() == upstream_profile::kubernetes_1_37 ? now : latest_time;
}
}  // namespace detail

template <class Pol, class N, class P>
concept victim_policy = pod<P> && requires(const Pol& pol, const N& n, const P& p) {
  { pol.is_eligible_victim(n, p, p) } -> std::convertible_to<bool>;
  { pol.more_important(p, p) } -> std::convertible_to<bool>;
};

namespace detail {
// An evaluation's clock: reads the policy's `now` once (see now_of) and, while it
// lives, holds an unset optional `now` at that instant, so that the policy's own comparisons see
// the same time as the evaluation; it unsets it again when the evaluation ends.
template <class Policy>
class evaluation_clock {
 public:
  explicit evaluation_clock(Policy& policy) noexcept : policy_(&policy) {
    now_ = ::preempt::detail::now_of(policy);
    if constexpr (requires { policy.now.has_value(); })
      if (!policy.now.has_value()) {
        policy.now = now_;
        held_ = true;
      }
  }
  evaluation_clock(const evaluation_clock&) = delete;
  evaluation_clock& operator=(const evaluation_clock&) = delete;
  ~evaluation_clock() {
    if constexpr (requires { policy_->now.reset(); })
      if (held_) policy_->now.reset();
  }
  timestamp now() const noexcept { return now_; }

 private:
  Policy* policy_;
  timestamp now_ = 0;
  bool held_ = false;
};
}  // namespace detail

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_POLICY_HPP
