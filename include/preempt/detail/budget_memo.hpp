// preempt/detail/budget_memo.hpp - what an evaluator remembers about a node and the disruption
// budgets, for as long as neither changes (preempt::stamped_budgets).
//
// node_budget_memo is one node's entry, kept under the node's and the budget set's stamps:
//   - free: charging every pod of the node, in its order, violates no budget. Then every budget
//     holds at least as many disruptions as the node has pods counting against it, so no victims,
//     in any order, violate one: victim selection can skip the budgets altogether (the same
//     victims, in the same order, with no violation);
//   - the violation flags of the last span of the node's pods that victim selection charged at
//     once (the pods below the preemptor's priority, a suffix of the node's pods in importance
//     order), by its offset and length: charging depends on nothing but those pods, their order
//     and the budgets, so another preemptor that removes the same span reads the flags instead of
//     looking every pod up again.
// memo_budgets<B, P> is the budget set victim selection sees on such a node: B's answers, plus
// charge_into_flags, which serves the remembered flags (detail/budget_charging.hpp's
// violation_flags calls it where it would charge the span itself: remembers_violation_flags).
// Whether a node is free is found by charging all its pods as one span from offset 0, which is
// also the span victim selection charges when the preemptor outranks every pod: one charge serves
// both.
//
// Complexity: a stale entry costs one charge of the node's pods (free) or of the span (flags);
// a current one O(1), or a copy of the span's flags. Allocation: an entry's flags grow to the
// largest span charged on its node, then are reused. No exceptions of its own. Thread-safety: an
// entry is written by the one worker that evaluates its node.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_BUDGET_MEMO_HPP
#define PREEMPT_DETAIL_BUDGET_MEMO_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "preempt/budget.hpp"
#include "preempt/config.hpp"
#include "preempt/detail/budget_charging.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

struct node_budget_memo {
  static constexpr std::size_t no_span = static_cast<std::size_t>(-1);

  std::uint64_t node_stamp = 0;  // stamps start at 1: an entry from nothing matches none
  std::uint64_t budgets_stamp = 0;
  bool free = false;
  // The flags of pods [span_offset, span_offset + flags.size()) of the node, when known.
  std::size_t span_offset = no_span;
  bool any_violating = false;
  std::vector<std::uint8_t> flags;

  // Whether the entry describes these contents; if not, it is reset to them (nothing known).
  bool current(std::uint64_t node, std::uint64_t budgets) noexcept {
    if (node_stamp == node && budgets_stamp == budgets) return true;
    node_stamp = node;
    budgets_stamp = budgets;
    span_offset = no_span;
    return false;
  }

  // Charges `pods`, pods [offset, offset + pods.size()) of the node, in order from fresh copies
  // (scratch.start_node) and remembers their violation flags; true when any violates.
  template <class P, class B, class Scratch>
  bool charge_span(std::span<const P> pods, std::size_t offset, const B& budgets,
                   Scratch& scratch) {
    flags.resize(pods.size());
    scratch.start_node(budgets.budget_count());
    any_violating =
        detail::charge_into_flags(pods, budgets, scratch, std::span<std::uint8_t>(flags));
    span_offset = offset;
    return any_violating;
  }
  // Whether the flags of pods [offset, offset + size) are remembered.
  bool holds_span(std::size_t offset, std::size_t size) const noexcept {
    return offset != no_span && span_offset == offset && flags.size() == size;
  }
};

// B's answers on one node, with that node's remembered violation flags.
template <class B, class P>
class memo_budgets {
 public:
  static constexpr bool remembers_flags = true;  // detail::remembers_violation_flags

  memo_budgets(const B& budgets, node_budget_memo& memo, std::span<const P> node_pods) noexcept
      : budgets_(&budgets), memo_(&memo), node_pods_(node_pods) {}

  std::size_t budget_count() const noexcept { return budgets_->budget_count(); }
  std::int32_t disruptions_allowed(std::size_t i) const noexcept {
    return static_cast<std::int32_t>(budgets_->disruptions_allowed(i));
  }
  template <class Visit>
  [[gnu::always_inline]] inline void for_each_budget_of(const P& p, Visit&& visit) const {
    budgets_->for_each_budget_of(p, static_cast<Visit&&>(visit));
  }
  void prefetch_budgets_of(const P& p) const noexcept
    requires prefetches_budgets<B, P>
  {
    budgets_->prefetch_budgets_of(p);
  }

  // flags[i] = 1 when pods[i] violates a budget, charged in order from fresh copies; true when
  // any does (detail::charge_into_flags). From the memo when `pods` is the span it remembers;
  // otherwise charged, and remembered when `pods` lies within the node's pods.
  template <class Scratch>
  bool charge_into_flags(std::span<const P> pods, Scratch& scratch,
                         std::span<std::uint8_t> flags) const {
    node_budget_memo& m = *memo_;
    const std::size_t offset = offset_of(pods);
    if (offset == node_budget_memo::no_span)
      return detail::charge_into_flags(pods, *budgets_, scratch, flags);
    if (!m.holds_span(offset, pods.size())) m.charge_span(pods, offset, *budgets_, scratch);
    std::copy(m.flags.begin(), m.flags.end(), flags.begin());
    return m.any_violating;
  }

 private:
  // Where `pods` starts among the node's pods, or no_span when it is not a span of them.
  std::size_t offset_of(std::span<const P> pods) const noexcept {
    const std::less<const P*> before;
    const P* first = node_pods_.data();
    const P* last = first + node_pods_.size();
    if (before(pods.data(), first) || before(last, pods.data() + pods.size()))
      return node_budget_memo::no_span;
    return static_cast<std::size_t>(pods.data() - first);
  }

  const B* budgets_;
  node_budget_memo* memo_;
  std::span<const P> node_pods_;
};

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_BUDGET_MEMO_HPP
