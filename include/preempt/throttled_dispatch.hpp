// preempt/throttled_dispatch.hpp - a decision carried out through a dispatcher under an
// eviction_throttle (preempt/eviction_throttle.hpp).
//
// throttled_apply(dispatcher, throttle, preemptor, decision, now):
//   - not a nomination: the throttle forgets the preemptor, the dispatcher applies the decision;
//   - a nomination the throttle admits: the dispatcher applies it (evictions as usual);
//   - a nomination it holds back: the preemptor is nominated to the node (the room stays reserved
//     for it, as upstream's nomination reserves it) and nothing is evicted; the result says until
//     when (`retry_at`), and the hooks' optional reactivate_at(preemptor, retry_at) is called so
//     that the caller's queue brings the preemptor back then (its next decision tries again);
//     the hooks' optional on_throttled(preemptor) is called too (a metric: metrics_hooks counts
//     it as metrics::throttle_holds).
// Throttles change no decision they do not constrain: with no limit (throttle_limits{}) every
// nomination is admitted at once and this is dispatcher::apply.
//
// Complexity: the throttle's admit plus apply. Allocation: the throttle's records and apply's.
// No exceptions of its own. Thread-safety: apply's (one caller at a time).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_THROTTLED_DISPATCH_HPP
#define PREEMPT_THROTTLED_DISPATCH_HPP

#include <chrono>
#include <type_traits>

#include "preempt/config.hpp"
#include "preempt/decision.hpp"
#include "preempt/detail/hook_check.hpp"
#include "preempt/dispatcher.hpp"
#include "preempt/eviction_throttle.hpp"
#include "preempt/pod.hpp"

PREEMPT_NAMESPACE_BEGIN

template <class TimePoint>
struct throttled_result {
  dispatch_result dispatched;  // what apply did (nothing when held back)
  bool held_back = false;      // nominated, evictions not started
  TimePoint retry_at{};        // when held back
};

template <class Dispatcher, pod P, class Clock>
throttled_result<typename Clock::time_point> throttled_apply(Dispatcher& dispatcher,
                                                             eviction_throttle<P, Clock>& throttle,
                                                             const P& preemptor,
                                                             const decision<P>& d,
                                                             typename Clock::time_point now) {
  if (d.kind != decision_kind::nominated) {
    throttle.forget(::preempt::uid_of(preemptor));
    return {dispatcher.apply(preemptor, d), false, {}};
  }
  const auto v = throttle.admit(preemptor, d.node_index, d.victims, now);
  if (v.admitted) return {dispatcher.apply(preemptor, d), false, {}};
  dispatcher.ledger().nominate(preemptor, d.node_index);
  using hooks_type = std::remove_reference_t<decltype(dispatcher.hooks())>;
  static_assert(
      !detail::has_member_named_on_throttled<hooks_type> ||
          requires(hooks_type& h) { h.on_throttled(preemptor); },
      "throttled_apply: the hooks' on_throttled exists but cannot be called as "
      "on_throttled(const P& preemptor)");
  if constexpr (requires { dispatcher.hooks().on_throttled(preemptor); })
    dispatcher.hooks().on_throttled(preemptor);
  if constexpr (requires { dispatcher.hooks().reactivate_at(preemptor, v.retry_at); })
    dispatcher.hooks().reactivate_at(preemptor, v.retry_at);
  return {dispatch_result{}, true, v.retry_at};
}

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_THROTTLED_DISPATCH_HPP
