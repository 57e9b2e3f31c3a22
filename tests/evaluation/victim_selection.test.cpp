// Victim selection on one node (SelectVictimsOnNode, filterPodsWithPDBViolation, MoreImportantPod,
// RunFilterPluginsWithNominatedPods).
//
//   DRn  upstream TestDryRunPreemption scenarios, run node by node: per-node outcome,
//        victims (in the order select_victims returns them: descending importance), budget
//        violations and fit checks ("Filter calls"; without nominated pods one check per step).
//   PF8  the per-node half of TestPostFilter's "not enough resource after removal".
//   RVn  reprieve order: budget-violating victims first, each group in importance order, the
//        victims re-sorted when both groups gave some.
//   NPn  nominated pods and the two-pass rule, and state errors around them.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/filter_state.hpp"
#include "support/fixtures.hpp"

namespace victim_selection_test {

namespace {

using namespace fx;
using preempt::status_code;

std::vector<int> fit_checks(const std::vector<node_result>& rs) {
  std::vector<int> out;
  for (const auto& r : rs) out.push_back(r.fit_checks);
  return out;
}
std::vector<int> fit_checks(const std::vector<flt::node_result>& rs) {
  std::vector<int> out;
  for (const auto& r : rs) out.push_back(r.fit_checks);
  return out;
}

template <class R>
void check_no_victims_found(const R& r) {
  CHECK(r.outcome.code() == status_code::unschedulable_and_unresolvable);
  CHECK(r.outcome.reason() == "No preemption victims found for incoming pod");
  CHECK(r.victims.empty());
}

flt::test_pod foo_pod(std::string name, std::int32_t prio) {
  return {.name = std::move(name), .prio = prio, .labels = {{"foo", ""}}, .cpu = 100, .mem = 100};
}

}  // namespace

// ---- TestDryRunPreemption, node by node ---------------------------------------------------------

TEST_CASE(
    "DR4 [TestDryRunPreemption/\"a pod that fits on both nodes when lower priority pods are "
    "preempted\"]: both nodes are candidates after preempting their mid pod") {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2");
  c.add(n1, "p1", mid, large());
  c.add(n2, "p2", mid, large());
  const pod p = c.make("p", high, large());
  const auto r = select_on_each_node(c, p);
  REQUIRE(r.size() == 2);
  for (const auto& nr : r) {
    CHECK(nr.outcome.is_success());
    CHECK(nr.violations == 0);
  }
  CHECK(r[0].victims == name_list{"p1"});
  CHECK(r[1].victims == name_list{"p2"});
  CHECK(fit_checks(r) == std::vector<int>{2, 2});  // 4 in total
}

TEST_CASE(
    "DR5 [TestDryRunPreemption/\"a pod that would fit on the nodes, but other pods running are "
    "higher priority, no preemption would happen\"]: running pods of higher priority are never "
    "victims") {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2");
  c.add(n1, "p1", mid, large());
  c.add(n2, "p2", mid, large());
  const pod p = c.make("p", low, large());
  const auto r = select_on_each_node(c, p);
  REQUIRE(r.size() == 2);
  for (const auto& nr : r) check_no_victims_found(nr);
  CHECK(fit_checks(r) == std::vector<int>{0, 0});
}

TEST_CASE("DR5 [ours]: a pod of equal priority is never a victim") {
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "p1", mid, large());
  const pod p = c.make("p", mid, large());
  const auto r = select_on_each_node(c, p);
  check_no_victims_found(r[0]);
  CHECK(r[0].fit_checks == 0);
}

TEST_CASE(
    "DR6 [TestDryRunPreemption/\"medium priority pod is preempted, but lower priority one stays as "
    "it is small\"]: the mid pod is preempted, the small low pod stays") {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2");
  c.add(n1, "p1.1", low, small());
  c.add(n1, "p1.2", mid, large());
  c.add(n2, "p2", mid, large());
  const pod p = c.make("p", high, large());
  const auto r = select_on_each_node(c, p);
  REQUIRE(r.size() == 2);
  CHECK(r[0].outcome.is_success());
  CHECK(r[0].victims == name_list{"p1.2"});
  CHECK(r[1].outcome.is_success());
  CHECK(r[1].victims == name_list{"p2"});
  CHECK(fit_checks(r) == std::vector<int>{3, 2});  // 5 in total
}

TEST_CASE(
    "DR7 [TestDryRunPreemption/\"mixed priority pods are preempted\"]: the high pod stays, the "
    "small ones go in importance order") {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2");
  c.add(n1, "p1.1", mid, small());
  c.add(n1, "p1.2", low, small());
  c.add(n1, "p1.3", mid, medium());
  c.add(n1, "p1.4", high, small());
  c.add(n2, "p2", high, large());
  const pod p = c.make("p", high, large());
  const auto r = select_on_each_node(c, p);
  REQUIRE(r.size() == 2);
  CHECK(r[0].outcome.is_success());
  // p1.1 and p1.3 tie (mid, t0): node order decides, p1.1 is reprieved first and fits.
  CHECK(r[0].victims == name_list{"p1.3", "p1.2"});
  CHECK(r[0].violations == 0);
  check_no_victims_found(r[1]);
  CHECK(fit_checks(r) == std::vector<int>{4, 0});
}

TEST_CASE(
    "DR9 [TestDryRunPreemption/\"pod with anti-affinity is preempted\"]: the low pod whose "
    "anti-affinity rejects the preemptor is the only victim") {
  flt::test_cluster c;
  c.nodes = {flt::make_node("node1"), flt::make_node("node2")};
  flt::test_pod p11 = foo_pod("p1.1", low);
  p11.anti_affinity = flt::selector{"foo", ""};
  c.nodes[0].pod_list = {p11,
                         {.name = "p1.2", .prio = mid, .cpu = 100, .mem = 100},
                         {.name = "p1.3", .prio = high, .cpu = 100, .mem = 100}};
  c.nodes[1].pod_list = {{.name = "p2", .prio = high, .cpu = 100, .mem = 100}};
  const flt::test_pod p = foo_pod("p", high);

  const auto r = flt::select_on_each_node(c, p);
  REQUIRE(r.size() == 2);
  CHECK(r[0].outcome.is_success());
  CHECK(r[0].victims == name_list{"p1.1"});
  check_no_victims_found(r[1]);
  CHECK(fit_checks(r) == std::vector<int>{3, 0});
}

TEST_CASE(
    "DR10 [TestDryRunPreemption/\"preemption to resolve pod topology spread filter failure\"]: "
    "topology spread over zone and hostname picks one pod per node") {
  flt::test_cluster c;
  c.nodes = {flt::make_node("node-a", "zone1"), flt::make_node("node-b", "zone1"),
             flt::make_node("node-x", "zone2")};
  c.nodes[0].pod_list = {foo_pod("pod-a1", mid), foo_pod("pod-a2", low)};
  c.nodes[1].pod_list = {foo_pod("pod-b1", low)};
  c.nodes[2].pod_list = {foo_pod("pod-x1", high), foo_pod("pod-x2", high)};
  flt::test_pod p = foo_pod("p", high);
  p.spread = {{"zone", 1, {"foo", ""}}, {"hostname", 1, {"foo", ""}}};

  const auto r = flt::select_on_each_node(c, p);
  REQUIRE(r.size() == 3);
  CHECK(r[0].outcome.is_success());
  CHECK(r[0].victims == name_list{"pod-a2"});
  CHECK(r[1].outcome.is_success());
  CHECK(r[1].victims == name_list{"pod-b1"});
  check_no_victims_found(r[2]);
  CHECK(fit_checks(r) == std::vector<int>{3, 2, 0});  // 5 in total
}

TEST_CASE(
    "DR12 [TestDryRunPreemption/\"preemption with violation of same pdb\"]: two pods of one budget "
    "allowing one disruption: one violation") {
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "p1.1", mid, medium());
  c.add(n1, "p1.2", mid, medium());
  c.budget(1, {"p1.1", "p1.2"});
  const pod p = c.make("p", high, very_large());
  const auto r = select_on_each_node(c, p);
  CHECK(r[0].outcome.is_success());
  // p1.2 drives the budget below zero: it is reprieved (and evicted) first, and the re-sort by
  // importance (sort.Slice, an insertion sort here) keeps equal pods in place. Upstream's own
  // test sorts the victims by name before comparing.
  CHECK(r[0].victims == name_list{"p1.2", "p1.1"});
  CHECK(r[0].violations == 1);
  CHECK(r[0].fit_checks == 3);
}

TEST_CASE(
    "DR13 [TestDryRunPreemption/\"preemption with violation of the pdb with pod whose eviction was "
    "processed, the victim doesn't belong to DisruptedPods\"]: a disruptedPods entry for an "
    "unrelated pod changes nothing") {
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "p1.1", mid, medium());
  c.add(n1, "p1.2", mid, medium());
  c.budget(1, {"p1.1", "p1.2"}, {"p2"});
  const pod p = c.make("p", high, very_large());
  const auto r = select_on_each_node(c, p);
  CHECK(r[0].outcome.is_success());
  // p1.2 drives the budget below zero: it is reprieved (and evicted) first, and the re-sort by
  // importance (sort.Slice, an insertion sort here) keeps equal pods in place. Upstream's own
  // test sorts the victims by name before comparing.
  CHECK(r[0].victims == name_list{"p1.2", "p1.1"});
  CHECK(r[0].violations == 1);
  CHECK(r[0].fit_checks == 3);
}

TEST_CASE(
    "DR14 [TestDryRunPreemption/\"preemption with violation of the pdb with pod whose eviction was "
    "processed, the victim belongs to DisruptedPods\"]: a victim listed in disruptedPods uses no "
    "budget: no violation") {
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "p1.1", mid, medium());
  c.add(n1, "p1.2", mid, medium());
  c.budget(1, {"p1.1", "p1.2"}, {"p1.2"});
  const pod p = c.make("p", high, very_large());
  const auto r = select_on_each_node(c, p);
  CHECK(r[0].outcome.is_success());
  CHECK(r[0].victims == name_list{"p1.1", "p1.2"});
  CHECK(r[0].violations == 0);
  CHECK(r[0].fit_checks == 3);
}

TEST_CASE("DR14 [ours]: the disrupted pod may come first in importance order") {
  // p1.2 is older, so more important; it is exempt, and p1.1 takes the single disruption.
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "p1.1", mid, medium(), 5);
  c.add(n1, "p1.2", mid, medium(), 1);
  c.budget(1, {"p1.1", "p1.2"}, {"p1.2"});
  const pod p = c.make("p", high, very_large());
  const auto r = select_on_each_node(c, p);
  CHECK(r[0].victims == name_list{"p1.2", "p1.1"});
  CHECK(r[0].violations == 0);
}

TEST_CASE(
    "PF8 [TestPostFilter/\"no candidate nodes found, no enough resource after removing low "
    "priority pods\"]: per node, no room even without every lower pod: the fit status is the "
    "answer") {
  named_cluster c;
  const auto n1 = c.node("node1", node_res()), n2 = c.node("node2", node_res());
  c.add(n1, "p1", low, small());
  c.add(n2, "p2", low, small());
  const pod p = c.make("p", high, large());
  const auto r = select_on_each_node(c, p);
  REQUIRE(r.size() == 2);
  for (const auto& nr : r) {
    // The request is above the node's allocatable cpu: fitsRequest marks it Unresolvable.
    CHECK(nr.outcome.code() == status_code::unschedulable_and_unresolvable);
    CHECK(nr.outcome.reason() == "Insufficient cpu");
    CHECK(nr.victims.empty());
    // Without nominated pods: a yes/no can_fit, then fits for the reasons of the failing node.
    CHECK(nr.fit_checks == 2);
  }
}

// ---- Reprieve order ----------------------------------------------------------------------------

TEST_CASE("RV1 [ours]: budget-violating pods are reprieved before the others") {
  // Room for the preemptor plus one of the two pods. In importance order a (mid) would be
  // reprieved; but b violates its budget, so b is tried first and stays.
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "a", mid, medium());
  c.add(n1, "b", low, medium());
  const pod p = c.make("p", high, large());

  SUBCASE("without a budget, importance order decides") {
    const auto r = select_on_each_node(c, p);
    CHECK(r[0].victims == name_list{"b"});
    CHECK(r[0].violations == 0);
  }
  SUBCASE("with b violating, b is reprieved first") {
    c.budget(0, {"b"});
    const auto r = select_on_each_node(c, p);
    CHECK(r[0].victims == name_list{"a"});
    CHECK(r[0].violations == 0);

    preempt::model::resource_fit_state state;
    c.cluster.prepare_state(n1, state);
    counting_state<preempt::model::resource_fit_state> counted(state);
    preempt::victim_scratch<pod> scratch;
    (void)preempt::select_victims(p, c.cluster[n1], counted, c.budgets, scratch);
    CHECK(counted.added == std::vector<pod_id>{c.pod_ids.at("b"), c.pod_ids.at("a")});
  }
}

TEST_CASE(
    "RV2 [ours]: with violating and non-violating victims, victims still come out by importance") {
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "a", high, small());
  c.add(n1, "b", mid, small());
  c.add(n1, "c", low, small());
  c.budget(0, {"b"});
  const pod p = c.make("p", very_high, very_large());

  preempt::model::resource_fit_state state;
  c.cluster.prepare_state(n1, state);
  counting_state<preempt::model::resource_fit_state> counted(state);
  preempt::victim_scratch<pod> scratch;
  const auto r = preempt::select_victims(p, c.cluster[n1], counted, c.budgets, scratch);
  CHECK(r.outcome.is_success());
  // Reprieved b (violating) first, then a and c ...
  CHECK(counted.added ==
        std::vector<pod_id>{c.pod_ids.at("b"), c.pod_ids.at("a"), c.pod_ids.at("c")});
  // ... but the victims are in descending importance, not in reprieve order.
  CHECK(c.names(r.victims) == name_list{"a", "b", "c"});
  CHECK(r.pdb_violations == 1);
}

TEST_CASE("RV3 [ours]: within the violating group the more important pod is reprieved first") {
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "x", mid, medium());
  c.add(n1, "y", low, medium());
  c.add(n1, "z", low, small(), 9);  // non-violating; no room left for it after x is back
  c.budget(0, {"x", "y"});
  const pod p = c.make("p", high, large());
  const auto r = select_on_each_node(c, p);
  CHECK(r[0].victims == name_list{"y", "z"});
  CHECK(r[0].violations == 1);
}

TEST_CASE("RV4 [ours]: a success without victims when every potential victim is reprieved") {
  // Upstream's SelectVictimsOnNode returns success with no victims here; the dry run (not
  // select_victims) turns that into "expected at least one victim pod on node".
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "a", low, small());
  const pod p = c.make("p", high, small());
  const auto r = select_on_each_node(c, p);
  CHECK(r[0].outcome.is_success());
  CHECK(r[0].victims.empty());
  CHECK(r[0].fit_checks == 2);
  CHECK(candidates_of(r).empty());
}

TEST_CASE("RV5 [ours]: after selection the state reflects the node without its victims") {
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "p1.1", low, small());
  c.add(n1, "p1.2", mid, large());
  const pod p = c.make("p", high, large());
  preempt::model::resource_fit_state state;
  c.cluster.prepare_state(n1, state);
  preempt::victim_scratch<pod> scratch;
  const auto r = preempt::select_victims(p, c.cluster[n1], state, preempt::no_budgets{}, scratch);
  CHECK(c.names(r.victims) == name_list{"p1.2"});
  CHECK(state.requested()[preempt::model::resource::cpu] == 100);
  CHECK(state.requested()[preempt::model::resource::pods] == 1);
}

// ---- Nominated pods -----------------------------------------------------------------------------

namespace {

// node1 (500/500) runs `v` (low, large); the preemptor (high, medium) fits next to it unless a
// nominee of medium size is counted.
struct nominee_setup {
  named_cluster c;
  std::size_t n1 = c.node("node1");
  pod p = c.make("p", high, medium());

  nominee_setup() { c.add(n1, "v", low, large()); }

  struct outcome {
    preempt::status status;
    name_list victims;
    int fit_checks = 0;
    std::vector<pod_id> added;
  };

  template <class Nominated>
  outcome run(const Nominated& nominated) {
    preempt::model::resource_fit_state state;
    c.cluster.prepare_state(n1, state);
    counting_state<preempt::model::resource_fit_state> counted(state);
    preempt::victim_scratch<pod> scratch;
    const auto r = preempt::select_victims(p, c.cluster[n1], counted, c.budgets, nominated, scratch,
                                           preempt::default_policy{});
    // The state is back to "node without its victims": nominees were removed again.
    const std::int64_t victims_cpu = r.victims.empty() ? 0 : 300;
    CHECK(state.requested()[preempt::model::resource::cpu] == 300 - victims_cpu);
    return {r.outcome, c.names(r.victims), counted.checks(), counted.added};
  }
};

}  // namespace

TEST_CASE("NP1 [ours]: a nominee of equal or higher priority reserves its room") {
  nominee_setup s;
  SUBCASE("no nominee: v is reprieved, one fit check per step") {
    const auto o = s.run(preempt::no_nominated_pods<pod>);
    CHECK(o.status.is_success());
    CHECK(o.victims.empty());
    CHECK(o.fit_checks == 2);
  }
  SUBCASE("equal priority") {
    const pod n = s.c.make("n", high, medium());
    const std::vector<const pod*> nominated{&n};
    const auto o = s.run(nominated);
    CHECK(o.status.is_success());
    CHECK(o.victims == name_list{"v"});
    // Step 4: pass 1 (with n) and pass 2 (without); reprieve of v: pass 1 fails, no pass 2.
    CHECK(o.fit_checks == 3);
  }
  SUBCASE("higher priority, given as a range of pods") {
    const std::vector<pod> nominated{s.c.make("n", very_high, medium())};
    const auto o = s.run(nominated);
    CHECK(o.victims == name_list{"v"});
    CHECK(o.fit_checks == 3);
  }
}

TEST_CASE("NP2 [ours]: a nominee of lower priority is ignored") {
  nominee_setup s;
  const pod n = s.c.make("n", mid, medium());
  const std::vector<const pod*> nominated{&n};
  const auto o = s.run(nominated);
  CHECK(o.status.is_success());
  CHECK(o.victims.empty());
  CHECK(o.fit_checks == 2);
  CHECK(o.added == std::vector<pod_id>{s.c.pod_ids.at("v")});  // n was never added
}

TEST_CASE("NP3 [ours]: the preemptor itself is not counted as a nominee") {
  nominee_setup s;
  // The nominator hands out copies: same uid, different object.
  const pod self({.uid = s.p.uid(), .priority = high, .requests = medium(), .start_time = 0});
  SUBCASE("a copy") {
    const std::vector<const pod*> nominated{&self};
    const auto o = s.run(nominated);
    CHECK(o.victims.empty());
    CHECK(o.fit_checks == 2);
  }
  SUBCASE("the object itself, next to a real nominee") {
    const pod n = s.c.make("n", high, medium());
    const std::vector<const pod*> nominated{&s.p, &n};
    const auto o = s.run(nominated);
    CHECK(o.victims == name_list{"v"});
    CHECK(o.added == std::vector<pod_id>{n.uid(), s.c.pod_ids.at("v"), n.uid()});
  }
}

TEST_CASE(
    "NP4 [ours]: a state that cannot add a nominee: an error at the first check, a no-fit later") {
  nominee_setup s;
  const pod n = s.c.make("n", high, medium());
  const std::vector<const pod*> nominated{&n};
  preempt::model::resource_fit_state state;
  s.c.cluster.prepare_state(s.n1, state);
  preempt::victim_scratch<pod> scratch;

  SUBCASE("at the first fit check") {
    failing_state<preempt::model::resource_fit_state> failing(state, state_op::add, 1,
                                                              "failed to add pod: n");
    const auto r = preempt::select_victims(s.p, s.c.cluster[s.n1], failing, s.c.budgets, nominated,
                                           scratch, preempt::default_policy{});
    CHECK(r.outcome.code() == status_code::error);
    CHECK(r.outcome.reason() == "failed to add pod: n");
    CHECK(r.victims.empty());
  }
  SUBCASE("during the reprieve (third add: n, v, n) it only means 'does not fit'") {
    // Upstream reprievePod: fits := status.IsSuccess(); any non-success of
    // RunFilterPluginsWithNominatedPods, errors included, makes the pod a victim.
    failing_state<preempt::model::resource_fit_state> failing(state, state_op::add, 3,
                                                              "failed to add pod: n");
    const auto r = preempt::select_victims(s.p, s.c.cluster[s.n1], failing, s.c.budgets, nominated,
                                           scratch, preempt::default_policy{});
    CHECK(r.outcome.is_success());
    CHECK(s.c.names(r.victims) == name_list{"v"});
  }
  SUBCASE("a fits error at the first check aborts too") {
    failing_state<preempt::model::resource_fit_state> failing(state, state_op::fits, 1,
                                                              "filter plugin failed");
    const auto r = preempt::select_victims(s.p, s.c.cluster[s.n1], failing, s.c.budgets, nominated,
                                           scratch, preempt::default_policy{});
    CHECK(r.outcome.code() == status_code::error);
    CHECK(r.outcome.reason() == "filter plugin failed");
  }
}

namespace {

// A filter satisfied only while a given pod is on the node (like required pod affinity to a
// nominee): pass 1 succeeds, pass 2 does not.
struct needs_companion {
  pod_id companion;
  int present = 0;
  int fits_calls = 0;
  preempt::status remove_pod(const pod& p) {
    if (p.uid() == companion) --present;
    return preempt::status::ok();
  }
  preempt::status add_pod(const pod& p) {
    if (p.uid() == companion) ++present;
    return preempt::status::ok();
  }
  preempt::status fits(const pod&) {
    ++fits_calls;
    return present > 0 ? preempt::status::ok()
                       : preempt::status::unschedulable("node(s) didn't match pod affinity rules");
  }
};

}  // namespace

TEST_CASE("NP5 [ours]: fits_with_nominated requires both passes") {
  named_cluster c;
  const pod p = c.make("p", mid, small());
  const pod n = c.make("n", mid, small());
  const pod low_n = c.make("low-n", low, small());
  needs_companion state{n.uid()};

  SUBCASE("pass 2 (without the nominee) fails") {
    const std::vector<const pod*> nominated{&n};
    const auto st = preempt::fits_with_nominated(state, p, nominated);
    CHECK(st.code() == status_code::unschedulable);
    CHECK(st.reason() == "node(s) didn't match pod affinity rules");
    CHECK(state.fits_calls == 2);
    CHECK(state.present == 0);  // the nominee was removed again
  }
  SUBCASE("no qualifying nominee: a single check") {
    const std::vector<const pod*> nominated{&low_n};
    const auto st = preempt::fits_with_nominated(state, p, nominated);
    CHECK(st.code() == status_code::unschedulable);
    CHECK(state.fits_calls == 1);
  }
}

TEST_CASE("NP6 [ours]: fits_with_nominated with resources: pass 1 fails, state restored") {
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "q", low, large());
  const pod p = c.make("p", mid, small());
  const std::vector<pod> nominated{c.make("n1", mid, small()), c.make("n2", high, small()),
                                   c.make("n3", low, very_large())};
  preempt::model::resource_fit_state state;
  c.cluster.prepare_state(n1, state);
  counting_state<preempt::model::resource_fit_state> counted(state);
  const auto st = preempt::fits_with_nominated(counted, p, nominated);
  CHECK(st.code() == status_code::unschedulable);  // 300 + 100 + 100 + 100 > 500
  CHECK(st.reason() == "Insufficient cpu");
  CHECK(counted.checks() == 1);
  CHECK(counted.added == std::vector<pod_id>{nominated[0].uid(), nominated[1].uid()});
  CHECK(counted.removed == counted.added);
  CHECK(state.requested()[preempt::model::resource::cpu] == 300);
}

TEST_CASE(
    "NP7 [ours]: nominees through the filter state: anti-affinity of an equal-priority nominee") {
  flt::test_cluster c;
  c.nodes = {flt::make_node("node1")};
  c.nodes[0].pod_list = {{.name = "v", .prio = low, .cpu = 100, .mem = 100}};
  const flt::test_pod p = foo_pod("p", high);
  flt::test_pod n{.name = "n", .prio = high, .cpu = 100, .mem = 100};
  n.anti_affinity = flt::selector{"foo", ""};
  const flt::test_pod lower_n{.name = "ln", .prio = mid, .anti_affinity = flt::selector{"foo", ""}};

  SUBCASE("equal priority: the preemptor can never fit next to it") {
    const auto r = flt::select_on_each_node(c, p, {{"node1", {&n}}});
    CHECK(r[0].outcome.code() == status_code::unschedulable);
    CHECK(r[0].outcome.reason() == "node(s) didn't satisfy existing pods anti-affinity rules");
    CHECK(r[0].fit_checks == 1);
  }
  SUBCASE("lower priority: ignored") {
    const auto r = flt::select_on_each_node(c, p, {{"node1", {&lower_n}}});
    CHECK(r[0].outcome.is_success());
    CHECK(r[0].victims.empty());
    CHECK(r[0].fit_checks == 2);
  }
}

TEST_CASE(
    "NP8 [ours]: a nominee add that fails during a reprieve must not leave the nominee behind") {
  // Upstream adds nominees to a clone of the node and cycle state (addGENominatedPods), so a
  // failed AddPod cannot affect later checks. Here: node 400/400; v1 (mid) and v2 (low) of 100
  // each; nominees n1, n2 (high, 100 each); preemptor 100. The 5th add (n2, while reprieving v1)
  // fails: v1 becomes a victim. Reprieving v2 then needs 100 + 100 + 100 + 100 = 400: it fits.
  named_cluster c;
  const auto n1 = c.node("node1", capacity(400, 400));
  c.add(n1, "v1", mid, small());
  c.add(n1, "v2", low, small());
  const pod p = c.make("p", high, small());
  const pod nom1 = c.make("n1", high, small()), nom2 = c.make("n2", high, small());
  const std::vector<const pod*> nominated{&nom1, &nom2};
  preempt::model::resource_fit_state state;
  c.cluster.prepare_state(n1, state);
  // adds: n1, n2 (step 4), v1, n1, n2 <- fails
  failing_state<preempt::model::resource_fit_state> failing(state, state_op::add, 5,
                                                            "failed to add pod: n2");
  preempt::victim_scratch<pod> scratch;
  const auto r = preempt::select_victims(p, c.cluster[n1], failing, c.budgets, nominated, scratch,
                                         preempt::default_policy{});
  CHECK(r.outcome.is_success());
  CHECK(c.names(r.victims) == name_list{"v1"});
  // The state reflects the node without its victims: only v2 remains.
  CHECK(state.requested()[preempt::model::resource::cpu] == 100);
  CHECK(state.requested()[preempt::model::resource::pods] == 1);
}

TEST_CASE("NP9 [ours]: a nominee that cannot be removed again during a reprieve is an error") {
  // Removing a nominee again is a RemovePod extension call; at the first fit check a failure is
  // the node's outcome (status error), and extension errors during the reprieve are errors too
  // (SelectVictimsOnNode's reprieve). Treating it as "does not fit" would go on with a state that
  // still counts the nominee. Removes: v (step 2), n (step 4), n (reprieve of v) <- fails.
  nominee_setup s;
  const pod n = s.c.make("n", high, medium());
  const std::vector<const pod*> nominated{&n};
  preempt::model::resource_fit_state state;
  s.c.cluster.prepare_state(s.n1, state);
  preempt::victim_scratch<pod> scratch;

  SUBCASE("at the first fit check") {
    failing_state<preempt::model::resource_fit_state> failing(state, state_op::remove, 2,
                                                              "failed to remove pod: n");
    const auto r = preempt::select_victims(s.p, s.c.cluster[s.n1], failing, s.c.budgets, nominated,
                                           scratch, preempt::default_policy{});
    CHECK(r.outcome.code() == status_code::error);
    CHECK(r.outcome.reason() == "failed to remove pod: n");
  }
  SUBCASE("during the reprieve") {
    failing_state<preempt::model::resource_fit_state> failing(state, state_op::remove, 3,
                                                              "failed to remove pod: n");
    const auto r = preempt::select_victims(s.p, s.c.cluster[s.n1], failing, s.c.budgets, nominated,
                                           scratch, preempt::default_policy{});
    CHECK(r.outcome.code() == status_code::error);
    CHECK(r.outcome.reason() == "failed to remove pod: n");
    CHECK(r.victims.empty());
  }
}

}  // namespace victim_selection_test
