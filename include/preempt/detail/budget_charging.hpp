// preempt/detail/budget_charging.hpp - step 6 of SelectVictimsOnNode (filterPodsWithPDBViolation):
// charging a node's potential victims, in importance order, against fresh copies of the
// disruption budgets. Each budget a pod counts against (unless the pod is in its disruptedPods),
// in budget order, loses one allowed disruption, until one is driven below zero: the pod is then
// "violating" and the budgets after that one are not charged for it. The copies are the victim
// scratch's (any Scratch with charger_for_node(): victim_scratch, whose charger keeps them under a
// generation stamp). The budget set's optional prefetch_budgets_of is called a few pods ahead of
// each pod charged.
//
// Both victim selection (victim_selection.hpp) and the evaluator's budget memo
// (detail/budget_memo.hpp) charge through here; a budget set that remembers the flags of spans it
// was charged on (remembers_violation_flags, detail::memo_budgets) answers violation_flags itself.
//
// Complexity: O(v · b) budget visits for v pods and b budgets per pod. No allocation. No
// exceptions of its own. Thread-safety: the scratch is mutated.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_BUDGET_CHARGING_HPP
#define PREEMPT_DETAIL_BUDGET_CHARGING_HPP

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

#include "preempt/budget.hpp"
#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

// Charges the pod, the next in importance order, against its budgets through the node's
// charger (victim_scratch::charger_for_node); true when it violates one. In budget order; the
// first budget the pod exhausts makes it violating and ends its count (upstream's
// FilterVictimsWithPDBViolation returns there): later budgets keep their share.
template <class P, class Budgets, class Charger>
[[gnu::always_inline]] inline bool violates_budget(const P& pod, const Budgets& budgets,
                                                   const Charger& charge) {
  // The visitor answers whether the pod violates: a budget set may end the visit there (one that
  // goes on gets no further charge).
  bool violating = false;
  budgets.for_each_budget_of(pod, [&](std::size_t i, bool already_disrupted) -> bool {
    if (!already_disrupted && !violating) violating = charge(i, budgets);
    return violating;
  });
  return violating;
}

// How many pods ahead of the one charged the budget set's prefetch_budgets_of is called: enough
// for a lookup's miss to arrive while the pods in between are charged.
inline constexpr std::size_t budget_prefetch_distance = 8;

// Charges pods(0), pods(1), ... pods(n - 1) in that order (violates_budget) and hands each answer
// to record(i, violating); with prefetch_budgets_of, the lookups of the next pods are asked for
// ahead.
template <class Budgets, class Scratch, class PodAt, class Record>
void charge_in_order(std::size_t n, const Budgets& budgets, Scratch& scratch, PodAt&& pod_at,
                     Record&& record) {
  using P = std::remove_cvref_t<decltype(pod_at(std::size_t{0}))>;
  const auto charge = scratch.charger_for_node();
  if constexpr (prefetches_budgets<Budgets, P>) {
    constexpr std::size_t d = detail::budget_prefetch_distance;
    for (std::size_t i = 0; i < n && i < d; ++i) budgets.prefetch_budgets_of(pod_at(i));
    for (std::size_t i = 0; i < n; ++i) {
      if (i + d < n) budgets.prefetch_budgets_of(pod_at(i + d));
      record(i, detail::violates_budget(pod_at(i), budgets, charge));
    }
  } else {
    for (std::size_t i = 0; i < n; ++i)
      record(i, detail::violates_budget(pod_at(i), budgets, charge));
  }
}

// flags[i] = bit i of `bits` (0 or 1), eight flags at a time: the byte of bits copied into every
// byte of a word, bit k kept in byte k, each byte then turned into 0 or 1.
inline void write_bits_as_flags(std::uint64_t bits, std::span<std::uint8_t> flags) noexcept {
  constexpr std::uint64_t bytes = 0x0101010101010101u, bit_k_of_byte_k = 0x8040201008040201u;
  constexpr std::uint64_t high = 0x8080808080808080u, low7 = 0x7f7f7f7f7f7f7f7fu;
  std::size_t i = 0;
  if constexpr (std::endian::native == std::endian::little) {
    for (; i + 8 <= flags.size(); i += 8, bits >>= 8) {
      const std::uint64_t kept = ((bits & 0xffu) * bytes) & bit_k_of_byte_k;
      const std::uint64_t f = ((kept + low7) & high) >> 7;
      std::memcpy(flags.data() + i, &f, sizeof f);
    }
  }
  for (; i < flags.size(); ++i, bits >>= 1) flags[i] = static_cast<std::uint8_t>(bits & 1u);
}

// charge_in_order over `pods` with the answers as flags: flags[i] = 1 when pods[i] violates a
// budget, 0 otherwise; true when any does. The answers of up to 64 pods are gathered in a word
// and written after them: a byte store between two lookups would make the compiler read the
// budget set's members again (a byte may alias anything).
template <class P, class Budgets, class Scratch>
bool charge_into_flags(std::span<const P> pods, const Budgets& budgets, Scratch& scratch,
                       std::span<std::uint8_t> flags) {
  const std::size_t n = pods.size();
  const auto charge = scratch.charger_for_node();
  constexpr std::size_t d = detail::budget_prefetch_distance;
  constexpr bool prefetches = prefetches_budgets<Budgets, P>;
  if constexpr (prefetches)
    for (std::size_t i = 0; i < n && i < d; ++i) budgets.prefetch_budgets_of(pods[i]);
  // The pods before `ahead` have a pod d places further to prefetch (no bound check per pod).
  const std::size_t ahead = prefetches && n > d ? n - d : 0;
  std::uint64_t any = 0;
  for (std::size_t first = 0; first < n; first += 64) {
    const std::size_t end = std::min(n, first + 64);
    std::uint64_t violating = 0;
    std::size_t i = first;
    const auto record = [&](std::size_t k) {
      violating |= std::uint64_t{detail::violates_budget(pods[k], budgets, charge)} << (k - first);
    };
    if constexpr (prefetches)
      for (; i < std::min(end, ahead); ++i) {
        budgets.prefetch_budgets_of(pods[i + d]);
        record(i);
      }
    for (; i < end; ++i) record(i);
    detail::write_bits_as_flags(violating, flags.subspan(first, end - first));
    any |= violating;
  }
  return any != 0;
}

template <class Entry, class Budgets, class Scratch>
void classify_budget_violations(std::span<Entry> entries, const Budgets& budgets,
                                Scratch& scratch) {
  detail::charge_in_order(
      entries.size(), budgets, scratch,
      [&](std::size_t i) -> const auto& { return *entries[i].pod; },
      [&](std::size_t i, bool violating) { entries[i].violating = violating; });
}

// How many flags have both 1 (violating) and 2 (victim) set, eight bytes at a time.
inline std::int64_t violating_victims(std::span<const std::uint8_t> flags) noexcept {
  constexpr std::uint64_t ones = 0x0101010101010101u;
  std::int64_t count = 0;
  std::size_t i = 0;
  for (; i + 8 <= flags.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, flags.data() + i, sizeof w);
    // Bit 0 of each byte: its bits 0 and 1 both set; the multiplication sums the bytes (at most
    // 8) into the top one.
    count += static_cast<std::int64_t>(((w & w >> 1 & ones) * ones) >> 56);
  }
  for (; i < flags.size(); ++i) count += (flags[i] & 3) == 3 ? 1 : 0;
  return count;
}

// A budget set that remembers the violation flags of spans it was charged on
// (detail::memo_budgets, which an evaluator passes with stamped budgets): it says so with
// `static constexpr bool remembers_flags = true` and answers charge_into_flags(pods, scratch,
// flags) itself, charging through detail::charge_into_flags when it does not remember them.
template <class Budgets>
concept remembers_violation_flags = requires { requires Budgets::remembers_flags; };

// charge_into_flags, or the budget set's own answer when it remembers the flags of spans it
// was charged on (remembers_violation_flags).
template <class P, class Budgets, class Scratch>
bool violation_flags(std::span<const P> pods, const Budgets& budgets, Scratch& scratch,
                     std::span<std::uint8_t> flags) {
  if constexpr (detail::remembers_violation_flags<Budgets>) {
    return budgets.charge_into_flags(pods, scratch, flags);
  } else {
    return detail::charge_into_flags(pods, budgets, scratch, flags);
  }
}

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_BUDGET_CHARGING_HPP
