// preempt/nominated_fit.hpp - the two-pass fit check with nominated pods (upstream's
// RunFilterPluginsWithNominatedPods and addGENominatedPods).
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
// No allocation; no exceptions of its own. On return the state is as it was on entry, also when
// adding a nominated pod fails (the ones already added are removed again); only a failing
// remove can leave it changed.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_NOMINATED_FIT_HPP
#define PREEMPT_NOMINATED_FIT_HPP

#include <concepts>
#include <cstddef>

#include "preempt/config.hpp"
#include "preempt/node_state.hpp"
#include "preempt/nominations.hpp"
#include "preempt/pod.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN

namespace detail {

// Whether the preemptor must leave room for this nominee: equal or higher priority, another pod.
template <class P>
constexpr bool yields_to(const P& nominee, const P& preemptor) {
  return priority_of(nominee) >= priority_of(preemptor) &&
         !(::preempt::uid_of(nominee) == ::preempt::uid_of(preemptor));
}

// Yes or no, without reasons: the state's optional `can_fit(p) -> bool` when it has one (cheaper
// for states that build reason strings), else fits(p).
template <class S, class P>
constexpr bool passes(S& state, const P& p) {
  if constexpr (requires {
                  { state.can_fit(p) } -> std::convertible_to<bool>;
                })
    return state.can_fit(p);
  else
    return status(state.fits(p)).is_success();
}

// Removes the first `count` nominees the preemptor yields to; the first failure is returned.
template <class P, class S, class Nominated>
constexpr status remove_yielding(S& state, const P& preemptor, const Nominated& nominated,
                                 std::size_t count) {
  status result;
  for (const auto& entry : nominated) {
    if (count == 0) break;
    const P& nominee = detail::as_pod_ref<P>(entry);
    if (!detail::yields_to(nominee, preemptor)) continue;
    const status st = state.remove_pod(nominee);
    if (!st && result) result = st;
    --count;
  }
  return result;
}

// Adds the nominees the preemptor yields to and counts them in `added`. When an add fails, the
// nominees added so far are removed again and the failure is returned: the state is left as on
// entry, as upstream's pass on a copy of the node would leave it.
template <class P, class S, class Nominated>
constexpr status add_yielding(S& state, const P& preemptor, const Nominated& nominated,
                              std::size_t& added) {
  added = 0;
  for (const auto& entry : nominated) {
    const P& nominee = detail::as_pod_ref<P>(entry);
    if (!detail::yields_to(nominee, preemptor)) continue;
    if (status st = state.add_pod(nominee); !st) {
      (void)detail::remove_yielding(state, preemptor, nominated, added);
      added = 0;
      return st;
    }
    ++added;
  }
  return status::ok();
}

}  // namespace detail

template <pod P, node_state<P> S, nominated_range<P> Nominated>
constexpr status fits_with_nominated(S& state, const P& preemptor, const Nominated& nominated) {
  std::size_t added = 0;
  if (status st = detail::add_yielding(state, preemptor, nominated, added); !st) return st;
  if (added == 0) return status(state.fits(preemptor));
  const status with_nominees = state.fits(preemptor);
  if (status st = detail::remove_yielding(state, preemptor, nominated, added); !st) return st;
  if (!with_nominees) return with_nominees;
  return status(state.fits(preemptor));
}

// The cheap form of fits_with_nominated, used where reasons are not needed (the reprieve loop):
// success when the preemptor fits, an unschedulable status without reasons when it does not (a
// failing nominee add or a filter error also count as "does not fit", as in upstream's
// reprieve), and the state's error when a nominee cannot be removed again (the state would
// otherwise be left wrong).
template <pod P, node_state<P> S, nominated_range<P> Nominated>
constexpr status passes_with_nominated(S& state, const P& preemptor, const Nominated& nominated) {
  const auto answer = [](bool fits) {
    return fits ? status::ok() : status(status_code::unschedulable);
  };
  std::size_t added = 0;
  if (!detail::add_yielding(state, preemptor, nominated, added)) return answer(false);
  if (added == 0) return answer(detail::passes(state, preemptor));
  const bool with_nominees = detail::passes(state, preemptor);
  if (status st = detail::remove_yielding(state, preemptor, nominated, added); !st)
    return status(status_code::error).add_reason(st.reason());
  return answer(with_nominees && detail::passes(state, preemptor));
}

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_NOMINATED_FIT_HPP
