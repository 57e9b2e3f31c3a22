// preempt/detail/hook_check.hpp - telling a missing optional hook from one with the wrong
// signature.
//
// The library calls an optional hook (a dispatcher's nominations_cleared, an observer's
// on_node_evaluated, ...) only when the call is well-formed, so a hook written with another
// signature (last release's, a typo in a parameter type) would silently never be called.
// PREEMPT_DETAIL_MEMBER_NAMED(name) defines detail::has_member_named_<name><T>: whether class T
// has any member of that name, whatever its kind or signature (overloads and templates included),
// found by making a name lookup ambiguous. The library then static_asserts, with the expected
// signature in the message, that a hook which exists can be called as the library calls it.
//
// Compile time only; no code.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_HOOK_CHECK_HPP
#define PREEMPT_DETAIL_HOOK_CHECK_HPP

#include <type_traits>

#include "preempt/config.hpp"

// detail::has_member_named_<name><T>: T is a class (not final) with a member called `name`.
#define PREEMPT_DETAIL_MEMBER_NAMED(name)                  \
  struct member_probe_##name {                             \
    int name;                                              \
  };                                                       \
  template <class T>                                       \
  struct member_lookup_##name : T, member_probe_##name {}; \
  template <class T>                                       \
  concept has_member_named_##name =                        \
      std::is_class_v<T> && !std::is_final_v<T> && !requires { &member_lookup_##name<T>::name; };

PREEMPT_NAMESPACE_BEGIN
namespace detail {

PREEMPT_DETAIL_MEMBER_NAMED(reactivate)
PREEMPT_DETAIL_MEMBER_NAMED(nominations_cleared)
PREEMPT_DETAIL_MEMBER_NAMED(on_preemption_dispatched)
PREEMPT_DETAIL_MEMBER_NAMED(on_async_finished)
PREEMPT_DETAIL_MEMBER_NAMED(on_eviction_failed)
PREEMPT_DETAIL_MEMBER_NAMED(on_attempt_started)
PREEMPT_DETAIL_MEMBER_NAMED(on_node_evaluated)
PREEMPT_DETAIL_MEMBER_NAMED(on_candidate_chosen)
PREEMPT_DETAIL_MEMBER_NAMED(on_refused_by_budgets)
PREEMPT_DETAIL_MEMBER_NAMED(on_throttled)
PREEMPT_DETAIL_MEMBER_NAMED(start_eviction)

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_HOOK_CHECK_HPP
