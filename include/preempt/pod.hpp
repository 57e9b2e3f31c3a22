// preempt/pod.hpp - how the algorithms read the caller's pod type.
//
// A type models `pod` when it answers, through const members:
//   p.uid()                        identity; any equality-comparable value
//   p.priority()                   effective priority (convertible to std::int32_t; an unset
//                                  Kubernetes priority is 0)
//   p.start_time()                 std::optional<timestamp>; empty means "not started", which the
//                                  algorithms read as the injectable "now" of their policy
//   p.terminating_by_preemption()  true when the pod is terminating because a scheduler preempted
//                                  it (deletionTimestamp set and DisruptionTarget=True with reason
//                                  PreemptionByScheduler)
// Optionally, p.preemption_policy() returns preempt::preemption_policy; without it a pod may
// preempt (Kubernetes' default, PreemptLowerPriority).
// The library stores pointers to the caller's pods, never copies of them.
//
// Header-only declarations; no allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_POD_HPP
#define PREEMPT_POD_HPP

#include <concepts>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN

// Nanoseconds since the Unix epoch (Kubernetes compares start times at this resolution).
using timestamp = std::int64_t;

template <class P>
concept pod = requires(const P& p) {
  { p.uid() } -> std::equality_comparable;
  { p.priority() } -> std::convertible_to<std::int32_t>;
  { p.start_time() } -> std::convertible_to<std::optional<timestamp>>;
  { p.terminating_by_preemption() } -> std::convertible_to<bool>;
};

// Kubernetes spec.preemptionPolicy.
enum class preemption_policy : std::uint8_t { preempt_lower_priority, never };

// The preemption policy of a pod (PreemptLowerPriority when the type does not say).
template <pod P>
constexpr preemption_policy preemption_policy_of(const P& p) {
  if constexpr (requires { { p.preemption_policy() } -> std::convertible_to<preemption_policy>; })
    return p.preemption_policy();
  else
    return preemption_policy::preempt_lower_priority;
}

// The type of a pod's identity.
template <pod P>
using pod_uid_t = std::remove_cvref_t<decltype(std::declval<const P&>().uid())>;

// The priority of a pod as the algorithms use it.
template <pod P>
constexpr std::int32_t priority_of(const P& p) noexcept(noexcept(p.priority())) {
  return static_cast<std::int32_t>(p.priority());
}

// The start time of a pod, or `now` when it has none (Kubernetes GetPodStartTime).
template <pod P>
constexpr timestamp start_time_or(const P& p, timestamp now) {
  const std::optional<timestamp> start = p.start_time();
  return start ? *start : now;
}

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_POD_HPP
