// preempt/pod.hpp - how the algorithms read the caller's pod type.
//
// The algorithms read a pod only through these accessors (function objects in namespace preempt):
//   preempt::uid_of(p)            identity: a value the library may keep after the pod is gone,
//                                 so it must model `owning_uid` (a regular, hashable value that is
//                                 not a view or a pointer: std::string or an integer, never
//                                 std::string_view; see enable_owning_uid to vouch for a type)
//   preempt::priority_of(p)       effective priority (convertible to std::int32_t; an unset
//                                 Kubernetes priority is 0)
//   preempt::start_time_of(p)     std::optional<timestamp>; empty means "not started", which the
//                                 algorithms read as the injectable "now" of their policy
//   preempt::is_terminating_by_preemption(p)  true when the pod is terminating because a scheduler
//                                 preempted it (deletionTimestamp set and DisruptionTarget=True
//                                 with reason PreemptionByScheduler)
//   preempt::is_terminating(p)    optional: true when the pod is being deleted for any reason
//                                 (deletionTimestamp set); the dispatcher does not evict it again.
//                                 Without it, is_terminating_by_preemption(p) answers
//   preempt::preemption_policy_of(p)  optional; without it a pod may preempt (Kubernetes' default,
//                                 PreemptLowerPriority)
// Each accessor asks preempt::pod_traits<P> first, then the pod's own const member of the same
// name (p.uid(), p.priority(), p.start_time(), p.terminating_by_preemption(), p.terminating(),
// p.preemption_policy()); any other type is adapted by specializing pod_traits (an example is at
// its declaration).
// A start time may be std::optional<timestamp>, a std::chrono::sys_time (a time point of
// std::chrono::system_clock, whose epoch is the Unix epoch) or a std::optional of one; it is read
// as nanoseconds since the epoch (this header does not include <chrono>: the caller's type does).
// The library stores pointers to the caller's pods, never copies. Header-only declarations; no
// allocation; no exceptions.
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
#include <ratio>
#include <type_traits>
#include <utility>

#include "preempt/config.hpp"
#include "preempt/detail/hook_check.hpp"

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

// Kubernetes spec.preemptionPolicy.
enum class preemption_policy : std::uint8_t { preempt_lower_priority, never };

// How the library reads a pod type. The primary template is empty: every accessor then calls the
// pod's member function. Specialize it for a type that lacks some of them; a specialization
// provides any of these static functions (the others still fall back to the members):
//   uid(p), priority(p), start_time(p), terminating_by_preemption(p), terminating(p),
//   preemption_policy(p).
// For example, a row of plain fields with a std::chrono start time:
//
//   struct row {
//     std::uint64_t uid;
//     int priority;
//     std::chrono::system_clock::time_point start_time;
//   };
//   template <> struct preempt::pod_traits<row> {
//     static std::uint64_t uid(const row& r) { return r.uid; }
//     static int priority(const row& r) { return r.priority; }
//     static auto start_time(const row& r) { return r.start_time; }
//     static bool terminating_by_preemption(const row&) { return false; }
//     static bool terminating(const row& r) { return r.deleted; }  // optional
//   };
//
template <class P>
struct pod_traits {};

namespace detail {

template <class P>
using pod_traits_of = ::preempt::pod_traits<std::remove_cvref_t<P>>;

PREEMPT_DETAIL_MEMBER_NAMED(terminating)
PREEMPT_DETAIL_MEMBER_NAMED(preemption_policy)

// A start time as nanoseconds since the Unix epoch, from the forms the library accepts. A
// std::chrono::sys_time is recognized by its clock (system_clock alone has to_time_t) without
// including <chrono>, which costs more to compile than this whole header.
template <class T>
concept sys_time_like = requires(const T& t) {
  &T::clock::to_time_t;
  { t.time_since_epoch().count() } -> std::integral;
  typename T::duration::period;
};

template <class T>
inline constexpr bool is_sys_time_v = sys_time_like<T>;

template <class T>
concept start_time_value = std::convertible_to<T, std::optional<timestamp>> ||
                           is_sys_time_v<std::remove_cvref_t<T>> || requires(const T& t) {
                             requires is_sys_time_v<std::remove_cvref_t<decltype(*t)>>;
                             { t.has_value() } -> std::convertible_to<bool>;
                           };

template <sys_time_like T>
constexpr timestamp to_timestamp(const T& t) noexcept {
  using to_ns = std::ratio_divide<typename T::duration::period, std::nano>;
  return static_cast<timestamp>(t.time_since_epoch().count()) * to_ns::num / to_ns::den;
}

template <start_time_value T>
constexpr std::optional<timestamp> to_start_time(const T& t) {
  if constexpr (is_sys_time_v<std::remove_cvref_t<T>>)
    return ::preempt::detail::to_timestamp(t);
  else if constexpr (std::convertible_to<const T&, std::optional<timestamp>>)
    return static_cast<std::optional<timestamp>>(t);
  else if (t.has_value())
    return ::preempt::detail::to_timestamp(*t);
  else
    return std::nullopt;
}

// Each accessor: pod_traits<P>::NAME(p) when the traits have it, else p.NAME().
struct uid_of_fn {
  template <class P>
    requires requires(const P& p) { pod_traits_of<P>::uid(p); } || requires(const P& p) { p.uid(); }
  constexpr decltype(auto) operator()(const P& p) const {
    if constexpr (requires { pod_traits_of<P>::uid(p); })
      return pod_traits_of<P>::uid(p);
    else
      return p.uid();
  }
};

struct priority_of_fn {
  template <class P>
    requires requires(const P& p) {
      { pod_traits_of<P>::priority(p) } -> std::convertible_to<std::int32_t>;
    } || requires(const P& p) {
      { p.priority() } -> std::convertible_to<std::int32_t>;
    }
  constexpr std::int32_t operator()(const P& p) const {
    if constexpr (requires { pod_traits_of<P>::priority(p); })
      return static_cast<std::int32_t>(pod_traits_of<P>::priority(p));
    else
      return static_cast<std::int32_t>(p.priority());
  }
};

struct start_time_of_fn {
  template <class P>
    requires requires(const P& p) {
      { pod_traits_of<P>::start_time(p) } -> start_time_value;
    } || requires(const P& p) {
      { p.start_time() } -> start_time_value;
    }
  constexpr std::optional<timestamp> operator()(const P& p) const {
    if constexpr (requires { pod_traits_of<P>::start_time(p); })
      return ::preempt::detail::to_start_time(pod_traits_of<P>::start_time(p));
    else
      return ::preempt::detail::to_start_time(p.start_time());
  }
};

struct is_terminating_by_preemption_fn {
  template <class P>
    requires requires(const P& p) {
      { pod_traits_of<P>::terminating_by_preemption(p) } -> std::convertible_to<bool>;
    } || requires(const P& p) {
      { p.terminating_by_preemption() } -> std::convertible_to<bool>;
    }
  constexpr bool operator()(const P& p) const {
    if constexpr (requires { pod_traits_of<P>::terminating_by_preemption(p); })
      return static_cast<bool>(pod_traits_of<P>::terminating_by_preemption(p));
    else
      return static_cast<bool>(p.terminating_by_preemption());
  }
};

struct is_terminating_fn {
  template <class P>
  constexpr bool operator()(const P& p) const {
    static_assert(
        !has_member_named_terminating<pod_traits_of<P>> ||
            requires { pod_traits_of<P>::terminating(p); },
        "pod_traits<P>::terminating exists but cannot be called as "
        "`static bool terminating(const P&)`");
    if constexpr (requires {
                    { pod_traits_of<P>::terminating(p) } -> std::convertible_to<bool>;
                  })
      return static_cast<bool>(pod_traits_of<P>::terminating(p));
    else if constexpr (requires {
                         { p.terminating() } -> std::convertible_to<bool>;
                       })
      return static_cast<bool>(p.terminating());
    else
      return ::preempt::detail::is_terminating_by_preemption_fn{}(p);
  }
};

struct preemption_policy_of_fn {
  template <class P>
  constexpr preemption_policy operator()(const P& p) const {
    static_assert(
        !has_member_named_preemption_policy<pod_traits_of<P>> ||
            requires {
              { pod_traits_of<P>::preemption_policy(p) } -> std::convertible_to<preemption_policy>;
            },
        "pod_traits<P>::preemption_policy exists but cannot be called as "
        "`static preempt::preemption_policy preemption_policy(const P&)`");
    if constexpr (requires {
                    {
                      pod_traits_of<P>::preemption_policy(p)
                    } -> std::convertible_to<preemption_policy>;
                  })
      return pod_traits_of<P>::preemption_policy(p);
    else if constexpr (requires {
                         { p.preemption_policy() } -> std::convertible_to<preemption_policy>;
                       })
      return p.preemption_policy();
    else
      return preemption_policy::preempt_lower_priority;
  }
};

}  // namespace detail

// The accessors are function objects, not functions: argument-dependent lookup never finds
// them, and a same-named function in the namespace of the caller's pod type is never called in
// their place (the library's own calls stay the library's).

// A pod's identity.
inline constexpr detail::uid_of_fn uid_of{};

// The priority of a pod as the algorithms use it.
inline constexpr detail::priority_of_fn priority_of{};

// A pod's start time in nanoseconds since the Unix epoch; empty when it has not started.
inline constexpr detail::start_time_of_fn start_time_of{};

// Whether a pod is terminating because a scheduler preempted it.
inline constexpr detail::is_terminating_by_preemption_fn is_terminating_by_preemption{};

// Whether a pod is being deleted (any reason; is_terminating_by_preemption when neither the traits
// nor the type say).
inline constexpr detail::is_terminating_fn is_terminating{};

// The preemption policy of a pod (PreemptLowerPriority when neither the traits nor the type say).
inline constexpr detail::preemption_policy_of_fn preemption_policy_of{};

template <class P>
concept pod = requires(const P& p) {
  ::preempt::uid_of(p);
  requires owning_uid<std::remove_cvref_t<decltype(::preempt::uid_of(p))>>;
  ::preempt::priority_of(p);
  ::preempt::start_time_of(p);
  ::preempt::is_terminating_by_preemption(p);
};

// The type of a pod's identity.
template <pod P>
using pod_uid_t = std::remove_cvref_t<decltype(::preempt::uid_of(std::declval<const P&>()))>;

namespace detail {
struct start_time_or_fn {
  template <pod P>
  constexpr timestamp operator()(const P& p, timestamp now) const {
    const std::optional<timestamp> start = ::preempt::start_time_of(p);
    return start ? *start : now;
  }
};
}  // namespace detail

// The start time of a pod, or `now` when it has none (Kubernetes GetPodStartTime).
inline constexpr detail::start_time_or_fn start_time_or{};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_POD_HPP
