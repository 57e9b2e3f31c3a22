// SPDX-License-Identifier: Apache-2.0
// A pod group evicted whole while one node is evaluated: kube-scheduler v1.37's SelectVictimsOnNode
// (DefaultPreemption with GenericWorkload) removes every member of a victim unit, and for members
// on other nodes it runs the PreFilter extensions (RemovePod, AddPod when the unit is reprieved)
// with that node's NodeInfo, so PodTopologySpread's and InterPodAffinity's counts see the whole
// group leave (default_preemption.go: removeVictim/addVictim over DomainVictim.Pods()). Through
// kubernetes::filter_cluster's remove_pod_elsewhere/add_pod_elsewhere.
//
//   CX1  anti-affinity against the group's label in a zone both nodes share: only with the remote
//        member removed does the preemptor fit on node-a (upstream nominates node-a)
//   CX2  spread: removing the remote member lowers another domain's count, the global minimum
//        falls, and node-a is no candidate (upstream finds none)
//   CX3  the overlays themselves: a remote pod of another zone changes only the number of pairs;
//        one of the same zone changes the node's count; reset forgets both
#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "preempt/kubernetes/kubernetes.hpp"
#include "preempt/preempt.hpp"
#include "support/workload_scene.hpp"

namespace group_members_elsewhere_test {

namespace k8s = preempt::kubernetes;
namespace model = preempt::model;

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

model::resource_pod make(model::pod_id uid, int priority) {
  return model::resource_pod(
      {.uid = uid, .priority = priority, .requests = {100, 1}, .start_time = 1});
}

// Evaluates `preemptor` over the view with the groups; nodes other than node 0 are made
// UnschedulableAndUnresolvable (as a taint would), node 0 Unschedulable.
std::vector<model::pod_id> nominate_node0(const view& v, const wlf::groups& groups,
                                          const model::resource_pod& preemptor,
                                          std::string* outcome) {
  preempt::filter_statuses statuses(v.size(), preempt::status_code::unschedulable_and_unresolvable);
  statuses.set(0, preempt::status_code::unschedulable);
  preempt::evaluator<view> ev;
  const auto& d = ev.evaluate(preemptor, v, groups, statuses, preempt::no_budgets{},
                              preempt::no_nominations{}, preempt::inline_executor{});
  std::vector<model::pod_id> out;
  *outcome = std::string(preempt::to_string(d.kind));
  if (d.kind == preempt::decision_kind::nominated)
    for (const model::resource_pod* p : d.victims) out.push_back(p->uid());
  return out;
}

}  // namespace

TEST_CASE("CX1 [ours]: anti-affinity: the group's member on the other node leaves too") {
  // node-a and node-b share zone z1; group g (disruption mode all, priority 0) has uid 1 on
  // node-a and uid 2 on node-b, both labelled app=g. The preemptor refuses app=g in its zone.
  const k8s::label_set z1a{{"zone", "z1"}}, z1b{{"zone", "z1"}}, g{{"app", "g"}}, none;
  const std::vector<k8s::node_facts> nodes{{"node-a", &z1a, {}, false},
                                           {"node-b", &z1b, {}, false}};
  const std::vector<k8s::pod_filter_facts> pods{{{"default", &g, false, {}}, {}},
                                                {{"default", &g, false, {}}, {}}};
  model::resource_cluster c;
  c.add_node("node-a", {10000, 1 << 30, 110});
  c.add_node("node-b", {10000, 1 << 30, 110});
  c.add_pod(0, make(1, 0));
  c.add_pod(1, make(2, 0));
  wlf::groups groups;
  const std::size_t grp = groups.add("g", preempt::workload::group_kind::pod_group, true, 0);
  groups.link(1, {true, grp});
  groups.link(2, {true, grp});

  std::vector<k8s::affinity_term> hate(1);
  hate[0].selector = k8s::label_selector{{{"app", "g"}}, {}};
  hate[0].topology_key = "zone";
  view v(c, facts_of{&pods}, nodes_of{&nodes});
  v.prefilter(k8s::placing_pod{{"default", &none, false, {}}, {}, {}, hate, {}, nullptr}, {});
  const model::resource_pod preemptor = make(9, 100);
  std::string outcome;
  CHECK(nominate_node0(v, groups, preemptor, &outcome) == std::vector<model::pod_id>{1, 2});
  CHECK(outcome == "nominated");
}

TEST_CASE("CX2 [ours]: spread: the group's member on another node lowers the global minimum") {
  // maxSkew 1 over zone for app=web. z1 (node-a): uid 1 (group g) and uid 3 (priority 1000);
  // z2 (node-b): uid 2 (group g); z3 (node-c): uid 4 (priority 1000). The preemptor is web too.
  // Evicting g on node-a leaves z1 = 1 and, with the remote member gone, z2 = 0: the minimum is
  // 0 and the skew 1 + 1 - 0 = 2 > 1. (Counting node-a's change alone: minimum 1, skew 1, fits.)
  const k8s::label_set z1{{"zone", "z1"}}, z2{{"zone", "z2"}}, z3{{"zone", "z3"}},
      web{{"app", "web"}};
  const std::vector<k8s::node_facts> nodes{
      {"node-a", &z1, {}, false}, {"node-b", &z2, {}, false}, {"node-c", &z3, {}, false}};
  const std::vector<k8s::pod_filter_facts> pods(
      4, k8s::pod_filter_facts{{"default", &web, false, {}}, {}});
  model::resource_cluster c;
  for (const char* n : {"node-a", "node-b", "node-c"}) c.add_node(n, {10000, 1 << 30, 110});
  c.add_pod(0, make(1, 0));
  c.add_pod(1, make(2, 0));
  c.add_pod(0, make(3, 1000));
  c.add_pod(2, make(4, 1000));
  wlf::groups groups;
  const std::size_t grp = groups.add("g", preempt::workload::group_kind::pod_group, true, 0);
  groups.link(1, {true, grp});
  groups.link(2, {true, grp});

  std::vector<k8s::spread_constraint> spread(1);
  spread[0].topology_key = "zone";
  spread[0].do_not_schedule = true;
  spread[0].selector = k8s::label_selector{{{"app", "web"}}, {}};
  const k8s::pod_placement placement;
  view v(c, facts_of{&pods}, nodes_of{&nodes});
  v.prefilter(k8s::placing_pod{{"default", &web, false, {}}, {}, {}, {}, spread, &placement}, {});
  const model::resource_pod preemptor = make(9, 100);
  std::string outcome;
  CHECK(nominate_node0(v, groups, preemptor, &outcome).empty());
  CHECK(outcome == "unschedulable");
}

TEST_CASE(
    "CX3 [ours]: the overlays: a pod elsewhere changes the shared pair or only the pair count") {
  const k8s::label_set z1a{{"zone", "z1"}}, z1b{{"zone", "z1"}}, z2{{"zone", "z2"}},
      g{{"app", "g"}}, none;
  const std::vector<k8s::node_facts> nodes{
      {"node-a", &z1a, {}, false}, {"node-b", &z1b, {}, false}, {"node-c", &z2, {}, false}};
  const std::vector<k8s::pod_filter_facts> pods{{{"default", &g, false, {}}, {}},
                                                {{"default", &g, false, {}}, {}}};
  model::resource_cluster c;
  for (const char* n : {"node-a", "node-b", "node-c"}) c.add_node(n, {10000, 1 << 30, 110});
  c.add_pod(1, make(1, 0));  // z1, on node-b
  c.add_pod(2, make(2, 0));  // z2, on node-c
  std::vector<k8s::affinity_term> hate(1);
  hate[0].selector = k8s::label_selector{{{"app", "g"}}, {}};
  hate[0].topology_key = "zone";
  view v(c, facts_of{&pods}, nodes_of{&nodes});
  v.prefilter(k8s::placing_pod{{"default", &none, false, {}}, {}, {}, hate, {}, nullptr}, {});
  const model::resource_pod preemptor = make(9, 100);
  auto state = v.make_state();
  v.prepare_state(0, state);
  CHECK(state.fits(preemptor).reasons()[0] == k8s::pod_anti_affinity_reason);
  // uid 2 is in z2: node-a's pair (zone, z1) keeps its count.
  REQUIRE(state.remove_pod_elsewhere(c[2].pods()[0], 2).is_success());
  CHECK_FALSE(state.fits(preemptor).is_success());
  // uid 1 shares z1: the count falls to 0, and node-a fits.
  REQUIRE(state.remove_pod_elsewhere(c[1].pods()[0], 1).is_success());
  CHECK(state.fits(preemptor).is_success());
  REQUIRE(state.add_pod_elsewhere(c[1].pods()[0], 1).is_success());
  CHECK_FALSE(state.fits(preemptor).is_success());
  REQUIRE(state.remove_pod_elsewhere(c[1].pods()[0], 1).is_success());
  v.prepare_state(0, state);  // a new node evaluation starts from the PreFilter's counts
  CHECK_FALSE(state.fits(preemptor).is_success());
}

}  // namespace group_members_elsewhere_test
