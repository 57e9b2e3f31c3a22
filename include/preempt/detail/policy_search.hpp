// preempt/detail/policy_search.hpp - the search behind the opt-in policies' victim selection
// (preempt/policy_selection.hpp).
//
// The node's potential victims are all removed from the state; an answer says, pod by pod, which
// are given back (kept). A pass in a given order gives back each pod whose return leaves the
// preemptor room (upstream's reprieve is such a pass, violating pods first); the search explores
// the keep/evict tree in that order, keep first, so its first leaf is exactly that pass.
//
// Measures of an answer, compared in this order (smaller is better): under hard budgets, the
// disruptions beyond any budget's allowance (must be zero); the total cost of the evicted pods
// (their costs, their number, or nothing: cost_mode); the evicted pods that cannot run elsewhere;
// the disruptions beyond allowances. All of them only
// grow as pods are evicted, so a branch whose evictions so far are already no better than the best
// answer is cut. Giving a pod back is tried only while it leaves the preemptor room: a failed
// return cuts every answer that keeps the pod beside those kept so far. That cut is exact when
// returning pods never makes a failing preemptor fit again (true of kube-scheduler's filters on a
// node where the preemptor fits once every lower-priority pod is gone: resources, ports,
// anti-affinity and spread only get tighter as pods come back); every answer's fit is checked
// whatever the filters, so answers are always valid.
//
// Work: each return tried is one fit check with the nominated pods; the search stops (keeping the
// best answer found, the pass first) after `fit_checks` of them or 16 times as many tree nodes.
// Without the stop, exponential in the number of potential victims: the caller bounds that too.
// No allocation (the policy_memory has room); no exceptions of its own.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_POLICY_SEARCH_HPP
#define PREEMPT_DETAIL_POLICY_SEARCH_HPP

#include <cstddef>
#include <cstdint>
#include <span>

#include "preempt/config.hpp"
#include "preempt/nominated_fit.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

// The measures of an answer (see the header comment), lexicographically.
struct answer_measure {
  std::int64_t hard_excess = 0;  // counted only under hard budgets
  std::int64_t cost = 0;
  std::int64_t pinned = 0;
  std::int64_t excess = 0;

  friend constexpr bool operator==(const answer_measure&, const answer_measure&) = default;
  friend constexpr bool operator<(const answer_measure& a, const answer_measure& b) noexcept {
    if (a.hard_excess != b.hard_excess) return a.hard_excess < b.hard_excess;
    if (a.cost != b.cost) return a.cost < b.cost;
    if (a.pinned != b.pinned) return a.pinned < b.pinned;
    return a.excess < b.excess;
  }
};

// What an evicted pod costs in answer_measure::cost.
enum class cost_mode : std::uint8_t { none, unit, given };

// One search over the potential victims `pods` (importance order) of a node whose state has them
// all removed. Memory: a detail::policy_memory with cost, budgets and order filled in.
// Memory.pinned[i] is 1 for a pod that counts as pinned (cannot run elsewhere).
template <class P, class S, class Nominated, class Memory>
class victim_search {
 public:
  victim_search(const P& preemptor, S& state, const Nominated& nominated,
                std::span<const P* const> pods, Memory& memory, bool hard_budgets, cost_mode costs)
      : preemptor_(preemptor),
        state_(state),
        nominated_(nominated),
        pods_(pods),
        m_(memory),
        hard_(hard_budgets),
        costs_(costs) {}

  void set_costs(cost_mode costs) noexcept { costs_ = costs; }

  // The measure of evicting pod i, added to `m` (evicted counts updated).
  void evict(std::size_t i, answer_measure& m) {
    m.cost += costs_ == cost_mode::given ? m_.cost[i] : costs_ == cost_mode::unit ? 1 : 0;
    m.pinned += m_.pinned[i];
    for (std::uint32_t r = m_.budget_begin[i]; r < m_.budget_begin[i + 1]; ++r) {
      const std::uint32_t s = m_.budget_refs[r];
      if (++m_.budget_evicted[s] > m_.budget_allowed[s]) {
        ++m.excess;
        if (hard_) ++m.hard_excess;
      }
    }
  }
  void unevict(std::size_t i) {
    for (std::uint32_t r = m_.budget_begin[i]; r < m_.budget_begin[i + 1]; ++r)
      --m_.budget_evicted[m_.budget_refs[r]];
  }

  // The measure of an answer given as keep flags (the state and counts left as they were).
  answer_measure measure(std::span<const std::uint8_t> keep) {
    answer_measure m;
    for (std::size_t i = 0; i < pods_.size(); ++i)
      if (!keep[i]) evict(i, m);
    for (std::size_t i = 0; i < pods_.size(); ++i)
      if (!keep[i]) unevict(i);
    return m;
  }

  // The pass in m_.order: every pod whose return leaves room is given back. Keep flags in `keep`;
  // the state is left with every pod removed again. An error status stops it.
  status pass(std::span<std::uint8_t> keep) {
    for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = 0;
    status result;
    for (std::uint32_t i : m_.order) {
      bool fits = false;
      if (result = give_back(i, fits); !result) break;
      keep[i] = fits ? 1 : 0;
    }
    for (std::size_t i = 0; i < keep.size(); ++i)
      if (keep[i])
        if (status st = state_.remove_pod(*pods_[i]); !st && result) result = st;
    return result;
  }

  // The search (see the header comment): the best answer in m_.best_keep with its measure; true
  // when it ran to the end (the answer is then the best under the cut), false when stopped.
  // The state is left with every pod removed.
  bool search(std::size_t fit_checks, answer_measure& best, bool& found, status& error) {
    checks_left_ = fit_checks;
    steps_left_ = 16 * fit_checks + 16;
    best_ = &best;
    found_ = &found;
    error_ = &error;
    complete_ = true;
    m_.keep.assign(pods_.size(), 0);
    answer_measure none;
    descend(0, none);
    return complete_ && error.is_success();
  }

 private:
  // Gives pod i back; fits tells whether the preemptor still fits (if not, it is removed again).
  status give_back(std::uint32_t i, bool& fits) {
    fits = false;
    if (status st = state_.add_pod(*pods_[i]); !st) return st;
    const status fit = ::preempt::passes_with_nominated(state_, preemptor_, nominated_);
    if (fit.code() == status_code::error) return fit;
    if (fit.is_success()) {
      fits = true;
      return status::ok();
    }
    return state_.remove_pod(*pods_[i]);
  }

  bool prune(const answer_measure& m) const {
    if (m.hard_excess > 0) return true;
    return *found_ && !(m < *best_);
  }

  void descend(std::size_t depth, const answer_measure& so_far) {
    if (!complete_ || !error_->is_success()) return;
    if (steps_left_ == 0) {
      complete_ = false;
      return;
    }
    --steps_left_;
    if (prune(so_far)) return;
    if (depth == m_.order.size()) {
      *best_ = so_far;
      *found_ = true;
      m_.best_keep.assign(m_.keep.begin(), m_.keep.end());
      return;
    }
    const std::uint32_t i = m_.order[depth];
    // Keep it, while it leaves room.
    if (checks_left_ == 0) {
      complete_ = false;
      return;
    }
    --checks_left_;
    bool fits = false;
    if (status st = give_back(i, fits); !st) {
      *error_ = st;
      return;
    }
    if (fits) {
      m_.keep[i] = 1;
      descend(depth + 1, so_far);
      m_.keep[i] = 0;
      if (status st = state_.remove_pod(*pods_[i]); !st) {
        *error_ = st;
        return;
      }
    }
    // Evict it.
    answer_measure with = so_far;
    evict(i, with);
    descend(depth + 1, with);
    unevict(i);
  }

  const P& preemptor_;
  S& state_;
  const Nominated& nominated_;
  std::span<const P* const> pods_;
  Memory& m_;
  bool hard_;
  cost_mode costs_;
  std::size_t checks_left_ = 0;
  std::size_t steps_left_ = 0;
  answer_measure* best_ = nullptr;
  bool* found_ = nullptr;
  status* error_ = nullptr;
  bool complete_ = true;
};

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_POLICY_SEARCH_HPP
