// Effective pod requests (Kubernetes PodRequests): containers, init containers, sidecars,
// overhead, pod-level resources, limits standing in for requests.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <utility>

#include "preempt/kubernetes/requests.hpp"

namespace requests_test {

namespace k8s = preempt::kubernetes;
using k8s::container_resources;
using k8s::pod_resources;
using k8s::resource_list;

namespace {
container_resources c(std::int64_t cpu, std::int64_t mem, bool sidecar = false) {
  container_resources r;
  r.requests = {{"cpu", cpu}, {"memory", mem}};
  r.restart_always = sidecar;
  return r;
}
}  // namespace

TEST_CASE("kubernetes requests: containers add up") {
  pod_resources p;
  p.containers = {c(100, 200), c(300, 400)};
  const resource_list r = k8s::effective_requests(p);
  CHECK(r.get("cpu") == 400);
  CHECK(r.get("memory") == 600);
  CHECK(r.get("nvidia.com/gpu") == 0);
  CHECK(k8s::effective_requests(pod_resources{}).empty());
}

TEST_CASE("kubernetes requests: an init container sets a floor") {
  pod_resources p;
  p.containers = {c(100, 200), c(100, 200)};
  p.init_containers = {c(500, 100), c(50, 1000)};
  const resource_list r = k8s::effective_requests(p);
  CHECK(r.get("cpu") == 500);      // max(200, 500, 50)
  CHECK(r.get("memory") == 1000);  // max(400, 100, 1000): per resource
}

TEST_CASE("kubernetes requests: sidecars (restartPolicy Always) run alongside") {
  // KEP-753: InitContainerUse(i) = sum(sidecars before i) + init i; the pod needs
  // max(sum(containers) + sum(sidecars), max_i InitContainerUse(i)).
  pod_resources p;
  p.init_containers = {c(100, 0, true), c(500, 0), c(200, 0, true), c(400, 0)};
  p.containers = {c(50, 0)};
  // Sidecars 100 + 200 = 300 run with the containers: 350. Init 2 needs 100 + 500 = 600; init 4
  // needs 100 + 200 + 400 = 700.
  CHECK(k8s::effective_requests(p).get("cpu") == 700);
  p.containers = {c(1000, 0)};
  CHECK(k8s::effective_requests(p).get("cpu") == 1300);
}

TEST_CASE("kubernetes requests: overhead is added on top") {
  pod_resources p;
  p.containers = {c(100, 200)};
  p.init_containers = {c(1000, 0)};
  p.overhead = {{"cpu", 250}, {"memory", 120}};
  const resource_list r = k8s::effective_requests(p);
  CHECK(r.get("cpu") == 1250);
  CHECK(r.get("memory") == 320);
}

TEST_CASE("kubernetes requests: a limit stands in for a missing request") {
  container_resources x;
  x.requests = {{"cpu", 100}};
  x.limits = {{"cpu", 500}, {"memory", 1024}, {"example.com/foo", 2}};
  pod_resources p;
  p.containers = {x};
  const resource_list r = k8s::effective_requests(p);
  CHECK(r.get("cpu") == 100);
  CHECK(r.get("memory") == 1024);
  CHECK(r.get("example.com/foo") == 2);
}

TEST_CASE("kubernetes requests: pod-level requests replace the containers' cpu and memory") {
  pod_resources p;
  p.containers = {c(100, 200)};
  p.containers[0].requests.set("example.com/foo", 1);
  p.overhead = {{"cpu", 10}};
  container_resources level;
  level.requests = {{"cpu", 1000}};
  level.limits = {{"memory", 4096}};
  p.pod_level = level;
  const resource_list r = k8s::effective_requests(p);
  CHECK(r.get("cpu") == 1010);
  // The API server defaults the pod-level memory request to the containers' total (they request
  // memory), not to the pod-level limit.
  CHECK(r.get("memory") == 200);
  CHECK(r.get("example.com/foo") == 1);
}

// Upstream's TestApplyPodLevelResourceDefaults (pkg/registry/core/pod/strategy_test.go): the
// pod-level requests as the API server stores them.
TEST_CASE("TestApplyPodLevelResourceDefaults") {
  const auto limits_only = [](std::int64_t cpu, std::int64_t mem) {
    container_resources r;
    r.limits = {{"cpu", cpu}, {"memory", mem}};
    return r;
  };
  SUBCASE("pod requests defaulted from container requests when limits set") {
    pod_resources p;
    container_resources c1 = c(100, 128);
    c1.limits = {{"cpu", 200}, {"memory", 256}};
    p.containers = {c1};
    p.pod_level = limits_only(500, 512);
    pod_resources containers_only;
    containers_only.containers = p.containers;
    const auto r = k8s::pod_level_requests(p, k8s::effective_requests(containers_only));
    REQUIRE(r);
    CHECK(r->get("cpu") == 100);
    CHECK(r->get("memory") == 128);
  }
  SUBCASE("memory request set, containers have CPU reqs (5m, 6m) and limits (9m, 10m)") {
    pod_resources p;
    container_resources c1, c2;
    c1.requests = {{"cpu", 5}};
    c1.limits = {{"cpu", 9}};
    c2.requests = {{"cpu", 6}};
    c2.limits = {{"cpu", 10}};
    p.containers = {c1, c2};
    container_resources level;
    level.requests = {{"memory", 256}};
    p.pod_level = level;
    const resource_list r = k8s::effective_requests(p);
    CHECK(r.get("cpu") == 11);
    CHECK(r.get("memory") == 256);
  }
  SUBCASE("no container requests a resource: the pod-level limit") {
    pod_resources p;
    p.containers = {c(100, 0)};
    p.containers[0].requests = {{"cpu", 100}};
    p.pod_level = limits_only(500, 512);
    const resource_list r = k8s::effective_requests(p);
    CHECK(r.get("cpu") == 100);
    CHECK(r.get("memory") == 512);
  }
  SUBCASE("empty requests and limits maps") {
    pod_resources p;
    p.containers = {c(100, 200)};
    p.pod_level = container_resources{};
    CHECK_FALSE(k8s::pod_level_requests(p, k8s::effective_requests(p)));
    CHECK(k8s::effective_requests(p).get("memory") == 200);
  }
}

namespace {

// A container `name` requesting `cpu` millicores; with status: allocated and actuated requests.
container_resources named(std::string name, std::int64_t cpu, bool sidecar = false) {
  container_resources r;
  r.name = std::move(name);
  r.requests = {{"cpu", cpu}};
  r.restart_always = sidecar;
  return r;
}
k8s::container_status status_of(std::string name, std::optional<std::int64_t> allocated,
                                std::optional<std::int64_t> actuated) {
  k8s::container_status s;
  s.name = std::move(name);
  if (allocated) s.allocated = resource_list{{"cpu", *allocated}};
  if (actuated) s.resources = k8s::actuated_resources{resource_list{{"cpu", *actuated}}};
  return s;
}

}  // namespace

// Upstream's TestPodResourceRequests rows with UseStatusResources (component-helpers
// resource/helpers_test.go): node_requests is PodRequests for a pod on a node; effective_requests
// the pod to place ("but don't use status").
TEST_CASE("TestPodResourceRequests: in-place resize") {
  SUBCASE("resized, infeasible") {
    pod_resources p;
    p.containers = {named("container-1", 4000)};
    p.container_statuses = {status_of("container-1", std::nullopt, 2000)};
    p.resize = k8s::resize_state::infeasible;
    CHECK(k8s::node_requests(p).get("cpu") == 2000);
    CHECK(k8s::effective_requests(p).get("cpu") == 4000);  // "..., but don't use status"
  }
  SUBCASE("resized, infeasible & in-progress") {
    pod_resources p;
    p.containers = {named("container-1", 6000)};
    p.container_statuses = {status_of("container-1", 4000, 2000)};
    p.resize = k8s::resize_state::infeasible;
    CHECK(k8s::node_requests(p).get("cpu") == 4000);
  }
  SUBCASE("resized, no resize status") {
    pod_resources p;
    p.containers = {named("container-1", 4000)};
    p.container_statuses = {status_of("container-1", std::nullopt, 2000)};
    CHECK(k8s::node_requests(p).get("cpu") == 4000);
  }
  SUBCASE("resized: per-resource 3-way maximum") {
    pod_resources p;
    container_resources c1;
    c1.name = "container-1";
    c1.requests = {{"cpu", 30}, {"memory", 20}, {"ephemeral-storage", 10}};
    p.containers = {c1};
    k8s::container_status s;
    s.name = "container-1";
    s.allocated = resource_list{{"cpu", 20}, {"memory", 10}, {"ephemeral-storage", 30}};
    s.resources = k8s::actuated_resources{
        resource_list{{"cpu", 10}, {"memory", 30}, {"ephemeral-storage", 20}}};
    p.container_statuses = {s};
    const resource_list r = k8s::node_requests(p);
    CHECK(r.get("cpu") == 30);
    CHECK(r.get("memory") == 30);
    CHECK(r.get("ephemeral-storage") == 30);
  }
  SUBCASE("resized, restartable init container, infeasible") {
    pod_resources p;
    p.init_containers = {named("restartable-init-1", 4000, true)};
    p.init_container_statuses = {status_of("restartable-init-1", std::nullopt, 2000)};
    p.resize = k8s::resize_state::infeasible;
    CHECK(k8s::node_requests(p).get("cpu") == 2000);
    CHECK(k8s::effective_requests(p).get("cpu") == 4000);
  }
  SUBCASE("resized, restartable init container, no resize status") {
    pod_resources p;
    p.init_containers = {named("restartable-init-1", 4000, true)};
    p.init_container_statuses = {status_of("restartable-init-1", std::nullopt, 2000)};
    CHECK(k8s::node_requests(p).get("cpu") == 4000);
  }
  SUBCASE("scaled up: the allocated requests count (VPA)") {
    pod_resources p;
    p.containers = {named("c", 1000)};
    p.container_statuses = {status_of("c", 3000, 3000)};
    CHECK(k8s::node_requests(p).get("cpu") == 3000);
    CHECK(k8s::effective_requests(p).get("cpu") == 1000);
  }
  SUBCASE("a deferred resize counts as any other") {
    pod_resources p;
    p.containers = {named("c", 5000)};
    p.container_statuses = {status_of("c", 2000, 2000)};
    p.resize = k8s::resize_state::deferred;
    CHECK(k8s::node_requests(p).get("cpu") == 5000);
  }
  SUBCASE("no status: node_requests is effective_requests") {
    pod_resources p;
    p.containers = {c(100, 200), named("x", 50)};
    p.init_containers = {c(500, 100)};
    p.overhead = {{"cpu", 7}};
    CHECK(k8s::node_requests(p) == k8s::effective_requests(p));
  }
}

// Upstream's TestAggregateContainerRequestsAndLimits and TestPodRequestsAndLimitsVerticalScaling-
// Wrappers rows with InPlacePodLevelResourcesVerticalScaling (on by default in v1.37).
TEST_CASE("TestAggregateContainerRequestsAndLimits: pod-level status") {
  pod_resources p;
  container_resources c1 = named("c1", 1000);
  c1.limits = {{"cpu", 2000}};
  p.containers = {c1};
  SUBCASE(
      "aggregate container request/limit resolves directly from pod status when PLR vertical "
      "scaling enabled") {
    p.allocated = resource_list{{"cpu", 4000}};
    p.resources = k8s::actuated_resources{resource_list{{"cpu", 3000}}};
    CHECK(k8s::node_requests(p).get("cpu") == 4000);
  }
  SUBCASE(
      "falls back to container status aggregation when PLR vertical scaling enabled but "
      "podAllocatedResources is nil") {
    p.container_statuses = {status_of("c1", 6000, 5000)};
    p.resources = k8s::actuated_resources{resource_list{{"cpu", 3000}}};
    CHECK(k8s::node_requests(p).get("cpu") == 6000);
  }
  SUBCASE(
      "falls back to container status aggregation when PLR vertical scaling enabled but "
      "podResources is nil") {
    p.container_statuses = {status_of("c1", 6000, 5000)};
    p.allocated = resource_list{{"cpu", 6000}};
    CHECK(k8s::node_requests(p).get("cpu") == 6000);
  }
}

TEST_CASE("TestPodRequestsAndLimitsVerticalScalingWrappers") {
  pod_resources p;
  container_resources c1 = named("c1", 1000);
  c1.limits = {{"cpu", 2000}};
  p.containers = {c1};
  container_resources level;
  SUBCASE("pod level requests/limits with PLR vertical scaling enabled and status populated") {
    level.requests = {{"cpu", 2000}};
    level.limits = {{"cpu", 4000}};
    p.pod_level = level;
    p.allocated = resource_list{{"cpu", 3000}};
    p.resources = k8s::actuated_resources{resource_list{{"cpu", 3500}}};
    CHECK(k8s::node_requests(p).get("cpu") == 3500);
    CHECK(k8s::effective_requests(p).get("cpu") == 2000);
  }
  SUBCASE("pod level requests/limits with PLR vertical scaling enabled and infeasible resize") {
    level.requests = {{"cpu", 10000}};
    level.limits = {{"cpu", 20000}};
    p.pod_level = level;
    p.allocated = resource_list{{"cpu", 3000}};
    p.resources = k8s::actuated_resources{resource_list{{"cpu", 4000}}};
    p.resize = k8s::resize_state::infeasible;
    CHECK(k8s::node_requests(p).get("cpu") == 4000);
  }
}

TEST_CASE("kubernetes requests: sums saturate instead of overflowing") {
  resource_list r;
  r.add("cpu", std::numeric_limits<std::int64_t>::max());
  r.add("cpu", 5);
  CHECK(r.get("cpu") == std::numeric_limits<std::int64_t>::max());
  r.max_with(resource_list{{"memory", 7}});
  CHECK(r.get("memory") == 7);
}

TEST_CASE("kubernetes requests: to_resource_vector maps names to dimensions") {
  preempt::model::resource_names names;
  const resource_list r{{"cpu", 500}, {"memory", 64},        {"ephemeral-storage", 9},
                        {"pods", 1},  {"nvidia.com/gpu", 2}, {"example.com/unused", 0}};
  const auto v = k8s::to_resource_vector(r, names);
  using preempt::model::resource::cpu;
  CHECK(v[cpu] == 500);
  CHECK(v[preempt::model::resource::memory] == 64);
  CHECK(v[preempt::model::resource::ephemeral_storage] == 9);
  CHECK(v[preempt::model::resource::pods] == 1);
  const std::size_t gpu = names.find("nvidia.com/gpu");
  REQUIRE(gpu != preempt::model::resource_names::npos);
  CHECK(v[gpu] == 2);
  CHECK(names.find("example.com/unused") == preempt::model::resource_names::npos);
  CHECK(names.insufficient(gpu) == "Insufficient nvidia.com/gpu");
}

}  // namespace requests_test
