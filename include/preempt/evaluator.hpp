// preempt/evaluator.hpp - the whole preemption decision for one pending pod (upstream's
// DefaultPreemption PostFilter, Evaluator.Preempt), inline or in parallel on any executor.
//
// evaluator<C>::evaluate(preemptor, cluster, statuses, budgets, nominations, executor, attempt)
// returns a decision (preempt/decision.hpp) in upstream's steps, numbered as upstream numbers them
// in evaluate() below: eligibility; the candidates: potential nodes, sampling, the dry run
// (select_victims on each node, in candidate order from the offset, into two bounded candidate
// lists; runs of nodes the cluster's rejection index rules out get their outcome without a
// selection, detail/rejection_runs.hpp); the extenders; the best candidate. The overload taking
// pod groups selects whole victim units (Kubernetes v1.37 with GenericWorkload) through the victim
// grouping (preempt/victim_grouping.hpp) that preempt/workload/unit_grouping.hpp supplies: this
// header compiles no pod-group code, and that overload needs that header (or preempt.hpp).
// evaluator_config::report_only_chosen turns on the branch and bound (detail/branch_and_bound.hpp);
// more than one worker evaluates nodes ahead in parallel batches (detail/parallel_dry_run.hpp) when
// there is enough to select on (evaluator_config::min_parallel_nodes, min_parallel_pods). Either
// way the decision is the same: beyond upstream, every executor and parallelism gives the same
// answer.
//
// Complexity: O(n) to find potential nodes, plus one node's dry run (preempt/detail/
// node_dry_run.hpp) per node evaluated. Allocation: none per node or per decision in steady state
// (buffers grow to the largest attempt seen). Exceptions: none of its own; the caller's hooks run
// on worker threads and must not throw. Thread-safety: one evaluate call at a time per evaluator;
// the decision stays valid until the next call. Work handed to an async executor refers to the
// evaluator: its destructor waits until every queued helper has run (drain a manual context
// first). Under PREEMPT_NO_THREADS evaluate takes always-inline executors only.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_EVALUATOR_HPP
#define PREEMPT_EVALUATOR_HPP

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "preempt/budget.hpp"
#include "preempt/candidate.hpp"
#include "preempt/candidate_choice.hpp"
#include "preempt/cluster.hpp"
#include "preempt/config.hpp"
#include "preempt/decision.hpp"
#include "preempt/detail/branch_and_bound.hpp"
#include "preempt/detail/cache_line.hpp"
#include "preempt/detail/candidate_lists.hpp"
#include "preempt/detail/node_dry_run.hpp"
#include "preempt/detail/parallel_dry_run.hpp"
#include "preempt/detail/rejection_runs.hpp"
#include "preempt/detail/requirements.hpp"
#include "preempt/eligibility.hpp"
#include "preempt/evaluator_config.hpp"
#include "preempt/executor.hpp"
#include "preempt/extender.hpp"
#include "preempt/failure_message.hpp"
#include "preempt/filter_statuses.hpp"
#include "preempt/nominations.hpp"
#include "preempt/observer.hpp"
#include "preempt/policy.hpp"
#include "preempt/policy_options.hpp"
#include "preempt/rejection_index.hpp"
#include "preempt/sampling.hpp"
#include "preempt/status.hpp"
#include "preempt/victim_grouping.hpp"
#include "preempt/victim_selection.hpp"

PREEMPT_NAMESPACE_BEGIN

template <class C, class Policy = default_policy, class Observer = null_observer>
class evaluator;

// Arguments that do not model the concepts: the reasons, each once (detail/requirements.hpp).
template <class C, class Policy, class Observer>
  requires(!detail::evaluator_arguments<C, Policy>)
class evaluator<C, Policy, Observer> : public detail::rejected_evaluator<C, Policy> {
  using detail::rejected_evaluator<C, Policy>::rejected_evaluator;
};

template <class C, class Policy, class Observer>
  requires detail::evaluator_arguments<C, Policy>
class evaluator<C, Policy, Observer>
    : private detail::ledger_misuse<decision<cluster_pod_t<C>>, cluster_pod_t<C>, C> {
 public:
  using pod_type = cluster_pod_t<C>;
  using node_type = cluster_node_t<C>;
  using state_type = cluster_state_t<C>;
  using decision_type = decision<pod_type>;
  static_assert(detail::observer_hooks_fit<Observer, pod_type>());
#if !defined(PREEMPT_NO_THREADS)
  template <class>
  friend class detail::parallel_dry_run;
#endif

  explicit evaluator(evaluator_config config = {}, Policy policy = {}, Observer observer = {})
      : config_(config),
        policy_(std::move(policy)),
        observer_(std::move(observer)),
        offsets_(config.seed),
        nodes_(detail::worker_count(config.parallelism)) {
    PREEMPT_ASSERT(preempt::validate(config.sampling).empty(),
                   "evaluator: invalid sampling arguments");
    config_.parallelism = nodes_.size();
    config_.chunk = std::max<std::size_t>(config_.chunk, 1);
    config_.max_batch = std::max(config_.max_batch, nodes_.size() * config_.chunk);
#if !defined(PREEMPT_NO_THREADS)
    if (nodes_.size() > 1)
      parallel_.emplace(nodes_.size(), detail::hardware_helpers(config_.workers_within_hardware));
#endif
  }

  static constexpr bool nothrow_movable = std::is_nothrow_move_constructible_v<Policy> &&
                                          std::is_nothrow_move_constructible_v<Observer> &&
                                          std::is_nothrow_move_constructible_v<state_type>;
  // Movable (not while evaluate runs): a decision obtained before the move is no longer valid; the
  // moved-from evaluator may only be destroyed or assigned to.
  evaluator(evaluator&&) noexcept(nothrow_movable) = default;
  evaluator& operator=(evaluator&&) noexcept(nothrow_movable) = default;

  // A nomination ledger passed where its reader is expected: a clear error
  // (detail/requirements.hpp).
  using detail::ledger_misuse<decision_type, pod_type, C>::evaluate;

  Policy& policy() noexcept { return policy_; }
  Observer& observer() noexcept { return observer_; }
  const evaluator_config& config() const noexcept { return config_; }

  // Evaluates preemption for `preemptor`. The decision refers to this evaluator's buffers and to
  // the cluster's pods: it is valid until the next evaluate call or until the cluster changes.
  template <node_statuses S, budget_set<pod_type> B, nominations_of<pod_type> N, executor E,
            class Extenders = no_extenders>
  const decision_type& evaluate(const pod_type& preemptor, const C& cluster, const S& statuses,
                                const B& budgets, const N& nominations, const E& ex,
                                const attempt& options = {}, Extenders&& extenders = {}) {
    return evaluate(no_victim_grouping{}, preemptor, detail::as_member_cluster(cluster), statuses,
                    budgets, nominations, ex, options, extenders);
  }

  // The same with pod groups (a workload::group_set, with preempt/workload/unit_grouping.hpp):
  // each node's dry run selects whole victim units, and step 1 compares a pod on the nominated
  // node by its group's priority; the preemptor keeps its own.
  template <class W, node_statuses S, budget_set<pod_type> B, nominations_of<pod_type> N,
            executor E, class Extenders = no_extenders>
    requires victim_groups<W, pod_type>
  const decision_type& evaluate(const pod_type& preemptor, const C& cluster, const W& groups,
                                const S& statuses, const B& budgets, const N& nominations,
                                const E& ex, const attempt& options = {},
                                Extenders&& extenders = {}) {
    return evaluate(victim_grouping_for<W, pod_type>::make(groups, grouping_storage_), preemptor,
                    detail::as_member_cluster(cluster), statuses, budgets, nominations, ex, options,
                    extenders);
  }

 private:
  // The cluster as the internals read it: C, or a cluster_view of one adapted by its traits.
  using view_type = detail::member_cluster_t<C>;
  static constexpr bool observes_nodes = detail::observes_every_node<Observer, pod_type>;
  // With parallel workers, results are merged while the batch is evaluated, except for an
  // observer of every node: it is called on the calling thread, in order, after the batch.
  static constexpr bool merges_while_evaluating = !observes_nodes;

  // The decision in upstream's steps (Evaluator.evaluate), victims grouped by G.
  template <class G, class S, class B, class N, class E, class Extenders>
    requires victim_grouping<G, pod_type>
  const decision_type& evaluate(const G& grouping, const pod_type& preemptor,
                                const view_type& cluster, const S& statuses, const B& budgets,
                                const N& nominations, const E& ex, const attempt& options,
                                Extenders& extenders) {
#if defined(PREEMPT_NO_THREADS)
    static_assert(is_always_inline_v<E>,
                  "PREEMPT_NO_THREADS: the evaluator runs on always-inline executors only (an "
                  "executor with `static constexpr bool always_inline = true`)");
#endif
    start_attempt(preemptor);
    nodes_.set_zero_victims(zero_victims_verdict_for(preemptor, extenders));
    const detail::reading_scope<view_type> reading(cluster);  // no change while it is read
    detail::check_nodes_not_copied(cluster);
    // The time of the decision: the policy's `now`, or the system clock read once; what a missing
    // start time counts as (v1.38: the latest instant).
    const detail::evaluation_clock<Policy> clock(policy_);
    now_ = detail::unstarted_time<Policy>(clock.now());
    // 0) Fetch the latest version of <pod>: the caller's. Its filter statuses must cover the
    //    cluster (a shorter list is the caller's mistake, reported rather than read past).
    if (!detail::statuses_cover(statuses, cluster.size()))
      return finish(decision_kind::error, statuses_too_short_message);
    // 1) Ensure the preemptor is eligible to preempt other pods (PodEligibleToPreemptOthers):
    //    not with policy Never, or while victims of an earlier preemption still terminate on its
    //    nominated node. With pod groups, the victim units are built once per decision (v1.38
    //    builds a pod's victim with its own priority, not its group's).
    const auto step_one_priority = [&] {
      if constexpr (detail::profile_of<Policy>() == upstream_profile::kubernetes_1_37)
        return grouping.priority_of();
      else
        return detail::priority_of_fn{};
    }();
    if (const status eligible = detail::check_eligibility_on(
            cluster, preemptor, options.nominated_node, statuses, policy_, step_one_priority);
        !eligible)
      return finish_message(decision_kind::not_eligible, eligible.reason());
    if constexpr (G::groups_victims) {
      constexpr upstream_profile profile = detail::profile_of<Policy>();
      if constexpr (requires { grouping.prepare(cluster, now_, nodes_.size(), profile); })
        grouping.prepare(cluster, now_, nodes_.size(), profile);
      else
        grouping.prepare(cluster, now_, nodes_.size());
    }

    // 2) Find all preemption candidates (findCandidates): the potential nodes are those whose
    //    filter status is `unschedulable`, in cluster order; none: "Preemption is not helpful".
    if (cluster.size() == 0) return finish(decision_kind::error, no_nodes_message);
    potential_.find(cluster.size(), statuses);
    const std::size_t n = potential_.size();
    decision_.potential_nodes = n;
    if (n == 0) return finish_unschedulable(preemptor, cluster.size());
    //    Sampling (GetOffsetAndNumCandidates): `wanted` candidates, from `attempt.offset` (taken
    //    modulo n) or the evaluator's next seeded offset, wrapping around.
    decision_.offset = options.offset ? *options.offset % n : offsets_.next(n);
    potential_.set_offset(decision_.offset);
    decision_.candidates_wanted = preempt::number_of_candidates(config_.sampling, n);
    lists_.set_wanted(decision_.candidates_wanted);
    bound_.start(detail::can_bound<Policy, Observer, Extenders, state_type, node_type, pod_type> &&
                 config_.report_only_chosen && !G::groups_victims);
    //    The dry run (DryRunPreemption), into two bounded candidate lists, until one candidate
    //    without violations is found and both hold `wanted`. Errors fail the attempt only when no
    //    candidate was found: no candidate is upstream's FitError, which clears the nomination.
    dry_run(grouping, preemptor, cluster, budgets, nominations, ex);
    //    The kept candidates, without violations first; bounded ones are only counted.
    decision_.candidates_bounded =
        lists_.template collect<pod_type>(cluster, nodes_, candidates_, candidate_scores_);
    decision_.diagnosis = lists_.diagnosis();
    if (candidates_.empty()) {
      if (lists_.has_errors()) return finish_errors(cluster);
      return finish_unschedulable(preemptor, cluster.size());
    }

    // 3) Interact with registered Extenders to filter out some candidates if needed.
    if (!apply_extenders(preemptor, extenders)) return decision_;
    if (candidates_.empty()) return finish(decision_kind::unschedulable, no_candidate_message);

    // 4) Find the best candidate (SelectCandidate, pickOneNodeForPreemption).
    return finish_nominated(preemptor);
  }

  void start_attempt(const pod_type& preemptor) {
    PREEMPT_ASSERT(!nodes_.empty(), "evaluator: evaluate on a moved-from evaluator");
    decision_ = decision_type{};
    lists_.reset(0);
    candidates_.clear();
    candidate_scores_.clear();
    nodes_.reset();
    detail::notify_attempt_started(observer_, preemptor);
  }

  // The dry run: inline, or handed out to the helpers (detail::worth_handing_out).
  template <class G, class B, class N, class E>
  void dry_run(const G& grouping, const pod_type& preemptor, const view_type& cluster,
               const B& budgets, const N& nominations, [[maybe_unused]] const E& ex) {
    nodes_.template prepare_memo<B>(cluster.size());
    // The cluster's rejection index, without grouped victims (detail/rejection_runs.hpp).
    const bool indexed = detail::prepare_rejection_index<Policy, node_type>(
        rejections_, config_.rejection_index && !G::groups_victims, cluster, preemptor);
#if !defined(PREEMPT_NO_THREADS)
    if (!is_always_inline_v<E> && parallel_ &&
        detail::worth_handing_out(indexed ? &rejections_ : nullptr, potential_,
                                  decision_.candidates_wanted, config_.min_parallel_nodes,
                                  config_.min_parallel_pods, bound_.active(),
                                  [&](std::size_t nodes) {
                                    return detail::estimated_pods(cluster, potential_, nodes);
                                  })) {
      dry_run_parallel(grouping, preemptor, cluster, budgets, nominations, ex);
      return;
    }
#endif
    // Sequentially: each node is merged as soon as it is evaluated, its victims read straight
    // from the scratch (no result slot, no copy).
    const std::size_t n = potential_.size();
    victim_selection<pod_type> selection;
    default_scores::vector scores{};
    const auto evaluate_node = [&](std::size_t node_index) {
      const bool bounded = nodes_.select(grouping, 0, node_index, preemptor, cluster, budgets,
                                         nominations, policy_, now_, bound_, selection, scores);
      return merge_node(node_index, selection.outcome, selection.victims, selection.pdb_violations,
                        scores, bounded);
    };
    if (indexed) {
      rejections_.template dry_run<!std::same_as<N, no_nominations>>(
          potential_, lists_, selection.outcome, evaluate_node,
          [&](std::size_t i) { return detail::has_nominated<pod_type>(nominations, i); },
          [&](std::size_t i, const status& outcome) {
            detail::notify_node_evaluated(observer_, i, outcome, std::span<const pod_type* const>{},
                                          0);
          });
      return;
    }
    for (std::size_t k = 0; k < n; ++k)
      if (evaluate_node(potential_[k])) break;
  }

#if !defined(PREEMPT_NO_THREADS)
  // The parallel dry run (preempt/detail/parallel_dry_run.hpp), this evaluator its host: the k-th
  // potential node evaluated on worker w (its victims to the worker's arena), then merged (victims
  // read only to tell an observer, called after the batch, when no worker writes an arena).
  template <class G, class B, class N>
  struct inputs {
    const G* grouping;
    const pod_type* preemptor;
    const view_type* cluster;
    const B* budgets;
    const N* nominations;
  };
  template <class G, class B, class N>
  void evaluate_item(std::size_t k, std::size_t w, detail::item_result<pod_type>& out,
                     const inputs<G, B, N>& in) {
    out.bounded =
        nodes_.select(*in.grouping, w, potential_[k], *in.preemptor, *in.cluster, *in.budgets,
                      *in.nominations, policy_, now_, bound_, out.selection, out.scores);
    out.victims = nodes_.keep_victims(w, out.selection.victims);
    out.selection.victims = {};  // in the worker's scratch, until its next node
  }
  bool merge_item(std::size_t k, const detail::item_result<pod_type>& r) {
    std::span<const pod_type* const> victims;
    if constexpr (observes_nodes) victims = nodes_.victims_of(r.victims);
    if (detail::candidate_lists::list* list =
            merge_outcome(potential_[k], r.outcome(), victims, r.violations()))
      keep(*list, {potential_[k], r.victims, r.violations(), r.scores, r.bounded});
    return lists_.may_stop();
  }
  void begin_batch() noexcept { bound_.begin_batch(); }

  template <class G, class B, class N, class E>
  void dry_run_parallel(const G& grouping, const pod_type& preemptor, const view_type& cluster,
                        const B& budgets, const N& nominations, const E& ex) {
    nodes_.prepare_workers(cluster, budgets);
    if constexpr (G::groups_victims) grouping.prepare_workers(budgets.budget_count());
    const inputs<G, B, N> in{&grouping, &preemptor, &cluster, &budgets, &nominations};
    bound_.begin_parallel();
    parallel_->template run<merges_while_evaluating>(potential_.size(), *this, in, ex);
    bound_.end_parallel();
    nodes_.note_arena_room();
  }

  std::size_t next_batch_size(std::size_t previous) const noexcept {
    return detail::next_batch_size(previous, nodes_.size(), config_.chunk, config_.max_batch,
                                   lists_.held(), decision_.candidates_wanted, bound_.active());
  }
#endif

  // Merges one node evaluated inline, its victims in worker 0's scratch: a kept candidate's are
  // copied to worker 0's arena. True when the dry run may stop.
  bool merge_node(std::size_t node_index, const status& outcome,
                  std::span<const pod_type* const> victims, std::int64_t violations,
                  const default_scores::vector& scores, bool bounded) {
    if (detail::candidate_lists::list* list =
            merge_outcome(node_index, outcome, victims, violations))
      keep(*list, {node_index, nodes_.keep_victims(0, victims), violations, scores, bounded});
    return lists_.may_stop();
  }

  // Folds one node's outcome into the candidate lists and tells the observer; the list it joins,
  // or null. `victims` is read by the observer only.
  detail::candidate_lists::list* merge_outcome(std::size_t node_index, const status& outcome,
                                               std::span<const pod_type* const> victims,
                                               std::int64_t violations) {
    detail::candidate_lists::list* list = lists_.add(node_index, outcome, violations);
    detail::notify_node_evaluated(observer_, node_index, outcome, victims, violations);
    return list;
  }

  void keep(detail::candidate_lists::list& list, const detail::kept_candidate& k) {
    list.push_back(k);
    bound_.note(k);  // the best candidate so far, for the branch and bound
  }

  // What a node where the preemptor fits with every victim reprieved is (DryRunPreemption).
  template <class Extenders>
  static detail::zero_victims_verdict zero_victims_verdict_for(const pod_type& preemptor,
                                                               Extenders& extenders) {
    using verdict = detail::zero_victims_verdict;
    if constexpr (detail::profile_of<Policy>() == upstream_profile::kubernetes_1_37)
      return verdict::error;
    else
      return detail::has_interested_preempt_extender(preemptor, extenders) ? verdict::placeholder
                                                                           : verdict::unresolvable;
  }

  // Step 3 (callExtenders); false when the attempt failed (the decision is then set).
  template <class Extenders>
  bool apply_extenders(const pod_type& preemptor, Extenders& extenders) {
    if constexpr (std::same_as<std::remove_cvref_t<Extenders>, no_extenders>) {
      return true;
    } else {
      bool rescored = false;
      const detail::extenders_outcome r =
          detail::run_extenders(preemptor, extenders, candidates_, extender_out_, &rescored);
      if (rescored) candidate_scores_.clear();  // the extenders' candidates: scored when chosen
      using kind = detail::extenders_outcome::kind;
      if (r.ended == kind::extender_failed) finish_message(decision_kind::error, r.text);
      if (r.ended == kind::no_victims_on)
        finish(decision_kind::error, messages_.no_victims_on(r.text));
      return r.ended == kind::ran;
    }
  }

  // Step 4: the best candidate, by the policy's score functions or upstream's.
  const decision_type& finish_nominated(const pod_type& preemptor) {
    const std::span<const candidate<pod_type>> cands(candidates_);
    decision_.choice = detail::choose_candidate<pod_type>(
        cands, std::span<const default_scores::vector>(candidate_scores_), policy_, now_);
    const candidate<pod_type>& best = candidates_[decision_.choice.index];
    // A running pod with the preemptor's uid: the caller's cluster holds the preemptor twice.
    for (const pod_type* v : best.victims)
      if (::preempt::uid_of(*v) == ::preempt::uid_of(preemptor))
        return finish(decision_kind::error, preemptor_among_victims_message);
    detail::notify_candidate_chosen(observer_, best);
    decision_.kind = decision_kind::nominated;
    decision_.node_index = best.node_index;
    decision_.node_name = best.node_name;
    decision_.victims = best.victims;
    decision_.pdb_violations = best.pdb_violations;
    decision_.candidates = cands;
    decision_.diagnosis = lists_.diagnosis();
    return decision_;
  }

  const decision_type& finish(decision_kind kind, std::string_view message) {
    decision_.kind = kind;
    decision_.message = message;
    decision_.diagnosis = lists_.diagnosis();
    decision_.candidates = std::span<const candidate<pod_type>>(candidates_);
    return decision_;
  }
  const decision_type& finish_message(decision_kind kind, std::string_view text) {
    return finish(kind, messages_.prefixed(text));
  }
  // No candidate: upstream's FitError over all nodes; the nomination is cleared. An observer of
  // budget refusals hears of it when hard_budgets rejected a node.
  const decision_type& finish_unschedulable(const pod_type& preemptor, std::size_t total_nodes) {
    decision_.clear_nomination = true;
    if constexpr (detail::observes_budget_refusals<Observer, pod_type>)
      if (::preempt::refused_by_budgets(lists_.diagnosis()))
        detail::notify_refused_by_budgets(observer_, preemptor);
    return finish(decision_kind::unschedulable,
                  messages_.fit_error(lists_.diagnosis(), total_nodes));
  }
  // Errors and no candidate: upstream's aggregate of the dry run's errors.
  const decision_type& finish_errors(const view_type& cluster) {
    return finish(decision_kind::error, messages_.aggregate_error(lists_.diagnosis(), cluster));
  }

  evaluator_config config_;
  Policy policy_;
  Observer observer_;
  offset_sequence offsets_;
  // Read by every worker during a parallel batch, written between batches only.
  detail::node_dry_run<view_type, Policy> nodes_;
#if !defined(PREEMPT_NO_THREADS)
  std::optional<detail::parallel_dry_run<pod_type>> parallel_;  // with more than one worker
#endif
  detail::potential_nodes potential_;
  detail::rejection_runs<detail::rejection_index_of_t<view_type, pod_type>> rejections_;
  detail::score_bound bound_;
  // The start time a pod without one counts as in the current decision: its time (see
  // preempt/policy.hpp), or the latest instant for a v1.38 policy.
  timestamp now_ = 0;
  victim_grouping_storage grouping_storage_;  // a grouping's scratch (pod groups: the units)
  decision_type decision_;
  // Written by the merge, on the calling thread, while helpers evaluate: on lines of their own.
  alignas(detail::cache_line) detail::candidate_lists lists_;
  // Written after the dry run.
  std::vector<candidate<pod_type>> candidates_;
  std::vector<default_scores::vector> candidate_scores_;  // parallel to candidates_, if computed
  std::vector<candidate<pod_type>> extender_out_;
  failure_message messages_;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_EVALUATOR_HPP
