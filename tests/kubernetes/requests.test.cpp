// Effective pod requests (Kubernetes PodRequests): containers, init containers, sidecars,
// overhead, pod-level resources, limits standing in for requests.
#include <doctest/doctest.h>

#include "preempt/kubernetes/requests.hpp"

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
  CHECK(r.get("memory") == 4096);
  CHECK(r.get("example.com/foo") == 1);
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
