// preempt/workload/unit_grouping.hpp - pod groups in the single-pod evaluator (Kubernetes v1.37
// with GenericWorkload): its victims are whole units, and step 1 compares a pod on the nominated
// node by its group's priority; the preemptor keeps its own.
//
// unit_grouping<W, P> is the victim grouping (preempt/victim_grouping.hpp) of a group set W: once
// per decision it builds the cluster's victim units (build_victim_units), and each node's dry run
// selects whole units (select_unit_victims) with its worker's scratch; priority_of() is
// effective_priority. victim_grouping_for<W, P> names it for every group_set W, which is what
// makes evaluator::evaluate(preemptor, cluster, groups, ...) available. unit_grouping_scratch<P>
// is what it keeps between decisions, in the evaluator's victim_grouping_storage: the units and
// one selection scratch per worker.
//
// Complexity: build_victim_units' per decision, select_unit_victims' per node. Allocation: none
// once the scratch has seen a cluster of this size with as many workers. No exceptions of its own.
// Thread-safety: select on worker w from one thread at a time, different workers in parallel;
// prepare and prepare_workers while no selection runs.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WORKLOAD_UNIT_GROUPING_HPP
#define PREEMPT_WORKLOAD_UNIT_GROUPING_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/detail/cache_line.hpp"
#include "preempt/pod.hpp"
#include "preempt/upstream_profile.hpp"
#include "preempt/victim_grouping.hpp"
#include "preempt/victim_selection.hpp"
#include "preempt/workload/build_victim_units.hpp"
#include "preempt/workload/group_set.hpp"
#include "preempt/workload/unit_victim_selection.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace workload {

// The units of the current decision and each worker's selection scratch.
template <class P>
struct unit_grouping_scratch {
  // Aligned: what one worker writes per node is on lines no other worker touches.
  struct alignas(::preempt::detail::cache_line) worker {
    unit_selection_scratch<P> scratch;
  };
  unit_scratch<P> units;
  std::vector<worker> workers;
};

template <class W, class P>
  requires group_set<W, P>
class unit_grouping {
 public:
  static constexpr bool groups_victims = true;

  unit_grouping(const W& groups, unit_grouping_scratch<P>& scratch) noexcept
      : groups_(&groups), scratch_(&scratch) {}

  auto priority_of() const noexcept {
    return [groups = groups_](const P& p) {
      return ::preempt::workload::effective_priority(*groups, p);
    };
  }

  // `profile`: the release whose victim units to build (build_victim_units).
  template <class C>
  void prepare(const C& cluster, timestamp now, std::size_t workers,
               upstream_profile profile = default_upstream_profile) const {
    ::preempt::workload::build_victim_units(cluster, *groups_, now, scratch_->units, {}, profile);
    if (scratch_->workers.size() < workers) scratch_->workers.resize(workers);
  }

  // Every worker's scratch as large as the largest any worker has needed, so a worker that rarely
  // wins an item does not grow its scratch in a later decision.
  void prepare_workers(std::size_t budget_count) const {
    typename unit_selection_scratch<P>::room room;
    for (const auto& wk : scratch_->workers) {
      const auto r = wk.scratch.reserved();
      room.node_units = std::max(room.node_units, r.node_units);
      room.units = std::max(room.units, r.units);
      room.pods = std::max(room.pods, r.pods);
    }
    for (auto& wk : scratch_->workers) wk.scratch.reserve(room, budget_count);
  }

  template <class C, class S, class B, class Nominated, class Policy>
  victim_selection<P> select(std::size_t w, const P& preemptor, std::size_t x, const C& cluster,
                             S& state, const B& budgets, const Nominated& nominated,
                             const Policy& policy) const {
    return ::preempt::workload::select_unit_victims(preemptor, x, cluster, state, scratch_->units,
                                                    budgets, nominated,
                                                    scratch_->workers[w].scratch, policy);
  }

 private:
  const W* groups_;
  unit_grouping_scratch<P>* scratch_;
};

}  // namespace workload

template <class W, class P>
  requires workload::group_set<W, P>
struct victim_grouping_for<W, P> {
  static workload::unit_grouping<W, P> make(const W& groups, victim_grouping_storage& storage) {
    return {groups, storage.get<workload::unit_grouping_scratch<P>>()};
  }
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_WORKLOAD_UNIT_GROUPING_HPP
