// The kube-scheduler releases the library decides as (preempt/upstream_profile.hpp): v1.37, the
// default, and v1.38's preemption changes, each checked on the rows of upstream's own tests that
// the v1.38 changes added or changed:
//   - kubernetes/kubernetes#141785, TestFilterVictimsWithPDBViolation: "PDB with empty selector"
//     (now violating), "PDB with nil selector" (new, not violating), "unlabeled victim matching
//     PDB" (new, violating), through kubernetes::budget_selects and then a whole decision;
//   - the pod-group evaluator as merged for v1.38 (kubernetes/kubernetes#141932 and the changes
//     after it): TestDefaultPreemptionManager_GenerateVictims/"ordering by PDB: non-violating
//     victims are ordered before violating victims regardless of priority" (the victims as
//     reprieved, so the last one dispatched differs), the ongoing preemption found before the
//     policy, and "No preemption victims found for incoming preemptor" as Unschedulable.
// Under the default profile every answer is v1.37's (tests/workload/workload.test.cpp holds the
// rest).
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "preempt/kubernetes/labels.hpp"
#include "preempt/preempt.hpp"
#include "support/workload_scene.hpp"

namespace upstream_profile_test {

namespace {

namespace k8s = preempt::kubernetes;
namespace wl = preempt::workload;
using preempt::upstream_profile;

constexpr upstream_profile v1_37 = upstream_profile::kubernetes_1_37;
constexpr upstream_profile v1_38 = upstream_profile::kubernetes_1_38;

k8s::label_selector match_labels(std::string key, std::string value) {
  k8s::label_selector s;
  s.match_labels.emplace_back(std::move(key), std::move(value));
  return s;
}

k8s::label_selector expression(std::string key, k8s::selector_operator op) {
  k8s::label_selector s;
  s.match_expressions.push_back({std::move(key), op, {}});
  return s;
}

}  // namespace

TEST_CASE("upstream profile: names, parsing and the default") {
  CHECK(preempt::default_upstream_profile == v1_37);
  CHECK(preempt::to_string(v1_37) == "1.37");
  CHECK(preempt::to_string(v1_38) == "1.38");
  CHECK(preempt::parse_upstream_profile("1.38") == v1_38);
  CHECK(preempt::parse_upstream_profile("v1.37") == v1_37);
  CHECK_FALSE(preempt::parse_upstream_profile("1.39").has_value());
  CHECK_FALSE(preempt::parse_upstream_profile("").has_value());
  static_assert(wl::group_evaluator_config{}.profile == v1_37);
}

// TestFilterVictimsWithPDBViolation's victims: viMatchPDB (default/p1, app=foo) and viNoLabels
// (default/p1, no labels); the budgets are in the pods' namespace.
TEST_CASE("TestFilterVictimsWithPDBViolation/\"PDB with empty selector\"") {
  const k8s::label_set foo{{"app", "foo"}};
  const k8s::label_selector everything;                      // selector: {}
  CHECK_FALSE(k8s::budget_selects(everything, foo, v1_37));  // v1.37: matches nothing
  CHECK(k8s::budget_selects(everything, foo, v1_38));        // v1.38: every pod
  CHECK(k8s::budget_selects(everything, k8s::label_set{}, v1_38));
  CHECK_FALSE(k8s::budget_selects(everything, k8s::label_set{}, v1_37));
}

TEST_CASE("TestFilterVictimsWithPDBViolation/\"unlabeled victim matching PDB\"") {
  const k8s::label_selector no_app = expression("app", k8s::selector_operator::does_not_exist);
  const k8s::label_set none;
  CHECK_FALSE(k8s::budget_selects(no_app, none, v1_37));  // v1.37 skips unlabelled pods
  CHECK(k8s::budget_selects(no_app, none, v1_38));
  CHECK_FALSE(k8s::budget_selects(no_app, k8s::label_set{{"app", "foo"}}, v1_38));
}

TEST_CASE("TestFilterVictimsWithPDBViolation: rows unchanged by v1.38") {
  const k8s::label_set foo{{"app", "foo"}};
  for (upstream_profile p : {v1_37, v1_38}) {
    CAPTURE(preempt::to_string(p));
    // "victim with no matching PDBs", "victim matching PDB, ...", "Multiple PDBs".
    CHECK_FALSE(k8s::budget_selects(match_labels("app", "bar"), foo, p));
    CHECK(k8s::budget_selects(match_labels("app", "foo"), foo, p));
    CHECK_FALSE(k8s::budget_selects(match_labels("tier", "backend"), foo, p));
    // An invalid selector matches no pod in either release.
    k8s::label_selector invalid = expression("app", k8s::selector_operator::in);  // no values
    CHECK_FALSE(k8s::budget_selects(invalid, foo, p));
    CHECK_FALSE(k8s::budget_selects(invalid, k8s::label_set{}, p));
  }
  // "PDB with nil selector": a budget without a selector selects nothing in either release; the
  // adapter has no selector to match, so the caller registers no member (as preempt-whatif does).
}

namespace {

// Two nodes with room for one pod each (cpu): n1 holds u1 (namespace 0, no labels, priority 10), n2
// holds v2 (namespace 1, priority 20); a budget in namespace 0 with `selector: {}` and no
// disruption allowed. The budget's members are what kubernetes::budget_selects says under the
// profile.
struct empty_selector_cluster {
  preempt::model::resource_cluster cluster;
  preempt::model::budget_table budgets;

  explicit empty_selector_cluster(upstream_profile profile) {
    using preempt::model::resource_pod;
    const auto n1 = cluster.add_node("n1", {150, 1 << 20, 110});
    const auto n2 = cluster.add_node("n2", {150, 1 << 20, 110});
    cluster.add_pod(
        n1,
        resource_pod(
            {.uid = 1, .priority = 10, .requests = {100, 0}, .start_time = 5, .namespace_id = 0}));
    cluster.add_pod(
        n2,
        resource_pod(
            {.uid = 2, .priority = 20, .requests = {100, 0}, .start_time = 5, .namespace_id = 1}));
    const std::size_t b = budgets.add_budget(0, 0);
    if (k8s::budget_selects(k8s::label_selector{}, k8s::label_set{}, profile))
      budgets.add_member(b, 1);
  }
};

}  // namespace

TEST_CASE("v1.38: a budget with selector {} protects an unlabelled pod, and the choice moves") {
  const preempt::model::resource_pod preemptor(
      {.uid = 9, .priority = 100, .requests = {100, 0}, .start_time = {}});
  preempt::filter_statuses statuses(2, preempt::status_code::unschedulable);
  preempt::nomination_ledger<preempt::model::resource_pod> ledger(2);
  preempt::evaluator<preempt::model::resource_cluster> ev;

  SUBCASE("v1.37: the budget selects nothing; the lower victim priority wins (n1)") {
    empty_selector_cluster c(v1_37);
    const auto& d = ev.evaluate(preemptor, c.cluster, statuses, c.budgets, ledger.reader(),
                                preempt::inline_executor{},
                                preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
    REQUIRE(d.kind == preempt::decision_kind::nominated);
    CHECK(d.node_name == "n1");
    CHECK(d.pdb_violations == 0);
  }
  SUBCASE("v1.38: evicting u1 violates the budget; the node without violation wins (n2)") {
    empty_selector_cluster c(v1_38);
    const auto& d = ev.evaluate(preemptor, c.cluster, statuses, c.budgets, ledger.reader(),
                                preempt::inline_executor{},
                                preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
    REQUIRE(d.kind == preempt::decision_kind::nominated);
    CHECK(d.node_name == "n2");
    CHECK(d.pdb_violations == 0);
    REQUIRE(d.candidates.size() == 2);
    for (const auto& cand : d.candidates)
      if (cand.node_name == "n1") CHECK(cand.pdb_violations == 1);
  }
}

namespace {

using evaluator = wl::pod_group_evaluator<preempt::model::resource_cluster>;

const wl::group_decision<wlf::pod>& evaluate(evaluator& ev, const wlf::scene& s,
                                             const wl::group_preemptor<wlf::pod>& g,
                                             std::size_t min_count = 1) {
  return ev.evaluate(g, s.cluster, s.grps, s.budgets, preempt::no_nominations{},
                     wlf::round_robin{min_count});
}

std::vector<std::string> in_order(const wlf::scene& s, std::span<const wlf::pod* const> pods) {
  std::vector<std::string> out;
  for (const wlf::pod* p : pods) out.push_back(s.names.at(p->uid()));
  return out;
}

}  // namespace

TEST_CASE(
    "TestDefaultPreemptionManager_GenerateVictims/\"ordering by PDB: non-violating victims are "
    "ordered before violating victims regardless of priority\"") {
  // mid-unprotected (mid) and low-protected (low, app=foo, budget allowing 0) share the only node;
  // the group needs both slots, so both are victims: low-protected violating, mid-unprotected not.
  wlf::scene s;
  s.node("node1", 2);
  s.add({.name = "mid-unprotected", .node = "node1", .priority = wlf::mid});
  s.add({.name = "low-protected", .node = "node1", .priority = wlf::low, .foo = true});
  s.pdb_foo(0);
  s.member("m1");
  s.member("m2");

  SUBCASE("v1.37: the victims sorted by importance again; the violating one is dispatched last") {
    evaluator ev;
    const auto& d = evaluate(ev, s, s.preemptor(), 2);
    REQUIRE(d.kind == wl::group_decision_kind::preempt);
    CHECK(in_order(s, d.victims) == std::vector<std::string>{"mid-unprotected", "low-protected"});
    CHECK(d.pdb_violations == 1);
  }
  SUBCASE("v1.38: as reprieved, violating first; the non-violating one is dispatched last") {
    evaluator ev(wl::group_evaluator_config{.profile = v1_38});
    const auto& d = evaluate(ev, s, s.preemptor(), 2);
    REQUIRE(d.kind == wl::group_decision_kind::preempt);
    CHECK(in_order(s, d.victims) == std::vector<std::string>{"low-protected", "mid-unprotected"});
    CHECK(d.pdb_violations == 1);
  }
}

TEST_CASE("v1.38 pod groups: the same victims in the same order when none violates") {
  wlf::scene s;
  s.node("node1", 3);
  s.add({.name = "a", .node = "node1", .priority = wlf::mid, .start = 1});
  s.add({.name = "b", .node = "node1", .priority = wlf::low, .start = 2});
  s.add({.name = "c", .node = "node1", .priority = wlf::low, .start = 3});
  s.member("m1");
  s.member("m2");
  evaluator old_ev, new_ev(wl::group_evaluator_config{.profile = v1_38});
  const auto& d37 = evaluate(old_ev, s, s.preemptor(), 2);
  const auto& d38 = evaluate(new_ev, s, s.preemptor(), 2);
  REQUIRE(d37.kind == wl::group_decision_kind::preempt);
  REQUIRE(d38.kind == wl::group_decision_kind::preempt);
  CHECK(in_order(s, d37.victims) == in_order(s, d38.victims));
  CHECK(in_order(s, d38.victims) == std::vector<std::string>{"b", "c"});
}

TEST_CASE("v1.38 pod groups: a waiting group with preemptionPolicy Never is ongoing (Success)") {
  // WG8 and WG9 together: a member nominated to node n1, where a lower-priority pod is
  // terminating because of preemption; the group's policy is Never.
  wlf::scene s;
  s.node("n1", 100);
  s.add({.name = "victim", .node = "n1", .terminating = true});
  s.member("p1");
  s.member("p2", 0);
  const auto g = s.preemptor(preempt::preemption_policy::never);

  evaluator old_ev;
  const auto& d37 = evaluate(old_ev, s, g);
  CHECK(d37.kind == wl::group_decision_kind::not_eligible);
  CHECK(d37.outcome.reason() == "not eligible due to preemptionPolicy=Never.");

  evaluator new_ev(wl::group_evaluator_config{.profile = v1_38});
  const auto& d38 = evaluate(new_ev, s, g);
  CHECK(d38.kind == wl::group_decision_kind::ongoing);
  CHECK(d38.outcome.code() == preempt::status_code::success);
  CHECK(d38.outcome.reason() == "ongoing preemption on nominated nodes");
  REQUIRE(d38.nominations.size() == 2);
  CHECK(d38.nominations[1] == wl::member_nomination{1, 0});

  SUBCASE("nothing to wait for: not eligible under both") {
    wlf::scene t;
    t.node("n1", 100);
    t.add({.name = "victim", .node = "n1"});
    t.member("p1", 0);
    const auto& d = evaluate(new_ev, t, t.preemptor(preempt::preemption_policy::never));
    CHECK(d.kind == wl::group_decision_kind::not_eligible);
  }
}

TEST_CASE(
    "v1.38 pod groups: \"No preemption victims found for incoming preemptor\" is Unschedulable") {
  // WG28: only higher-priority pods.
  wlf::scene s;
  s.group_priority = wlf::mid;
  s.node("n1", 100);
  s.add({.name = "p1", .node = "n1", .priority = wlf::high});
  s.member("p");
  evaluator old_ev, new_ev(wl::group_evaluator_config{.profile = v1_38});
  const auto& d37 = evaluate(old_ev, s, s.preemptor());
  CHECK(d37.kind == wl::group_decision_kind::unschedulable);
  CHECK(d37.outcome.code() == preempt::status_code::unschedulable_and_unresolvable);
  const auto& d38 = evaluate(new_ev, s, s.preemptor());
  CHECK(d38.kind == wl::group_decision_kind::unschedulable);
  CHECK(d38.outcome.code() == preempt::status_code::unschedulable);
  CHECK(d38.outcome.reason() == "No preemption victims found for incoming preemptor");
}

}  // namespace upstream_profile_test
