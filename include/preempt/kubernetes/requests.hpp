// preempt/kubernetes/requests.hpp - what a pod requests from a node, as the scheduler counts it.
//
// `resource_list` maps resource names ("cpu", "memory", "nvidia.com/gpu", ...) to amounts already
// converted by resource_amount (cpu in millicores, everything else in units). Sums saturate at
// the limits of std::int64_t rather than overflow. Both functions reproduce component-helpers'
// PodRequests (resource/helpers.go, v0.37) with kube-scheduler v1.37's options:
//   effective_requests(pod)  the pod to place (NodeResourcesFit's PreFilter: no status): the
//                            containers, sidecars and init containers, pod-level requests,
//                            overhead;
//   node_requests(pod)       a pod on a node, or nominated to one (PodInfo.CalculateResource, with
//                            in-place resizes: spec, actuated and allocated amounts).
// The rules in detail are at each function.
// A container that sets a limit but no request for a resource requests its limit (the API
// server's defaulting; a dump already carries it, a hand-written pod may not).
// to_resource_vector(list, names) turns a list into a model::resource_vector, registering
// extended resources in `names`.
//
// Complexity O(c · (r log r + s)) for c containers, r resources, s container statuses.
// Allocation: the lists. No exceptions; const functions are thread-safe.
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
  std::string name;  // matched against the container statuses' names
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

// status.resources of a pod or a container: the requests actuated (nullopt: absent).
struct actuated_resources {
  std::optional<resource_list> requests;
};

// One of status.containerStatuses or status.initContainerStatuses.
struct container_status {
  std::string name;
  std::optional<resource_list> allocated;       // allocatedResources (nullopt: absent)
  std::optional<actuated_resources> resources;  // resources (nullopt: absent)
};

// The reason of the pod's PodResizePending condition (the first such condition).
enum class resize_state : std::uint8_t { none, deferred, infeasible };

struct pod_resources {
  std::vector<container_resources> containers;
  std::vector<container_resources> init_containers;
  resource_list overhead;
  // Pod-level resources (spec.resources, Kubernetes 1.34+): requests for cpu, memory and
  // hugepages-* replace the containers' total (see pod_level_requests).
  std::optional<container_resources> pod_level;
  // What node_requests reads of the status (in-place resize).
  std::vector<container_status> container_statuses;       // status.containerStatuses
  std::vector<container_status> init_container_statuses;  // status.initContainerStatuses
  std::optional<resource_list> allocated;                 // status.allocatedResources
  std::optional<actuated_resources> resources;            // status.resources
  resize_state resize = resize_state::none;
};

// The resources Kubernetes accepts at pod level.
inline bool is_pod_level_resource(std::string_view name) noexcept {
  return name == "cpu" || name == "memory" || name.substr(0, 10) == "hugepages-";
}

namespace detail {

// upstream's findContainerStatus: the container statuses first, then the init containers'.
inline const container_status* find_container_status(const pod_resources& pod,
                                                     std::string_view name) noexcept {
  for (const container_status& s : pod.container_statuses)
    if (s.name == name) return &s;
  for (const container_status& s : pod.init_container_statuses)
    if (s.name == name) return &s;
  return nullptr;
}

// upstream's aggregateContainerResourcesByFn: get(container, status or nullptr) gives a
// container's list (nullopt: none), summed with sidecars and init-container floors.
template <class Get>
resource_list aggregate_containers(const pod_resources& pod, bool with_status, const Get& get) {
  const auto list_of = [&](const container_resources& c) -> std::optional<resource_list> {
    return get(c, with_status ? detail::find_container_status(pod, c.name) : nullptr);
  };
  resource_list sum;
  for (const container_resources& c : pod.containers)
    if (const auto r = list_of(c)) sum.add(*r);
  resource_list sidecars;  // restartable init containers started so far
  resource_list init_floor;
  for (const container_resources& c : pod.init_containers) {
    resource_list req = list_of(c).value_or(resource_list{});
    if (c.restart_always) {
      sum.add(req);
      sidecars.add(req);
      init_floor.max_with(sidecars);
    } else {
      req.add(sidecars);
      init_floor.max_with(req);
    }
  }
  sum.max_with(init_floor);
  return sum;
}

inline void set_pod_level(resource_list& total, const resource_list& pod_level) {
  for (const auto& [n, a] : pod_level)
    if (is_pod_level_resource(n)) total.set(n, a);
}

}  // namespace detail

// The pod-level requests as the API server stores them (DefaultPodLevelResources with
// PodLevelResources and PodLevelResourcesFixDefaulting on), given the containers' total
// requests; nullopt when the pod sets none of cpu, memory or hugepages-* at pod level
// (IsPodLevelRequestsSet). Defaulting an already stored pod changes nothing.
inline std::optional<resource_list> pod_level_requests(const pod_resources& pod,
                                                       const resource_list& containers_total) {
  if (!pod.pod_level) return std::nullopt;
  const container_resources& level = *pod.pod_level;
  if (level.requests.empty() && level.limits.empty()) return std::nullopt;
  resource_list limits = level.limits;
  const resource_list container_limits = detail::aggregate_containers(
      pod, false,
      [](const container_resources& c, const container_status*) -> std::optional<resource_list> {
        return c.limits;
      });
  for (const auto& [n, a] : container_limits)
    if (n.substr(0, 10) == "hugepages-" && !level.requests.contains(n) && !limits.contains(n))
      limits.set(n, a);
  resource_list requests = level.requests;
  for (const auto& [n, a] : containers_total)
    if ((n == "cpu" || n == "memory") && !requests.contains(n)) requests.set(n, a);
  for (const auto& [n, a] : limits)
    if (is_pod_level_resource(n) && !requests.contains(n)) requests.set(n, a);
  for (const auto& [n, a] : requests)
    if (is_pod_level_resource(n)) return requests;
  return std::nullopt;
}

// PodRequests for the pod to place:
//   effective_requests(pod)  the pod to place (NodeResourcesFit's PreFilter: no status):
//     * the sum of the regular containers' requests; sidecars (init containers with restartPolicy
//       Always) are added to it and stay running while later init containers run; each other init
//       container sets a floor: max(sum, its request + the sidecars started before it);
//     * pod-level requests (spec.resources) of cpu, memory and hugepages-* replace that total for
//       those resources, as the API server defaults them (DefaultPodLevelResources: a missing
//       cpu/memory request is the containers' total when they request it, else the pod-level
//       limit; hugepages the pod-level limit, itself defaulting to the containers' limits);
//     * pod overhead (spec.overhead) is added on top.
inline resource_list effective_requests(const pod_resources& pod) {
  resource_list sum = detail::aggregate_containers(
      pod, false,
      [](const container_resources& c, const container_status*) -> std::optional<resource_list> {
        return c.effective();
      });
  if (const auto level = kubernetes::pod_level_requests(pod, sum))
    detail::set_pod_level(sum, *level);
  sum.add(pod.overhead);
  return sum;
}

// PodRequests for a pod on a node or nominated to one, with its status:
//   node_requests(pod)       a pod on a node, or nominated to one (PodInfo.CalculateResource,
//     InPlacePodVerticalScaling and InPlacePodLevelResourcesVerticalScaling on): the containers'
//     total is max(spec, actuated, allocated) per resource, each summed as above, where a
//     container's allocated requests are status.containerStatuses[].allocatedResources (else its
//     spec) and its actuated ones .resources.requests (else allocated, else spec); with a resize
//     Infeasible (condition PodResizePending, reason Infeasible) max(actuated, allocated), the
//     spec standing in for neither. Pod-level status.allocatedResources and
//     status.resources.requests, when both present, replace the containers' allocated and
//     actuated totals; pod-level requests are max(spec (none if Infeasible), status.resources
//     .requests, status.allocatedResources) when status.resources is present. A Deferred resize
//     counts like any other (only the alpha InPlacePodVerticalScalingSchedulerPreemption treats
//     it apart).
inline resource_list node_requests(const pod_resources& pod) {
  const bool infeasible = pod.resize == resize_state::infeasible;
  using opt = std::optional<resource_list>;
  const resource_list spec = detail::aggregate_containers(
      pod, false,
      [](const container_resources& c, const container_status*) -> opt { return c.effective(); });
  resource_list allocated, actuated;
  if (pod.allocated && pod.resources && pod.resources->requests) {
    allocated = *pod.allocated;
    actuated = *pod.resources->requests;
  } else {
    allocated = detail::aggregate_containers(
        pod, true, [infeasible](const container_resources& c, const container_status* s) -> opt {
          if (s != nullptr && s->allocated) return *s->allocated;
          if (infeasible) return std::nullopt;
          return c.effective();
        });
    actuated = detail::aggregate_containers(
        pod, true, [infeasible](const container_resources& c, const container_status* s) -> opt {
          if (s != nullptr && s->resources && s->resources->requests)
            return *s->resources->requests;
          if (s != nullptr && s->allocated) return *s->allocated;
          if (infeasible) return std::nullopt;
          return c.effective();
        });
  }
  resource_list sum = infeasible ? actuated : spec;
  if (!infeasible) sum.max_with(actuated);
  sum.max_with(allocated);
  if (const auto level = kubernetes::pod_level_requests(pod, spec)) {
    resource_list effective = *level;
    if (pod.resources) {
      if (infeasible) effective = resource_list{};
      if (pod.resources->requests) effective.max_with(*pod.resources->requests);
      if (pod.allocated) effective.max_with(*pod.allocated);
    }
    detail::set_pod_level(sum, effective);
  }
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
