// preempt/detail/node_dry_run.hpp - one node's dry run in an evaluation (upstream's
// SelectVictimsOnNode as DryRunPreemption calls it), and the workers that run it.
//
// node_dry_run<C, Policy> owns the evaluation's workers (each with its node state, victim scratch
// and the arena its kept victims go to) and the budget memo. select(grouping, w, ...) prepares
// worker w's state for a node and selects its victims, in this order: a node the branch and bound
// rules out is a candidate whose victims are not selected; without grouped victims, a node whose
// state foresees the rejection is rejected without a selection; a grouping that groups victims
// (preempt/victim_grouping.hpp) selects on the node itself (pod groups: whole units, with its own
// per-worker scratch); otherwise select_victims runs, through the node's budget memo where it
// applies (remembers_budgets: a node where no eviction can violate a budget is selected without
// reading the budgets). A successful selection without victims is what the decision's
// zero_victims_verdict says (v1.37 an error for that node; v1.38 no candidate, or a candidate the
// extenders fill); a candidate gets its upstream scores here, while its victims are in the cache.
//
// Complexity: a node's prepare_state plus its selection. Allocation: none once the workers' buffers
// have grown (prepare_workers gives every worker room for the largest node any worker has needed).
// No exceptions of its own. Thread-safety: worker w is used by one thread at a time; each worker
// writes the memo entries of the nodes it evaluates (distinct nodes).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_NODE_DRY_RUN_HPP
#define PREEMPT_DETAIL_NODE_DRY_RUN_HPP

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <ranges>
#include <span>
#include <type_traits>
#include <vector>

#include "preempt/budget.hpp"
#include "preempt/candidate.hpp"
#include "preempt/candidate_choice.hpp"
#include "preempt/cluster.hpp"
#include "preempt/config.hpp"
#include "preempt/detail/branch_and_bound.hpp"
#include "preempt/detail/budget_memo.hpp"
#include "preempt/detail/cache_line.hpp"
#include "preempt/detail/candidate_lists.hpp"
#include "preempt/failure_message.hpp"
#include "preempt/node_state.hpp"
#include "preempt/nominations.hpp"
#include "preempt/status.hpp"
#include "preempt/victim_selection.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

// The workers of a dry run for a configured parallelism: the calling thread and its helpers, or
// the calling thread alone without threads.
constexpr std::size_t worker_count(std::size_t parallelism) noexcept {
#if defined(PREEMPT_NO_THREADS)
  static_cast<void>(parallelism);
  return 1;
#else
  return parallelism > 1 ? parallelism : 1;
#endif
}

// What a node whose filters pass with every victim reprieved is (DryRunPreemption): v1.37 an
// Error, "expected at least one victim pod on node"; v1.38 UnschedulableAndUnresolvable, "No
// preemption victims found for incoming pod", or, when an extender that supports preemption is
// interested in the preemptor, a candidate without victims for the extenders to fill.
enum class zero_victims_verdict : unsigned char { error, unresolvable, placeholder };

// C is a cluster with the members (detail::member_cluster_t).
template <class C, class Policy>
class node_dry_run {
 public:
  using pod_type = cluster_pod_t<C>;
  using node_type = cluster_node_t<C>;
  using state_type = typename C::state_type;

  // Aligned: what one worker writes per node (its state, its scratch's and arena's ends) is on
  // lines no other worker touches.
  struct alignas(cache_line) worker {
    victim_scratch<pod_type> scratch;
    std::optional<state_type> state;
    // The victims this worker kept in the current decision: in a parallel dry run, of every node
    // it evaluated, appended right after the selection (while they are in its cache, and without
    // a write to memory another worker reads during the batch); inline, of the kept candidates
    // (worker 0's). Read by the calling thread once the workers are done.
    std::vector<const pod_type*> arena;
  };

  // Without the policy's own score functions, each candidate's upstream scores are computed on
  // its worker right after its victims were chosen, and the choice reads them.
  static constexpr bool precomputes_scores = !has_score_functions<Policy>;

  explicit node_dry_run(std::size_t workers) : workers_(workers) {}

  std::size_t size() const noexcept { return workers_.size(); }
  bool empty() const noexcept { return workers_.empty(); }
  worker& operator[](std::size_t w) noexcept { return workers_[w]; }

  // A new decision: every worker's arena is empty.
  void reset() noexcept {
    for (worker& wk : workers_) wk.arena.clear();
  }

  // What a node where the preemptor fits without victims is in this decision.
  void set_zero_victims(zero_victims_verdict verdict) noexcept { zero_victims_ = verdict; }

  // Appends a node's victims to worker w's arena; where they are.
  victims_at keep_victims(std::size_t w, std::span<const pod_type* const> victims) {
    std::vector<const pod_type*>& arena = workers_[w].arena;
    const victims_at at{arena.size(), static_cast<std::uint32_t>(victims.size()),
                        static_cast<std::uint32_t>(w)};
    arena.insert(arena.end(), victims.begin(), victims.end());
    return at;
  }

  // The victims a kept candidate refers to.
  std::span<const pod_type* const> victims_of(const victims_at& at) const noexcept {
    return {workers_[at.worker].arena.data() + at.first, at.count};
  }

  // Before a dry run with budgets of type B: room in the memo for every node.
  template <class B>
  void prepare_memo(std::size_t nodes) {
    if constexpr (remembers_budgets<B>)
      if (budget_memo_.size() < nodes) budget_memo_.resize(nodes);
  }

  // Before a parallel dry run: every worker gets its state and as much victim scratch as the
  // largest any worker has needed, so a worker that rarely wins an item (more workers than free
  // cores) does not grow its buffers in a later decision; every worker's arena gets room for as
  // many victims as all workers kept in any parallel dry run so far, since one worker may take
  // every node. A grouping's own scratch is its to prepare.
  template <class B>
  void prepare_workers(const C& cluster, const B& budgets) {
    std::size_t pods = 0;
    for (worker& wk : workers_) pods = std::max(pods, wk.scratch.pods_reserved());
    for (worker& wk : workers_) {
      if (!wk.state) wk.state.emplace(cluster.make_state());
      wk.scratch.reserve(pods, budgets.budget_count());
      wk.arena.reserve(arena_room_);
    }
  }

  // After a parallel dry run: the victims all workers kept, for the next prepare_workers.
  void note_arena_room() noexcept {
    std::size_t total = 0;
    for (const worker& wk : workers_) total += wk.arena.size();
    arena_room_ = std::max(arena_room_, total);
  }

  // Selects the victims on node `node_index` with worker w's state and scratch, or the grouping's
  // when it groups victims: the selection is built in `selection` (its victims point into the
  // scratch until the worker's next node), with a candidate's upstream scores in `scores`. True
  // when the branch and bound skipped the node (a candidate whose victims were not selected).
  template <class G, class B, class N>
  bool select(const G& grouping, std::size_t w, std::size_t node_index, const pod_type& preemptor,
              const C& cluster, const B& budgets, const N& nominations, const Policy& policy,
              timestamp now, const score_bound& bound, victim_selection<pod_type>& selection,
              default_scores::vector& scores) {
    worker& wk = workers_[w];
    if (!wk.state) wk.state.emplace(cluster.make_state());
    cluster.prepare_state(node_index, *wk.state);
    const auto& nominated = detail::nominated_to<pod_type>(nominations, node_index);
    const bool none_nominated = std::ranges::begin(nominated) == std::ranges::end(nominated);
    // The selection is trivially destructible, and a placement new from the call's prvalue is
    // guaranteed elision (std::construct_at would copy a temporary): its status is written once.
    static_assert(std::is_trivially_destructible_v<victim_selection<pod_type>>);
    void* const slot = static_cast<void*>(std::addressof(selection));
    if constexpr (bounds_victim_scores<state_type, pod_type>)
      if (bound.active() && none_nominated && bound.rules_out(*wk.state, preemptor, now)) {
        ::new (slot) victim_selection<pod_type>{status::ok(), {}, 0};
        return true;
      }
    if constexpr (foresees_rejections<state_type, pod_type> &&
                  every_lower_priority_pod_eligible<Policy, node_type, pod_type>())
      if (!G::groups_victims && none_nominated)
        if (const status* rejection = wk.state->foreseen_rejection(preemptor)) {
          ::new (slot) victim_selection<pod_type>{*rejection, {}, 0};
          return false;
        }
    if constexpr (G::groups_victims)
      ::new (slot) victim_selection<pod_type>(grouping.select(
          w, preemptor, node_index, cluster, *wk.state, budgets, nominated, policy));
    else
      select_on_node(preemptor, node_index, cluster[node_index], budgets, nominated, policy, wk,
                     slot);
    if (selection.outcome.is_success()) {
      if (selection.victims.empty() && zero_victims_ != zero_victims_verdict::placeholder)
        selection.outcome = zero_victims_ == zero_victims_verdict::error
                                ? status::error(zero_victims_reason)
                                : no_victims_status;
      else if constexpr (precomputes_scores)
        scores = default_scores{now}.all(
            candidate<pod_type>{node_index, {}, selection.victims, selection.pdb_violations});
    }
    return false;
  }

 private:
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
  // with the violation flags it remembers.
  template <class B, class Nominated>
  void select_on_node(const pod_type& preemptor, std::size_t node_index, const node_type& node,
                      const B& budgets, const Nominated& nominated, const Policy& policy,
                      worker& wk, void* slot) {
    if constexpr (remembers_budgets<B>) {
      node_budget_memo& memo = budget_memo_[node_index];
      const std::span<const pod_type> pods(node.pods());
      if (!memo.current(node.stamp(), budgets.stamp()))
        memo.free = !memo.charge_span(pods, 0, budgets, wk.scratch);
      if (memo.free) {
        ::new (slot) victim_selection<pod_type>(::preempt::select_victims(
            preemptor, node, *wk.state, no_budgets{}, nominated, wk.scratch, policy));
      } else {
        const memo_budgets<B, pod_type> remembered(budgets, memo, pods);
        ::new (slot) victim_selection<pod_type>(::preempt::select_victims(
            preemptor, node, *wk.state, remembered, nominated, wk.scratch, policy));
      }
    } else {
      ::new (slot) victim_selection<pod_type>(::preempt::select_victims(
          preemptor, node, *wk.state, budgets, nominated, wk.scratch, policy));
    }
  }

  // Read by every worker during a parallel batch, written between batches only.
  std::vector<worker> workers_;
  zero_victims_verdict zero_victims_ = zero_victims_verdict::error;
  std::size_t arena_room_ = 0;  // victims every worker's arena has room for (prepare_workers)
  std::vector<node_budget_memo> budget_memo_;  // per node, with remembers_budgets
};

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_NODE_DRY_RUN_HPP
