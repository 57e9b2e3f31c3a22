// preempt/model/resource_rejection_index.hpp - resource_cluster's rejection index: the runs of
// nodes on which a preemptor does not fit even with every lower-priority pod evicted, or which
// hold no lower-priority pod, found without visiting them (preempt/rejection_index.hpp).
//
// For the preemptor's priority q, the index keeps a tree over the nodes in groups of
// resource_cluster::stamp_group: each tree node sums its nodes up as, in each standard dimension
// (cpu, memory, pod slots, ephemeral storage), the least and the most room a node has once its pods
// below q are gone (allocatable - requested + what those pods request) and the least and the most
// allocatable, and how many of its nodes hold no pod below q. A subtree is one run when all its
// nodes answer alike: none holds a pod below q (upstream's "No preemption victims found"); or each
// is short, with those pods gone, in the same dimensions (fits' "Too many pods" / "Insufficient
// ..."), and asks more than allocatable in a short dimension on all of them or none of them (the
// status code fits then gives); or none is short (open: the dry run decides). run_at descends from
// the root to the largest such subtree holding the node; in a group whose nodes differ, each node
// is read on its own (from its priority_summary: O(log k + d)).
//
// Trees are kept per priority for the last four priorities asked (least recently used replaced),
// with the stamps of the groups they were built from: prepare rebuilds only the groups whose
// resource_cluster::group_stamp changed (any pod added or removed there), then their paths to
// the root. Updating the cluster costs O(1) more per pod for this (one group's stamp); the index
// pays O(g·(log k + d) + log n) per changed group of g nodes at the next prepare, O(n) when the
// node count changed.
//
// Answers only for preemptors whose requests name standard dimensions only (else prepare returns
// false). Complexity: run_at O(log n + d); prepare O(n/g) to compare stamps when something
// changed (O(1) when nothing did). Memory: about 50 bytes per node per priority kept (bytes()).
// Allocation: when a tree is first built or the cluster grows. No exceptions of its own. Not
// synchronized: one evaluator's, used by one thread at a time.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_MODEL_RESOURCE_REJECTION_INDEX_HPP
#define PREEMPT_MODEL_RESOURCE_REJECTION_INDEX_HPP

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/model/priority_summary.hpp"
#include "preempt/model/resource_pod.hpp"
#include "preempt/model/resources.hpp"
#include "preempt/rejection_index.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace model {

class resource_rejection_index {
 public:
  static constexpr std::size_t dims = resource::first_extended;

  // Brings the tree for the preemptor's priority up to date with `cluster` (a resource_cluster,
  // or a class with its stamp(), group_stamp(g), groups(), stamp_group, size() and nodes'
  // allocatable(), requested() and priorities()); false when its requests name an extended
  // resource.
  template <class Cluster>
  bool prepare(const Cluster& cluster, const resource_pod& preemptor) {
    const resource_vector& want = preemptor.requests();
    if (want.size() > dims) return false;
    for (std::size_t d = 0; d < dims; ++d) {
      want_[d] = want[d];
      demand_[d] = d == resource::pods ? 1 : want[d];
    }
    nodes_ = cluster.size();
    cluster_ = &cluster;
    node_at_ = [](const void* c, std::size_t i, std::int32_t q) noexcept {
      return resource_rejection_index::node_summary((*static_cast<const Cluster*>(c))[i], q);
    };
    current_ = tree_for(preemptor.priority(), ++uses_);
    resource_rejection_index::refresh(trees_[current_], cluster, Cluster::stamp_group);
    return true;
  }

  // The run of nodes from `node` that answer alike (see above); rejection keys: 1 for "no
  // victims", 2 + (short dimensions as bits) + 32 when a short dimension asks beyond allocatable.
  // Reads the cluster prepare was given: between prepare and the cluster's next change only.
  node_run run_at(std::size_t node) const noexcept {
    const tree& t = trees_[current_];
    std::size_t at = 1, first = 0, width = t.leaves;  // tree node, its first group, its groups
    const std::size_t g = node / t.group;
    while (true) {
      const verdict v = classify(t.sums[at]);
      if (v.uniform) return {std::min(nodes_, (first + width) * t.group), v.key};
      if (width == 1) break;
      width /= 2;
      at *= 2;
      if (g >= first + width) {
        first += width;
        ++at;
      }
    }
    // A group whose nodes differ: node by node, as far as they answer alike.
    const std::uint32_t key = classify(node_at_(cluster_, node, t.priority)).key;
    std::size_t end = node + 1;
    const std::size_t group_end = std::min(nodes_, (g + 1) * t.group);
    while (end < group_end && classify(node_at_(cluster_, end, t.priority)).key == key) ++end;
    return {end, key};
  }

  // Bytes held (every tree kept).
  std::size_t bytes() const noexcept {
    std::size_t b = sizeof(*this);
    for (const tree& t : trees_)
      b += t.sums.capacity() * sizeof(summary) + t.stamps.capacity() * sizeof(std::uint64_t);
    return b;
  }

 private:
  static constexpr std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
  static constexpr std::int64_t highest = std::numeric_limits<std::int64_t>::max();

  // A set of nodes summed up (one node: its own values).
  struct summary {
    std::array<std::int64_t, dims> room_min{}, room_max{};  // with the pods below q gone
    std::array<std::int64_t, dims> allocatable_min{}, allocatable_max{};
    std::uint32_t nodes = 0;       // 0: padding, no node
    std::uint32_t victimless = 0;  // nodes without a pod below q
  };
  struct tree {
    std::int32_t priority = 0;
    std::uint64_t last_use = 0;
    std::uint64_t cluster_stamp = 0;  // 0: never built
    std::size_t nodes = 0, group = 1, leaves = 1;
    std::vector<std::uint64_t> stamps;  // per group, as built
    std::vector<summary> sums;          // 1 is the root; leaves from `leaves`
  };
  struct verdict {
    bool uniform;
    std::uint32_t key;
  };

  // The tree kept for this priority, or a new or least recently used one for it.
  std::size_t tree_for(std::int32_t priority, std::uint64_t use) {
    for (std::size_t k = 0; k < trees_.size(); ++k)
      if (trees_[k].cluster_stamp != 0 && trees_[k].priority == priority) {
        trees_[k].last_use = use;
        return k;
      }
    std::size_t k = trees_.size();
    if (k < kept_trees)
      trees_.emplace_back();
    else
      k = static_cast<std::size_t>(
          std::min_element(trees_.begin(), trees_.end(),
                           [](const tree& a, const tree& b) { return a.last_use < b.last_use; }) -
          trees_.begin());
    tree& t = trees_[k];
    t.priority = priority;
    t.last_use = use;
    t.cluster_stamp = 0;
    return k;
  }

  template <class Cluster>
  static void refresh(tree& t, const Cluster& c, std::size_t group) {
    if (t.cluster_stamp == c.stamp() && t.cluster_stamp != 0) return;
    const std::size_t n = c.size();
    const std::size_t groups = c.groups();
    const bool rebuild = t.cluster_stamp == 0 || t.nodes != n || t.group != group;
    if (rebuild) {
      t.nodes = n;
      t.group = group;
      t.leaves = std::bit_ceil(std::max<std::size_t>(groups, 1));
      t.sums.assign(2 * t.leaves, summary{});
      t.stamps.assign(groups, 0);
    }
    bool changed = false;
    for (std::size_t g = 0; g < groups; ++g) {
      const std::uint64_t s = c.group_stamp(g);
      if (s == t.stamps[g]) continue;
      t.stamps[g] = s;
      changed = true;
      summary sum{};
      for (std::size_t i = g * group; i < std::min(n, (g + 1) * group); ++i)
        sum = resource_rejection_index::combine(
            sum, resource_rejection_index::node_summary(c[i], t.priority));
      t.sums[t.leaves + g] = sum;
      if (!rebuild)
        for (std::size_t at = (t.leaves + g) / 2; at >= 1; at /= 2)
          t.sums[at] = resource_rejection_index::combine(t.sums[2 * at], t.sums[2 * at + 1]);
    }
    if (rebuild && changed)
      for (std::size_t at = t.leaves - 1; at >= 1; --at)
        t.sums[at] = resource_rejection_index::combine(t.sums[2 * at], t.sums[2 * at + 1]);
    t.cluster_stamp = c.stamp();
  }

  template <class Node>
  static summary node_summary(const Node& node, std::int32_t q) noexcept {
    summary s;
    s.nodes = 1;
    const priority_summary::lower below = node.priorities().below(q);
    s.victimless = below.pods == 0 ? 1 : 0;
    const resource_vector& have = node.allocatable();
    const resource_vector& used = node.requested();
    for (std::size_t d = 0; d < dims; ++d) {
      const std::int64_t freed = below.requests != nullptr ? (*below.requests)[d] : 0;
      s.room_min[d] = s.room_max[d] = have[d] - (used[d] - freed);
      s.allocatable_min[d] = s.allocatable_max[d] = have[d];
    }
    return s;
  }

  static summary combine(const summary& a, const summary& b) noexcept {
    if (a.nodes == 0) return b;
    if (b.nodes == 0) return a;
    summary s;
    for (std::size_t d = 0; d < dims; ++d) {
      s.room_min[d] = std::min(a.room_min[d], b.room_min[d]);
      s.room_max[d] = std::max(a.room_max[d], b.room_max[d]);
      s.allocatable_min[d] = std::min(a.allocatable_min[d], b.allocatable_min[d]);
      s.allocatable_max[d] = std::max(a.allocatable_max[d], b.allocatable_max[d]);
    }
    s.nodes = a.nodes + b.nodes;
    s.victimless = a.victimless + b.victimless;
    return s;
  }

  // Whether the nodes of `s` answer alike for the prepared preemptor, and how.
  verdict classify(const summary& s) const noexcept {
    if (s.nodes == 0) return {true, 0};
    if (s.victimless == s.nodes) return {true, 1};
    if (s.victimless != 0) return {false, 0};
    unsigned short_of = 0;
    for (std::size_t d = 0; d < dims; ++d) {
      const std::int64_t demand = demand_[d];
      if (demand <= 0) continue;
      if (s.room_max[d] < demand)
        short_of |= 1u << d;
      else if (s.room_min[d] < demand)
        return {false, 0};
    }
    if (short_of == 0) return {true, 0};
    // fits' code: beyond allocatable in some short dimension other than the pod slots.
    bool all_beyond = false, none_beyond = true;
    for (std::size_t d = 0; d < dims; ++d) {
      if ((short_of & (1u << d)) == 0 || d == resource::pods) continue;
      if (s.allocatable_max[d] < want_[d])
        all_beyond = true;
      else if (s.allocatable_min[d] < want_[d])
        none_beyond = false;
    }
    if (!all_beyond && !none_beyond) return {false, 0};
    return {true, 2 + short_of + (all_beyond ? 32u : 0u)};
  }

  static constexpr std::size_t kept_trees = 4;
  std::vector<tree> trees_;
  std::size_t current_ = 0;
  // The cluster of the last prepare, and how one of its nodes is read.
  const void* cluster_ = nullptr;
  summary (*node_at_)(const void*, std::size_t, std::int32_t) noexcept = nullptr;
  std::uint64_t uses_ = 0;
  std::size_t nodes_ = 0;
  std::array<std::int64_t, dims> want_{}, demand_{};
};

}  // namespace model
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_MODEL_RESOURCE_REJECTION_INDEX_HPP
