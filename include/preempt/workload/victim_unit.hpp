// preempt/workload/victim_unit.hpp - a victim unit (upstream's Victim / DomainVictim) and the
// order of importance between units (MoreImportantVictim, made total).
//
// Preemption evicts units, never parts of them. A pod whose group has no ancestor in `all`
// disruption mode is a unit of its own; the pods of a group whose highest `all` ancestor is A are
// one unit across nodes, keyed by A. A unit records its member pods (with their nodes), its
// priority (the members' effective priority: the group's), its kind (upstream's victimRank:
// CompositePodGroup 3 > PodGroup 2 > Pod 1; a pod that names a PodGroup is of kind pod_group even
// as a unit of its own), its earliest member start time (a missing start time counts as the
// injected `now`), and its construction order.
//
// more_important_unit(a, b) is upstream's MoreImportantVictim: higher priority; then higher kind;
// then more member pods; then earlier earliest start time. Upstream sorts with an unstable sort
// and stamps missing start times with the wall clock at construction, so equal units come out in
// no reproducible order; here the construction order (node order, then the node's pod order, of
// each unit's first pod) breaks the remaining ties, which makes the order total and gives the
// answer upstream gives in practice (earlier-constructed units, stamped earlier, win).
//
// Complexity O(1) per comparison. No allocation; no exceptions. Values: thread-safe to copy.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WORKLOAD_VICTIM_UNIT_HPP
#define PREEMPT_WORKLOAD_VICTIM_UNIT_HPP

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "preempt/config.hpp"
#include "preempt/pod.hpp"
#include "preempt/workload/group_set.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace workload {

// Upstream's victim types; the values are victimRank.
enum class unit_kind : std::uint8_t { pod = 1, pod_group = 2, composite_pod_group = 3 };

// Upstream's EntityKeyType strings ("pod", "podgroup", "compositepodgroup"), also the
// `preemptor` label of the workload metrics.
constexpr std::string_view to_string(unit_kind k) noexcept {
  switch (k) {
    case unit_kind::pod: return "pod";
    case unit_kind::pod_group: return "podgroup";
    case unit_kind::composite_pod_group: return "compositepodgroup";
  }
  return "?";
}

// A member pod of a unit and the node it runs on.
template <class P>
struct unit_member {
  const P* pod = nullptr;
  std::size_t node = 0;
};

// One victim unit. Its members are scratch.members()[first, first + size).
struct victim_unit {
  std::uint32_t first = 0;
  std::uint32_t size = 0;
  std::int32_t priority = 0;
  unit_kind kind = unit_kind::pod;
  timestamp earliest_start = 0;
  // Construction order: the last tie-break of the importance order.
  std::uint32_t order = 0;
  // Whether some member has a recorded start time. Without one the unit's earliest start is the
  // moment it was built (`now`): units built later count as started later.
  bool started = false;
  // The `all` ancestor that keys a grouped unit; no_group for a unit of one pod.
  std::size_t key = no_group;

  // Upstream's IsGroup: the unit is, or stands for, a pod group (counted as a workload
  // disruption).
  constexpr bool is_group() const noexcept { return kind != unit_kind::pod; }
};

// Kubernetes MoreImportantVictim, with the construction order as the final tie-break.
struct more_important_unit_fn {
  constexpr bool operator()(const victim_unit& a, const victim_unit& b) const noexcept {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.kind != b.kind) return a.kind > b.kind;
    if (a.size != b.size) return a.size > b.size;
    if (a.earliest_start != b.earliest_start) return a.earliest_start < b.earliest_start;
    return a.order < b.order;
  }
};
inline constexpr more_important_unit_fn more_important_unit{};

}  // namespace workload
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_WORKLOAD_VICTIM_UNIT_HPP
