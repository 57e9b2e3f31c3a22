// preempt/workload/victim_cost_ranking.hpp - the nodes of a pod group's placement ranked by the
// victims a member placed there would condemn (Kubernetes v1.38: PodGroupPreemptionState,
// DefaultPreemption's RankNodes, Reserve and Unreserve, and CompareVictimSets).
//
// Under upstream_profile::kubernetes_1_38, pod_group_evaluator hands its placement a
// victim_cost_ranking built from the potential victim units in descending importance. For every
// node it knows the units with a member there, most important first, and which of them earlier
// members of the group already condemned:
//   surviving(node, out)   the units of `node` not yet condemned, most important first
//   compare(a, b)          CompareVictimSets (compare_victim_sets) of the surviving units of
//                          nodes a and b: < 0 when a costs less (a better place), > 0 when it
//                          costs more, 0 when equal
//   condemn(node)          Reserve: a member placed on `node` condemns every unit surviving there;
//                          returns a mark for release
//   release(mark)          Unreserve: the condemnations made since `mark` are undone (last first);
//                          condemn_mark() is the mark of the condemnations to come
// CompareVictimSets, in order: no victims costs less than any; then fewer PDB violations (each
// unit's violating member pods, counted once per evaluation); then, walking both lists by priority
// from the top, a lower priority, or at the same priority fewer pods; then fewer pods in all; then,
// position by position, a lower kind (pod < PodGroup < CompositePodGroup) and fewer pods; then
// fewer units. A unit's pods are all its members, on every node.
//
// Upstream ranks the nodes that pass PreFilter, rank 0 for nodes where nothing survives, then by
// CompareVictimSets, stably; its filters run in that order and its scores choose among the
// feasible nodes of the lowest rank. A placement that places first fit (the what-if's) takes the
// first feasible node in that order: a stable sort of the nodes by compare.
//
// Complexity: build O(m + n) for m member pods and n nodes; surviving and compare O(k) for k units
// on the nodes; condemn O(k); release O(units released). Allocation: none once the ranking has seen
// a cluster of this size. No exceptions of its own. A node or unit index beyond what it was built
// for is a contract failure (PREEMPT_ASSERT). Thread-safety: compare writes scratch; one thread at
// a time.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WORKLOAD_VICTIM_COST_RANKING_HPP
#define PREEMPT_WORKLOAD_VICTIM_COST_RANKING_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/workload/build_victim_units.hpp"
#include "preempt/workload/unit_budgets.hpp"
#include "preempt/workload/victim_unit.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace workload {

// What CompareVictimSets reads of a victim unit: its priority, kind, pods (all its members) and
// violating member pods.
struct unit_cost {
  std::int32_t priority = 0;
  unit_kind kind = unit_kind::pod;
  std::uint32_t pods = 0;
  std::uint32_t violations = 0;
};

// Kubernetes CompareVictimSets over two sets of units, each most important first: < 0 when s1
// costs less than s2, > 0 when it costs more, 0 when equal (see the header comment).
constexpr int compare_victim_sets(std::span<const unit_cost> s1, std::span<const unit_cost> s2) {
  const auto three_way = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  if (s1.empty() || s2.empty()) return three_way(s1.size(), s2.size());
  std::int64_t pdb1 = 0, pdb2 = 0, pods1 = 0, pods2 = 0;
  for (const unit_cost& v : s1) pdb1 += v.violations;
  for (const unit_cost& v : s2) pdb2 += v.violations;
  if (const int c = three_way(pdb1, pdb2); c != 0) return c;
  // The runs of equal priority from the top: a higher priority costs more, then more pods.
  for (std::size_t i1 = 0, i2 = 0; i1 < s1.size() && i2 < s2.size();) {
    const std::int32_t p1 = s1[i1].priority, p2 = s2[i2].priority;
    if (const int c = three_way(p1, p2); c != 0) return c;
    std::int64_t run1 = 0, run2 = 0;
    for (; i1 < s1.size() && s1[i1].priority == p1; ++i1) run1 += s1[i1].pods;
    for (; i2 < s2.size() && s2[i2].priority == p2; ++i2) run2 += s2[i2].pods;
    if (const int c = three_way(run1, run2); c != 0) return c;
  }
  for (const unit_cost& v : s1) pods1 += v.pods;
  for (const unit_cost& v : s2) pods2 += v.pods;
  if (const int c = three_way(pods1, pods2); c != 0) return c;
  for (std::size_t i = 0; i < std::min(s1.size(), s2.size()); ++i) {
    if (const int c = three_way(static_cast<int>(s1[i].kind), static_cast<int>(s2[i].kind)); c != 0)
      return c;
    if (const int c = three_way(s1[i].pods, s2[i].pods); c != 0) return c;
  }
  return three_way(s1.size(), s2.size());
}

template <class Allocator = std::allocator<std::uint32_t>>
class victim_cost_ranking {
 public:
  explicit victim_cost_ranking(const Allocator& alloc = {})
      : costs_(alloc),
        condemned_(alloc),
        node_first_(alloc),
        next_slot_(alloc),
        node_units_(alloc),
        stack_(alloc),
        nodes_of_unit_(alloc),
        scratch_a_(alloc),
        scratch_b_(alloc) {}

  // Builds the ranking of `nodes` nodes from the potential units in descending importance
  // (`ranked`, classified by budgets), nothing condemned.
  template <class P, class UnitAlloc>
  void build(std::size_t nodes, std::span<const ranked_unit> ranked,
             std::span<const victim_unit> units, const unit_scratch<P, UnitAlloc>& scratch) {
    costs_.clear();
    condemned_.assign(ranked.size(), 0);
    stack_.clear();
    node_first_.assign(nodes + 1, 0);
    // Pass 1: each node's count of units (a unit counted once per node it has members on).
    for (std::size_t k = 0; k < ranked.size(); ++k) {
      const victim_unit& u = units[ranked[k].unit];
      costs_.push_back({u.priority, u.kind, u.size, ranked[k].violations});
      for_each_node_of(u, scratch, [&](std::size_t node) { ++node_first_[node + 1]; });
    }
    for (std::size_t i = 0; i < nodes; ++i) node_first_[i + 1] += node_first_[i];
    node_units_.assign(node_first_[nodes], 0);
    // Pass 2: in importance order, so each node's list is most important first.
    next_slot_.assign(node_first_.begin(), node_first_.end() - 1);
    for (std::size_t k = 0; k < ranked.size(); ++k)
      for_each_node_of(units[ranked[k].unit], scratch, [&](std::size_t node) {
        node_units_[next_slot_[node]++] = static_cast<std::uint32_t>(k);
      });
  }

  std::size_t node_count() const noexcept {
    return node_first_.empty() ? 0 : node_first_.size() - 1;
  }
  // The cost of the k-th potential unit in descending importance.
  const unit_cost& cost(std::size_t k) const noexcept {
    PREEMPT_ASSERT(k < costs_.size(), "victim_cost_ranking: no such unit");
    return costs_[k];
  }
  bool condemned(std::size_t k) const noexcept {
    PREEMPT_ASSERT(k < condemned_.size(), "victim_cost_ranking: no such unit");
    return condemned_[k] != 0;
  }

  // The units of `node` (their positions in descending importance) not yet condemned, most
  // important first, appended to `out`.
  template <class Vector>
  void surviving(std::size_t node, Vector& out) const {
    for (const std::uint32_t k : units_of(node))
      if (condemned_[k] == 0) out.push_back(k);
  }

  // CompareVictimSets of the units surviving on nodes a and b.
  int compare(std::size_t a, std::size_t b) const {
    const auto costs_of = [&](std::size_t node, auto& out) {
      out.clear();
      for (const std::uint32_t k : units_of(node))
        if (condemned_[k] == 0) out.push_back(costs_[k]);
    };
    costs_of(a, scratch_a_);
    costs_of(b, scratch_b_);
    return ::preempt::workload::compare_victim_sets(scratch_a_, scratch_b_);
  }

  // Reserve for a member placed on `node`: every unit surviving there is condemned.
  std::size_t condemn(std::size_t node) {
    const std::size_t mark = stack_.size();
    for (const std::uint32_t k : units_of(node))
      if (condemned_[k] == 0) {
        condemned_[k] = 1;
        stack_.push_back(k);
      }
    return mark;
  }

  // The mark of no condemnation yet made: release(condemn_mark()) undoes every later one.
  std::size_t condemn_mark() const noexcept { return stack_.size(); }

  // Unreserve: undoes the condemnations made since `mark`.
  void release(std::size_t mark) {
    while (stack_.size() > mark) {
      condemned_[stack_.back()] = 0;
      stack_.pop_back();
    }
  }

 private:
  std::span<const std::uint32_t> units_of(std::size_t node) const noexcept {
    PREEMPT_ASSERT(node < node_count(),
                   "victim_cost_ranking: no such node (beyond the nodes it was built for)");
    return {node_units_.data() + node_first_[node], node_first_[node + 1] - node_first_[node]};
  }

  // Calls f(node) once for every node the unit has members on (members are in scan order, so a
  // node's members need not be adjacent: a short sorted scratch of the unit's nodes dedupes).
  template <class P, class UnitAlloc, class F>
  void for_each_node_of(const victim_unit& u, const unit_scratch<P, UnitAlloc>& scratch, F&& f) {
    const auto members = scratch.members_of(u);
    if (members.size() == 1) {
      f(members.front().node);
      return;
    }
    nodes_of_unit_.clear();
    for (const unit_member<P>& m : members) nodes_of_unit_.push_back(m.node);
    std::sort(nodes_of_unit_.begin(), nodes_of_unit_.end());
    for (std::size_t i = 0; i < nodes_of_unit_.size(); ++i)
      if (i == 0 || nodes_of_unit_[i] != nodes_of_unit_[i - 1]) f(nodes_of_unit_[i]);
  }

  template <class T>
  using rebound = typename std::allocator_traits<Allocator>::template rebind_alloc<T>;

  std::vector<unit_cost, rebound<unit_cost>> costs_;  // per unit, descending importance
  std::vector<std::uint8_t, rebound<std::uint8_t>> condemned_;
  std::vector<std::size_t, rebound<std::size_t>>
      node_first_;  // node i: node_units_[first[i], first[i+1])
  std::vector<std::size_t, rebound<std::size_t>> next_slot_;  // build: each node's next slot
  std::vector<std::uint32_t, rebound<std::uint32_t>> node_units_;
  std::vector<std::uint32_t, rebound<std::uint32_t>> stack_;      // condemned, in order
  std::vector<std::size_t, rebound<std::size_t>> nodes_of_unit_;  // build: one unit's nodes
  mutable std::vector<unit_cost, rebound<unit_cost>> scratch_a_;  // compare: node a's survivors
  mutable std::vector<unit_cost, rebound<unit_cost>> scratch_b_;
};

}  // namespace workload
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_WORKLOAD_VICTIM_COST_RANKING_HPP
