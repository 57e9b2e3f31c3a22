// preempt/observer.hpp - hooks that see an evaluation as it happens (metrics, tracing, logs).
//
// An observer is any object; the evaluator calls each of these members only if the observer has
// it, so an observer implements just what it needs and `null_observer` costs nothing:
//   on_attempt_started(preemptor)                         once per evaluation
//   on_node_evaluated(node_index, outcome, victims, pdb_violations)
//                                                         for every node the dry run keeps, in
//                                                         evaluation order
//   on_candidate_chosen(candidate)                        when a node is nominated
//   on_refused_by_budgets(preemptor)                      when the dry run found no candidate
//                                                         because the hard_budgets policy
//                                                         rejected every node that would have
//                                                         been one (preempt/policy_options.hpp,
//                                                         refused_by_budgets)
// All calls happen on the thread that called evaluate, never concurrently. A member of one of these
// names that cannot be called with those arguments (const P&; std::size_t, const status&,
// std::span<const P* const>, std::int64_t; const candidate<P>&; const P&) does not compile.
//
// No allocation; no exceptions of its own.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_OBSERVER_HPP
#define PREEMPT_OBSERVER_HPP

#include <cstddef>
#include <cstdint>
#include <span>

#include "preempt/candidate.hpp"
#include "preempt/config.hpp"
#include "preempt/detail/hook_check.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN

struct null_observer {};

namespace detail {

// Whether the observer sees every node the dry run keeps (on_node_evaluated).
template <class O, class P>
inline constexpr bool observes_every_node =
    requires(O& o, std::size_t i, const status& st, std::span<const P* const> v, std::int64_t k) {
      o.on_node_evaluated(i, st, v, k);
    };

// Whether every hook the observer has can be called as the evaluator calls it (each failure is a
// static_assert naming the expected signature).
template <class O, class P>
constexpr bool observer_hooks_fit() {
  static_assert(
      !has_member_named_on_attempt_started<O> ||
          requires(O& o, const P& p) { o.on_attempt_started(p); },
      "observer: on_attempt_started exists but cannot be called as "
      "on_attempt_started(const P& preemptor)");
  static_assert(!has_member_named_on_node_evaluated<O> || observes_every_node<O, P>,
                "observer: on_node_evaluated exists but cannot be called as "
                "on_node_evaluated(std::size_t node_index, const preempt::status& outcome, "
                "std::span<const P* const> victims, std::int64_t pdb_violations)");
  static_assert(
      !has_member_named_on_candidate_chosen<O> ||
          requires(O& o, const candidate<P>& c) { o.on_candidate_chosen(c); },
      "observer: on_candidate_chosen exists but cannot be called as "
      "on_candidate_chosen(const preempt::candidate<P>& chosen)");
  static_assert(
      !has_member_named_on_refused_by_budgets<O> ||
          requires(O& o, const P& p) { o.on_refused_by_budgets(p); },
      "observer: on_refused_by_budgets exists but cannot be called as "
      "on_refused_by_budgets(const P& preemptor)");
  return true;
}

template <class O, class P>
void notify_attempt_started(O& o, const P& preemptor) {
  if constexpr (requires { o.on_attempt_started(preemptor); }) o.on_attempt_started(preemptor);
}

template <class O, class P>
void notify_node_evaluated(O& o, std::size_t node_index, const status& outcome,
                           std::span<const P* const> victims, std::int64_t violations) {
  if constexpr (requires { o.on_node_evaluated(node_index, outcome, victims, violations); })
    o.on_node_evaluated(node_index, outcome, victims, violations);
}

template <class O, class P>
void notify_candidate_chosen(O& o, const candidate<P>& c) {
  if constexpr (requires { o.on_candidate_chosen(c); }) o.on_candidate_chosen(c);
}

template <class O, class P>
constexpr bool observes_budget_refusals =
    requires(O& o, const P& p) { o.on_refused_by_budgets(p); };

template <class O, class P>
void notify_refused_by_budgets(O& o, const P& preemptor) {
  if constexpr (observes_budget_refusals<O, P>) o.on_refused_by_budgets(preemptor);
}

}  // namespace detail

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_OBSERVER_HPP
