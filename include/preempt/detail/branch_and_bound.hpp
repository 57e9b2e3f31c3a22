// preempt/detail/branch_and_bound.hpp - the evaluator's branch and bound
// (evaluator_config::report_only_chosen): a node that cannot beat an earlier candidate is counted
// as a candidate without selecting its victims.
//
// score_bound keeps the best candidate without budget violations found so far (the first of
// equals) and rules a node out when the node state's victim_score_bound (preempt/node_state.hpp;
// model::resource_fit_state offers one, from the node's priority summary) is, score by score, no
// better than it. Such a node could at best tie the earlier candidate, and the earlier one wins
// ties, so the nominated node, its victims and every node's outcome stay the same; the decision's
// `candidates` then lists only the candidates whose victims were selected (`candidates_bounded`
// counts the others) and `choice.deciding_score` is decided among those.
//
// Design notes. can_bound says where it cannot change the answer: the upstream scores (no
// score_functions), no extenders (they see every candidate), no pod groups, default_policy's
// eligibility and importance order, and an observer without on_node_evaluated; the evaluator also
// skips it on a node with nominated pods (they decide whether the node is a candidate at all).
// Budgets need no check: a bounded node comes after a candidate without violations, so it lands in
// a list with room and counts toward the stop rule alike whether its victims would violate budgets
// or not, and the bound holds in lexicographic order either way (see
// resource_fit_state::victim_score_bound). With parallel workers, a batch is bounded against the
// best candidate of the batches before it (begin_batch), a copy the merge does not write while the
// workers read it, so the decision stays the same for every parallelism.
//
// O(1) per node plus the bound's own cost; no allocation; no exceptions. What workers read
// (the batch's copy) and what the merge writes (the best so far) are on cache lines of their own.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_BRANCH_AND_BOUND_HPP
#define PREEMPT_DETAIL_BRANCH_AND_BOUND_HPP

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "preempt/candidate_choice.hpp"
#include "preempt/config.hpp"
#include "preempt/detail/cache_line.hpp"
#include "preempt/detail/candidate_lists.hpp"
#include "preempt/extender.hpp"
#include "preempt/node_state.hpp"
#include "preempt/observer.hpp"
#include "preempt/pod.hpp"
#include "preempt/victim_selection.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

// Whether the policy brings its own score functions (else the upstream scores are computed per
// candidate while its victims are fresh in the cache).
template <class Policy>
inline constexpr bool has_score_functions = requires(Policy& p) { p.score_functions(); };

// Whether the branch and bound can apply for these types (see the header comment).
template <class Policy, class Observer, class Extenders, class State, class Node, class P>
inline constexpr bool can_bound =
    !has_score_functions<Policy> && !observes_every_node<Observer, P> &&
    std::same_as<std::remove_cvref_t<Extenders>, no_extenders> && bounds_victim_scores<State, P> &&
    every_lower_priority_pod_eligible<Policy, Node, P>() && default_importance_order<Policy, P>();

class score_bound {
 public:
  // A new evaluation: bounding or not, nothing found yet.
  void start(bool active) noexcept {
    active_ = active;
    has_best_ = false;
  }
  bool active() const noexcept { return active_; }

  // A candidate was kept: the best without violations so far, the first of equals (bounded ones
  // are no better than it).
  void note(const kept_candidate& k) noexcept {
    if (active_ && !k.bounded && k.violations == 0 && (!has_best_ || best_ < k.scores)) {
      best_ = k.scores;
      has_best_ = true;
    }
  }

  // Parallel batches bound their nodes against the best of the batches before them.
  void begin_parallel() noexcept { parallel_ = true; }
  void begin_batch() noexcept {
    batch_best_ = best_;
    batch_has_best_ = has_best_;
  }
  void end_parallel() noexcept { parallel_ = false; }

  // Whether a node, its state prepared, cannot beat the best candidate before it: its bound is,
  // score by score, no better. Inline, the best candidate so far; in a parallel batch, the best of
  // the batches before it.
  template <class State, class P>
  bool rules_out(const State& state, const P& preemptor, timestamp now) const {
    const bool has_bound = parallel_ ? batch_has_best_ : has_best_;
    const default_scores::vector& best = parallel_ ? batch_best_ : best_;
    if (!active_ || !has_bound) return false;
    const auto bound = state.victim_score_bound(preemptor, now);
    return bound && !(best < *bound);
  }

 private:
  // Read by every worker during a parallel batch, written between batches only.
  bool active_ = false;
  bool parallel_ = false;
  bool batch_has_best_ = false;
  default_scores::vector batch_best_{};
  // Written by the merge while workers evaluate: on a line of its own.
  alignas(cache_line) default_scores::vector best_{};
  bool has_best_ = false;
};

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_BRANCH_AND_BOUND_HPP
