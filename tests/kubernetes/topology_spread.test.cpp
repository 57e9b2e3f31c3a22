// SPDX-License-Identifier: Apache-2.0
// The PodTopologySpread filter and its AddPod/RemovePod extensions, with scenarios of upstream's
// podtopologyspread/filtering_test.go (TestSingleConstraint, TestPreFilterStateAddPod/RemovePod).
#include <doctest/doctest.h>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "preempt/kubernetes/topology_spread.hpp"

namespace topology_spread_test {

namespace k8s = preempt::kubernetes;
using preempt::status_code;

namespace {

k8s::label_selector exists(std::string key) {
  k8s::label_selector s;
  s.match_expressions.push_back({std::move(key), k8s::selector_operator::exists, {}});
  return s;
}

struct test_node {
  std::string name;
  k8s::label_set labels;
  std::vector<k8s::taint> taints;
};
struct test_pod {
  std::string node;
  k8s::label_set labels;
  std::string ns = "default";
  bool terminating = false;
};

struct world {
  std::vector<test_node> nodes;
  std::vector<test_pod> pods;
  std::vector<k8s::node_facts> facts;
  std::vector<std::vector<k8s::pod_facts>> on_node;
  k8s::topology_spread_prefilter pre;

  void build(const k8s::spread_pod& p) {
    facts.clear();
    on_node.assign(nodes.size(), {});
    for (const test_node& n : nodes) facts.push_back({n.name, &n.labels, n.taints, false});
    for (const test_pod& q : pods)
      for (std::size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].name == q.node) on_node[i].push_back(to_facts(q));
    pre.prefilter(
        p, nodes.size(), [&](std::size_t i) -> const k8s::node_facts& { return facts[i]; },
        [&](std::size_t i, const auto& visit) {
          for (const k8s::pod_facts& q : on_node[i]) visit(q);
        });
  }
  static k8s::pod_facts to_facts(const test_pod& q) { return {q.ns, &q.labels, q.terminating, {}}; }
  std::size_t index(const std::string& name) const {
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].name == name) return i;
    return nodes.size();
  }
  std::map<std::string, status_code> codes() const {
    std::map<std::string, status_code> out;
    k8s::topology_spread_overlay o(&pre);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      o.reset(i);
      out[nodes[i].name] = o.filter().code();
    }
    return out;
  }
};

k8s::label_set foo{{"foo", ""}};

std::vector<test_node> four_nodes() {
  return {{"node-a", {{"zone", "zone1"}, {"node", "node-a"}}, {}},
          {"node-b", {{"zone", "zone1"}, {"node", "node-b"}}, {}},
          {"node-x", {{"zone", "zone2"}, {"node", "node-x"}}, {}},
          {"node-y", {{"zone", "zone2"}, {"node", "node-y"}}, {}}};
}

constexpr auto ok = status_code::success;
constexpr auto no = status_code::unschedulable;
constexpr auto never = status_code::unschedulable_and_unresolvable;

}  // namespace

TEST_CASE("kubernetes topology spread: TestSingleConstraint") {
  k8s::pod_placement placement;
  std::vector<k8s::spread_constraint> cs(1);
  cs[0].max_skew = 1;
  cs[0].topology_key = "zone";
  cs[0].selector = exists("foo");
  cs[0].do_not_schedule = true;
  const k8s::spread_pod pod{"default", &foo, cs, &placement};
  world w;
  w.nodes = four_nodes();

  SUBCASE("no existing pods") {
    w.build(pod);
    CHECK(w.codes() == std::map<std::string, status_code>{
                           {"node-a", ok}, {"node-b", ok}, {"node-x", ok}, {"node-y", ok}});
  }
  SUBCASE("existing pods in a different namespace do not count") {
    w.pods = {{"node-a", foo, "ns1"}, {"node-a", foo, "ns2"}, {"node-x", foo}, {"node-y", foo}};
    w.build(pod);
    CHECK(w.codes() == std::map<std::string, status_code>{
                           {"node-a", ok}, {"node-b", ok}, {"node-x", no}, {"node-y", no}});
  }
  SUBCASE("existing pods do not match null selector") {
    cs[0].selector.reset();
    w.pods = {{"node-x", foo}, {"node-y", foo}};
    w.build(pod);
    CHECK(w.codes() == std::map<std::string, status_code>{
                           {"node-a", ok}, {"node-b", ok}, {"node-x", ok}, {"node-y", ok}});
  }
  SUBCASE("pods spread across zones as 1/2 due to absence of label 'zone' on node-b") {
    w.nodes[1].labels = {{"zon", "zone1"}, {"node", "node-b"}};
    w.pods = {{"node-a", foo}, {"node-b", foo}, {"node-x", foo}, {"node-y", foo}};
    w.build(pod);
    CHECK(w.codes() == std::map<std::string, status_code>{
                           {"node-a", ok}, {"node-b", never}, {"node-x", no}, {"node-y", no}});
    k8s::topology_spread_overlay o(&w.pre);
    o.reset(1);
    CHECK(o.filter().reasons()[0] == k8s::spread_missing_label_reason);
    o.reset(2);
    CHECK(o.filter().reasons()[0] == k8s::spread_reason);
  }
  SUBCASE("pods spread across nodes as 2/1/0/3, only node-x fits; maxSkew 2: node-b too") {
    cs[0].topology_key = "node";
    w.pods = {{"node-a", foo}, {"node-a", foo}, {"node-b", foo},
              {"node-y", foo}, {"node-y", foo}, {"node-y", foo}};
    w.build(pod);
    CHECK(w.codes() == std::map<std::string, status_code>{
                           {"node-a", no}, {"node-b", no}, {"node-x", ok}, {"node-y", no}});
    cs[0].max_skew = 2;
    w.build(pod);
    CHECK(w.codes() == std::map<std::string, status_code>{
                           {"node-a", no}, {"node-b", ok}, {"node-x", ok}, {"node-y", no}});
    cs[0].selector = exists("bar");  // the pod does not match itself: 0/0/0/0 plus nothing
    cs[0].max_skew = 1;
    w.build(pod);
    CHECK(w.codes() == std::map<std::string, status_code>{
                           {"node-a", ok}, {"node-b", ok}, {"node-x", ok}, {"node-y", ok}});
  }
  SUBCASE("terminating pods are excluded") {
    cs[0].topology_key = "node";
    w.nodes = {{"node-a", {{"node", "node-a"}}, {}}, {"node-b", {{"node", "node-b"}}, {}}};
    w.pods = {{"node-a", foo, "default", true}, {"node-b", foo}};
    w.build(pod);
    CHECK(w.codes() == std::map<std::string, status_code>{{"node-a", ok}, {"node-b", no}});
  }
  SUBCASE("incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits") {
    cs[0].topology_key = "node";
    k8s::node_selector_term term;
    term.match_expressions.push_back({"node", "In", {"node-a", "node-y"}});
    placement.required_node_affinity = k8s::node_selector{{term}};
    w.pods = {{"node-a", foo}, {"node-a", foo}, {"node-b", foo},
              {"node-y", foo}, {"node-y", foo}, {"node-y", foo}};
    w.build(pod);
    const auto c = w.codes();
    CHECK(c.at("node-a") == ok);  // min is 2 (node-a), node-b/x do not count
    CHECK(c.at("node-y") == no);
  }
  SUBCASE("2/2/1 with minDomains 4 > 3 domains: the minimum is 0; only the third node fits") {
    cs[0].topology_key = "node";
    cs[0].max_skew = 2;
    cs[0].min_domains = 4;
    w.nodes = {{"node-a", {{"node", "node-a"}}, {}},
               {"node-b", {{"node", "node-b"}}, {}},
               {"node-c", {{"node", "node-c"}}, {}}};
    w.pods = {{"node-a", foo}, {"node-a", foo}, {"node-b", foo}, {"node-b", foo}, {"node-c", foo}};
    w.build(pod);
    CHECK(w.codes() ==
          std::map<std::string, status_code>{{"node-a", no}, {"node-b", no}, {"node-c", ok}});
    cs[0].min_domains = 2;
    w.build(pod);
    CHECK(w.codes() ==
          std::map<std::string, status_code>{{"node-a", ok}, {"node-b", ok}, {"node-c", ok}});
  }
  SUBCASE("NodeTaintsPolicy honored and ignored") {
    cs[0].topology_key = "node";
    w.nodes = {{"node-a", {{"node", "node-a"}, {"foo", ""}}, {}},
               {"node-b", {{"node", "node-b"}, {"foo", ""}}, {}},
               {"node-x", {{"node", "node-x"}, {"foo", ""}}, {}},
               {"node-y", {{"node", "node-y"}}, {{"foo", "", "NoSchedule"}}}};
    w.pods = {{"node-a", foo}, {"node-b", foo}, {"node-y", foo}};
    cs[0].node_taints_policy = k8s::node_inclusion_policy::honor;
    w.build(pod);
    CHECK(w.codes() == std::map<std::string, status_code>{
                           {"node-a", no}, {"node-b", no}, {"node-x", ok}, {"node-y", ok}});
    cs[0].node_taints_policy.reset();
    w.build(pod);
    CHECK(w.codes() == std::map<std::string, status_code>{
                           {"node-a", no}, {"node-b", no}, {"node-x", ok}, {"node-y", no}});
  }
  SUBCASE("matchLabelKeys narrow the selector to the pod's own value") {
    cs[0].topology_key = "node";
    cs[0].match_label_keys = {"version"};
    k8s::label_set v1{{"foo", ""}, {"version", "1"}}, v2{{"foo", ""}, {"version", "2"}};
    const k8s::spread_pod p1{"default", &v1, cs, &placement};
    w.pods = {{"node-a", v2}, {"node-a", v2}, {"node-b", v1}};
    w.build(p1);
    // version=1 pods: 0/1/0/0
    CHECK(w.codes() == std::map<std::string, status_code>{
                           {"node-a", ok}, {"node-b", no}, {"node-x", ok}, {"node-y", ok}});
  }
}

TEST_CASE("kubernetes topology spread: RemovePod and AddPod change the node's own domain") {
  k8s::pod_placement placement;
  std::vector<k8s::spread_constraint> cs(1);
  cs[0].topology_key = "zone";
  cs[0].selector = exists("foo");
  cs[0].do_not_schedule = true;
  const k8s::spread_pod pod{"default", &foo, cs, &placement};
  world w;
  w.nodes = four_nodes();
  // zone1: 2 pods (node-a 1, node-b 1), zone2: 1 pod (node-x).
  w.pods = {{"node-a", foo}, {"node-b", foo}, {"node-x", foo}};
  w.build(pod);
  k8s::topology_spread_overlay o(&w.pre);
  o.reset(0);
  CHECK(o.filter().code() == no);  // 2 + 1 - 1 > 1
  o.update(world::to_facts(w.pods[0]), -1);
  CHECK(o.filter().is_success());  // zone1 now 1: 1 + 1 - 1
  o.update(world::to_facts(w.pods[0]), -1);
  CHECK(o.filter().is_success());  // zone1 0 is the minimum now: 0 + 1 - 0
  o.reset(2);
  CHECK(o.filter().is_success());  // zone2: 1 + 1 - 1
  o.update(world::to_facts(w.pods[2]), +1);
  CHECK(o.filter().is_success());  // zone2 2, the minimum 2 now: 2 + 1 - 2
  o.update(world::to_facts(w.pods[2]), +1);
  CHECK(o.filter().code() == no);  // zone2 3: 3 + 1 - 2 > 1
  // A pod of another namespace, or one the selector does not match, changes nothing.
  o.reset(0);
  o.update(k8s::pod_facts{"other", &foo, false, {}}, -1);
  CHECK(o.filter().code() == no);
  const k8s::label_set bar{{"bar", ""}};
  o.update(k8s::pod_facts{"default", &bar, false, {}}, -1);
  CHECK(o.filter().code() == no);
  // A terminating pod counts in the extension though not in the PreFilter, as upstream's.
  o.update(k8s::pod_facts{"default", &foo, true, {}}, -1);
  CHECK(o.filter().is_success());
}

}  // namespace topology_spread_test
