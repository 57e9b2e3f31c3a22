// SPDX-License-Identifier: Apache-2.0
// The DynamicResources filter (kubernetes/dra/dynamic_resources.hpp): rows of upstream's
// TestPlugin (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go, v1.37)
// that PreFilter and Filter decide, with upstream's messages; every rejection is
// UnschedulableAndUnresolvable there (statusUnschedulable). Then filter_cluster: the verdict is
// checked last in the dry run, no eviction changes it, and branch and bound is off.
#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "preempt/kubernetes/dra/dynamic_resources.hpp"
#include "preempt/kubernetes/filter_cluster.hpp"
#include "preempt/model/resource_cluster.hpp"
#include "preempt/victim_selection.hpp"

namespace dra_dynamic_resources_test {

namespace k8s = preempt::kubernetes;
namespace dra = preempt::kubernetes::dra;
namespace model = preempt::model;
using pre = dra::prefilter_result::kind_type;
using verdict = dra::node_verdict::kind_type;

namespace {

// upstream's fixtures: pod my-pod (uid 1234) in default, claim my-pod-my-resource with one
// request req-1 of class my-resource-class (no selectors), node "worker" with a slice of driver
// some-driver holding "instance-1".
struct fixture {
  std::vector<dra::resource_claim> claims;
  std::vector<dra::device_class> classes;
  std::vector<dra::resource_slice> slices;
  std::vector<dra::pod_claim> pod_claims;
  std::vector<dra::pod_claim_status> statuses;
  dra::allocated_state used;
  k8s::label_set labels{{"kubernetes.io/hostname", "worker"}};

  fixture() {
    dra::device_class c;
    c.name = "my-resource-class";
    classes.push_back(c);
    claims.push_back(pending_claim());
    pod_claims.push_back({"my-resource", std::string("my-pod-my-resource"), std::nullopt});
  }
  static dra::resource_claim pending_claim() {
    dra::resource_claim c;
    c.ns = "default";
    c.name = "my-pod-my-resource";
    dra::device_request r;
    r.name = "req-1";
    r.exactly.emplace();
    r.exactly->class_name = "my-resource-class";
    r.exactly->allocation_mode = "ExactCount";
    r.exactly->count = 1;
    c.requests.push_back(r);
    return c;
  }
  static dra::resource_slice worker_slice(std::string node = "worker") {
    dra::resource_slice s;
    s.name = node + "-some-driver";
    s.driver = "some-driver";
    s.pool = node;
    s.generation = 1;
    s.slice_count = 1;
    s.node_name = node;
    s.devices.push_back({});
    s.devices.back().name = "instance-1";
    return s;
  }
  void template_claim(bool with_status) {
    pod_claims = {{"my-resource", std::nullopt, std::string("my-pod-my-resource")}};
    if (with_status) statuses = {{"my-resource", std::string("my-pod-my-resource")}};
  }

  dra::prefilter_result prefilter(dra::dynamic_resources& d) {
    return d.prefilter({"default", "my-pod", "1234", pod_claims, statuses});
  }
  dra::node_verdict run(std::string_view node = "worker") {
    used = {};
    for (const dra::resource_claim& c : claims) used.add(c);
    used.finish();
    dra::dynamic_resources d({claims, classes, slices, &used});
    const dra::prefilter_result p = prefilter(d);
    REQUIRE(p.kind == pre::ready);
    return d.filter({node, &labels});
  }
  dra::prefilter_result run_prefilter() {
    used = {};
    used.finish();
    dra::dynamic_resources d({claims, classes, slices, &used});
    return prefilter(d);
  }
};

dra::allocation_result allocation_on(std::string node) {
  dra::allocation_result a;
  a.devices.push_back({"req-1", "some-driver", node, "instance-1", {}, {}, {}, {}});
  k8s::node_selector_term t;
  t.match_fields.push_back({"metadata.name", "In", {node}});
  a.node_selector = k8s::node_selector{{t}};
  return a;
}

}  // namespace

TEST_CASE("TestPlugin/\"missing-claim\", \"deleted-claim\", \"wrong-claim\"") {
  fixture f;
  f.template_claim(false);  // status not set
  auto p = f.run_prefilter();
  CHECK(p.kind == pre::rejected);
  CHECK(p.pre_enqueue);
  CHECK(p.message == R"(pod "default/my-pod": ResourceClaim not created yet)");

  f.template_claim(true);
  f.claims[0].controller_uid = "1234";
  f.claims[0].deleting = true;
  p = f.run_prefilter();
  CHECK(p.message == R"(resourceclaim "my-pod-my-resource" is being deleted)");

  f.claims[0].deleting = false;
  f.claims[0].controller_uid = "1234123";  // the owner's UID changed
  p = f.run_prefilter();
  CHECK(p.message ==
        "ResourceClaim default/my-pod-my-resource was not created for Pod default/my-pod (Pod is "
        "not owner)");

  f.claims.clear();  // not in the informer
  p = f.run_prefilter();
  CHECK(p.message == R"(could not find ResourceClaim "default/my-pod-my-resource")");

  // A status naming no claim: the entry is skipped, and with it the plugin.
  f.statuses = {{"my-resource", std::nullopt}};
  CHECK(f.run_prefilter().kind == pre::skip);
}

TEST_CASE("TestPlugin/\"missing-class\", \"claim-with-prioritized-list-unknown-device-class\"") {
  fixture f;
  f.classes.clear();
  auto p = f.run_prefilter();
  CHECK(p.kind == pre::rejected);
  CHECK_FALSE(p.pre_enqueue);
  CHECK(p.message == "request req-1: device class my-resource-class does not exist");

  dra::exact_request sub = *f.claims[0].requests[0].exactly;
  sub.name = "subreq-1";
  sub.class_name = "does-not-exist";
  f.claims[0].requests[0].exactly.reset();
  f.claims[0].requests[0].first_available = {sub};
  p = f.run_prefilter();
  CHECK(p.message == "request req-1/subreq-1: device class does-not-exist does not exist");
}

TEST_CASE(
    "TestPlugin/\"no-resources\", \"with-resources\", \"exhausted-resources-in-informer-cache\"") {
  fixture f;
  auto v = f.run();
  CHECK(v.kind == verdict::rejected);
  CHECK(v.message == "cannot allocate all claims");

  f.slices.push_back(fixture::worker_slice());
  CHECK(f.run().passed());

  // Another claim holds the only device.
  dra::resource_claim other = fixture::pending_claim();
  other.name = "other";
  other.allocation = allocation_on("worker");
  f.claims.push_back(other);
  CHECK(f.run().message == "cannot allocate all claims");

  // "structured-ignore-allocated-admin-access": an allocation with admin access holds nothing.
  f.claims.back().allocation->devices[0].admin_access = true;
  CHECK(f.run().passed());
}

TEST_CASE("TestPlugin/\"wrong-topology\", \"good-topology\"") {
  fixture f;
  f.claims[0].allocation = allocation_on("other-node");
  auto v = f.run();
  CHECK(v.kind == verdict::rejected);
  CHECK(v.message == "resourceclaim not available on the node");

  f.claims[0].allocation = allocation_on("worker");
  CHECK(f.run().passed());
}

TEST_CASE(
    "TestPlugin/\"claim-parameters-CEL-runtime-error\", \"class-parameters-CEL-runtime-error\"") {
  fixture f;
  f.slices.push_back(fixture::worker_slice());
  f.claims[0].requests[0].exactly->selectors = {
      {std::string(R"(device.attributes["some-driver"].healthy)")}};
  auto v = f.run();
  CHECK(v.kind == verdict::error);
  CHECK(
      v.message.find(
          "claim default/my-pod-my-resource: selector #0 on device some-driver/worker/instance-1: "
          "CEL runtime error: no such key: healthy") == 0);

  f.claims[0].requests[0].exactly->selectors.clear();
  f.classes[0].selectors = {{std::string(R"(device.attributes["some-driver"].healthy)")}};
  v = f.run();
  CHECK(v.kind == verdict::error);
  CHECK(v.message.find(
            "class my-resource-class: selector #0 on device some-driver/worker/instance-1") == 0);

  // "CEL-runtime-error-for-one-of-two-nodes": worker-2's device has the attribute.
  dra::resource_slice healthy = fixture::worker_slice("worker-2");
  dra::attribute a{"healthy", {}};
  a.value.kind = dra::attribute_value::kind_type::boolean;
  a.value.boolean = true;
  healthy.devices[0].attributes.push_back(a);
  f.slices.push_back(healthy);
  CHECK(f.run("worker-2").passed());
}

TEST_CASE("TestPlugin/\"tainted-device-enabled\"") {
  fixture f;
  f.slices.push_back(fixture::worker_slice());
  f.slices[0].devices[0].taints.push_back({"taint-key", "taint-value", "NoExecute"});
  CHECK(f.run().message == "cannot allocate all claims");
}

namespace {

struct facts_of {
  const std::vector<k8s::pod_filter_facts>* facts;
  const k8s::pod_filter_facts& operator()(const model::resource_pod& p) const {
    return (*facts)[p.uid() - 1];
  }
};
struct nodes_of {
  const std::vector<k8s::node_facts>* facts;
  const k8s::node_facts& operator()(std::size_t i) const { return (*facts)[i]; }
};
using view = k8s::filter_cluster<model::resource_cluster, facts_of, nodes_of>;

}  // namespace

TEST_CASE("kubernetes filter_cluster: DynamicResources checked last, unchanged by evictions") {
  const std::vector<k8s::node_facts> nodes{{"n0", nullptr, {}, false}, {"n1", nullptr, {}, false}};
  const std::vector<k8s::pod_filter_facts> pods{{{"default", nullptr, false, {}}, {}},
                                                {{"default", nullptr, false, {}}, {}}};
  model::resource_cluster c;
  c.add_node("n0", {1000, 1 << 30, 110});
  c.add_node("n1", {1000, 1 << 30, 110});
  c.add_pod(0,
            model::resource_pod({.uid = 1, .priority = 0, .requests = {1000, 1}, .start_time = 1}));
  c.add_pod(1,
            model::resource_pod({.uid = 2, .priority = 0, .requests = {1000, 1}, .start_time = 1}));
  view v(c, facts_of{&pods}, nodes_of{&nodes});
  const k8s::pod_placement placement;
  v.prefilter(k8s::placing_pod{{"default", nullptr, false, {}}, {}, {}, {}, {}, &placement}, {});
  const std::string reason = "cannot allocate all claims";
  const std::vector<preempt::status> verdicts{preempt::status::unresolvable(reason),
                                              preempt::status::ok()};
  v.set_dynamic_resources(verdicts);
  const model::resource_pod preemptor(
      {.uid = 9, .priority = 100, .requests = {500, 1}, .start_time = {}});
  auto st = v.make_state();

  // n0: the resources fail first (Unschedulable), as in the first pass; without the victim the
  // DynamicResources verdict decides: UnschedulableAndUnresolvable.
  v.prepare_state(0, st);
  CHECK(st.fits(preemptor).code() == preempt::status_code::unschedulable);
  REQUIRE(st.remove_pod(c[0].pods()[0]));
  const preempt::status dry = st.fits(preemptor);
  CHECK(dry.code() == preempt::status_code::unschedulable_and_unresolvable);
  CHECK(dry.reason() == reason);
  CHECK_FALSE(st.can_fit(preemptor));
  CHECK_FALSE(st.victim_score_bound(preemptor, 0).has_value());

  // n1: the verdict passes; the victim's removal makes room.
  v.prepare_state(1, st);
  REQUIRE(st.remove_pod(c[1].pods()[0]));
  CHECK(st.fits(preemptor).is_success());
  CHECK(st.can_fit(preemptor));
}

}  // namespace dra_dynamic_resources_test
