// preempt/workload/unit_budgets.hpp - disruption-budget classification of victim units (Kubernetes
// FilterVictimsWithPDBViolation).
//
// classify_unit_budgets(ranked, units, scratch, budgets, tally) walks the units in the given order
// (descending importance) on a fresh copy of every budget's disruptionsAllowed. For each member
// pod, in member order, each budget the pod counts against (unless the pod is in its
// disruptedPods) loses one allowed disruption; the first budget driven below zero makes the pod
// violating, and that pod touches no further budget (upstream stops there). A unit is violating
// when any member is; ranked_unit::violations counts its violating members (upstream's
// ViolateCount), which is what a violating unit adds to the PDB-violation count when evicted.
//
// Complexity O(m · b) for m member pods and b budgets per pod. Allocation: none once the tally
// has seen this many budgets. No exceptions of its own. Thread-safety: the tally is mutated; one
// per thread.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WORKLOAD_UNIT_BUDGETS_HPP
#define PREEMPT_WORKLOAD_UNIT_BUDGETS_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "preempt/budget.hpp"
#include "preempt/config.hpp"
#include "preempt/workload/build_victim_units.hpp"
#include "preempt/workload/victim_unit.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace workload {

// A unit in an ordering, with what the algorithms learn about it.
struct ranked_unit {
  std::uint32_t unit = 0;        // index into the units
  std::uint32_t violations = 0;  // violating member pods (ViolateCount)
  bool victim = false;           // chosen for eviction
  std::uint32_t position = 0;    // where the unit was met (a tie-break of a local order)
  // v1.38: the unit's priority on this node, its first member's own (select_unit_victims).
  std::int32_t priority = 0;
};

// A per-call copy of every budget's allowed disruptions, made lazily.
template <class Allocator = std::allocator<std::int64_t>>
class budget_tally {
 public:
  template <class T>
  using rebound = typename std::allocator_traits<Allocator>::template rebind_alloc<T>;

  budget_tally() = default;
  explicit budget_tally(const Allocator& alloc) : remaining_(alloc), stamps_(alloc) {}

  void reserve(std::size_t budgets) { grow(budgets); }

  // Forgets every copy.
  void start(std::size_t budgets) {
    grow(budgets);
    if (++generation_ == 0) {
      std::fill(stamps_.begin(), stamps_.end(), 0u);
      generation_ = 1;
    }
  }

  template <class B>
  std::int64_t& remaining(std::size_t i, const B& budgets) {
    if (stamps_[i] != generation_) {
      stamps_[i] = generation_;
      remaining_[i] = static_cast<std::int64_t>(budgets.disruptions_allowed(i));
    }
    return remaining_[i];
  }

 private:
  void grow(std::size_t budgets) {
    if (remaining_.size() < budgets) {
      remaining_.resize(budgets, 0);
      stamps_.resize(budgets, 0u);
    }
  }

  std::vector<std::int64_t, rebound<std::int64_t>> remaining_;
  std::vector<std::uint32_t, rebound<std::uint32_t>> stamps_;
  std::uint32_t generation_ = 0;
};

struct classify_unit_budgets_fn {
  template <class P, class UnitAlloc, class B, class TallyAlloc>
    requires budget_set<B, P>
  void operator()(std::span<ranked_unit> ranked, std::span<const victim_unit> units,
                  const unit_scratch<P, UnitAlloc>& scratch, const B& budgets,
                  budget_tally<TallyAlloc>& tally) const {
    tally.start(static_cast<std::size_t>(budgets.budget_count()));
    for (ranked_unit& r : ranked) {
      r.violations = 0;
      for (const unit_member<P>& m : scratch.members_of(units[r.unit])) {
        bool violating = false;
        budgets.for_each_budget_of(*m.pod, [&](std::size_t i, bool already_disrupted) {
          if (violating || already_disrupted) return;
          if (--tally.remaining(i, budgets) < 0) violating = true;
        });
        if (violating) ++r.violations;
      }
    }
  }
};
inline constexpr classify_unit_budgets_fn classify_unit_budgets{};

}  // namespace workload
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_WORKLOAD_UNIT_BUDGETS_HPP
