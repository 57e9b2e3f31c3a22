// preempt/kubernetes/requests.hpp - what a pod requests from a node, as the scheduler counts it.
//
// `resource_list` maps resource names ("cpu", "memory", "nvidia.com/gpu", ...) to amounts already
// converted by resource_amount (cpu in millicores, everything else in units). Sums saturate at
// the limits of std::int64_t rather than overflow.
// effective_requests(pod) reproduces Kubernetes' PodRequests (component-helpers), which the
// NodeResourcesFit filter uses:
//   * the sum of the regular containers' requests;
//   * sidecars (init containers with restartPolicy Always) are added to that sum, and stay
//     running while later init containers run;
//   * each other init container sets a floor: max(sum, its request + the sidecars started
//     before it), per resource;
//   * pod-level requests (spec.resources, Kubernetes 1.34+) of cpu, memory and hugepages-*
//     replace that total for those resources;
//   * pod overhead (spec.overhead) is added on top.
// A container that sets a limit but no request for a resource requests its limit (the API
// server's defaulting; a dump already carries it, a hand-written pod may not).
// to_resource_vector(list, names) turns a list into a model::resource_vector, registering
// extended resources in `names`.
//
// Complexity O(c · r log r) for c containers and r resources. Allocation: the lists. No exceptions;
// const functions are thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_REQUESTS_HPP
#define PREEMPT_KUBERNETES_REQUESTS_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/model/resources.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

class resource_list {
 public:
  using entry = std::pair<std::string, std::int64_t>;

  resource_list() = default;
  resource_list(std::initializer_list<entry> entries) {
    for (const entry& e : entries) set(e.first, e.second);
  }

  void set(std::string_view name, std::int64_t amount) { slot(name) = amount; }
  // Adds, saturating at the limits of std::int64_t instead of overflowing.
  void add(std::string_view name, std::int64_t amount) {
    std::int64_t& s = slot(name);
    if (__builtin_add_overflow(s, amount, &s))
      s = amount > 0 ? std::numeric_limits<std::int64_t>::max()
                     : std::numeric_limits<std::int64_t>::min();
  }

  // The amount of a resource (0 when absent).
  std::int64_t get(std::string_view name) const noexcept {
    const auto it = find(name);
    return it != entries_.end() && it->first == name ? it->second : 0;
  }
  bool contains(std::string_view name) const noexcept {
    const auto it = find(name);
    return it != entries_.end() && it->first == name;
  }

  // this[r] += other[r] for every resource.
  void add(const resource_list& other) {
    for (const auto& [n, a] : other.entries_) add(n, a);
  }
  // this[r] = max(this[r], other[r]) for every resource of `other`.
  void max_with(const resource_list& other) {
    for (const auto& [n, a] : other.entries_) {
      std::int64_t& s = slot(n);
      s = std::max(s, a);
    }
  }

  bool empty() const noexcept { return entries_.empty(); }
  std::size_t size() const noexcept { return entries_.size(); }
  auto begin() const noexcept { return entries_.begin(); }
  auto end() const noexcept { return entries_.end(); }

  friend bool operator==(const resource_list& a, const resource_list& b) {
    return a.entries_ == b.entries_;
  }

 private:
  std::vector<entry>::const_iterator find(std::string_view name) const noexcept {
    return std::lower_bound(entries_.begin(), entries_.end(), name,
                            [](const entry& e, std::string_view n) { return e.first < n; });
  }
  std::int64_t& slot(std::string_view name) {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                               [](const entry& e, std::string_view n) { return e.first < n; });
    if (it == entries_.end() || it->first != name) it = entries_.emplace(it, std::string(name), 0);
    return it->second;
  }
  std::vector<entry> entries_;
};

struct container_resources {
  resource_list requests;
  resource_list limits;
  // An init container with restartPolicy: Always (a sidecar). Ignored for regular containers.
  bool restart_always = false;

  // Requests, with limits standing in for missing requests (API defaulting).
  resource_list effective() const {
    resource_list out = requests;
    for (const auto& [n, a] : limits)
      if (!requests.contains(n)) out.set(n, a);
    return out;
  }
};

struct pod_resources {
  std::vector<container_resources> containers;
  std::vector<container_resources> init_containers;
  resource_list overhead;
  // Pod-level resources (spec.resources, Kubernetes 1.34+); its requests for cpu, memory and
  // hugepages-* replace the containers' total.
  std::optional<container_resources> pod_level;
};

// The resources Kubernetes accepts at pod level.
inline bool is_pod_level_resource(std::string_view name) noexcept {
  return name == "cpu" || name == "memory" || name.substr(0, 10) == "hugepages-";
}

// Kubernetes PodRequests: see the header comment.
inline resource_list effective_requests(const pod_resources& pod) {
  resource_list sum;
  for (const container_resources& c : pod.containers) sum.add(c.effective());
  resource_list sidecars;  // restartable init containers started so far
  resource_list init_floor;
  for (const container_resources& c : pod.init_containers) {
    const resource_list req = c.effective();
    if (c.restart_always) {
      sum.add(req);
      sidecars.add(req);
      init_floor.max_with(sidecars);
    } else {
      resource_list use = req;
      use.add(sidecars);
      init_floor.max_with(use);
    }
  }
  sum.max_with(init_floor);
  if (pod.pod_level)
    for (const auto& [n, a] : pod.pod_level->effective())
      if (is_pod_level_resource(n)) sum.set(n, a);
  sum.add(pod.overhead);
  return sum;
}

// The list as a resource vector: cpu, memory, pods, ephemeral-storage in their dimensions, every
// other name as an extended resource registered in `names`. Zero amounts of unknown extended
// resources are skipped, so they do not register a dimension.
inline model::resource_vector to_resource_vector(const resource_list& list,
                                                 model::resource_names& names) {
  model::resource_vector v;
  v.resize(model::resource::first_extended);
  for (const auto& [n, a] : list) {
    if (a == 0 && names.find(n) == model::resource_names::npos) continue;
    v.set(names.dimension(n), a);
  }
  return v;
}

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_REQUESTS_HPP
