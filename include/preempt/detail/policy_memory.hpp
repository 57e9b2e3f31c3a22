// preempt/detail/policy_memory.hpp - the working memory of the opt-in policies' victim search
// (preempt/policy_selection.hpp), kept in each victim_scratch so that a worker's search allocates
// nothing once it has seen a node of this size.
//
// Per potential victim of the node being searched (indices in importance order): its cost, where
// its budgets start in `budget_refs` (local budget slots), whether it is pinned (cannot run
// elsewhere), whether it is kept in the current and in the best answer found, and the order the
// search decides the pods in. Per local budget slot (the
// node's distinct budgets, found by a linear map: a node has few): the budget's index in the
// caller's set, its allowed disruptions, and how many of the current answer's victims count
// against it.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_POLICY_MEMORY_HPP
#define PREEMPT_DETAIL_POLICY_MEMORY_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

template <class P, class Allocator = std::allocator<P>>
struct policy_memory {
  template <class T>
  using rebound = typename std::allocator_traits<Allocator>::template rebind_alloc<T>;
  template <class T>
  using vec = std::vector<T, rebound<T>>;

  policy_memory() = default;
  explicit policy_memory(const Allocator& alloc)
      : upstream_victims(alloc),
        cost(alloc),
        budget_begin(alloc),
        budget_refs(alloc),
        order(alloc),
        rank(alloc),
        pinned(alloc),
        keep(alloc),
        best_keep(alloc),
        budget_index(alloc),
        budget_allowed(alloc),
        budget_evicted(alloc) {}

  vec<const P*> upstream_victims;     // upstream's answer, sorted by address (membership)
  vec<std::int64_t> cost;             // per potential victim
  vec<std::uint32_t> budget_begin;    // per potential victim, plus one past the last
  vec<std::uint32_t> budget_refs;     // local budget slots, flat
  vec<std::uint32_t> order;           // potential victims, in the order the search decides them
  vec<std::uint32_t> rank;            // per potential victim: its place in an earlier order
  vec<std::uint8_t> pinned;           // per potential victim: 1 when it cannot run elsewhere
  vec<std::uint8_t> keep, best_keep;  // per potential victim: given back
  vec<std::size_t> budget_index;      // per local slot: the budget in the caller's set
  vec<std::int32_t> budget_allowed;   // per local slot: its disruptions allowed
  vec<std::int32_t> budget_evicted;   // per local slot: victims counted against it

  // Forgets the previous node (capacity kept).
  void clear() noexcept {
    upstream_victims.clear();
    cost.clear();
    budget_begin.clear();
    budget_refs.clear();
    order.clear();
    rank.clear();
    pinned.clear();
    keep.clear();
    best_keep.clear();
    budget_index.clear();
    budget_allowed.clear();
    budget_evicted.clear();
  }

  // The local slot of budget i (added, with its allowed disruptions, on first use).
  template <class Budgets>
  std::uint32_t slot_of(std::size_t i, const Budgets& budgets) {
    for (std::size_t s = 0; s < budget_index.size(); ++s)
      if (budget_index[s] == i) return static_cast<std::uint32_t>(s);
    budget_index.push_back(i);
    budget_allowed.push_back(static_cast<std::int32_t>(budgets.disruptions_allowed(i)));
    budget_evicted.push_back(0);
    return static_cast<std::uint32_t>(budget_index.size() - 1);
  }
};

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_POLICY_MEMORY_HPP
