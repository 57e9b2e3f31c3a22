// SPDX-License-Identifier: Apache-2.0
// A pending pod group's reprieve with the filters its members were placed with: kube-scheduler
// v1.37's PodGroupEvaluator (selectVictimsOnDomain) adds each potential victim back with the
// PreFilter AddPod extension on every proposed assignment's cycle state (the victim's own node's
// NodeInfo, whichever node that is) and runs RunFilterPluginsWithNominatedPods with that cycle
// state on the member's node. Through workload::assignment_states: the placement keeps a
// kubernetes::filter_cluster state per placed member.
//
//   GA1  anti-affinity: the victim on another node of the member's zone is not reprieved (with the
//        shared resource states it would be: the member's node has room either way)
//   GA2  NodePorts: the victim on the member's node holding the member's host port is not
//        reprieved; the one beside it that holds another port is
//   GA3  the states leave as they came: a victim reprieved, then one evicted, a third reprieved
#include <doctest/doctest.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "preempt/kubernetes/kubernetes.hpp"
#include "preempt/preempt.hpp"
#include "support/workload_scene.hpp"

namespace group_assignment_states_test {

namespace k8s = preempt::kubernetes;
namespace model = preempt::model;
namespace wl = preempt::workload;

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

// First fit with each member's own view: PreFilter on the whole cluster, then every pod of lower
// priority than the group removed (RemovePod on the node, or from elsewhere), as the evaluator
// removes the potential victims before it places. Keeps each placed member's state.
struct filtered_first_fit {
  const model::resource_cluster* cluster;
  facts_of pods;
  nodes_of nodes;
  std::vector<k8s::placing_pod> members;
  int group_priority;
  std::vector<std::unique_ptr<view>> views = {};
  std::vector<std::optional<view::state_type>> states = {};

  template <class S>
  preempt::status operator()(std::span<const model::resource_pod* const> group,
                             wl::node_states<S>& node_states, std::span<std::size_t> out) {
    views.clear();
    states.assign(group.size(), std::nullopt);
    std::size_t placed = 0;
    for (std::size_t k = 0; k < group.size(); ++k) {
      views.push_back(std::make_unique<view>(*cluster, pods, nodes));
      views[k]->prefilter(members[k], {});
      for (std::size_t i = 0; i < node_states.size() && out[k] == wl::no_node; ++i) {
        view::state_type st = views[k]->make_state();
        views[k]->prepare_state(i, st);
        for (std::size_t j = 0; j < cluster->size(); ++j)
          for (const model::resource_pod& q : (*cluster)[j].pods())
            if (q.priority() < group_priority)
              (void)(j == i ? st.remove_pod(q) : st.remove_pod_elsewhere(q, j));
        if (!preempt::fits_with_nominated(st, *group[k],
                                          preempt::no_nominated_pods<model::resource_pod>))
          continue;
        out[k] = i;
        states[k].emplace(std::move(st));
        ++placed;
      }
    }
    return placed > 0 ? preempt::status::ok()
                      : preempt::status(preempt::status_code::unschedulable);
  }
  view::state_type& assignment_state(std::size_t k) { return *states[k]; }
};
static_assert(wl::assignment_states<filtered_first_fit, model::resource_pod>);

// The victims' uids of the group {member} (priority 100) over the cluster.
std::set<model::pod_id> victims(const model::resource_cluster& c, filtered_first_fit& place,
                                const model::resource_pod& member, wl::group_decision_kind* kind) {
  const wlf::groups groups;
  const model::resource_pod* members[] = {&member};
  wl::group_preemptor<model::resource_pod> g;
  g.priority = 100;
  g.members = members;
  wl::pod_group_evaluator<model::resource_cluster> ev;
  const auto& d =
      ev.evaluate(g, c, groups, preempt::no_budgets{}, preempt::no_nominations{}, place);
  *kind = d.kind;
  std::set<model::pod_id> out;
  for (const model::resource_pod* p : d.victims) out.insert(p->uid());
  return out;
}

}  // namespace

TEST_CASE(
    "GA1 [ours]: anti-affinity: a victim on another node of the member's zone stays a victim") {
  // node-a and node-b share zone z1. uid 1 (app=x, priority 0) runs on node-b; node-a is empty.
  // The member refuses app=x in its zone: with uid 1 gone it goes to node-a, and adding uid 1
  // back (on node-b, through the AddPod extension) makes node-a fail again.
  const k8s::label_set z1a{{"zone", "z1"}}, z1b{{"zone", "z1"}}, x{{"app", "x"}}, none;
  const std::vector<k8s::node_facts> nodes{{"node-a", &z1a, {}, false},
                                           {"node-b", &z1b, {}, false}};
  const std::vector<k8s::pod_filter_facts> pods{{{"default", &x, false, {}}, {}},
                                                {{"default", &none, false, {}}, {}}};
  model::resource_cluster c;
  c.add_node("node-a", {10000, 1 << 30, 110});
  c.add_node("node-b", {10000, 1 << 30, 110});
  c.add_pod(1, make(1, 0));
  std::vector<k8s::affinity_term> hate(1);
  hate[0].selector = k8s::label_selector{{{"app", "x"}}, {}};
  hate[0].topology_key = "zone";
  filtered_first_fit place{&c,
                           facts_of{&pods},
                           nodes_of{&nodes},
                           {{{"default", &none, false, {}}, {}, {}, hate, {}}},
                           100};
  const model::resource_pod member = make(2, 100);
  wl::group_decision_kind kind{};
  CHECK(victims(c, place, member, &kind) == std::set<model::pod_id>{1});
  CHECK(kind == wl::group_decision_kind::preempt);
}

TEST_CASE("GA2 [ours]: NodePorts: the victim holding the member's host port stays a victim") {
  // node-a holds uid 1 (hostPort 80) and uid 2 (hostPort 81), both priority 0; the member wants
  // hostPort 80. Reprieved most important first (equal: construction order): uid 1 back makes
  // the port conflict (victim); uid 2 back is fine.
  const k8s::label_set none;
  const std::vector<k8s::node_facts> nodes{{"node-a", &none, {}, false}};
  const std::vector<k8s::host_port> p80{{"", "TCP", 80}}, p81{{"", "TCP", 81}};
  const std::vector<k8s::pod_filter_facts> pods{{{"default", &none, false, {}}, p80},
                                                {{"default", &none, false, {}}, p81},
                                                {{"default", &none, false, {}}, p80}};
  model::resource_cluster c;
  c.add_node("node-a", {10000, 1 << 30, 110});
  c.add_pod(0, make(1, 0));
  c.add_pod(0, make(2, 0));
  filtered_first_fit place{&c,
                           facts_of{&pods},
                           nodes_of{&nodes},
                           {{{"default", &none, false, {}}, p80, {}, {}, {}}},
                           100};
  const model::resource_pod member = make(3, 100);
  wl::group_decision_kind kind{};
  CHECK(victims(c, place, member, &kind) == std::set<model::pod_id>{1});
  CHECK(kind == wl::group_decision_kind::preempt);
}

TEST_CASE("GA3 [ours]: the assignment states follow each victim added back and removed again") {
  // As GA1 with three pods on node-b: uid 1 (app=y), uid 2 (app=x), uid 3 (app=y), priorities
  // 30, 20, 10 (reprieved in that order). uid 2 comes back and is removed again: the member's
  // state must then count no app=x pod for uid 3's turn, or uid 3 would be evicted too.
  const k8s::label_set z1a{{"zone", "z1"}}, z1b{{"zone", "z1"}}, x{{"app", "x"}}, y{{"app", "y"}},
      none;
  const std::vector<k8s::node_facts> nodes{{"node-a", &z1a, {}, false},
                                           {"node-b", &z1b, {}, false}};
  const std::vector<k8s::pod_filter_facts> pods{{{"default", &y, false, {}}, {}},
                                                {{"default", &x, false, {}}, {}},
                                                {{"default", &y, false, {}}, {}},
                                                {{"default", &none, false, {}}, {}}};
  model::resource_cluster c;
  c.add_node("node-a", {10000, 1 << 30, 110});
  c.add_node("node-b", {10000, 1 << 30, 110});
  c.add_pod(1, make(1, 30));
  c.add_pod(1, make(2, 20));
  c.add_pod(1, make(3, 10));
  std::vector<k8s::affinity_term> hate(1);
  hate[0].selector = k8s::label_selector{{{"app", "x"}}, {}};
  hate[0].topology_key = "zone";
  filtered_first_fit place{&c,
                           facts_of{&pods},
                           nodes_of{&nodes},
                           {{{"default", &none, false, {}}, {}, {}, hate, {}}},
                           100};
  const model::resource_pod member = make(4, 100);
  wl::group_decision_kind kind{};
  CHECK(victims(c, place, member, &kind) == std::set<model::pod_id>{2});
  CHECK(kind == wl::group_decision_kind::preempt);
}

}  // namespace group_assignment_states_test
