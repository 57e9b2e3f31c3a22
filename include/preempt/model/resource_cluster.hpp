// preempt/model/resource_cluster.hpp - nodes and their pods, each node's pods kept in importance
// order.
//
// `resource_cluster` owns nodes (`resource_node`: name, allocatable resources, the running sum of
// requests) and the resource_pods assigned to them. Each node keeps its pods in descending
// importance as pods come and go: priority descending, then start time ascending (a pod without
// start time sorts after every pod with one, as "now" does in practice), then uid ascending.
// Victim selection finds them in that order and skips its sort. Each node also keeps the order
// kube-scheduler's cache (NodeInfo.Pods) would hold the same pods in: a pod added goes last, a
// pod removed is replaced by the last one (cache_position); victim selection starts from that
// order where importance ties, as upstream's sort.Slice does. Each node also keeps its pods summed
// by priority (priority_summary): prepare_state hands it to the node state, so that victim
// selection rejects a node where even evicting every lower-priority pod would not make room in
// O(log k) for k distinct priorities, without visiting the pods. `resource_node` models
// preempt::node and `resource_cluster` models preempt::cluster, with resource_fit_state as its
// node state. A node's stamp() names its pods (a new value whenever one is added or removed), so an
// evaluator can keep what it learned about a node's pods and the budgets (preempt::stamped_budgets)
// for as long as they stay the same.
//
// Complexity: add_pod and remove_pod are O(p + k·d) for p pods on the node (a sorted insert/erase
// in a contiguous array, which keeps scans fast; the summary's k priority levels of d dimensions);
// add_pods, which loads m pods at once, is O((p + m) log m + k·d); prepare_state is O(d);
// remove_node is O(n) (the nodes after it move down by one, as in nomination_ledger::remove_node).
// Allocation: when nodes and pods are added (pod vectors grow geometrically). Pointers to a node's
// pods stay valid until that node's pods change; node references until a node is added or
// removed. No exceptions of its own. Not synchronized: mutate from one thread; read from many,
// never while it is mutated. An evaluation marks the cluster as read while it runs
// (reading_started/reading_ended); with PREEMPT_CHECK_CLUSTER_READS (by default in builds without
// NDEBUG) every mutator checks that no evaluation reads it (a change under an evaluation is a use
// after free).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_MODEL_RESOURCE_CLUSTER_HPP
#define PREEMPT_MODEL_RESOURCE_CLUSTER_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/cluster.hpp"
#include "preempt/config.hpp"
#include "preempt/detail/content_stamp.hpp"
#include "preempt/model/priority_summary.hpp"
#include "preempt/model/resource_fit_state.hpp"
#include "preempt/model/resource_pod.hpp"
#include "preempt/model/resource_rejection_index.hpp"
#include "preempt/model/resources.hpp"
#include "preempt/node.hpp"

#if !defined(PREEMPT_NO_THREADS)
#include <atomic>
#endif

// Whether resource_cluster's mutators check that no evaluation reads the cluster.
#if !defined(PREEMPT_CHECK_CLUSTER_READS)
#if defined(NDEBUG) || defined(PREEMPT_NO_CHECKS)
#define PREEMPT_CHECK_CLUSTER_READS 0
#else
#define PREEMPT_CHECK_CLUSTER_READS 1
#endif
#endif

PREEMPT_NAMESPACE_BEGIN
namespace model {

// The order in which a cluster keeps each node's pods: descending importance.
inline bool kept_before(const resource_pod& a, const resource_pod& b) noexcept {
  if (a.priority() != b.priority()) return a.priority() > b.priority();
  const timestamp never = std::numeric_limits<timestamp>::max();
  const timestamp sa = a.start_time().value_or(never), sb = b.start_time().value_or(never);
  if (sa != sb) return sa < sb;
  return a.uid() < b.uid();
}

class resource_cluster;

// A node of a resource_cluster: its name, allocatable resources, pods and their summed requests.
class resource_node {
 public:
  resource_node(std::string name, resource_vector allocatable)
      : allocatable_(std::move(allocatable)),
        lower_(std::max(allocatable_.size(), resource::first_extended)),
        name_(std::move(name)) {
    requested_.resize(std::max(allocatable_.size(), resource::first_extended));
  }

  std::string_view name() const noexcept { return name_; }
  std::span<const resource_pod> pods() const noexcept { return pods_; }
  // Where pods()[i] stands in the cache's order of this node's pods (0 .. pods().size()-1).
  std::uint32_t cache_position(std::size_t i) const noexcept { return cache_position_[i]; }
  const resource_vector& allocatable() const noexcept { return allocatable_; }
  const resource_vector& requested() const noexcept { return requested_; }
  // The pods summed by priority.
  const priority_summary& priorities() const noexcept { return lower_; }
  // Whether every two neighbours in pods() are strictly in importance order whatever the time
  // standing for a missing start (different priorities, or both start times given and the first
  // earlier): no importance check is then needed to know the order is strict.
  bool strictly_ordered() const noexcept { return loose_pairs_ == 0; }
  // Names the node's current pods: a new value whenever a pod is added or removed, the same in a
  // copy (see detail::content_stamp). The evaluator keeps what it learned from a node's pods
  // about the budgets (a node where no eviction can violate one) under it.
  std::uint64_t stamp() const noexcept { return stamp_.value(); }

 private:
  friend class resource_cluster;
  // What prepare_state and a rejection read first, together: the amounts, the pods, the order
  // count and the summary's levels span the node's first three cache lines.
  resource_vector allocatable_;
  resource_vector requested_;
  std::vector<resource_pod> pods_;
  // Neighbours in pods_ that are not always strictly ordered (see strictly_ordered).
  std::size_t loose_pairs_ = 0;
  priority_summary lower_;
  std::vector<std::uint32_t> cache_position_;  // parallel to pods_
  std::string name_;
  ::preempt::detail::content_stamp stamp_;

  // Whether neighbours a, b (a kept before b) are strictly in importance order for any `now`.
  static bool always_strict(const resource_pod& a, const resource_pod& b) noexcept {
    if (a.priority() != b.priority()) return true;
    const std::optional<timestamp> sa = a.start_time(), sb = b.start_time();
    return sa && sb && *sa < *sb;
  }
  // How many of the pairs (k-1, k) and (k, k+1) are loose (missing neighbours count none).
  std::size_t loose_around(std::size_t k) const noexcept {
    std::size_t n = 0;
    if (k > 0 && !always_strict(pods_[k - 1], pods_[k])) ++n;
    if (k + 1 < pods_.size() && !always_strict(pods_[k], pods_[k + 1])) ++n;
    return n;
  }
  // The pair (k-1, k+1) that closes the gap when pod k leaves: loose or not.
  std::size_t loose_across(std::size_t k) const noexcept {
    return k > 0 && k + 1 < pods_.size() && !always_strict(pods_[k - 1], pods_[k + 1]) ? 1 : 0;
  }
  void count_loose_pairs() noexcept {
    loose_pairs_ = 0;
    for (std::size_t k = 1; k < pods_.size(); ++k)
      if (!always_strict(pods_[k - 1], pods_[k])) ++loose_pairs_;
  }
};

class resource_cluster {
 public:
  using state_type = resource_fit_state;
  // The evaluator's index of the nodes victim selection must reject (preempt/rejection_index.hpp).
  using rejection_index_type = resource_rejection_index;
  // Nodes [g * stamp_group, (g + 1) * stamp_group) share group g's stamp.
  static constexpr std::size_t stamp_group = 8;

  resource_cluster() = default;
  // `names` (optional) gives extended resources their reason text; it must outlive the cluster.
  explicit resource_cluster(const resource_names* names) noexcept : names_(names) {}
  resource_cluster(resource_cluster&& other) noexcept
      : nodes_(std::move(other.nodes_)),
        group_stamps_(std::move(other.group_stamps_)),
        stamp_(std::move(other.stamp_)),
        names_(other.names_) {
    other.check_not_read();
  }
  resource_cluster& operator=(resource_cluster&& other) noexcept {
    check_not_read();
    other.check_not_read();
    nodes_ = std::move(other.nodes_);
    group_stamps_ = std::move(other.group_stamps_);
    stamp_ = std::move(other.stamp_);
    names_ = other.names_;
    return *this;
  }
  resource_cluster(const resource_cluster& other)
      : nodes_(other.nodes_),
        group_stamps_(other.group_stamps_),
        stamp_(other.stamp_),
        names_(other.names_) {}
  resource_cluster& operator=(const resource_cluster& other) {
    check_not_read();
    nodes_ = other.nodes_;
    group_stamps_ = other.group_stamps_;
    stamp_ = other.stamp_;
    names_ = other.names_;
    return *this;
  }

  std::size_t add_node(std::string name, resource_vector allocatable) {
    check_not_read();
    nodes_.emplace_back(std::move(name), std::move(allocatable));
    changed(nodes_.size() - 1);
    return nodes_.size() - 1;
  }

  // Removes node i and its pods; the nodes after it move down by one (tell the nomination ledger:
  // nomination_ledger::remove_node).
  void remove_node(std::size_t i) {
    check_not_read();
    PREEMPT_ASSERT(i < nodes_.size(), "resource_cluster::remove_node: no such node");
    nodes_.erase(nodes_.begin() + static_cast<std::ptrdiff_t>(i));
    group_stamps_.resize(groups());
    for (std::size_t g = i / stamp_group; g < group_stamps_.size(); ++g) group_stamps_[g].renew();
    stamp_.renew();
  }

  // Assigns a pod to node i, keeping importance order.
  void add_pod(std::size_t i, resource_pod p) {
    check_not_read();
    PREEMPT_ASSERT(i < nodes_.size(), "resource_cluster::add_pod: no such node");
    resource_node& n = nodes_[i];
    n.requested_.add(p.requests());
    n.lower_.add(p);
    const auto at = std::upper_bound(n.pods_.begin(), n.pods_.end(), p, kept_before);
    const auto k = static_cast<std::size_t>(at - n.pods_.begin());
    n.cache_position_.insert(n.cache_position_.begin() + static_cast<std::ptrdiff_t>(k),
                             static_cast<std::uint32_t>(n.pods_.size()));
    if (k > 0 && k < n.pods_.size() && !resource_node::always_strict(n.pods_[k - 1], n.pods_[k]))
      --n.loose_pairs_;  // the pair the new pod comes between
    n.pods_.insert(at, std::move(p));
    n.loose_pairs_ += n.loose_around(k);
    n.stamp_.renew();
    changed(i);
  }

  // Assigns many pods to node i at once, as if add_pod were called for each in turn (the same
  // importance order and cache order), in O((p + m) log m) for m new pods instead of O(p * m):
  // the way to load a node. Takes the pods out of `ps`, which is left empty.
  void add_pods(std::size_t i, std::vector<resource_pod>& ps) {
    check_not_read();
    PREEMPT_ASSERT(i < nodes_.size(), "resource_cluster::add_pods: no such node");
    resource_node& n = nodes_[i];
    const std::size_t old = n.pods_.size(), m = ps.size();
    if (m == 0) return;
    n.stamp_.renew();
    changed(i);
    for (const resource_pod& p : ps) n.requested_.add(p.requests());
    // The new pods in importance order; a stable sort keeps equal ones in arrival order, as
    // add_pod's upper_bound does.
    std::vector<std::uint32_t> order(m);
    for (std::size_t k = 0; k < m; ++k) order[k] = static_cast<std::uint32_t>(k);
    std::stable_sort(order.begin(), order.end(), [&ps](std::uint32_t a, std::uint32_t b) {
      return preempt::model::kept_before(ps[a], ps[b]);
    });
    if (old == 0) {  // loading an empty node: straight into its (perhaps reserved) arrays
      n.pods_.reserve(m);
      n.cache_position_.reserve(m);
      for (const std::uint32_t k : order) {
        n.pods_.push_back(std::move(ps[k]));
        n.cache_position_.push_back(k);
      }
      ps.clear();
      n.lower_.rebuild(n.pods_);
      n.count_loose_pairs();
      return;
    }
    std::vector<resource_pod> pods;
    std::vector<std::uint32_t> cache;
    pods.reserve(old + m);
    cache.reserve(old + m);
    // Merge: a kept pod goes before a new one unless the new one is kept before it.
    std::size_t a = 0, b = 0;
    while (a < old || b < m) {
      if (b == m || (a < old && !preempt::model::kept_before(ps[order[b]], n.pods_[a]))) {
        pods.push_back(std::move(n.pods_[a]));
        cache.push_back(n.cache_position_[a]);
        ++a;
      } else {
        pods.push_back(std::move(ps[order[b]]));
        cache.push_back(static_cast<std::uint32_t>(old + order[b]));
        ++b;
      }
    }
    n.pods_ = std::move(pods);
    n.cache_position_ = std::move(cache);
    ps.clear();
    n.lower_.rebuild(n.pods_);
    n.count_loose_pairs();
  }

  // Removes the pod with this uid from node i; false if it is not there.
  bool remove_pod(std::size_t i, pod_id uid) {
    check_not_read();
    PREEMPT_ASSERT(i < nodes_.size(), "resource_cluster::remove_pod: no such node");
    resource_node& n = nodes_[i];
    const auto it = std::find_if(n.pods_.begin(), n.pods_.end(),
                                 [uid](const resource_pod& p) { return p.uid() == uid; });
    if (it == n.pods_.end()) return false;
    n.stamp_.renew();
    changed(i);
    n.requested_.subtract(it->requests());
    n.lower_.remove(*it);
    const auto k = it - n.pods_.begin();
    const std::uint32_t freed = n.cache_position_[static_cast<std::size_t>(k)];
    const auto last = static_cast<std::uint32_t>(n.pods_.size() - 1);
    n.loose_pairs_ -= n.loose_around(static_cast<std::size_t>(k));
    n.loose_pairs_ += n.loose_across(static_cast<std::size_t>(k));
    n.pods_.erase(it);
    n.cache_position_.erase(n.cache_position_.begin() + k);
    for (std::uint32_t& c : n.cache_position_)  // the cache moves its last pod into the gap
      if (c == last) c = freed;
    return true;
  }

  void reserve_nodes(std::size_t n) {
    check_not_read();
    nodes_.reserve(n);
  }
  void reserve_pods(std::size_t i, std::size_t pods) {
    check_not_read();
    PREEMPT_ASSERT(i < nodes_.size(), "resource_cluster::reserve_pods: no such node");
    nodes_[i].pods_.reserve(pods);
    nodes_[i].cache_position_.reserve(pods);
  }

  std::span<const resource_node> nodes() const noexcept { return nodes_; }
  const resource_node& operator[](std::size_t i) const noexcept { return nodes_[i]; }
  std::size_t size() const noexcept { return nodes_.size(); }

  // The node index of a name, or size() when there is none. O(n).
  std::size_t find(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      if (nodes_[i].name() == name) return i;
    return nodes_.size();
  }

  // A value naming the cluster's contents, and one per group of stamp_group nodes (groups() of
  // them): new whenever a node or pod is added or removed there (a copy keeps them).
  std::uint64_t stamp() const noexcept { return stamp_.value(); }
  std::uint64_t group_stamp(std::size_t g) const noexcept { return group_stamps_[g].value(); }
  std::size_t groups() const noexcept { return (nodes_.size() + stamp_group - 1) / stamp_group; }

  // A state for evaluating nodes of this cluster.
  resource_fit_state make_state() const noexcept { return resource_fit_state(names_); }

  // Points a resource-fit state at node i as it stands.
  void prepare_state(std::size_t i, resource_fit_state& state) const {
    const resource_node& n = nodes_[i];
    state.reset(n.allocatable_, n.requested_, &n.lower_, n.pods_, n.strictly_ordered());
  }

  // An evaluation reads the cluster from reading_started to reading_ended (preempt/cluster.hpp);
  // the mutators check that none does (PREEMPT_CHECK_CLUSTER_READS).
  void reading_started() const noexcept { ++readers_; }
  void reading_ended() const noexcept { --readers_; }

 private:
  void check_not_read() const noexcept {
#if PREEMPT_CHECK_CLUSTER_READS
    PREEMPT_ASSERT(readers_ == 0,
                   "resource_cluster: changed while an evaluation reads it (a use after free); "
                   "change the cluster between evaluate calls only");
#endif
  }

  // Node i changed: its group's stamp and the cluster's are renewed.
  void changed(std::size_t i) {
    if (group_stamps_.size() < groups()) group_stamps_.resize(groups());
    group_stamps_[i / stamp_group].renew();
    stamp_.renew();
  }

  std::vector<resource_node> nodes_;
  std::vector<::preempt::detail::content_stamp> group_stamps_;
  ::preempt::detail::content_stamp stamp_;
  const resource_names* names_ = nullptr;
#if defined(PREEMPT_NO_THREADS)
  mutable std::uint32_t readers_ = 0;
#else
  mutable std::atomic<std::uint32_t> readers_{0};  // evaluations reading the cluster
#endif
};

static_assert(node<resource_node>);
static_assert(cluster<resource_cluster>);

}  // namespace model
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_MODEL_RESOURCE_CLUSTER_HPP
