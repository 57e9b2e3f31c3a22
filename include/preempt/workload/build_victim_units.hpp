// preempt/workload/build_victim_units.hpp - the victim units of a whole cluster (Kubernetes
// getCrossNodesVictims with searchCrossNodesVictimPods, NewPodVictim and NewVictim).
//
// build_victim_units(cluster, groups, now, scratch[, scan_order]) scans every node in order (the
// order scan_order lists the node indices in, when given: upstream scans its snapshot's node list,
// which interleaves the zones) and each node's pods in order. A pod without an `all` ancestor
// (highest_all_ancestor) becomes a unit of its own: its effective priority, kind pod_group if it
// names a PodGroup (even one that does not exist) and pod otherwise. The first pod met under an
// `all` ancestor A creates A's unit, which holds every pod on every node whose highest `all`
// ancestor is A (upstream: the scheduled pods of every PodGroup under A), in scan order; its
// priority is the effective priority of that first pod and its kind is A's (pod_group or
// composite_pod_group). Each unit's earliest start is the minimum over its members, `now` standing
// for a missing start time (`started` tells whether a member has one). Units come out in
// construction order, which is also each unit's `order`.
//
// With `profile` kubernetes_1_38, units are built as v1.38 builds them: a pod without an `all`
// ancestor is a unit of kind pod with its own priority (whatever group it names), and a grouped
// unit's priority is its first pod's own priority (upstream: the first member on the node being
// evaluated, the same pod when the members share a priority).
//
// A minCount of a victim group is never consulted: only the disruption mode decides what is
// evicted together.
//
// Complexity: O(n + p · max_tree_depth) for n nodes and p pods. Allocation: none once the scratch
// has seen a cluster of this size (or after reserve). No exceptions of its own. Thread-safety: the
// scratch is mutated; one per thread.
//
// The units and members refer to the scratch and to the cluster's pods: valid until the scratch
// is used again or the cluster changes.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WORKLOAD_BUILD_VICTIM_UNITS_HPP
#define PREEMPT_WORKLOAD_BUILD_VICTIM_UNITS_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <ranges>
#include <span>
#include <vector>

#include "preempt/cluster.hpp"
#include "preempt/config.hpp"
#include "preempt/pod.hpp"
#include "preempt/upstream_profile.hpp"
#include "preempt/victim_selection.hpp"  // detail::cache_position
#include "preempt/workload/group_set.hpp"
#include "preempt/workload/victim_unit.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace workload {

// Working memory of build_victim_units, and where the units live. Grows to the largest cluster
// seen and never shrinks.
template <class P, class Allocator = std::allocator<P>>
class unit_scratch {
 public:
  template <class T>
  using rebound = typename std::allocator_traits<Allocator>::template rebind_alloc<T>;

  unit_scratch() = default;
  explicit unit_scratch(const Allocator& alloc)
      : units_(alloc),
        members_(alloc),
        pod_unit_(alloc),
        by_cache_(alloc),
        node_first_(alloc),
        fill_(alloc),
        slot_(alloc),
        stamp_(alloc) {}

  void reserve(std::size_t pods, std::size_t groups) {
    units_.reserve(pods);
    members_.reserve(pods);
    pod_unit_.reserve(pods);
    fill_.reserve(pods);
    grow_groups(groups);
  }

  std::span<victim_unit> units() noexcept { return {units_.data(), units_.size()}; }
  std::span<const victim_unit> units() const noexcept { return {units_.data(), units_.size()}; }
  std::span<const unit_member<P>> members() const noexcept {
    return {members_.data(), members_.size()};
  }
  // The unit of the k-th pod (in node order) of node i.
  std::uint32_t unit_of(std::size_t node, std::size_t k) const noexcept {
    return pod_unit_[node_first_[node] + k];
  }
  // The members of unit u, in scan order.
  std::span<const unit_member<P>> members_of(const victim_unit& u) const noexcept {
    return {members_.data() + u.first, u.size};
  }

 private:
  friend struct build_victim_units_fn;

  void grow_groups(std::size_t groups) {
    if (slot_.size() < groups) {
      slot_.resize(groups, 0);
      stamp_.resize(groups, 0);
    }
  }
  void start(std::size_t groups) {
    units_.clear();
    members_.clear();
    pod_unit_.clear();
    node_first_.clear();
    fill_.clear();
    grow_groups(groups);
    if (++generation_ == 0) {
      std::fill(stamp_.begin(), stamp_.end(), 0u);
      generation_ = 1;
    }
  }

  std::vector<victim_unit, rebound<victim_unit>> units_;
  std::vector<unit_member<P>, rebound<unit_member<P>>> members_;
  std::vector<std::uint32_t, rebound<std::uint32_t>> pod_unit_;  // per pod, in node order
  std::vector<std::uint32_t, rebound<std::uint32_t>> by_cache_;  // one node: cache slot -> pod
  std::vector<std::size_t, rebound<std::size_t>> node_first_;    // per node: its first pod
  std::vector<std::uint32_t, rebound<std::uint32_t>> fill_;      // per unit, while filling
  std::vector<std::uint32_t, rebound<std::uint32_t>> slot_;      // per group: its unit
  std::vector<std::uint32_t, rebound<std::uint32_t>> stamp_;     // per group: slot is current
  std::uint32_t generation_ = 0;
};

struct build_victim_units_fn {
  template <cluster C, class W, class Allocator>
    requires group_set<W, cluster_pod_t<C>>
  std::span<victim_unit> operator()(const C& cluster, const W& groups, timestamp now,
                                    unit_scratch<cluster_pod_t<C>, Allocator>& s,
                                    std::span<const std::size_t> scan_order = {},
                                    upstream_profile profile = default_upstream_profile) const {
    using P = cluster_pod_t<C>;
    // v1.38 builds every victim with its first pod's own priority, and a pod without an `all`
    // ancestor as a plain pod (NewPodVictim), whatever group it names.
    const bool own_priority = profile != upstream_profile::kubernetes_1_37;
    const auto priority_of_unit = [&](const P& p) {
      return own_priority ? static_cast<std::int32_t>(::preempt::priority_of(p))
                          : ::preempt::workload::effective_priority(groups, p);
    };
    s.start(static_cast<std::size_t>(groups.group_count()));
    const std::size_t nodes = static_cast<std::size_t>(cluster.size());
    PREEMPT_ASSERT(scan_order.empty() || scan_order.size() == nodes,
                   "build_victim_units: scan_order lists every node once");
    const auto node_at = [&](std::size_t j) { return scan_order.empty() ? j : scan_order[j]; };
    s.node_first_.assign(nodes, 0);

    // Pass 1: create the units in construction order, count their members. Each node's pods are
    // scanned in the cache's order (upstream builds its victims from NodeInfo.Pods), which is the
    // node order unless the node keeps the cache order apart (detail::cache_position).
    for (std::size_t j = 0; j < nodes; ++j) {
      const std::size_t i = node_at(j);
      PREEMPT_ASSERT(i < nodes, "build_victim_units: scan_order names a node beyond the cluster");
      const std::size_t base = s.pod_unit_.size();
      s.node_first_[i] = base;
      const auto& pods = ::preempt::pods_of(cluster[i]);
      const std::size_t n =
          static_cast<std::size_t>(std::distance(std::ranges::begin(pods), std::ranges::end(pods)));
      s.pod_unit_.resize(base + n);
      s.by_cache_.resize(n);
      for (std::size_t k = 0; k < n; ++k)
        s.by_cache_[::preempt::detail::cache_position(cluster[i], k)] =
            static_cast<std::uint32_t>(k);
      for (std::size_t c = 0; c < n; ++c) {
        const std::size_t k = s.by_cache_[c];
        const P& p = std::ranges::begin(pods)[static_cast<std::ptrdiff_t>(k)];
        const std::size_t key = ::preempt::workload::highest_all_ancestor(groups, p);
        const timestamp start = ::preempt::start_time_or(p, now);
        std::uint32_t u = 0;
        if (key == no_group) {
          u = static_cast<std::uint32_t>(s.units_.size());
          victim_unit unit;
          unit.priority = priority_of_unit(p);
          unit.kind =
              groups.group_of(p).member && !own_priority ? unit_kind::pod_group : unit_kind::pod;
          unit.earliest_start = start;
          unit.order = u;
          s.units_.push_back(unit);
        } else if (s.stamp_[key] == s.generation_) {
          u = s.slot_[key];
        } else {
          u = static_cast<std::uint32_t>(s.units_.size());
          victim_unit unit;
          unit.priority = priority_of_unit(p);
          unit.kind = groups.kind(key) == group_kind::composite_pod_group
                          ? unit_kind::composite_pod_group
                          : unit_kind::pod_group;
          unit.earliest_start = start;
          unit.order = u;
          unit.key = key;
          s.units_.push_back(unit);
          s.stamp_[key] = s.generation_;
          s.slot_[key] = u;
        }
        victim_unit& unit = s.units_[u];
        ++unit.size;
        unit.earliest_start = std::min(unit.earliest_start, start);
        unit.started = unit.started || ::preempt::start_time_of(p).has_value();
        s.pod_unit_[base + k] = u;
      }
    }

    // Each unit's members are contiguous, in construction order.
    std::uint32_t first = 0;
    for (victim_unit& unit : s.units_) {
      unit.first = first;
      first += unit.size;
    }
    s.fill_.assign(s.units_.size(), 0u);
    s.members_.resize(first);

    // Pass 2: place every pod in its unit, in scan order.
    std::size_t scanned = 0;
    for (std::size_t j = 0; j < nodes; ++j) {
      const std::size_t i = node_at(j);
      for (const P& p : ::preempt::pods_of(cluster[i])) {
        const std::uint32_t u = s.pod_unit_[scanned++];
        s.members_[s.units_[u].first + s.fill_[u]++] = unit_member<P>{&p, i};
      }
    }
    return s.units();
  }
};
inline constexpr build_victim_units_fn build_victim_units{};

}  // namespace workload
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_WORKLOAD_BUILD_VICTIM_UNITS_HPP
