// preempt/evaluator.hpp - the whole preemption decision for one pending pod (upstream's
// DefaultPreemption PostFilter, Evaluator.Preempt), inline or in parallel on any executor.
//
// evaluator<C>::evaluate(preemptor, cluster, statuses, budgets, nominations, executor, attempt)
// returns a decision (preempt/decision.hpp):
//   1. Eligibility (PodEligibleToPreemptOthers, preempt/eligibility.hpp): preemption policy
//      Never, or an earlier preemption still terminating victims on the pod's nominated node
//      ⇒ not_eligible (keep the nomination).
//   2. Potential nodes (findCandidates): the nodes whose filter status is `unschedulable`, in
//      cluster order. None ⇒ unschedulable, every node "Preemption is not helpful for
//      scheduling".
//   3. Sampling (GetOffsetAndNumCandidates, preempt/sampling.hpp): wanted =
//      number_of_candidates(config.sampling, n); the dry run starts at `attempt.offset` (taken
//      modulo n) or at the next offset of the evaluator's offset_sequence (seeded by
//      config.seed; the same on every standard library), and wraps around.
//   4. Dry run (DryRunPreemption): select_victims (SelectVictimsOnNode) on each potential node in
//      that order, keeping two bounded lists (candidates without and with budget violations, each
//      capped at `wanted`, overflow dropped), until at least one candidate without violations
//      exists and both lists together hold `wanted`. A node whose selection succeeds with no
//      victim is an error for that node. Errors fail the attempt only when no candidate was found.
//   5. Candidates (without violations first) go through the extenders (callExtenders), then
//      pick_best_candidate (SelectCandidate / pickOneNodeForPreemption; the policy's
//      score_functions() when it has them, else the upstream scores).
// With pod groups (the overload taking a workload::group_set, Kubernetes v1.37 with
// GenericWorkload): the cluster's victim units are built once per decision
// (workload::build_victim_units, missing start times read as the policy's `now`), each node's dry
// run selects whole units (workload::select_unit_victims, with per-worker scratch), and the
// terminating-pod check of step 1 compares a pod's effective priority (its group's,
// workload::effective_priority) with the preemptor's. The preemptor keeps its own priority
// (upstream compares with PodPriority(preemptor)). With workload::no_groups the decision equals
// the overload without groups.
// Branch and bound (evaluator_config::report_only_chosen, off by default): a node whose state
// offers victim_score_bound (preempt/node_state.hpp; model::resource_fit_state does) and whose
// bound, score by score, cannot beat the best candidate found before it in candidate order is
// counted as a candidate (for the sampling's stop rule and the candidate lists) without selecting
// its victims: it could at best tie an earlier candidate, and the earlier one wins ties. The
// nominated node, its victims and every node's outcome are the same as without it; the decision's
// `candidates` then lists only the candidates whose victims were selected (`candidates_bounded`
// counts the others), and `choice.deciding_score` is decided among those. It applies where it
// cannot change the answer: the upstream scores (no score_functions), no extenders (they see every
// candidate), no pod groups, default_policy's eligibility and importance order, an observer
// without on_node_evaluated, and a node without nominated pods (they decide whether the node is a
// candidate at all); elsewhere every node is evaluated in full. Budgets need no check: a bounded
// node comes after a candidate without violations, so it lands in a list with room and counts
// toward the stop rule alike whether its victims would violate budgets or not, and the bound holds
// in lexicographic order either way (see resource_fit_state::victim_score_bound). With parallel
// workers, a batch is bounded against the best candidate of the batches before it, so the decision
// stays the same for every parallelism. Beyond upstream, the answer is deterministic: with more
// than one worker, nodes are evaluated ahead in parallel batches and only the prefix a sequential
// evaluation would have reached is kept, so every executor and every parallelism gives the same
// decision, node statuses included. The messages of the attempts that nominate nothing are
// upstream's (preempt/failure_message.hpp).
//
// Executors: the work handed to an async executor is a reference to helper state inside the
// evaluator (preempt/detail/helper_crew.hpp); the calling thread works too and never waits for a
// helper that has not started, so an executor that runs tasks late (a manual queue) or never (a
// saturated pool) cannot stall an evaluation. An evaluator must outlive the helper tasks it
// queued: its destructor waits until every queued helper has run, so drain a manual context
// before destroying the evaluator. With an always-inline executor no helper is ever queued and no
// atomic is touched. Under PREEMPT_NO_THREADS (preempt/config.hpp) there is no helper crew at all
// (parallelism is 1) and evaluate accepts always-inline executors only. A parallel batch is merged
// into the candidate lists in candidate order while it is evaluated, by the calling thread alone:
// at the end of each of its claims it merges the results that are ready from the cursor on, and
// the rest after the batch. A helper only publishes its result (one release store per item): the
// workers share no flag they both write per node, and each worker's state, like the merge's, is on
// cache lines of its own (detail::cache_line). Each worker appends a node's victims to its
// own arena right after selecting them, while they are in its cache, and the merge records where
// they are, so the calling thread copies no victim of a parallel batch; inline, a kept
// candidate's victims are copied from the scratch once. With an observer of every node
// (on_node_evaluated), the batch is merged after it is evaluated instead, so that the observer
// runs on the calling thread.
//
// Complexity: O(n) to find potential nodes, plus select_victims on the nodes evaluated (with
// branch and bound, a bounded node costs its prepare_state and victim_score_bound instead). With
// stamped budgets (preempt/budget.hpp: model::budget_table over model::resource_cluster), a node
// where no eviction can violate a budget is found once per state of its pods and of the budgets
// (every pod charged once) and then selected without reading the budgets.
// Allocation: none per node or per decision in steady state (buffers grow to the largest attempt
// seen; with parallel workers, each dry run first gives every worker's scratch room for the
// largest node any worker has needed, and every worker's arena room for all the victims of the
// largest parallel dry run so far, so which worker takes which node, and
// where in a batch, does not matter); formatting an "unschedulable" message reuses its buffers too.
// Exceptions: none of its own; the caller's hooks run on worker threads and must not throw.
// Thread-safety: one evaluate call at a time per evaluator; the decision stays valid until the next
// call.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_EVALUATOR_HPP
#define PREEMPT_EVALUATOR_HPP

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <ranges>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "preempt/best_candidate.hpp"
#include "preempt/budget.hpp"
#include "preempt/candidate.hpp"
#include "preempt/cluster.hpp"
#include "preempt/config.hpp"
#include "preempt/decision.hpp"
#include "preempt/detail/budget_memo.hpp"
#include "preempt/detail/cache_line.hpp"
#include "preempt/eligibility.hpp"
#include "preempt/executor.hpp"
#include "preempt/extender.hpp"
#include "preempt/failure_message.hpp"
#include "preempt/filter_statuses.hpp"
#include "preempt/nominations.hpp"
#include "preempt/observer.hpp"
#include "preempt/policy.hpp"
#include "preempt/sampling.hpp"
#include "preempt/status.hpp"
#include "preempt/victim_selection.hpp"
#include "preempt/workload/group_set.hpp"
#include "preempt/workload/unit_victim_selection.hpp"
#include "preempt/workload/victim_units.hpp"

#if !defined(PREEMPT_NO_THREADS)
#include "preempt/detail/helper_crew.hpp"
#endif

PREEMPT_NAMESPACE_BEGIN

struct evaluator_config {
  sampling_args sampling;
  // Workers per dry run, the calling thread included. 1 evaluates sequentially.
  std::size_t parallelism = 1;
  // Nodes per worker in a parallel batch that may reach beyond the sequential stop: larger
  // batches mean fewer hand-offs and more nodes evaluated past the stop (their results are
  // discarded). Batches that cannot reach the stop are larger, up to max_batch nodes.
  std::size_t chunk = 8;
  // The most nodes one parallel batch evaluates (at least parallelism * chunk): their results,
  // about 170 bytes each, are held until the batch is merged; each batch wakes the helpers and
  // waits for the last of them once, so a full dry run is fastest in one batch.
  std::size_t max_batch = 8192;
  // Seeds the dry run's start offsets (preempt::offset_sequence: the same on every standard
  // library and target).
  std::uint64_t seed = 0;
  // Branch and bound: the caller reads the chosen candidate only, not every candidate's victims
  // (see the header comment).
  bool report_only_chosen = false;
};

// Per-attempt inputs.
struct attempt {
  // Where the dry run starts among the potential nodes (upstream draws it at random).
  std::optional<std::size_t> offset;
  // The node the preemptor is currently nominated to, if any.
  std::optional<std::size_t> nominated_node;
};

namespace detail {

// The policy's clock (`now` member), or 0: the start time assumed for pods without one.
template <class T>
constexpr timestamp now_of(const T& policy) {
  if constexpr (requires { policy.now; })
    return static_cast<timestamp>(policy.now);
  else
    return 0;
}

}  // namespace detail

template <cluster C, victim_policy<cluster_node_t<C>, cluster_pod_t<C>> Policy = default_policy,
          class Observer = null_observer>
class evaluator {
 public:
  using pod_type = cluster_pod_t<C>;
  using node_type = cluster_node_t<C>;
  using state_type = typename C::state_type;
  using decision_type = decision<pod_type>;

  explicit evaluator(evaluator_config config = {}, Policy policy = {}, Observer observer = {})
      : config_(config),
        policy_(std::move(policy)),
        observer_(std::move(observer)),
        offsets_(config.seed),
#if defined(PREEMPT_NO_THREADS)
        workers_(1) {
#else
        crew_(std::make_unique<detail::helper_crew>(std::max<std::size_t>(config.parallelism, 1))),
        workers_(std::max<std::size_t>(config.parallelism, 1)) {
#endif
    PREEMPT_ASSERT(preempt::validate(config.sampling).empty(),
                   "evaluator: invalid sampling arguments");
    config_.parallelism = workers_.size();
    config_.chunk = std::max<std::size_t>(config_.chunk, 1);
    config_.max_batch = std::max(config_.max_batch, workers_.size() * config_.chunk);
#if !defined(PREEMPT_NO_THREADS)
    if (workers_.size() > 1) gate_ = std::make_unique<merge_gate>();
#endif
  }

  static constexpr bool nothrow_movable = std::is_nothrow_move_constructible_v<Policy> &&
                                          std::is_nothrow_move_constructible_v<Observer> &&
                                          std::is_nothrow_move_constructible_v<state_type>;
  // Movable (when the policy, the observer and the cluster's state type are). Moving an evaluator
  // while an evaluate call runs on it is the caller's bug. A decision obtained before the move is
  // no longer valid; the moved-from evaluator may only be destroyed or assigned to.
  evaluator(evaluator&&) noexcept(nothrow_movable) = default;
  evaluator& operator=(evaluator&&) noexcept(nothrow_movable) = default;

  // A nomination ledger passed where its reader is expected: a clear error rather than a list of
  // unsatisfied constraints (the ledger does not model nominations_of).
  template <class... Args>
    requires(detail::nominations_owner<Args> || ...)
  const decision_type& evaluate(const pod_type&, const C&, Args&&...) {
    static_assert(sizeof...(Args) == 0,  // always false here: Args holds the ledger
                  "evaluate: pass the nomination ledger's reader(), which holds its shared lock "
                  "while the evaluation reads the nominations, not the ledger itself");
    return decision_;
  }

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
#if defined(PREEMPT_NO_THREADS)
    static_assert(is_always_inline_v<E>,
                  "PREEMPT_NO_THREADS: the evaluator runs on always-inline executors only (an "
                  "executor with `static constexpr bool always_inline = true`)");
#endif
    PREEMPT_ASSERT(!workers_.empty(), "evaluator: evaluate on a moved-from evaluator");
    reset_decision();
    grouped_ = false;
    detail::notify_attempt_started(observer_, preemptor);
    if (options.nominated_node && *options.nominated_node < cluster.size()) {
      const std::size_t nn = *options.nominated_node;
      const auto& nominated_node = cluster[nn];  // may be a proxy returned by value
      const status eligible = preempt::check_eligibility(
          preemptor, &nominated_node, status_code(statuses.code_of(nn)), policy_);
      if (!eligible) return finish_message(decision_kind::not_eligible, eligible.reason());
    } else if (status eligible = preempt::check_eligibility<node_type>(
                   preemptor, nullptr, status_code::unschedulable, policy_);
               !eligible) {
      return finish_message(decision_kind::not_eligible, eligible.reason());
    }
    return evaluate_eligible(preemptor, cluster, statuses, budgets, nominations, ex, options,
                             extenders);
  }

  // The same with pod groups: victims are whole units (see the header comment).
  template <class W, node_statuses S, budget_set<pod_type> B, nominations_of<pod_type> N,
            executor E, class Extenders = no_extenders>
    requires workload::group_set<W, pod_type>
  const decision_type& evaluate(const pod_type& preemptor, const C& cluster, const W& groups,
                                const S& statuses, const B& budgets, const N& nominations,
                                const E& ex, const attempt& options = {},
                                Extenders&& extenders = {}) {
#if defined(PREEMPT_NO_THREADS)
    static_assert(is_always_inline_v<E>,
                  "PREEMPT_NO_THREADS: the evaluator runs on always-inline executors only (an "
                  "executor with `static constexpr bool always_inline = true`)");
#endif
    PREEMPT_ASSERT(!workers_.empty(), "evaluator: evaluate on a moved-from evaluator");
    reset_decision();
    grouped_ = false;
    detail::notify_attempt_started(observer_, preemptor);
    if (status eligible = check_group_eligibility(preemptor, cluster, groups, statuses, options);
        !eligible)
      return finish_message(decision_kind::not_eligible, eligible.reason());
    ::preempt::workload::build_victim_units(cluster, groups, detail::now_of(policy_), units_);
    grouped_ = true;
    return evaluate_eligible(preemptor, cluster, statuses, budgets, nominations, ex, options,
                             extenders);
  }

 private:
  // PodEligibleToPreemptOthers with pod groups: a pod on the nominated node is compared by its
  // effective priority.
  template <class W, node_statuses S>
  status check_group_eligibility(const pod_type& preemptor, const C& cluster, const W& groups,
                                 const S& statuses, const attempt& options) const {
    if (::preempt::preemption_policy_of(preemptor) == preemption_policy::never)
      return status::unschedulable(not_eligible_policy_never);
    if (!options.nominated_node || *options.nominated_node >= cluster.size()) return status::ok();
    const std::size_t nn = *options.nominated_node;
    if (status_code(statuses.code_of(nn)) == status_code::unschedulable_and_unresolvable)
      return status::ok();
    const auto& node = cluster[nn];  // may be a proxy returned by value
    for (const auto& p : ::preempt::pods_of(node))
      if (::preempt::workload::effective_priority(groups, p) < ::preempt::priority_of(preemptor) &&
          ::preempt::is_terminating_by_preemption(p) &&
          policy_.is_eligible_victim(node, p, preemptor))
        return status::unschedulable(not_eligible_terminating_victim);
    return status::ok();
  }

  template <node_statuses S, class B, class N, executor E, class Extenders>
  const decision_type& evaluate_eligible(const pod_type& preemptor, const C& cluster,
                                         const S& statuses, const B& budgets, const N& nominations,
                                         const E& ex, const attempt& options,
                                         Extenders& extenders) {
    if (cluster.size() == 0) return finish(decision_kind::error, no_nodes_message);

    find_potential_nodes(cluster, statuses);
    const std::size_t n = potential_.size();
    decision_.potential_nodes = n;
    if (n == 0) return finish_unschedulable(cluster.size());
    bounding_ = can_bound<Extenders> && config_.report_only_chosen && !grouped_;
    has_best_ = false;
    decision_.offset = options.offset ? *options.offset % n : offsets_.next(n);
    decision_.candidates_wanted = preempt::number_of_candidates(config_.sampling, n);

    dry_run(preemptor, cluster, budgets, nominations, ex);
    collect_candidates(cluster);
    if (candidates_.empty()) {
      if (has_errors_) return finish_errors(cluster);
      return finish_unschedulable(cluster.size());
    }
    if (!apply_extenders(preemptor, extenders)) return decision_;
    if (candidates_.empty()) return finish(decision_kind::unschedulable, no_candidate_message);
    return finish_nominated();
  }

  // Without the policy's own score functions, each candidate's upstream scores are computed on
  // its worker right after its victims were chosen (they are in the cache then), and the choice
  // reads them instead of going over every candidate's victims again.
  static constexpr bool precomputes_scores = !requires(Policy& p) { p.score_functions(); };

  // Branch and bound is possible (see the header comment; budgets and nominations are checked per
  // evaluation and per node).
  static constexpr bool observes_nodes =
      requires(Observer& o, std::size_t i, const status& st, std::span<const pod_type* const> v,
               std::int64_t k) { o.on_node_evaluated(i, st, v, k); };
  template <class Extenders>
  static constexpr bool can_bound =
      precomputes_scores && !observes_nodes &&
      std::same_as<std::remove_cvref_t<Extenders>, no_extenders> &&
      bounds_victim_scores<state_type, pod_type> &&
      detail::every_lower_priority_pod_eligible<Policy, node_type, pod_type>() &&
      detail::default_importance_order<Policy, pod_type>();

  // Where a node's victims are kept: `count` of them from `first` in worker `worker`'s arena.
  struct victims_at {
    std::size_t first;
    std::uint32_t count;   // a node's victims (at most its pods)
    std::uint32_t worker;  // parallelism is far below 2^32
  };
  // One node's result in a parallel batch. The selection is constructed in place (its status
  // written once, where it is read); its victims are in the arena of the worker that evaluated
  // it (`victims`; the selection's own span is stale once that worker moved on).
  struct item_result {
    victim_selection<pod_type> selection;
    victims_at victims{};
    default_scores::vector scores{};
    bool bounded = false;  // a candidate whose victims were not selected (branch and bound)

    const status& outcome() const noexcept { return selection.outcome; }
    std::int64_t violations() const noexcept { return selection.pdb_violations; }
  };
  struct kept_candidate {
    std::size_t node_index;
    victims_at victims;
    std::int64_t violations;
    default_scores::vector scores;
    bool bounded;
  };
#if !defined(PREEMPT_NO_THREADS)
  // The merge of a parallel batch while it is evaluated: the calling thread (worker 0) merges the
  // items from `cursor` on whose results are ready, in order; helpers publish theirs in `ready`.
  // `cursor` is read and written by the calling thread only, `stopped` written by it only; the
  // cursor, written per merged item, is on a line of its own, away from what helpers read per item.
  struct merge_gate {
    std::unique_ptr<std::atomic<bool>[]> ready;  // per item: its result is in its slot
    std::size_t capacity = 0;
    std::atomic<bool> stopped{false};  // the dry run may stop: later items are not merged
    alignas(detail::cache_line) std::size_t cursor = 0;
    std::size_t count = 0;
    std::size_t grain = 1;  // items per claim (claims start at multiples of it)

    void start(std::size_t items, std::size_t items_per_claim) {
      if (items > capacity) {  // once per largest batch
        ready = std::make_unique<std::atomic<bool>[]>(items);
        capacity = items;
      }
      for (std::size_t i = 0; i < items; ++i) ready[i].store(false, std::memory_order_relaxed);
      stopped.store(false, std::memory_order_relaxed);
      cursor = 0;
      count = items;
      grain = items_per_claim;
    }
    // Whether `item` is the last of its claim: the calling thread merges what is ready then, not
    // after every item (each look at a helper's flags while the helper writes the same cache line
    // takes the line away from it).
    bool ends_claim(std::size_t item) const noexcept {
      return (item + 1) % grain == 0 || item + 1 == count;
    }
  };
#endif
  // With parallel workers, results are merged while the batch is evaluated (merge_gate), except
  // for an observer of every node: it is called on the calling thread, in order, after the batch.
#if defined(PREEMPT_NO_THREADS)
  static constexpr bool merges_while_evaluating = false;
#else
  static constexpr bool merges_while_evaluating = !observes_nodes;
#endif

  // Aligned: what one worker writes per node (its state, its scratch's and arena's ends) is on
  // lines no other worker touches.
  struct alignas(detail::cache_line) worker {
    victim_scratch<pod_type> scratch;
    workload::unit_selection_scratch<pod_type> unit_scratch;  // with pod groups
    std::optional<state_type> state;
    // The victims this worker kept in the current decision: in a parallel dry run, of every node
    // it evaluated, appended right after the selection (while they are in its cache, and without
    // a write to memory another worker reads during the batch); inline, of the kept candidates
    // (worker 0's). Read by the calling thread once the workers are done.
    std::vector<const pod_type*> arena;
  };

  void reset_decision() {
    decision_ = decision_type{};
    diagnosis_.clear();
    outcomes_.clear();
    outcome_counts_.clear();
    candidates_.clear();
    candidate_scores_.clear();
    without_violations_.clear();
    with_violations_.clear();
    for (worker& wk : workers_) wk.arena.clear();
    has_errors_ = false;
  }

  template <node_statuses S>
  void find_potential_nodes(const C& cluster, const S& statuses) {
    potential_.clear();
    const std::size_t nodes = cluster.size();
    for (std::size_t i = 0; i < nodes; ++i)
      if (status_code(statuses.code_of(i)) == status_code::unschedulable) potential_.push_back(i);
  }

  // The k-th potential node in evaluation order (k < n): from the offset on, wrapping around,
  // without a division.
  std::size_t potential_node(std::size_t k) const noexcept {
    const std::size_t n = potential_.size();
    std::size_t at = decision_.offset + k;
    if (at >= n) at -= n;
    return potential_[at];
  }

  // Selects the victims on node `node_index` with worker `wk`'s state and scratch: the selection
  // is built in `selection` (its victims point into the scratch until the worker's next node),
  // with a candidate's upstream scores in `scores`. True when branch and bound skipped the node
  // (a candidate whose victims were not selected).
  template <class B, class N>
  bool evaluate_node(std::size_t node_index, worker& wk, const pod_type& preemptor,
                     const C& cluster, const B& budgets, const N& nominations,
                     victim_selection<pod_type>& selection, default_scores::vector& scores) {
    if (!wk.state) wk.state.emplace(cluster.make_state());
    cluster.prepare_state(node_index, *wk.state);
    const auto& nominated = detail::nominated_to<pod_type>(nominations, node_index);
    // The selection is trivially destructible, and a placement new from the call's prvalue is
    // guaranteed elision (std::construct_at would copy a temporary): its status is written once.
    static_assert(std::is_trivially_destructible_v<victim_selection<pod_type>>);
    void* const slot = static_cast<void*>(std::addressof(selection));
    if constexpr (bounds_victim_scores<state_type, pod_type>) {
      // Inline, the best candidate so far; in parallel, the best of the batches before this one
      // (bound_best_, a copy the merge does not write while workers read it).
      const bool has_bound = parallel_batch_ ? bound_has_best_ : has_best_;
      const default_scores::vector& best = parallel_batch_ ? bound_best_ : best_;
      if (bounding_ && has_bound && std::ranges::begin(nominated) == std::ranges::end(nominated))
        if (const auto bound = wk.state->victim_score_bound(preemptor, detail::now_of(policy_));
            bound && !(best < *bound)) {
          ::new (slot) victim_selection<pod_type>{status::ok(), {}, 0};
          return true;
        }
    }
    if constexpr (foresees_rejections<state_type, pod_type> &&
                  detail::every_lower_priority_pod_eligible<Policy, node_type, pod_type>())
      if (!grouped_ && std::ranges::begin(nominated) == std::ranges::end(nominated))
        if (const status* rejection = wk.state->foreseen_rejection(preemptor)) {
          ::new (slot) victim_selection<pod_type>{*rejection, {}, 0};
          return false;
        }
    if (grouped_)
      ::new (slot) victim_selection<pod_type>(::preempt::workload::select_unit_victims(
          preemptor, node_index, cluster, *wk.state, units_, budgets, nominated, wk.unit_scratch,
          policy_));
    else
      select_on_node(preemptor, node_index, cluster[node_index], budgets, nominated, wk, slot);
    if (selection.outcome.is_success()) {
      if (selection.victims.empty())
        selection.outcome = status::error(zero_victims_reason);
      else if constexpr (precomputes_scores)
        scores = default_scores{detail::now_of(policy_)}.all(
            candidate<pod_type>{node_index, {}, selection.victims, selection.pdb_violations});
    }
    return false;
  }

  // Whether the evaluator remembers what budgets of type B answered per node: stamped budgets,
  // and nodes whose pods() is a contiguous span (the memo names a span by its offset).
  template <class B>
  static constexpr bool remembers_budgets =
      stamped_budgets<B, node_type> && requires(const node_type& n) {
        { n.pods() } -> std::convertible_to<std::span<const pod_type>>;
      };

  // select_victims on one node, its result constructed at `slot`. With remembers_budgets, through
  // the node's memo (detail::node_budget_memo, brought up to date first by charging every pod of
  // the node): a node where no eviction can violate a budget is selected without budgets, another
  // with the violation flags it remembers. Each worker writes the memo entries of the nodes it
  // evaluates (distinct nodes).
  template <class B, class Nominated>
  void select_on_node(const pod_type& preemptor, std::size_t node_index, const node_type& node,
                      const B& budgets, const Nominated& nominated, worker& wk, void* slot) {
    if constexpr (remembers_budgets<B>) {
      detail::node_budget_memo& memo = budget_memo_[node_index];
      const std::span<const pod_type> pods(node.pods());
      if (!memo.current(node.stamp(), budgets.stamp()))
        memo.free = !memo.charge_span(pods, 0, budgets, wk.scratch);
      if (memo.free) {
        ::new (slot) victim_selection<pod_type>(::preempt::select_victims(
            preemptor, node, *wk.state, no_budgets{}, nominated, wk.scratch, policy_));
      } else {
        const detail::memo_budgets<B, pod_type> remembered(budgets, memo, pods);
        ::new (slot) victim_selection<pod_type>(::preempt::select_victims(
            preemptor, node, *wk.state, remembered, nominated, wk.scratch, policy_));
      }
    } else {
      ::new (slot) victim_selection<pod_type>(::preempt::select_victims(
          preemptor, node, *wk.state, budgets, nominated, wk.scratch, policy_));
    }
  }

  // Evaluates node `item` of the current batch on worker `w`: its result in the item's slot, its
  // victims appended to the worker's arena. With merges_while_evaluating, on the calling thread
  // (worker 0) a result that is next in candidate order is merged right away, and at the end of
  // each of its claims whatever the helpers made ready after it; a helper's result is marked
  // ready for the calling thread to merge, during the batch or after it.
  template <class B, class N>
  void evaluate_item(std::size_t item, std::size_t w, const pod_type& preemptor, const C& cluster,
                     const B& budgets, const N& nominations) {
    item_result& out = results_[item];
    worker& wk = workers_[w];
#if !defined(PREEMPT_NO_THREADS)
    if constexpr (merges_while_evaluating)
      if (gate_->stopped.load(std::memory_order_relaxed)) return;  // past the stop: discarded
#endif
    const std::size_t node_index = potential_node(batch_base_ + item);
    out.bounded = evaluate_node(node_index, wk, preemptor, cluster, budgets, nominations,
                                out.selection, out.scores);
    const std::span<const pod_type* const> victims = out.selection.victims;
    out.victims = {wk.arena.size(), static_cast<std::uint32_t>(victims.size()),
                   static_cast<std::uint32_t>(w)};
    wk.arena.insert(wk.arena.end(), victims.begin(), victims.end());
    out.selection.victims = {};  // in the worker's scratch, until its next node
#if !defined(PREEMPT_NO_THREADS)
    if constexpr (merges_while_evaluating) {
      merge_gate& g = *gate_;
      if (w == 0 && g.cursor == item && !g.stopped.load(std::memory_order_relaxed)) {
        if (merge_item(g.cursor)) g.stopped.store(true, std::memory_order_relaxed);
        ++g.cursor;
        if (g.ends_claim(item)) merge_ready_items();
        return;
      }
    }
#endif
#if !defined(PREEMPT_NO_THREADS)
    if constexpr (merges_while_evaluating) {
      gate_->ready[item].store(true, std::memory_order_release);
      if (w == 0 && gate_->ends_claim(item)) merge_ready_items();
    }
#endif
  }

#if !defined(PREEMPT_NO_THREADS)
  // Merges the batch's items from the cursor on, in order, while their results are in their
  // slots. Called on the calling thread only (worker 0, during the batch or after it).
  void merge_ready_items() {
    merge_gate& g = *gate_;
    while (g.cursor < g.count && !g.stopped.load(std::memory_order_relaxed) &&
           g.ready[g.cursor].load(std::memory_order_acquire)) {
      if (merge_item(g.cursor)) g.stopped.store(true, std::memory_order_relaxed);
      ++g.cursor;
    }
  }
#endif

  template <class B, class N, class E>
  void dry_run(const pod_type& preemptor, const C& cluster, const B& budgets, const N& nominations,
               [[maybe_unused]] const E& ex) {
    if constexpr (remembers_budgets<B>)
      if (budget_memo_.size() < cluster.size()) budget_memo_.resize(cluster.size());
    if (is_always_inline_v<E> || workers_.size() <= 1) {
      dry_run_inline(preemptor, cluster, budgets, nominations);
      return;
    }
    const std::size_t n = potential_.size();
    struct context {  // for the helper crew
      evaluator* self;
      const pod_type* preemptor;
      const C* cluster;
      const B* budgets;
      const N* nominations;
    } ctx [[maybe_unused]]{this, &preemptor, &cluster, &budgets, &nominations};

    prepare_workers(cluster, budgets);
    parallel_batch_ = true;
    std::size_t previous = 0;
    for (batch_base_ = 0; batch_base_ < n;) {
      const std::size_t count = std::min(next_batch_size(previous), n - batch_base_);
      if (results_.size() < count) results_.resize(count);
      previous = count;
      bound_best_ = best_;
      bound_has_best_ = has_best_;
#if !defined(PREEMPT_NO_THREADS)
      const std::size_t grain =
          std::max<std::size_t>(1, count / (workers_.size() * claims_per_worker));
      if constexpr (merges_while_evaluating) gate_->start(count, grain);
#endif
      if (count == 1) {
        evaluate_item(0, 0, preemptor, cluster, budgets, nominations);
      }
#if !defined(PREEMPT_NO_THREADS)
      else {
        detail::crew_job job;
        job.context = &ctx;
        job.count = count;
        job.grain = grain;
        job.process = [](detail::crew_job& j, std::size_t item, std::size_t w) noexcept {
          auto& c = *static_cast<context*>(j.context);
          c.self->evaluate_item(item, w, *c.preemptor, *c.cluster, *c.budgets, *c.nominations);
        };
        crew_->run(job, ex);
      }
#else
      else {
        for (std::size_t i = 0; i < count; ++i)
          evaluate_item(i, 0, preemptor, cluster, budgets, nominations);
      }
#endif
      const bool stop = finish_batch(count);
      batch_base_ += count;
      if (stop) break;
    }
    parallel_batch_ = false;
    note_arena_room();
  }

  // Merges what the workers left of the batch; true when the dry run may stop.
  bool finish_batch(std::size_t count) {
#if !defined(PREEMPT_NO_THREADS)
    if constexpr (merges_while_evaluating) {
      merge_ready_items();  // every worker is done: the rest is ready
      return gate_->stopped.load(std::memory_order_relaxed);
    }
#endif
    return merge(count);
  }

  // The sequential dry run: each node is merged as soon as it is evaluated, its victims read
  // straight from the scratch (no result slot, no copy).
  template <class B, class N>
  void dry_run_inline(const pod_type& preemptor, const C& cluster, const B& budgets,
                      const N& nominations) {
    const std::size_t n = potential_.size();
    worker& wk = workers_[0];
    victim_selection<pod_type> selection;
    default_scores::vector scores{};
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t node_index = potential_node(k);
      const bool bounded = evaluate_node(node_index, wk, preemptor, cluster, budgets, nominations,
                                         selection, scores);
      if (merge_node(node_index, selection.outcome, selection.victims, selection.pdb_violations,
                     scores, bounded))
        break;
    }
  }

  // The diagnosis' index of `outcome` among this evaluation's distinct outcomes, counted: the most
  // recent matches are searched (O(1) per node, however many distinct reasons nodes give) and a
  // new one is added otherwise. The statuses are copied, their reasons are views as before.
  std::size_t intern_outcome(const status& outcome) {
    if (last_outcome_ < outcomes_.size() && outcomes_[last_outcome_] == outcome) {
      ++outcome_counts_[last_outcome_];
      return last_outcome_;
    }
    const std::size_t n = outcomes_.size();
    for (std::size_t k = 1; k <= std::min<std::size_t>(n, 8); ++k)
      if (outcomes_[n - k] == outcome) {
        ++outcome_counts_[n - k];
        return last_outcome_ = n - k;
      }
    outcomes_.push_back(outcome);
    outcome_counts_.push_back(1);
    return last_outcome_ = n;
  }

  diagnosis_view diagnosis() const noexcept {
    return diagnosis_view(diagnosis_, outcomes_, outcome_counts_);
  }

  // Before a parallel dry run: every worker gets its state and as much scratch (victim scratch,
  // and unit scratch for pod groups) as the largest any worker has needed, so a worker that rarely
  // wins an item (more workers than free cores) does not grow its buffers in a later decision;
  // every worker's arena gets room for as many victims as all workers kept in any parallel dry
  // run so far, since one worker may take every node.
  template <class B>
  void prepare_workers(const C& cluster, const B& budgets) {
    std::size_t pods = 0;
    typename workload::unit_selection_scratch<pod_type>::room units;  // with pod groups
    for (worker& wk : workers_) {
      const auto u = wk.unit_scratch.reserved();
      units.node_units = std::max(units.node_units, u.node_units);
      units.units = std::max(units.units, u.units);
      units.pods = std::max(units.pods, u.pods);
      pods = std::max({pods, wk.scratch.pods_reserved(), u.pods});
    }
    for (worker& wk : workers_) {
      if (!wk.state) wk.state.emplace(cluster.make_state());
      wk.scratch.reserve(pods, budgets.budget_count());
      wk.unit_scratch.reserve(units, grouped_ ? budgets.budget_count() : 0);
      wk.arena.reserve(arena_room_);
    }
  }

  // After a parallel dry run: the victims all workers kept, for the next prepare_workers.
  void note_arena_room() noexcept {
    std::size_t total = 0;
    for (const worker& wk : workers_) total += wk.arena.size();
    arena_room_ = std::max(arena_room_, total);
  }

  // Nodes in the next parallel batch. The dry run stops only once the two lists hold `wanted`
  // candidates, and each node adds at most one, so the next (wanted - held) nodes are all read by
  // a sequential evaluation as well: a batch of that many wastes nothing, however large. Beyond
  // that (or when the lists are full but hold no candidate without violations) a batch is
  // workers * chunk nodes, the evaluation ahead of the sequential stop that config.chunk allows.
  // Branch and bound bounds a batch against the batches before it, so its batches start at
  // workers * chunk and double. max_batch caps the results a batch holds at once.
  std::size_t next_batch_size(std::size_t previous) const noexcept {
    const std::size_t ahead = workers_.size() * config_.chunk;
    const std::size_t held = without_violations_.size() + with_violations_.size();
    const std::size_t safe =
        held < decision_.candidates_wanted ? decision_.candidates_wanted - held : 0;
    std::size_t size = std::max(ahead, std::min(safe, config_.max_batch));
    if (bounding_) size = std::min(size, std::max(ahead, 2 * previous));
    return size;
  }

  // Folds a batch into the candidate lists in sequential order; true when the dry run may stop.
  bool merge(std::size_t count) {
    for (std::size_t i = 0; i < count; ++i)
      if (merge_item(i)) return true;
    return false;
  }

  // Merges item `item` of the current parallel batch, its victims already in an arena (read only
  // to tell an observer, which is called after the batch, when no worker writes an arena).
  bool merge_item(std::size_t item) {
    const item_result& r = results_[item];
    std::span<const pod_type* const> victims;
    if constexpr (observes_nodes) victims = victims_of(r.victims);
    const std::size_t node_index = potential_node(batch_base_ + item);
    if (std::vector<kept_candidate>* list =
            merge_outcome(node_index, r.outcome(), victims, r.violations()))
      keep(*list, {node_index, r.victims, r.violations(), r.scores, r.bounded});
    return may_stop();
  }

  std::span<const pod_type* const> victims_of(const victims_at& at) const noexcept {
    return {workers_[at.worker].arena.data() + at.first, at.count};
  }

  // Merges one node evaluated inline, its victims in worker 0's scratch: a kept candidate's are
  // copied to worker 0's arena. True when the dry run may stop.
  bool merge_node(std::size_t node_index, const status& outcome,
                  std::span<const pod_type* const> victims, std::int64_t violations,
                  const default_scores::vector& scores, bool bounded) {
    if (std::vector<kept_candidate>* list =
            merge_outcome(node_index, outcome, victims, violations)) {
      std::vector<const pod_type*>& arena = workers_[0].arena;
      keep(*list, {node_index,
                   {arena.size(), static_cast<std::uint32_t>(victims.size()), 0},
                   violations,
                   scores,
                   bounded});
      arena.insert(arena.end(), victims.begin(), victims.end());
    }
    return may_stop();
  }

  // Folds one node's outcome into the diagnosis (and tells the observer); the candidate list it
  // joins, or null when it is no candidate or its list is full. `victims` is read by the observer
  // only.
  std::vector<kept_candidate>* merge_outcome(std::size_t node_index, const status& outcome,
                                             std::span<const pod_type* const> victims,
                                             std::int64_t violations) {
    diagnosis_.push_back({node_index, intern_outcome(outcome)});
    detail::notify_node_evaluated(observer_, node_index, outcome, victims, violations);
    if (outcome.code() == status_code::error) has_errors_ = true;
    if (!outcome.is_success()) return nullptr;
    std::vector<kept_candidate>& list = violations == 0 ? without_violations_ : with_violations_;
    return list.size() < decision_.candidates_wanted ? &list : nullptr;
  }

  void keep(std::vector<kept_candidate>& list, const kept_candidate& k) {
    list.push_back(k);
    // The best candidate without violations so far, the first of equals (bounded ones are no
    // better than it).
    if (bounding_ && !k.bounded && k.violations == 0 && (!has_best_ || best_ < k.scores)) {
      best_ = k.scores;
      has_best_ = true;
    }
  }

  // Whether the dry run may stop: the lists hold the candidates wanted, one without violations.
  bool may_stop() const noexcept {
    return !without_violations_.empty() &&
           without_violations_.size() + with_violations_.size() >= decision_.candidates_wanted;
  }

  void collect_candidates(const C& cluster) {
    const auto add = [&](const kept_candidate& k) {
      if (k.bounded) {
        ++decision_.candidates_bounded;
        return;
      }
      candidates_.push_back({k.node_index, ::preempt::name_of(cluster[k.node_index]),
                             victims_of(k.victims), k.violations});
      candidate_scores_.push_back(k.scores);
    };
    for (const kept_candidate& k : without_violations_) add(k);
    for (const kept_candidate& k : with_violations_) add(k);
    decision_.diagnosis = diagnosis();
  }

  // Runs the extenders; false when the attempt failed (the decision is then set).
  template <class Extenders>
  bool apply_extenders(const pod_type& preemptor, Extenders& extenders) {
    if constexpr (std::same_as<std::remove_cvref_t<Extenders>, no_extenders>) {
      return true;
    } else {
      return run_extenders(preemptor, extenders);
    }
  }

  template <class Extenders>
  bool run_extenders(const pod_type& preemptor, Extenders& extenders) {
    for (auto& entry : extenders) {
      if (candidates_.empty()) break;
      auto& ext = detail::deref(entry);
      if (!ext.supports_preemption() || !ext.is_interested(preemptor)) continue;
      extender_out_.clear();
      const status st = ext.process_preemption(
          preemptor, std::span<const candidate<pod_type>>(candidates_), extender_out_);
      if (!st) {
        if (ext.is_ignorable()) continue;
        candidates_.clear();  // upstream returns no candidates with the error
        finish_message(decision_kind::error, st.reason());
        return false;
      }
      std::erase_if(extender_out_, [&](const candidate<pod_type>& c) {
        return c.victims.empty() && ext.is_ignorable();
      });
      for (const candidate<pod_type>& c : extender_out_) {
        if (!c.victims.empty()) continue;
        const std::string_view message = messages_.no_victims_on(c.node_name);
        candidates_.clear();
        finish(decision_kind::error, message);
        return false;
      }
      candidates_.swap(extender_out_);
      candidate_scores_.clear();  // the extenders' candidates: scored when chosen
    }
    return true;
  }

  const decision_type& finish_nominated() {
    const std::span<const candidate<pod_type>> cands(candidates_);
    if constexpr (requires { policy_.score_functions(); })
      decision_.choice = preempt::pick_best_candidate<pod_type>(cands, policy_.score_functions(),
                                                                detail::now_of(policy_));
    else if (candidate_scores_.size() == candidates_.size())
      decision_.choice = preempt::pick_best_candidate<pod_type>(
          cands, std::span<const default_scores::vector>(candidate_scores_));
    else
      decision_.choice = preempt::pick_best_candidate<pod_type>(cands, detail::now_of(policy_));
    const candidate<pod_type>& best = candidates_[decision_.choice.index];
    detail::notify_candidate_chosen(observer_, best);
    decision_.kind = decision_kind::nominated;
    decision_.node_index = best.node_index;
    decision_.node_name = best.node_name;
    decision_.victims = best.victims;
    decision_.pdb_violations = best.pdb_violations;
    decision_.candidates = cands;
    decision_.diagnosis = diagnosis();
    return decision_;
  }

  const decision_type& finish(decision_kind kind, std::string_view message) {
    decision_.kind = kind;
    decision_.message = message;
    decision_.diagnosis = diagnosis();
    decision_.candidates = std::span<const candidate<pod_type>>(candidates_);
    return decision_;
  }

  const decision_type& finish_message(decision_kind kind, std::string_view text) {
    return finish(kind, messages_.prefixed(text));
  }

  // No candidate: upstream's FitError over all nodes; the nomination is cleared.
  const decision_type& finish_unschedulable(std::size_t total_nodes) {
    decision_.clear_nomination = true;
    return finish(decision_kind::unschedulable, messages_.fit_error(diagnosis(), total_nodes));
  }

  // Errors and no candidate: upstream's aggregate of the dry run's errors.
  const decision_type& finish_errors(const C& cluster) {
    return finish(decision_kind::error, messages_.aggregate_error(diagnosis(), cluster));
  }

  evaluator_config config_;
  Policy policy_;
  Observer observer_;
  offset_sequence offsets_;
  // How many claims of a batch's nodes each worker makes (fewer, larger claims touch the shared
  // counter less; more, smaller ones balance uneven nodes better).
  static constexpr std::size_t claims_per_worker = 16;
#if !defined(PREEMPT_NO_THREADS)
  std::unique_ptr<detail::helper_crew> crew_;  // its helpers point at it: it never moves
  std::unique_ptr<merge_gate> gate_;           // with more than one worker
#endif
  // Read by every worker during a parallel batch, written between batches only.
  std::vector<worker> workers_;
  std::vector<item_result> results_;
  std::size_t arena_room_ = 0;  // victims every worker's arena has room for (prepare_workers)
  std::vector<std::size_t> potential_;
  std::size_t batch_base_ = 0;
  std::vector<detail::node_budget_memo> budget_memo_;  // per node, with remembers_budgets
  // Branch and bound in the current evaluation.
  bool bounding_ = false;
  // In a parallel batch, the best candidate of the batches before it (what its nodes are bounded
  // against: best_ changes as the batch is merged).
  bool parallel_batch_ = false;
  bool bound_has_best_ = false;
  default_scores::vector bound_best_{};
  // With pod groups: the victim units of the current decision.
  bool grouped_ = false;
  workload::unit_scratch<pod_type> units_;
  decision_type decision_;  // its offset is read per node

  // Written by the merge, on the calling thread, while helpers evaluate: on lines of their own.
  // The diagnosis: an entry per node, naming one of the distinct outcomes (intern_outcome).
  alignas(detail::cache_line) std::vector<diagnosis_view::entry> diagnosis_;
  std::vector<status> outcomes_;
  std::vector<std::size_t> outcome_counts_;
  std::size_t last_outcome_ = 0;
  std::vector<kept_candidate> without_violations_;
  std::vector<kept_candidate> with_violations_;
  bool has_errors_ = false;
  // The best candidate's scores so far (branch and bound).
  bool has_best_ = false;
  default_scores::vector best_{};
  // Written after the dry run.
  std::vector<candidate<pod_type>> candidates_;
  std::vector<default_scores::vector> candidate_scores_;  // parallel to candidates_, if computed
  std::vector<candidate<pod_type>> extender_out_;
  failure_message messages_;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_EVALUATOR_HPP
