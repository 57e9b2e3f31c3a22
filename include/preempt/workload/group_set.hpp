// preempt/workload/group_set.hpp - how the algorithms read the caller's pod groups (Kubernetes
// PodGroup and CompositePodGroup objects, scheduling.k8s.io v1beta1 / v1alpha3), and the two
// questions upstream asks of them: a pod's effective priority (GetPodPriority) and the highest
// ancestor whose disruption mode is `all` (getHighestAllAncestor).
//
// Groups are numbered 0 .. group_count()-1, PodGroups and CompositePodGroups in one numbering. A
// type W models `group_set<W, P>` for pods of type P when it answers, through const members:
//   w.group_count()      how many groups there are
//   w.group_of(p)        a group_link: whether p names a PodGroup (spec.schedulingGroup) and, when
//                        that PodGroup exists, its number (no_group when it does not)
//   w.kind(g)            group_kind::pod_group or group_kind::composite_pod_group
//   w.parent(g)          the number of g's parent CompositePodGroup (parentCompositePodGroupName),
//                        or no_group when g has none, when the parent object does not exist, or
//                        when the CompositePodGroup feature is off (then every PodGroup is a root)
//   w.disrupts_all(g)    g's spec.disruptionMode is `all` (`single` and unset are not)
//   w.priority(g)        g's spec.priority; an unset priority is 0 (PodGroupPriority)
// `no_groups` models the concept for clusters without pod groups: every pod is its own victim
// unit and keeps its own priority, so the algorithms decide exactly as without workloads.
//
// effective_priority(groups, p) is upstream's GetPodPriority: a pod of no group, or of a
// PodGroup that does not exist, has its own priority; otherwise the priority of the topmost group
// reachable from its PodGroup through parents (at most max_tree_depth levels, upstream's
// WorkloadMaxTreeDepth; the walk stops at a missing parent). highest_all_ancestor(groups, p) walks
// the same chain and returns the topmost group in `all` mode, or no_group.
//
// Complexity: O(max_tree_depth) calls per question. No allocation; no exceptions of their own.
// Thread-safety: read-only; as thread-safe as the caller's group set.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WORKLOAD_GROUP_SET_HPP
#define PREEMPT_WORKLOAD_GROUP_SET_HPP

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "preempt/config.hpp"
#include "preempt/pod.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace workload {

// "No group": no membership, no parent, no `all` ancestor.
inline constexpr std::size_t no_group = std::numeric_limits<std::size_t>::max();

// Upstream's WorkloadMaxTreeDepth: the longest PodGroup -> CompositePodGroup chain walked.
inline constexpr std::size_t max_tree_depth = 4;

enum class group_kind : std::uint8_t { pod_group, composite_pod_group };

// What a pod says about its group: `member` when spec.schedulingGroup names a PodGroup; `group`
// is that PodGroup's number, or no_group when the object does not exist.
struct group_link {
  bool member = false;
  std::size_t group = no_group;

  friend constexpr bool operator==(const group_link&, const group_link&) noexcept = default;
};

template <class W, class P>
concept group_set = pod<P> && requires(const W& w, const P& p, std::size_t g) {
  { w.group_count() } -> std::convertible_to<std::size_t>;
  { w.group_of(p) } -> std::convertible_to<group_link>;
  { w.kind(g) } -> std::convertible_to<group_kind>;
  { w.parent(g) } -> std::convertible_to<std::size_t>;
  { w.disrupts_all(g) } -> std::convertible_to<bool>;
  { w.priority(g) } -> std::convertible_to<std::int32_t>;
};

// A cluster without pod groups.
struct no_groups {
  static constexpr std::size_t group_count() noexcept { return 0; }
  template <class P>
  static constexpr group_link group_of(const P&) noexcept {
    return {};
  }
  static constexpr group_kind kind(std::size_t) noexcept { return group_kind::pod_group; }
  static constexpr std::size_t parent(std::size_t) noexcept { return no_group; }
  static constexpr bool disrupts_all(std::size_t) noexcept { return false; }
  static constexpr std::int32_t priority(std::size_t) noexcept { return 0; }
};

// Kubernetes GetPodPriority: the priority a pod is compared with, as a victim and in eligibility.
struct effective_priority_fn {
  template <class W, pod P>
    requires group_set<W, P>
  constexpr std::int32_t operator()(const W& groups, const P& p) const {
    const group_link link = groups.group_of(p);
    if (!link.member || link.group == no_group) return ::preempt::priority_of(p);
    std::size_t top = link.group;
    std::size_t g = groups.parent(top);
    for (std::size_t depth = 1; depth < max_tree_depth && g != no_group; ++depth) {
      top = g;
      g = groups.parent(g);
    }
    return static_cast<std::int32_t>(groups.priority(top));
  }
};
inline constexpr effective_priority_fn effective_priority{};

// Kubernetes getHighestAllAncestor: the topmost group in `all` disruption mode on the way up from
// the pod's PodGroup, or no_group.
struct highest_all_ancestor_fn {
  template <class W, pod P>
    requires group_set<W, P>
  constexpr std::size_t operator()(const W& groups, const P& p) const {
    const group_link link = groups.group_of(p);
    if (!link.member || link.group == no_group) return no_group;
    std::size_t highest = no_group;
    std::size_t g = link.group;
    for (std::size_t depth = 0; depth < max_tree_depth && g != no_group; ++depth) {
      if (groups.disrupts_all(g)) highest = g;
      g = groups.parent(g);
    }
    return highest;
  }
};
inline constexpr highest_all_ancestor_fn highest_all_ancestor{};

}  // namespace workload
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_WORKLOAD_GROUP_SET_HPP
