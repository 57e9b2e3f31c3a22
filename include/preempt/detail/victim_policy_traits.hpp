// preempt/detail/victim_policy_traits.hpp - which of default_policy's choices a victim policy
// keeps, told at compile time from its members' pointer types. Victim selection takes its
// one-pass paths (remove_lower_priority_pods, reprieve_removed_pods) only for policies that keep
// default_policy's eligibility and importance order, and orders potential victims by
// more_important_as_built where the policy's order is built that way. Compile time only.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_VICTIM_POLICY_TRAITS_HPP
#define PREEMPT_DETAIL_VICTIM_POLICY_TRAITS_HPP

#include <concepts>

#include "preempt/config.hpp"
#include "preempt/policy.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

// Whether the policy keeps default_policy's is_eligible_victim (every lower-priority pod may be
// evicted): an inherited member's pointer type names default_policy, one the policy declares
// itself names the policy.
template <class Policy, class N, class P>
constexpr bool every_lower_priority_pod_eligible() {
  if constexpr (requires { &Policy::template is_eligible_victim<N, P>; })
    return std::same_as<decltype(&Policy::template is_eligible_victim<N, P>),
                        decltype(&default_policy::template is_eligible_victim<N, P>)>;
  else
    return false;
}

// Whether the policy keeps default_policy's more_important (priority, then start time, `now` for
// a missing one), found the same way.
template <class Policy, class P>
constexpr bool default_importance_order() {
  if constexpr (requires { &Policy::template more_important<P>; })
    return std::same_as<decltype(&Policy::template more_important<P>),
                        decltype(&default_policy::template more_important<P>)>;
  else
    return false;
}

// Whether victim selection orders by the policy's more_important_as_built (victims built in the
// node's pod order, policy.hpp): for default_policy's order, or a policy's own as-built order.
template <class Policy, class P>
constexpr bool orders_as_built() {
  if constexpr (requires { &Policy::template more_important_as_built<P>; })
    return !std::same_as<decltype(&Policy::template more_important_as_built<P>),
                         decltype(&default_policy::template more_important_as_built<P>)> ||
           detail::default_importance_order<Policy, P>();
  else
    return false;
}

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_VICTIM_POLICY_TRAITS_HPP
