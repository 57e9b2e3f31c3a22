// preempt/policy_selection.hpp - the victims on one node under the opt-in preemption policies
// (preempt/policy_options.hpp).
//
// select_victims_with_policies(preemptor, node, state, budgets, nominated, scratch, upstream,
//                              options, cost, reschedulable):
// starts from upstream's selection (select_victims with the policy `upstream`) and, for each
// policy on (spare_reschedulable, min_cost, hard_budgets), reselects among the same potential
// victims in upstream's order; the steps and each policy's rule are at the function.
// The victims come in importance order. pdb_violations counts the victims upstream's
// classification marks violating (so that an answer equal to upstream's is upstream's, whole),
// except under hard_budgets, where no victim takes a budget below zero and it is 0.
// count_budget_violations(victims, budgets) counts, for any victim list in importance order, the
// victims that take a budget below zero when only they are evicted (what the API server would
// refuse; upstream's count charges every potential victim instead).
//
// Complexity: upstream's selection, plus O(v log v) and, per pass, v fit checks; the search at
// most options.exact_fit_checks fit checks (see detail/policy_search.hpp). Allocation: none once
// the scratch has seen a node of this size. No exceptions of its own; thread-safety as
// select_victims.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_POLICY_SELECTION_HPP
#define PREEMPT_POLICY_SELECTION_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <type_traits>

#include "preempt/budget.hpp"
#include "preempt/config.hpp"
#include "preempt/detail/policy_search.hpp"
#include "preempt/node.hpp"
#include "preempt/pod.hpp"
#include "preempt/policy_options.hpp"
#include "preempt/status.hpp"
#include "preempt/victim_selection.hpp"

PREEMPT_NAMESPACE_BEGIN

// Victims (importance order) that take a budget below zero when only they are evicted, charged
// as upstream charges: each pod against its budgets in order until one is exceeded.
template <class P, budget_set<P> B>
std::int64_t count_budget_violations(std::span<const P* const> victims, const B& budgets) {
  struct charge {
    std::size_t budget;
    std::int32_t left;
  };
  // Few budgets are touched by one decision's victims: a small linear map (no allocation for up
  // to 64 of them; beyond, counted by a second walk per budget).
  charge seen[64];
  std::size_t used = 0;
  bool overflow = false;
  std::int64_t violations = 0;
  for (const P* v : victims) {
    bool violating = false;
    budgets.for_each_budget_of(*v, [&](std::size_t i, bool disrupted) -> bool {
      if (disrupted || violating) return violating;
      std::size_t k = 0;
      while (k < used && seen[k].budget != i) ++k;
      if (k == used) {
        if (used == 64) {
          overflow = true;
          return false;
        }
        seen[used++] = {i, static_cast<std::int32_t>(budgets.disruptions_allowed(i))};
      }
      const std::int32_t left = seen[k].left;
      seen[k].left = left >= 0 ? left - 1 : left;
      violating = left <= 0;
      return violating;
    });
    if (violating) ++violations;
  }
  PREEMPT_ASSERT(!overflow, "count_budget_violations: more than 64 budgets among the victims");
  return violations;
}

// The victims on one node under the opt-in policies:
//   1. Upstream's selection (select_victims with the policy `upstream`: its eligibility and
//      importance order). A node that is no candidate stays none; with no policy that selects
//      differently, that is the answer.
//   2. The potential victims again, in upstream's order and budget classification; all removed.
//   3. The answer of each policy on, from these passes and searches (detail/policy_search.hpp):
//        spare_reschedulable  upstream's pass with, among the non-violating pods of one priority,
//                             those for which reschedulable(pod) is false given back first; kept
//                             unless it evicts more such pods than upstream's answer
//        min_cost             the search in cost order (descending cost(pod), then upstream's
//                             order) on a node of at most options.exact_victims potential victims,
//                             else the pass in that order; upstream's answer when no better
//        hard_budgets         the answer so far when its victims take no budget below zero; else
//                             the search for one that does not (unit costs unless min_cost); none
//                             found: the node is rejected, unschedulable, budget_violation_reason
//   4. The state is left with the answer's victims removed, as select_victims leaves it.
template <node N, class S, class B, class Nominated, class Allocator, class Upstream, class Cost,
          class Reschedulable>
victim_selection<node_pod_t<N>> select_victims_with_policies(
    const node_pod_t<N>& preemptor, const N& node, S& state, const B& budgets,
    const Nominated& nominated, victim_scratch<node_pod_t<N>, Allocator>& scratch,
    const Upstream& upstream, const policy_options& options, const Cost& cost,
    const Reschedulable& reschedulable) {
  using P = node_pod_t<N>;
  using entry = typename victim_scratch<P, Allocator>::entry;
  const victim_selection<P> upstream_answer =
      ::preempt::select_victims(preemptor, node, state, budgets, nominated, scratch, upstream);
  if (!upstream_answer.is_candidate() || !options.selects_differently()) return upstream_answer;

  // 2. The potential victims, as upstream orders and classifies them; upstream's victims marked.
  auto& m = scratch.policy_memory();
  m.clear();
  m.upstream_victims.assign(upstream_answer.victims.begin(), upstream_answer.victims.end());
  std::sort(m.upstream_victims.begin(), m.upstream_victims.end(), std::less<>{});
  scratch.start_node(budgets.budget_count());
  auto& entries = scratch.entries();
  ::preempt::detail::collect_potential_victims(preemptor, node, entries, upstream);
  const std::span<entry> ordered(entries.data(), entries.size());
  ::preempt::detail::order_by_importance(ordered, upstream);
  ::preempt::detail::classify_budget_violations(ordered, budgets, scratch);
  const std::size_t k = ordered.size();
  auto& pods = scratch.chosen_entries();  // reused: the potential victims' pods, as entries
  pods.assign(ordered.begin(), ordered.end());
  for (entry& e : pods) {
    e.victim = std::binary_search(m.upstream_victims.begin(), m.upstream_victims.end(), e.pod,
                                  std::less<>{});
    if (!e.victim)
      if (status st = state.remove_pod(*e.pod); !st) return {st, {}, 0};
  }
  auto& pointers = scratch.victims();
  pointers.clear();
  for (const entry& e : pods) pointers.push_back(e.pod);
  const std::span<const P* const> pod_span(pointers.data(), k);

  // Costs, pinning and budgets per pod.
  for (std::size_t i = 0; i < k; ++i) {
    const P& p = *pods[i].pod;
    const std::int64_t c = options.min_cost ? static_cast<std::int64_t>(cost(p)) : 1;
    PREEMPT_ASSERT(c >= 0, "select_victims_with_policies: a victim's cost is negative");
    m.cost.push_back(c);
    m.pinned.push_back(options.spare_reschedulable && !static_cast<bool>(reschedulable(p)) ? 1 : 0);
    m.budget_begin.push_back(static_cast<std::uint32_t>(m.budget_refs.size()));
    budgets.for_each_budget_of(p, [&](std::size_t b, bool disrupted) -> bool {
      if (!disrupted) m.budget_refs.push_back(m.slot_of(b, budgets));
      return false;
    });
  }
  m.budget_begin.push_back(static_cast<std::uint32_t>(m.budget_refs.size()));
  m.rank.assign(k, 0);
  const detail::cost_mode costs =
      options.min_cost ? detail::cost_mode::given : detail::cost_mode::none;
  detail::victim_search<P, S, Nominated, std::remove_reference_t<decltype(m)>> search(
      preemptor, state, nominated, pod_span, m, options.hard_budgets, costs);

  // The answer so far, as keep flags: upstream's first.
  const std::span<std::uint8_t> answer = scratch.flag_room(k);
  for (std::size_t i = 0; i < k; ++i) answer[i] = pods[i].victim ? 0 : 1;
  detail::answer_measure answer_measure = search.measure(answer);
  m.keep.assign(k, 0);
  const auto take = [&](std::span<const std::uint8_t> keep, const detail::answer_measure& measure) {
    answer_measure = measure;
    for (std::size_t i = 0; i < k; ++i) answer[i] = keep[i];
  };
  // Upstream's order: violating pods, then the others, each in importance order; with `spare`,
  // the pinned pods first among the non-violating pods of one priority (stable).
  const auto upstream_order = [&](bool spare) {
    m.order.clear();
    for (std::uint32_t i = 0; i < k; ++i)
      if (pods[i].violating) m.order.push_back(i);
    const std::size_t first = m.order.size();
    for (std::uint32_t i = 0; i < k; ++i)
      if (!pods[i].violating) m.order.push_back(i);
    if (!spare) return;
    // (Sorted by pinned first, then position: a stable partition that allocates nothing.)
    for (std::size_t a = first; a < m.order.size();) {
      std::size_t b = a;
      const std::int32_t prio = ::preempt::priority_of(*pods[m.order[a]].pod);
      while (b < m.order.size() && ::preempt::priority_of(*pods[m.order[b]].pod) == prio) ++b;
      std::sort(m.order.begin() + static_cast<std::ptrdiff_t>(a),
                m.order.begin() + static_cast<std::ptrdiff_t>(b),
                [&](std::uint32_t x, std::uint32_t y) {
                  if (m.pinned[x] != m.pinned[y]) return m.pinned[x] > m.pinned[y];
                  return x < y;
                });
      a = b;
    }
  };
  // The search in m.order; its answer when better (or, with `always`, whenever one is found).
  const auto search_and_take = [&](bool always) -> status {
    detail::answer_measure found_measure;
    bool found = false;
    status error;
    search.search(options.exact_fit_checks, found_measure, found, error);
    if (!error) return error;
    if (found && (always || found_measure < answer_measure)) take(m.best_keep, found_measure);
    return status::ok();
  };

  // 3. spare_reschedulable: upstream's pass, pinned pods given back first among equals; its
  // answer unless it evicts more pinned pods (or overflows a hard budget where upstream did not).
  if (options.spare_reschedulable) {
    upstream_order(true);
    if (status st = search.pass(std::span<std::uint8_t>(m.keep)); !st) return {st, {}, 0};
    const detail::answer_measure measure = search.measure(m.keep);
    if (!(answer_measure < measure)) take(m.keep, measure);
  }
  // min_cost: the search (or the pass) in cost order.
  if (options.min_cost) {
    upstream_order(options.spare_reschedulable);
    // Descending cost, then the order so far (a stable sort that allocates nothing: the rank of
    // each pod in that order breaks ties).
    for (std::uint32_t r = 0; r < m.order.size(); ++r) m.rank[m.order[r]] = r;
    std::sort(m.order.begin(), m.order.end(), [&](std::uint32_t a, std::uint32_t b) {
      if (m.cost[a] != m.cost[b]) return m.cost[a] > m.cost[b];
      return m.rank[a] < m.rank[b];
    });
    if (k <= options.exact_victims) {
      if (status st = search_and_take(false); !st) return {st, {}, 0};
    } else {
      if (status st = search.pass(std::span<std::uint8_t>(m.keep)); !st) return {st, {}, 0};
      const detail::answer_measure measure = search.measure(m.keep);
      if (measure < answer_measure) take(m.keep, measure);
    }
  }
  // hard_budgets: an answer without violation, or none.
  if (options.hard_budgets && answer_measure.hard_excess > 0) {
    if (!options.min_cost && k <= options.exact_victims) {
      // The fewest victims among the answers without violation.
      upstream_order(options.spare_reschedulable);
      search.set_costs(detail::cost_mode::unit);
      if (status st = search_and_take(true); !st) return {st, {}, 0};
    }
    if (answer_measure.hard_excess > 0) {
      // Every pod back, as upstream's selection found the node.
      for (std::size_t i = 0; i < k; ++i)
        if (status st = state.add_pod(*pods[i].pod); !st) return {st, {}, 0};
      return {status::unschedulable(budget_violation_reason), {}, 0};
    }
  }

  // 4. The answer: its kept pods back, its victims in importance order.
  bool same_as_upstream = true;
  std::int64_t violating = 0;
  std::size_t victims = 0;
  for (std::size_t i = 0; i < k; ++i) {
    if (answer[i]) {
      if (status st = state.add_pod(*pods[i].pod); !st) return {st, {}, 0};
    } else {
      pointers[victims++] = pods[i].pod;
      if (pods[i].violating) ++violating;
    }
    same_as_upstream = same_as_upstream && (answer[i] != 0) == !pods[i].victim;
  }
  if (same_as_upstream && !options.hard_budgets)
    return ::preempt::detail::successful_selection<P>(
        std::span<const P* const>(pointers.data(), victims), upstream_answer.pdb_violations);
  return ::preempt::detail::successful_selection<P>(
      std::span<const P* const>(pointers.data(), victims), options.hard_budgets ? 0 : violating);
}

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_POLICY_SELECTION_HPP
