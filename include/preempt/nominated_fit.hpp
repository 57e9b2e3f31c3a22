// preempt/nominated_fit.hpp - the two-pass fit check with nominated pods (spec 4.3).
//
// fits_with_nominated(state, preemptor, nominated) answers whether the preemptor fits on a node
// while respecting the room reserved for pods nominated to that node:
//   1. The nominated pods of priority >= the preemptor's (the preemptor itself excluded) are added
//      to the state and the preemptor is checked (pass 1); they are removed again afterwards.
//   2. If pass 1 succeeded and any pod was added, the preemptor is checked without them (pass 2).
// It fits only if every pass succeeds. Without such nominated pods there is a single check.
// `nominated` is a forward range of pods, or of pointers to pods, of the node's pod type.
//
// passes_with_nominated is the same check answering only yes or no; it uses the state's optional
// `can_fit(p) -> bool` member, which lets a state skip building reason strings.
//
// Complexity O(k) state updates for k qualifying nominated pods, plus one or two fit checks.
// No allocation; no exceptions of its own. On return the state is as it was on entry, except when
// the state itself reported an error while adding or removing a nominated pod.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_NOMINATED_FIT_HPP
#define PREEMPT_NOMINATED_FIT_HPP

#include <ranges>
#include <type_traits>

#include "preempt/config.hpp"
#include "preempt/node_state.hpp"
#include "preempt/pod.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN

namespace detail {

template <class P, class T>
constexpr const P& as_pod_ref(const T& x) noexcept {
  if constexpr (std::is_pointer_v<T>)
    return *x;
  else
    return x;
}

template <class P, class Nominated>
concept nominated_range_of =
    std::ranges::forward_range<Nominated> &&
    (std::same_as<std::remove_cvref_t<std::ranges::range_reference_t<Nominated>>, P> ||
     std::same_as<std::remove_cvref_t<std::ranges::range_reference_t<Nominated>>, const P*> ||
     std::same_as<std::remove_cvref_t<std::ranges::range_reference_t<Nominated>>, P*>);

template <class P>
constexpr bool yields_to(const P& nominee, const P& preemptor) {
  return priority_of(nominee) >= priority_of(preemptor) && !(nominee.uid() == preemptor.uid());
}

}  // namespace detail

// A range of nominated pods: pods or pointers to pods of type P.
template <class R, class P>
concept nominated_range = detail::nominated_range_of<P, R>;

// An empty list of nominated pods.
template <class P>
inline constexpr std::ranges::empty_view<const P*> no_nominated_pods{};

namespace detail {

// Yes or no, without reasons: the state's optional `can_fit(p) -> bool` when it has one (cheaper
// for states that build reason strings), else fits(p).
template <class S, class P>
constexpr bool passes(S& state, const P& p) {
  if constexpr (requires { { state.can_fit(p) } -> std::convertible_to<bool>; })
    return state.can_fit(p);
  else
    return status(state.fits(p)).is_success();
}

}  // namespace detail

// The yes-or-no form of fits_with_nominated, used where reasons are not needed (the reprieve
// loop). A state error counts as "does not fit", as in upstream's reprieve.
template <pod P, node_state<P> S, nominated_range<P> Nominated>
constexpr bool passes_with_nominated(S& state, const P& preemptor, const Nominated& nominated) {
  bool added_any = false;
  bool broken = false;
  for (const auto& entry : nominated) {
    const P& nominee = detail::as_pod_ref<P>(entry);
    if (!detail::yields_to(nominee, preemptor)) continue;
    if (!status(state.add_pod(nominee)).is_success()) return false;
    added_any = true;
  }
  if (!added_any) return detail::passes(state, preemptor);
  const bool first = detail::passes(state, preemptor);
  for (const auto& entry : nominated) {
    const P& nominee = detail::as_pod_ref<P>(entry);
    if (!detail::yields_to(nominee, preemptor)) continue;
    if (!status(state.remove_pod(nominee)).is_success()) broken = true;
  }
  return first && !broken && detail::passes(state, preemptor);
}

template <pod P, node_state<P> S, nominated_range<P> Nominated>
constexpr status fits_with_nominated(S& state, const P& preemptor, const Nominated& nominated) {
  bool added_any = false;
  for (const auto& entry : nominated) {
    const P& nominee = detail::as_pod_ref<P>(entry);
    if (!detail::yields_to(nominee, preemptor)) continue;
    status st = state.add_pod(nominee);
    if (!st) return st;
    added_any = true;
  }
  status first = added_any ? status(state.fits(preemptor)) : status::ok();
  if (added_any) {
    for (const auto& entry : nominated) {
      const P& nominee = detail::as_pod_ref<P>(entry);
      if (!detail::yields_to(nominee, preemptor)) continue;
      status st = state.remove_pod(nominee);
      if (!st) return st;
    }
    if (!first) return first;
  }
  return status(state.fits(preemptor));
}

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_NOMINATED_FIT_HPP
