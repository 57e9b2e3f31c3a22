// preempt/pod.hpp - how the algorithms read the caller's pod type.
//
// A type models `pod` when it answers, through const members:
//   p.uid()                        identity: a value the library may keep after the pod is gone,
//                                  so it must model `owning_uid` (a regular, hashable value that
//                                  is not a view or a pointer: std::string or an integer, never
//                                  std::string_view; see enable_owning_uid to vouch for a type)
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
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <ranges>
#include <type_traits>
#include <utility>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN

// Nanoseconds since the Unix epoch (Kubernetes compares start times at this resolution).
using timestamp = std::int64_t;

// Whether U owns its value. Views (std::string_view, std::span: borrowed ranges) and pointers
// refer to memory the caller may free while the library still holds the identity (the in-flight
// table keeps victims' uids until their deletion is reported). Specialize to vouch for a type
// these rules misjudge.
template <class U>
inline constexpr bool enable_owning_uid = !std::is_pointer_v<U> && !std::ranges::borrowed_range<U>;

// An identity the library can keep and look up: regular (copyable, equality-comparable),
// hashable with std::hash, and owning.
template <class U>
concept owning_uid = std::regular<U> && enable_owning_uid<U> && requires(const U& u) {
  { std::hash<U>{}(u) } -> std::convertible_to<std::size_t>;
};

template <class P>
concept pod = requires(const P& p) {
  p.uid();
  requires owning_uid<std::remove_cvref_t<decltype(p.uid())>>;
  { p.priority() } -> std::convertible_to<std::int32_t>;
  { p.start_time() } -> std::convertible_to<std::optional<timestamp>>;
  { p.terminating_by_preemption() } -> std::convertible_to<bool>;
};

// Kubernetes spec.preemptionPolicy.
enum class preemption_policy : std::uint8_t { preempt_lower_priority, never };

namespace detail {

struct preemption_policy_of_fn {
  template <pod P>
  constexpr preemption_policy operator()(const P& p) const {
    if constexpr (requires {
                    { p.preemption_policy() } -> std::convertible_to<preemption_policy>;
                  })
      return p.preemption_policy();
    else
      return preemption_policy::preempt_lower_priority;
  }
};

struct priority_of_fn {
  template <pod P>
  constexpr std::int32_t operator()(const P& p) const noexcept(noexcept(p.priority())) {
    return static_cast<std::int32_t>(p.priority());
  }
};

struct start_time_or_fn {
  template <pod P>
  constexpr timestamp operator()(const P& p, timestamp now) const {
    const std::optional<timestamp> start = p.start_time();
    return start ? *start : now;
  }
};

}  // namespace detail

// The accessors below are function objects, not functions: argument-dependent lookup never
// finds them, and a same-named function in the namespace of the caller's pod type is never
// called in their place (the library's own calls stay the library's).

// The preemption policy of a pod (PreemptLowerPriority when the type does not say).
inline constexpr detail::preemption_policy_of_fn preemption_policy_of{};

// The type of a pod's identity.
template <pod P>
using pod_uid_t = std::remove_cvref_t<decltype(std::declval<const P&>().uid())>;

// The priority of a pod as the algorithms use it.
inline constexpr detail::priority_of_fn priority_of{};

// The start time of a pod, or `now` when it has none (Kubernetes GetPodStartTime).
inline constexpr detail::start_time_or_fn start_time_or{};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_POD_HPP
