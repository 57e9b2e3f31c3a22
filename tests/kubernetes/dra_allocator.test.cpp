// SPDX-License-Identifier: Apache-2.0
// The structured allocator (kubernetes/dra/allocator.hpp): rows of upstream's TestAllocator
// (k8s.io/dynamic-resource-allocation structured/internal/allocatortesting, v0.37), run as
// v1.37's default features select them (the "incubating" allocator), with upstream's expected
// devices, errors and, where upstream pins it, its number of allocateOne invocations.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/kubernetes/dra/allocator.hpp"

namespace dra_allocator_test {

namespace k8s = preempt::kubernetes;
namespace dra = preempt::kubernetes::dra;
using kind = dra::allocation_outcome::kind_type;

namespace {

constexpr const char* node1 = "node-1";
constexpr const char* node2 = "node-2";
constexpr const char* class_a = "class-a";
constexpr const char* class_b = "class-b";
constexpr const char* driver_a = "driver-a";
constexpr const char* driver_b = "driver-b";

dra::device_class klass(std::string name, std::string driver) {
  dra::device_class c;
  c.name = std::move(name);
  c.selectors.push_back({"device.driver == \"" + driver + "\""});
  return c;
}

dra::device dev(std::string name) {
  dra::device d;
  d.name = std::move(name);
  return d;
}
dra::device with_attr(dra::device d, std::string name, const char* s) {
  dra::attribute a{std::move(name), {}};
  a.value.kind = dra::attribute_value::kind_type::string;
  a.value.text = s;
  d.attributes.push_back(std::move(a));
  return d;
}
dra::device with_int(dra::device d, std::string name, std::int64_t v) {
  dra::attribute a{std::move(name), {}};
  a.value.kind = dra::attribute_value::kind_type::integer;
  a.value.integer = v;
  d.attributes.push_back(std::move(a));
  return d;
}
dra::device with_version(dra::device d, std::string name, const char* v) {
  d = with_attr(std::move(d), std::move(name), v);
  d.attributes.back().value.kind = dra::attribute_value::kind_type::version;
  return d;
}
dra::device with_bool(dra::device d, std::string name, bool v) {
  dra::attribute a{std::move(name), {}};
  a.value.kind = dra::attribute_value::kind_type::boolean;
  a.value.boolean = v;
  d.attributes.push_back(std::move(a));
  return d;
}
dra::device with_capacity(dra::device d, std::string name, const char* q) {
  d.capacities.push_back({std::move(name), *dra::parse_amount(q), std::nullopt});
  return d;
}
dra::device consuming(dra::device d, std::string set, std::string counter, const char* q) {
  d.consumes_counters.push_back(
      {std::move(set), {{std::move(counter), *dra::parse_amount(q)}}, false});
  return d;
}
dra::device tainted(dra::device d, std::string key, std::string value, std::string effect) {
  d.taints.push_back({std::move(key), std::move(value), std::move(effect)});
  return d;
}

// sliceWithDevices: nodeName set, or all nodes for "*".
dra::resource_slice slice(std::string name, std::string node, std::string pool, std::string driver,
                          std::vector<dra::device> devices, std::int64_t count = 1,
                          std::int64_t generation = 1) {
  dra::resource_slice s;
  s.name = std::move(name);
  s.driver = std::move(driver);
  s.pool = std::move(pool);
  s.generation = generation;
  s.slice_count = count;
  if (node == "*")
    s.all_nodes = true;
  else
    s.node_name = std::move(node);
  s.devices = std::move(devices);
  return s;
}
dra::resource_slice counter_slice(std::string name, std::string node, std::string pool,
                                  std::string driver, std::string set, std::string counter,
                                  const char* q, std::int64_t count) {
  dra::resource_slice s =
      slice(std::move(name), std::move(node), std::move(pool), std::move(driver), {}, count);
  s.shared_counters.push_back({std::move(set), {{std::move(counter), *dra::parse_amount(q)}}});
  return s;
}

dra::exact_request exact(std::string cls, std::int64_t count,
                         std::vector<std::string> selectors = {}) {
  dra::exact_request e;
  e.class_name = std::move(cls);
  e.allocation_mode = "ExactCount";
  e.count = count;
  for (std::string& s : selectors) e.selectors.push_back({std::move(s)});
  return e;
}
dra::device_request request(std::string name, std::string cls, std::int64_t count,
                            std::vector<std::string> selectors = {}) {
  dra::device_request r;
  r.name = std::move(name);
  r.exactly = exact(std::move(cls), count, std::move(selectors));
  return r;
}
dra::device_request all_request(std::string name, std::string cls) {
  dra::device_request r;
  r.name = std::move(name);
  r.exactly = exact(std::move(cls), 0);
  r.exactly->allocation_mode = "All";
  return r;
}
dra::exact_request sub(std::string name, std::string cls, std::int64_t count,
                       std::vector<std::string> selectors = {}) {
  dra::exact_request e = exact(std::move(cls), count, std::move(selectors));
  e.name = std::move(name);
  return e;
}
dra::device_request first_available(std::string name, std::vector<dra::exact_request> subs) {
  dra::device_request r;
  r.name = std::move(name);
  r.first_available = std::move(subs);
  return r;
}
dra::resource_claim claim(std::string name, std::vector<dra::device_request> requests,
                          std::vector<dra::device_constraint> constraints = {}) {
  dra::resource_claim c;
  c.name = std::move(name);
  c.requests = std::move(requests);
  c.constraints = std::move(constraints);
  return c;
}
// A claim holding `devices` of pool-1 of driver-a (upstream's allocatedDevices).
dra::resource_claim holding(std::vector<std::pair<std::string, std::string>> devices) {
  dra::resource_claim c;
  c.name = "holder";
  c.allocation.emplace();
  for (auto& [pool, d] : devices)
    c.allocation->devices.push_back({"r", driver_a, pool, d, {}, {}, {}, {}});
  return c;
}

struct world {
  std::vector<dra::resource_slice> slices;
  std::vector<dra::device_class> classes;
  std::vector<dra::resource_claim> claims;
  std::vector<dra::resource_claim> allocated;
  std::string node = node1;
  k8s::label_set labels{{"region", "region-1"}, {"planet", "earth"}};

  dra::allocation_outcome run() {
    dra::allocated_state used;
    for (const dra::resource_claim& c : allocated) used.add(c);
    used.finish();
    std::vector<const dra::resource_claim*> to_allocate;
    for (const dra::resource_claim& c : claims) to_allocate.push_back(&c);
    const dra::structured_allocator a(slices, classes, used, to_allocate);
    return a.allocate({node, &labels});
  }
};

// The devices chosen, as "request pool device" (upstream's deviceAllocationResult).
std::vector<std::string> chosen(const dra::allocation_outcome& o) {
  std::vector<std::string> out;
  for (const dra::allocated_for& a : o.devices)
    out.push_back(a.request + " " + std::string(a.id.pool) + " " + std::string(a.id.device));
  return out;
}
using strings = std::vector<std::string>;

}  // namespace

TEST_CASE("TestAllocator/\"simple\", \"other-node\", \"no-slices\", \"network-attached-device\"") {
  world w;
  w.claims = {claim("claim-0", {request("req-0", class_a, 1)})};
  w.classes = {klass(class_a, driver_a)};
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {dev("device-1")})};
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-1"});

  w.slices = {slice("slice-1", node1, "pool-1", driver_b, {dev("device-1")}),
              slice("slice-2", node2, "pool-2", driver_a, {dev("device-1")})};
  w.node = node2;
  w.labels = k8s::label_set{{"region", "region-2"}, {"planet", "earth"}};
  CHECK(chosen(w.run()) == strings{"req-0 pool-2 device-1"});

  w.slices.clear();
  CHECK(w.run().kind == kind::unsatisfiable);

  // A slice selecting nodes by label (region-1): this node is in region-2, node-1 is not asked.
  dra::resource_slice network = slice("slice-1", "*", "pool-1", driver_a, {dev("device-1")});
  network.all_nodes = false;
  k8s::node_selector_term region1;
  region1.match_expressions.push_back({"region", "In", {"region-1"}});
  network.node_selector = k8s::node_selector{{region1}};
  w.slices = {network};
  CHECK(w.run().kind == kind::unsatisfiable);
  w.node = node1;
  w.labels = k8s::label_set{{"region", "region-1"}, {"planet", "earth"}};
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-1"});
}

TEST_CASE("TestAllocator/\"small-and-large\" and its backtracking rows") {
  const std::string small = R"(device.capacity["driver-a"].memory.compareTo(quantity("1Gi")) >= 0)";
  const std::string large = R"(device.capacity["driver-a"].memory.compareTo(quantity("2Gi")) >= 0)";
  world w;
  w.classes = {klass(class_a, driver_a)};
  w.claims = {claim(
      "claim-0", {request("req-0", class_a, 1, {small}), request("req-1", class_a, 1, {large})})};
  const dra::device d1 = with_capacity(dev("device-1"), "memory", "1Gi");
  const dra::device d2 = with_capacity(dev("device-2"), "memory", "2Gi");
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {d1, d2})};
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-1", "req-1 pool-1 device-2"});
  // "small-and-large-backtrack-requests": the large device listed first.
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {d2, d1})};
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-1", "req-1 pool-1 device-2"});
  // "small-and-large-backtrack-claims": the same across two claims.
  w.claims = {claim("claim-0", {request("req-0", class_a, 1, {small})}),
              claim("claim-1", {request("req-1", class_a, 1, {large})})};
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-1", "req-1 pool-1 device-2"});
}

TEST_CASE("TestAllocator/pools: split across slices, obsolete, duplicate, incomplete, invalid") {
  world w;
  w.classes = {klass(class_a, driver_a)};
  // "devices-split-across-different-slices"
  w.claims = {claim("claim-0", {request("req-0", class_a, 2)})};
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {dev("device-1")}),
              slice("slice-2", node1, "pool-2", driver_a, {dev("device-1")})};
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-1", "req-0 pool-2 device-1"});

  w.claims = {claim("claim-0", {request("req-0", class_a, 1)})};
  // "obsolete-slice": generation 2 holds one of two slices: incomplete.
  w.slices = {slice("slice-1-obsolete", node1, "pool-1", driver_a, {dev("device-1")}, 2, 1),
              slice("slice-1-obsolete", node1, "pool-1", driver_a, {dev("device-2")}, 2, 2)};
  CHECK(w.run().kind == kind::unsatisfiable);
  // "duplicate-slice": two slices with the same device: invalid.
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {dev("device-1")}, 2),
              slice("slice-1-2", node1, "pool-1", driver_a, {dev("device-1")}, 2)};
  const auto dup = w.run();
  CHECK(dup.kind == kind::failed_on_node);
  CHECK(dup.message == "invalid resource pools were encountered");
  // "no-allocation-from-incomplete-pools"
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {dev("device-1")}, 2)};
  CHECK(w.run().kind == kind::unsatisfiable);
  // "invalid-pool-is-ok-if-devices-can-be-allocated-from-other"
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {dev("device-1")}, 2),
              slice("slice-2", node1, "pool-1", driver_a, {dev("device-1")}, 2),
              slice("slice-3", node1, "pool-2", driver_a, {dev("device-2")}, 1)};
  CHECK(chosen(w.run()) == strings{"req-0 pool-2 device-2"});
  // "invalid-pool-is-error-if-no-other-device-can-be-allocated"
  w.allocated = {holding({{"pool-2", "device-2"}})};
  CHECK(w.run().kind == kind::failed_on_node);
}

TEST_CASE(
    "TestAllocator/\"not-enough-suitable-devices\", \"already-allocated-devices\", "
    "\"admin-access-enabled\"") {
  world w;
  w.classes = {klass(class_a, driver_a)};
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {dev("device-1")})};
  w.claims = {claim("claim-0", {request("req-0", class_a, 1)}),
              claim("claim-0", {request("req-1", class_a, 1)})};
  CHECK(w.run().kind == kind::unsatisfiable);

  w.claims = {claim("claim-0", {request("req-0", class_a, 1)})};
  w.allocated = {holding({{"pool-1", "device-1"}, {"pool-1", "device-2"}})};
  CHECK(w.run().kind == kind::unsatisfiable);

  w.claims[0].requests[0].exactly->admin_access = true;
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-1"});
}

TEST_CASE("TestAllocator/allocation mode All") {
  world w;
  w.classes = {klass(class_a, driver_a), klass(class_b, driver_b)};
  // "all-devices-single", "all-devices-many"
  w.claims = {claim("claim-0", {all_request("req-0", class_a)})};
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {dev("device-1")}),
              slice("slice-1", node1, "pool-2", driver_a, {dev("device-1")})};
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-1", "req-0 pool-2 device-1"});
  // "all-devices-of-the-incomplete-pool": an error, not a verdict on the node.
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {dev("device-1")}, 2)};
  const auto incomplete = w.run();
  CHECK(incomplete.kind == kind::error);
  CHECK(incomplete.message ==
        "claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is "
        "currently being updated");
  // "all-devices-plus-another" and "-reversed"
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {dev("device-1")}),
              slice("slice-1", node1, "pool-1", driver_b, {dev("device-1")})};
  w.claims = {claim("claim-0", {all_request("req-0", class_a)}),
              claim("claim-1", {request("req-0", class_b, 1)})};
  CHECK(w.run().kind == kind::allocated);
  std::swap(w.claims[0], w.claims[1]);
  CHECK(w.run().kind == kind::allocated);
  // "all-devices-no-solution" and "-reversed": one device, two claims.
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {dev("device-1")})};
  w.claims = {claim("claim-1", {request("req-0", class_a, 1)}),
              claim("claim-0", {all_request("req-0", class_a)})};
  CHECK(w.run().kind == kind::unsatisfiable);
  std::swap(w.claims[0], w.claims[1]);
  CHECK(w.run().kind == kind::unsatisfiable);
  // "all-devices-slice-without-devices"
  w.claims = {claim("claim-0", {all_request("req-0", class_a)})};
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {})};
  CHECK(w.run().kind == kind::unsatisfiable);
  // "tainted-all-devices-single"
  w.slices = {slice("slice-1", node1, "pool-1", driver_a,
                    {tainted(dev("device-1"), "taint-key", "taint-value", "NoSchedule")})};
  CHECK(w.run().kind == kind::unsatisfiable);
}

TEST_CASE(
    "TestAllocator/constraints: \"with-constraint\", \"-non-existent-attribute\", "
    "\"-all-devices\", \"with-distinct-constraints\"") {
  world w;
  w.classes = {klass(class_a, driver_a)};
  const auto full = [](std::string name, std::int64_t numa) {
    dra::device d = with_version(dev(std::move(name)), "driverVersion", "1.0.0");
    d = with_int(std::move(d), "numa", numa);
    d = with_attr(std::move(d), "stringAttribute", "stringAttributeValue");
    return with_bool(std::move(d), "boolAttribute", true);
  };
  std::vector<dra::device_constraint> match(4);
  match[0].match_attribute = "driver-a/numa";
  match[1].match_attribute = "driver-a/driverVersion";
  match[2].match_attribute = "driver-a/stringAttribute";
  match[3].match_attribute = "driver-a/boolAttribute";
  w.claims = {
      claim("claim-0", {request("req-0", class_a, 1), request("req-1", class_a, 1)}, match)};
  w.slices = {
      slice("slice-1", node1, "pool-1", driver_a, {full("device-1", 1), full("device-2", 1)})};
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-1", "req-1 pool-1 device-2"});
  // numa differs: no solution ("with-constraint-not-matching-int-attribute").
  w.slices = {
      slice("slice-1", node1, "pool-1", driver_a, {full("device-1", 1), full("device-2", 2)})};
  CHECK(w.run().kind == kind::unsatisfiable);

  std::vector<dra::device_constraint> missing(1);
  missing[0].match_attribute = "driver-a/NonExistentAttribute";
  w.claims = {claim("claim-0", {request("req-0", class_a, 1)}, missing)};
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {dev("device-1")})};
  CHECK(w.run().kind == kind::unsatisfiable);

  std::vector<dra::device_constraint> numa(1);
  numa[0].match_attribute = "driver-a/numa";
  w.claims = {claim("claim-0", {all_request("req-0", class_a)}, numa)};
  w.slices = {slice("slice-1", node1, "pool-1", driver_a,
                    {with_int(dev("device-1"), "numa", 1), with_int(dev("device-2"), "numa", 2)})};
  const auto all = w.run();
  CHECK(all.kind == kind::error);
  CHECK(all.message ==
        "claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim "
        "constraint would not be satisfied");

  // "with-distinct-constraints" (devices that allow multiple allocations).
  std::vector<dra::device_constraint> distinct(3);
  distinct[0] = {{"req-0", "req-1"}, std::nullopt, "driver-a/boolAttribute"};
  distinct[1] = {{"req-0", "req-1", "req-2"}, std::nullopt, "driver-a/driverVersion"};
  distinct[2] = {{"req-0", "req-1", "req-2", "req-3"}, std::nullopt, "driver-a/numa"};
  const auto shared = [](std::string name, const char* version, std::int64_t n, bool b) {
    dra::device d = with_version(dev(std::move(name)), "driverVersion", version);
    d = with_int(std::move(d), "numa", n);
    d = with_bool(std::move(d), "boolAttribute", b);
    d.allow_multiple_allocations = true;
    return d;
  };
  w.claims = {claim("claim-0",
                    {request("req-0", class_a, 1), request("req-1", class_a, 1),
                     request("req-2", class_a, 1), request("req-3", class_a, 1)},
                    distinct)};
  w.slices = {slice("slice-1", node1, "pool-1", driver_a,
                    {shared("device-1", "1.0.0", 0, true), shared("device-2", "1.0.1", 1, false),
                     shared("device-3", "1.0.2", 2, true), shared("device-4", "1.0.0", 3, true)})};
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-1", "req-1 pool-1 device-2",
                                   "req-2 pool-1 device-3", "req-3 pool-1 device-4"});
}

TEST_CASE(
    "TestAllocator/\"invalid-CEL-one-device\", \"too-many-devices-single-request\", "
    "\"empty-class\"") {
  world w;
  w.classes = {klass(class_a, driver_a)};
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {dev("device-1")})};
  w.claims = {claim("claim-0", {request("req-0", class_a, 1, {"noSuchVar"})})};
  const auto cel = w.run();
  CHECK(cel.kind == kind::error);
  CHECK(cel.message.find("undeclared reference") != std::string::npos);

  w.slices.clear();
  w.claims = {claim("claim-0", {request("req-0", class_a, 500)})};
  const auto many = w.run();
  CHECK(many.kind == kind::error);
  CHECK(many.message.find("exceeds the claim limit") != std::string::npos);

  w.claims = {claim("claim-0", {request("req-0", "", 1)})};
  CHECK(w.run().message ==
        "claim claim-0, request req-0: missing device class name (unsupported request type?)");
}

TEST_CASE("TestAllocator/prioritized lists") {
  world w;
  w.classes = {klass(class_a, driver_a), klass(class_b, driver_b)};
  // "prioritized-list-first-unavailable"
  w.claims = {claim("claim-0", {first_available("req-0", {sub("subReq-0", class_b, 1),
                                                          sub("subReq-1", class_a, 1)})})};
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {dev("device-1")})};
  CHECK(chosen(w.run()) == strings{"req-0/subReq-1 pool-1 device-1"});
  // "prioritized-list-with-backtracking"
  const std::string eight = R"(device.capacity["driver-a"].memory.compareTo(quantity("8Gi")) >= 0)";
  const std::string four = R"(device.capacity["driver-a"].memory.compareTo(quantity("4Gi")) >= 0)";
  w.claims = {claim("claim-0", {first_available("req-0", {sub("subReq-0", class_a, 1, {eight}),
                                                          sub("subReq-1", class_a, 1, {four})}),
                                request("req-1", class_a, 1, {eight})})};
  w.slices = {slice("slice-1", node1, "pool-1", driver_a,
                    {with_capacity(dev("device-1"), "memory", "8Gi")}),
              slice("slice-2", node1, "pool-2", driver_a,
                    {with_capacity(dev("device-2"), "memory", "4Gi")})};
  CHECK(chosen(w.run()) == strings{"req-0/subReq-1 pool-2 device-2", "req-1 pool-1 device-1"});
  // "prioritized-list-overflowing-first-subrequest-is-pruned": 8 allocateOne invocations.
  w.claims = {claim("claim-0", {request("req-0", class_a, 1),
                                first_available("req-1", {sub("subReq-0", class_a, INT64_MAX),
                                                          sub("subReq-1", class_a, 1)})})};
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {dev("device-1"), dev("device-2")})};
  const auto pruned = w.run();
  CHECK(chosen(pruned) == strings{"req-0 pool-1 device-1", "req-1/subReq-1 pool-1 device-2"});
  CHECK(pruned.steps == 8);
  // "prioritized-list-minimum-sum-exceeds-claim-limit"
  w.claims = {claim("claim-0", {request("req-0", class_a, 20),
                                first_available("req-1", {sub("subReq-0", class_a, 20),
                                                          sub("subReq-1", class_a, 24)})})};
  CHECK(w.run().message.find("request req-1: adding 20 devices exceeds the claim limit") !=
        std::string::npos);
}

TEST_CASE("TestAllocator/\"check-combinations-*\": upstream's invocation counts") {
  world w;
  w.classes = {klass(class_a, driver_a)};
  w.claims = {claim("claim-0", {request("req-0", class_a, 5)})};
  // "check-combinations-within-single-request-single-pool-single-slice": 16
  w.slices = {slice("slice-1", node1, "pool-1", driver_a,
                    {dev("device-1"), dev("device-2"), dev("device-3"), dev("device-4")})};
  auto o = w.run();
  CHECK(o.kind == kind::unsatisfiable);
  CHECK(o.steps == 16);
  // "...-single-pool-multiple-slices": 16
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {dev("device-1"), dev("device-2")}, 2),
              slice("slice-2", node1, "pool-1", driver_a, {dev("device-3"), dev("device-4")}, 2)};
  CHECK(w.run().steps == 16);
  // "...-many-pools": 16
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {dev("device-1")}),
              slice("slice-2", node1, "pool-2", driver_a, {dev("device-2")}),
              slice("slice-3", node1, "pool-3", driver_a, {dev("device-3")}),
              slice("slice-4", node1, "pool-4", driver_a, {dev("device-4")})};
  CHECK(w.run().steps == 16);

  // "check-combinations-with-backtracking": 12
  const std::string x = R"(device.attributes["driver-a"].type == "X")";
  const std::string y = R"(device.attributes["driver-a"].type == "Y")";
  w.claims = {claim("claim-0", {request("req-1", class_a, 2), request("req-2", class_a, 1, {x})})};
  w.slices = {
      slice("slice-1", node1, "pool-1", driver_a,
            {with_attr(dev("device-1"), "type", "X"), with_attr(dev("device-2"), "type", "Y"),
             with_attr(dev("device-3"), "type", "Y")})};
  o = w.run();
  CHECK(chosen(o) ==
        strings{"req-1 pool-1 device-2", "req-1 pool-1 device-3", "req-2 pool-1 device-1"});
  CHECK(o.steps == 12);

  // "check-combinations-with-backtracking-across-slices-and-pools": a pool with binding
  // conditions comes last; 12
  dra::device bound = with_attr(dev("device-3"), "type", "Y");
  bound.binding_conditions_present = true;
  bound.binding_conditions = {"IsPrepare"};
  w.slices = {
      slice("slice-1", node1, "pool-1", driver_a, {with_attr(dev("device-1"), "type", "X")}, 2),
      slice("slice-2", node1, "pool-1", driver_a, {with_attr(dev("device-2"), "type", "Y")}, 2),
      slice("slice-3", node1, "pool-2", driver_a, {bound})};
  o = w.run();
  CHECK(chosen(o) ==
        strings{"req-1 pool-1 device-2", "req-1 pool-2 device-3", "req-2 pool-1 device-1"});
  CHECK(o.steps == 12);

  // "check-combinations-with-prioritized-list": 26
  w.claims = {claim(
      "claim-0",
      {first_available("req-1", {sub("subReq-0", class_a, 3, {y}), sub("subReq-1", class_a, 2)}),
       first_available("req-2", {sub("subReq-0", class_a, 2), sub("subReq-1", class_a, 1, {x})})})};
  w.slices = {
      slice("slice-1", node1, "pool-1", driver_a,
            {with_attr(dev("device-1"), "type", "X"), with_attr(dev("device-2"), "type", "Y"),
             with_attr(dev("device-3"), "type", "Y")})};
  o = w.run();
  CHECK(chosen(o) == strings{"req-1/subReq-1 pool-1 device-2", "req-1/subReq-1 pool-1 device-3",
                             "req-2/subReq-1 pool-1 device-1"});
  CHECK(o.steps == 26);
}

TEST_CASE("TestAllocator/partitionable devices (shared counters)") {
  world w;
  w.classes = {klass(class_a, driver_a)};
  w.claims = {claim("claim-0", {request("req-0", class_a, 1)})};
  // "partitionable-devices-single-device"
  w.slices = {
      slice("slice-1", node1, "pool-1", driver_a,
            {consuming(dev("device-1"), "counter-set-1", "memory", "4Gi")}, 2),
      counter_slice("slice-2", node1, "pool-1", driver_a, "counter-set-1", "memory", "8Gi", 2)};
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-1"});
  // "partitionable-devices-no-capacity-available": 18Gi, 16Gi taken by an allocated device.
  w.slices = {
      slice("slice-1", node1, "pool-1", driver_a,
            {consuming(dev("device-1"), "counter-set-1", "memory", "4Gi"),
             consuming(dev("device-2"), "counter-set-1", "memory", "16Gi")},
            2),
      counter_slice("slice-2", node1, "pool-1", driver_a, "counter-set-1", "memory", "18Gi", 2)};
  w.allocated = {holding({{"pool-1", "device-2"}})};
  CHECK(w.run().kind == kind::unsatisfiable);
  // Two partitions of 4Gi in 8Gi fit; a third does not.
  w.allocated.clear();
  w.slices = {
      slice("slice-1", node1, "pool-1", driver_a,
            {consuming(dev("device-1"), "counter-set-1", "memory", "4Gi"),
             consuming(dev("device-2"), "counter-set-1", "memory", "4Gi"),
             consuming(dev("device-3"), "counter-set-1", "memory", "4Gi")},
            2),
      counter_slice("slice-2", node1, "pool-1", driver_a, "counter-set-1", "memory", "8Gi", 2)};
  w.claims = {claim("claim-0", {request("req-0", class_a, 2)})};
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-1", "req-0 pool-1 device-2"});
  w.claims = {claim("claim-0", {request("req-0", class_a, 3)})};
  CHECK(w.run().kind == kind::unsatisfiable);
  // "partitionable-devices-device-counter-consumption-references-unknown-counter-set": invalid.
  w.slices = {
      slice("slice-1", node1, "pool-1", driver_a,
            {consuming(dev("device-1"), "nope", "memory", "4Gi")}, 2),
      counter_slice("slice-2", node1, "pool-1", driver_a, "counter-set-1", "memory", "8Gi", 2)};
  w.claims = {claim("claim-0", {request("req-0", class_a, 1)})};
  CHECK(w.run().kind == kind::failed_on_node);
}

TEST_CASE(
    "TestAllocator/device taints: \"tainted-two-devices\", \"-tolerated\", \"tainted-no-effect\"") {
  world w;
  w.classes = {klass(class_a, driver_a)};
  w.claims = {claim("claim-0", {request("req-0", class_a, 1)})};
  w.slices = {slice("slice-1", node1, "pool-1", driver_a,
                    {tainted(dev("device-1"), "taint-key", "taint-value", "NoSchedule"),
                     tainted(dev("device-2"), "taint-key", "taint-value-2", "NoExecute")})};
  CHECK(w.run().kind == kind::unsatisfiable);
  w.claims[0].requests[0].exactly->tolerations = {
      {"taint-key", "Equal", "taint-value-2", "NoExecute"}};
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-2"});
  w.claims[0].requests[0].exactly->tolerations.clear();
  w.slices = {slice("slice-1", node1, "pool-1", driver_a,
                    {tainted(dev("device-1"), "taint-key", "taint-value", "None")})};
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-1"});
}

TEST_CASE("TestAllocator/consumable capacity") {
  world w;
  dra::device_class shared_class = klass(class_a, driver_a);
  shared_class.selectors[0].cel =
      R"(device.driver == "driver-a" && device.allowMultipleAllocations == true)";
  w.classes = {shared_class};
  // withCapacityRequestPolicyRange: default 2, min 2, step 2, max 4.
  const auto ranged = [](std::string name, const char* value) {
    dra::device d = dev(std::move(name));
    d.allow_multiple_allocations = true;
    dra::capacity_policy p;
    p.default_value = dra::amount::of_units(2);
    p.valid_range = true;
    p.min = dra::amount::of_units(2);
    p.step = dra::amount::of_units(2);
    p.max = dra::amount::of_units(4);
    d.capacities.push_back({"capacity-0", *dra::parse_amount(value), p});
    return d;
  };
  dra::resource_claim c = claim("claim-0", {request("req-0", class_a, 1)});
  c.requests[0].exactly->capacity_requests = {{{"capacity-0", dra::amount::of_units(2)}}};
  w.claims = {c};
  // "...-with-allocated-capacity-use-remaining": 2 of 4 taken, 2 left.
  dra::resource_claim held = holding({{"pool-1", "device-1"}});
  held.allocation->devices[0].share_id = "share";
  held.allocation->devices[0].consumed_capacity = {{{"capacity-0", dra::amount::of_units(2)}}};
  w.allocated = {held};
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {ranged("device-1", "4")})};
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-1"});
  // "...-with-allocated-capacity-next-device": 2 of 2 taken, the next device serves.
  w.slices = {slice("slice-1", node1, "pool-1", driver_a,
                    {ranged("device-1", "2"), ranged("device-2", "2")})};
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-2"});
  // "...-with-range-policy-step": 3 rounds up to 4, which fits the device's 4.
  w.allocated.clear();
  w.claims[0].requests[0].exactly->capacity_requests = {{{"capacity-0", dra::amount::of_units(3)}}};
  w.slices = {slice("slice-1", node1, "pool-1", driver_a, {ranged("device-1", "4")})};
  CHECK(chosen(w.run()) == strings{"req-0 pool-1 device-1"});
  // Over the max: 6 rounds to 6 > max 4.
  w.claims[0].requests[0].exactly->capacity_requests = {{{"capacity-0", dra::amount::of_units(5)}}};
  CHECK(w.run().kind == kind::unsatisfiable);
  // "...-requests-are-not-modified" aside: a request naming a capacity the device lacks skips it.
  w.claims[0].requests[0].exactly->capacity_requests = {{{"other", dra::amount::of_units(1)}}};
  CHECK(w.run().kind == kind::unsatisfiable);
}

}  // namespace dra_allocator_test
