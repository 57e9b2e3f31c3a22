// SPDX-License-Identifier: Apache-2.0
// The InterPodAffinity filter and its AddPod/RemovePod extensions, with scenarios of upstream's
// interpodaffinity/filtering_test.go.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "preempt/kubernetes/inter_pod_affinity.hpp"

namespace inter_pod_affinity_test {

namespace k8s = preempt::kubernetes;
using preempt::status_code;

namespace {

k8s::label_selector in(std::string key, std::vector<std::string> values) {
  k8s::label_selector s;
  s.match_expressions.push_back({std::move(key), k8s::selector_operator::in, std::move(values)});
  return s;
}
k8s::affinity_term term(k8s::label_selector sel, std::string key) {
  k8s::affinity_term t;
  t.selector = std::move(sel);
  t.topology_key = std::move(key);
  return t;
}

struct test_pod {
  std::string node;
  k8s::label_set labels;
  std::string ns = "default";
  std::vector<k8s::affinity_term> anti = {};
  k8s::pod_facts facts() const { return {ns, &labels, false, anti}; }
};

struct world {
  std::vector<std::pair<std::string, k8s::label_set>> nodes;
  std::vector<test_pod> pods;
  std::vector<std::pair<std::string, k8s::label_set>> namespaces;
  std::vector<std::vector<k8s::pod_facts>> on_node;
  k8s::inter_pod_affinity_prefilter pre;

  void build(const k8s::affinity_pod& p) {
    on_node.assign(nodes.size(), {});
    for (const test_pod& q : pods)
      for (std::size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].first == q.node) on_node[i].push_back(q.facts());
    std::vector<k8s::namespace_facts> ns;
    for (const auto& [name, labels] : namespaces) ns.push_back({name, &labels});
    pre.prefilter(
        p, ns, nodes.size(),
        [&](std::size_t i) -> const k8s::label_set& { return nodes[i].second; },
        [&](std::size_t i, const auto& visit) {
          for (const k8s::pod_facts& q : on_node[i]) visit(q);
        });
  }
  preempt::status filter(std::size_t i) const {
    k8s::inter_pod_affinity_overlay o(&pre);
    o.reset(nodes[i].second);
    return o.filter();
  }
};

const k8s::label_set security{{"service", "securityscan"}};

}  // namespace

TEST_CASE("kubernetes inter-pod affinity: TestRequiredAffinitySingleNode") {
  world w;
  w.nodes = {{"node1", {{"region", "r1"}, {"zone", "z11"}, {"hostname", "h1"}}}};
  const k8s::label_set label2{{"security", "S1"}};
  std::vector<k8s::affinity_term> aff, anti;
  // The spans must see the vectors as each subcase leaves them.
  const auto pod = [&] { return k8s::affinity_pod{"default", &label2, aff, anti}; };

  SUBCASE("no terms, no pods: skipped") {
    w.build(pod());
    CHECK_FALSE(w.pre.active());
    CHECK(w.filter(0).is_success());
  }
  SUBCASE("affinity In matches the existing pod") {
    aff = {term(in("service", {"securityscan", "value2"}), "region")};
    w.pods = {{"node1", security}};
    w.build(pod());
    CHECK(w.filter(0).is_success());
  }
  SUBCASE("affinity does not match a pod of another namespace") {
    aff = {term(in("service", {"securityscan", "value2"}), "region")};
    w.pods = {{"node1", security, "NS1"}};
    w.build(pod());
    CHECK(w.filter(0).code() == status_code::unschedulable_and_unresolvable);
    CHECK(w.filter(0).reasons()[0] == k8s::pod_affinity_reason);
  }
  SUBCASE("affinity and anti-affinity: the anti-affinity term matches the existing pod") {
    aff = {term(in("service", {"securityscan", "value2"}), "region")};
    anti = {term(in("service", {"securityscan", "value2"}), "zone")};
    w.pods = {{"node1", security}};
    w.build(pod());
    CHECK(w.filter(0).code() == status_code::unschedulable);
    CHECK(w.filter(0).reasons()[0] == k8s::pod_anti_affinity_reason);
  }
  SUBCASE("existing pod's anti-affinity is respected when the pod has no terms") {
    w.pods = {{"node1", security, "default", {term(in("security", {"S1"}), "zone")}}};
    w.build(pod());
    CHECK(w.pre.active());
    CHECK(w.filter(0).code() == status_code::unschedulable);
    CHECK(w.filter(0).reasons()[0] == k8s::existing_anti_affinity_reason);
    w.pods[0].anti = {term(in("security", {"S2"}), "zone")};
    w.build(pod());
    CHECK_FALSE(w.pre.active());
  }
  SUBCASE("pod matches its own labels in its affinity: the first pod of a group") {
    const k8s::label_set self{{"service", "securityscan"}};
    aff = {term(in("service", {"securityscan"}), "zone")};
    const k8s::affinity_pod first{"default", &self, aff, anti};
    w.build(first);
    CHECK(w.filter(0).is_success());
  }
  SUBCASE("namespaceSelector") {
    w.namespaces = {{"subteam1.team1", {{"team", "team1"}}},
                    {"subteam2.team1", {{"team", "team1"}}},
                    {"subteam1.team2", {{"team", "team2"}}}};
    k8s::affinity_term t = term(in("service", {"securityscan", "value2"}), "region");
    t.namespace_selector = in("team", {"team1"});
    aff = {t};
    w.pods = {{"node1", security, "subteam1.team1"}};
    w.build(pod());
    CHECK(w.filter(0).is_success());  // affinity with NamespaceSelector
    w.pods = {{"node1", security, "subteam1.team2"}};
    w.build(pod());
    CHECK(w.filter(0).code() == status_code::unschedulable_and_unresolvable);  // non-matching
    aff.clear();
    t.topology_key = "zone";
    anti = {t};
    const auto other = [&] { return k8s::affinity_pod{"subteam1.team1", &label2, aff, anti}; };
    w.pods = {{"node1", security, "subteam2.team1"}};
    w.build(other());
    CHECK(w.filter(0).code() == status_code::unschedulable);  // anti-affinity, matching
    anti[0].namespace_selector = k8s::label_selector{};       // matching all namespaces
    w.build(other());
    CHECK(w.filter(0).code() == status_code::unschedulable);
    anti[0].namespace_selector = in("team", {"team1"});
    w.pods = {{"node1", security, "subteam1.team2"}};
    w.build(other());
    CHECK(w.filter(0).is_success());  // anti-affinity, non-matching
  }
}

TEST_CASE("kubernetes inter-pod affinity: TestRequiredAffinityMultipleNodes") {
  world w;
  SUBCASE("the first pod of a collection is not blocked anywhere; it needs the keys") {
    const k8s::label_set own{{"foo", "bar"}, {"service", "securityscan"}};
    std::vector<k8s::affinity_term> aff{term(in("foo", {"bar"}), "zone"),
                                        term(in("service", {"securityscan"}), "zone")},
        anti;
    const k8s::affinity_pod p{"default", &own, aff, anti};
    w.pods = {{"nodeA", {{"foo", "bar"}}}};
    w.nodes = {{"nodeA", {{"zone", "az1"}, {"hostname", "h1"}}},
               {"nodeB", {{"zone", "az2"}, {"hostname", "h2"}}}};
    w.build(p);
    CHECK(w.filter(0).is_success());
    CHECK(w.filter(1).is_success());
    w.nodes = {{"nodeA", {{"zoneLabel", "az1"}, {"hostname", "h1"}}},
               {"nodeB", {{"zoneLabel", "az2"}, {"hostname", "h2"}}}};
    w.build(p);
    CHECK(w.filter(0).code() == status_code::unschedulable_and_unresolvable);
    CHECK(w.filter(1).code() == status_code::unschedulable_and_unresolvable);
  }
  SUBCASE("anti-affinity blocks every node sharing the domain") {
    const k8s::label_set none;
    std::vector<k8s::affinity_term> aff, anti{term(in("foo", {"abc"}), "region")};
    const k8s::affinity_pod pod{"default", &none, aff, anti};
    w.pods = {{"nodeA", {{"foo", "abc"}}}};
    w.nodes = {{"nodeA", {{"region", "r1"}, {"hostname", "nodeA"}}},
               {"nodeB", {{"region", "r1"}, {"hostname", "nodeB"}}},
               {"nodeC", {{"region", "r2"}, {"hostname", "nodeC"}}}};
    w.build(pod);
    CHECK(w.filter(0).code() == status_code::unschedulable);
    CHECK(w.filter(1).code() == status_code::unschedulable);
    CHECK(w.filter(2).is_success());
  }
}

TEST_CASE("kubernetes inter-pod affinity: AddPod and RemovePod (TestPreFilterStateAddRemovePod)") {
  world w;
  w.nodes = {{"nodeA", {{"region", "r1"}, {"zone", "z11"}}},
             {"nodeB", {{"region", "r1"}, {"zone", "z12"}}},
             {"nodeC", {{"region", "r2"}, {"zone", "z21"}}}};
  const k8s::label_set own{{"security", "S1"}};
  std::vector<k8s::affinity_term> aff{term(in("security", {"S1"}), "region")},
      anti{term(in("security", {"S2"}), "zone")};
  const k8s::affinity_pod pod{"default", &own, aff, anti};
  w.pods = {{"nodeA", {{"security", "S1"}}}};
  w.build(pod);
  k8s::inter_pod_affinity_overlay o(&w.pre);
  // nodeB shares region r1 with the matching pod on nodeA.
  o.reset(w.nodes[1].second);
  CHECK(o.filter().is_success());
  // Adding a pod of security S2 on nodeB: its zone z12 is now excluded by anti-affinity.
  const test_pod s2{"nodeB", {{"security", "S2"}}};
  o.update(s2.facts(), +1);
  CHECK(o.count(k8s::inter_pod_affinity_prefilter::anti, "zone", "z12") == 1);
  CHECK(o.filter().code() == status_code::unschedulable);
  o.update(s2.facts(), -1);
  CHECK(o.pairs(k8s::inter_pod_affinity_prefilter::anti) == 0);
  CHECK(o.filter().is_success());
  // Removing the only matching pod on nodeA: no pod anywhere matches, and the pod matches its own
  // terms, so the first-pod rule lets nodeA pass.
  o.reset(w.nodes[0].second);
  o.update(w.pods[0].facts(), -1);
  CHECK(o.pairs(k8s::inter_pod_affinity_prefilter::affinity) == 0);
  CHECK(o.filter().is_success());
  // A pod with anti-affinity against this pod, added to nodeA, blocks it (existing anti-affinity).
  const test_pod hater{"nodeA", {}, "default", {term(in("security", {"S1"}), "zone")}};
  o.reset(w.nodes[0].second);
  o.update(hater.facts(), +1);
  CHECK(o.filter().code() == status_code::unschedulable);
  CHECK(o.filter().reasons()[0] == k8s::existing_anti_affinity_reason);
}

TEST_CASE(
    "kubernetes inter-pod affinity: the overlay after RemovePod agrees with a PreFilter "
    "of the cluster without the pod") {
  // Terms sharing a topology key (their pair is counted once per term), terms on keys a node
  // lacks, and placed pods' terms on several of a node's labels.
  const k8s::label_set own{{"app", "web"}, {"team", "t0"}};
  const std::vector<k8s::affinity_term> aff{term(in("team", {"t0"}), "zone"),
                                            term(in("app", {"web", "db"}), "zone"),
                                            term(in("app", {"web", "db"}), "rack")};
  const std::vector<k8s::affinity_term> anti{term(in("team", {"t1"}), "hostname"),
                                             term(in("app", {"db"}), "hostname"),
                                             term(in("app", {"db"}), "zone")};
  const std::vector<k8s::affinity_term> hates_web{term(in("app", {"web"}), "zone"),
                                                  term(in("app", {"web"}), "hostname")};
  const k8s::affinity_pod pod{"default", &own, aff, anti};
  world full;
  full.nodes = {{"n0", {{"hostname", "n0"}, {"rack", "r0"}, {"zone", "z0"}}},
                {"n1", {{"hostname", "n1"}, {"zone", "z0"}}},
                {"n2", {{"hostname", "n2"}, {"rack", "r1"}, {"zone", "z1"}}}};
  full.pods = {{"n0", {{"app", "web"}, {"team", "t0"}}},
               {"n0", {{"app", "db"}, {"team", "t1"}}},
               {"n0", {{"app", "cache"}}, "default", hates_web},
               {"n1", {{"app", "db"}, {"team", "t0"}}},
               {"n2", {{"app", "web"}, {"team", "t0"}}},
               {"n2", {{"team", "t1"}}, "default", hates_web}};
  full.build(pod);
  REQUIRE(full.pre.active());
  CHECK(full.pre.match_of(0, 3) == nullptr);  // n0 has three pods
  CHECK(full.pre.match_of(3, 0) == nullptr);  // three nodes
  const std::size_t count = full.pods.size();
  // Every subset of the pods, removed through the overlay of their node (pods of other nodes
  // stay), against a PreFilter of the world without them.
  for (unsigned mask = 0; mask < (1u << count); ++mask) {
    for (std::size_t n = 0; n < full.nodes.size(); ++n) {
      world less;
      less.nodes = full.nodes;
      // o matches the pods' terms again; known takes what the PreFilter found of them.
      k8s::inter_pod_affinity_overlay o(&full.pre), known(&full.pre);
      o.reset(full.nodes[n].second);
      known.reset(full.nodes[n].second);
      std::size_t pos = 0;  // the pod's position among its node's pods
      for (std::size_t k = 0; k < count; ++k) {
        const bool here = full.pods[k].node == full.nodes[n].first;
        if (here && (mask >> k & 1u) != 0) {
          o.update(full.pods[k].facts(), -1);
          REQUIRE(full.pre.match_of(n, pos) != nullptr);
          known.update(full.pods[k].facts(), -1, full.pre.match_of(n, pos));
        } else {
          less.pods.push_back(full.pods[k]);
        }
        pos += here ? 1 : 0;
      }
      less.build(pod);
      CAPTURE(mask);
      CAPTURE(n);
      const preempt::status want = less.filter(n), got = o.filter();
      CHECK(got.code() == want.code());
      CHECK(known.filter().code() == want.code());
      CHECK(std::equal(got.reasons().begin(), got.reasons().end(), want.reasons().begin(),
                       want.reasons().end()));
      for (const auto tab :
           {k8s::inter_pod_affinity_prefilter::existing_anti,
            k8s::inter_pod_affinity_prefilter::affinity, k8s::inter_pod_affinity_prefilter::anti}) {
        CHECK(o.pairs(tab) == less.pre.pairs(tab));
        CHECK(known.pairs(tab) == less.pre.pairs(tab));
        for (const auto& [key, value] : full.nodes[n].second) {
          CHECK(o.count(tab, key, value) == less.pre.count(tab, key, value));
          CHECK(known.count(tab, key, value) == less.pre.count(tab, key, value));
        }
      }
      // Adding the removed pods back restores the full cluster's answer.
      for (std::size_t k = 0; k < count; ++k)
        if ((mask >> k & 1u) != 0 && full.pods[k].node == full.nodes[n].first)
          o.update(full.pods[k].facts(), +1);
      CHECK(o.filter().code() == full.filter(n).code());
    }
  }
}

}  // namespace inter_pod_affinity_test
