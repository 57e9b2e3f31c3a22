// Disruption budgets in victim selection (filterPodsWithPDBViolation) and state errors
// (SelectVictimsOnNode: a RemovePod or AddPod extension error is the node's outcome).
//
//   BEn  budget edge cases: several budgets per pod, namespaces, empty budgets, disruptedPods,
//        negative priorities, missing start times, fresh budgets per node, scratch reuse, a
//        budget's copy past zero.
//   PF11 a RemovePod error from the state is the node's outcome (TestPostFilter), and the same for
//        errors while reprieving.
//
// Many cases use a node with room for the preemptor plus exactly one of two pods: the violating
// pod is reprieved first (SelectVictimsOnNode's reprieve order), so which pod stays shows which
// one was classified as violating.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/fixtures.hpp"

namespace budgets_test {

namespace {

using namespace fx;
using preempt::status_code;

// node1 500/500; a (mid) and b (low), 200 each; the preemptor (high, 300) fits with one of them.
struct one_room {
  named_cluster c;
  std::size_t n1 = c.node("node1");
  pod p = c.make("p", high, large());
  explicit one_room(std::int32_t prio_a = mid, std::int32_t prio_b = low,
                    const std::string& ns = "default") {
    c.add(n1, "a", prio_a, medium(), 0, ns);
    c.add(n1, "b", prio_b, medium(), 0, ns);
  }
};

}  // namespace

TEST_CASE("BE1 [ours]: a pod counted by two budgets violates when either goes negative") {
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "p1", mid, small());                  // in A and B
  c.add(n1, "p2", low, small());                  // in A
  c.add(n1, "p3", low, small(), 5);               // in B
  const pod p = c.make("p", high, very_large());  // every lower pod is a victim

  SUBCASE("both budgets allow one: p1 spends both, p2 and p3 each overdraw one") {
    c.budget(1, {"p1", "p2"});
    c.budget(1, {"p1", "p3"});
    const auto r = select_on_each_node(c, p);
    CHECK(r[0].victims == name_list{"p1", "p2", "p3"});
    CHECK(r[0].violations == 2);
  }
  SUBCASE("a pod exhausting the first budget does not spend the second") {
    c.budget(0, {"p1"});
    c.budget(1, {"p1", "p3"});
    const auto r = select_on_each_node(c, p);
    // p1 violates the first budget and its count stops there (FilterVictimsWithPDBViolation
    // returns at the first exhausted budget), so p3 still has the second budget's disruption.
    CHECK(r[0].violations == 1);
  }
  SUBCASE("only the second budget is overdrawn by p1") {
    c.budget(5, {"p1"});
    c.budget(0, {"p1"});
    const auto r = select_on_each_node(c, p);
    CHECK(r[0].violations == 1);
  }
  SUBCASE("only the first budget is overdrawn by p1") {
    c.budget(0, {"p1"});
    c.budget(5, {"p1"});
    const auto r = select_on_each_node(c, p);
    CHECK(r[0].violations == 1);
  }
}

TEST_CASE("BE1 [ours]: a pod overdrawing two budgets is one violating victim") {
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "p1", mid, small());
  c.budget(0, {"p1"});
  c.budget(0, {"p1"});
  const pod p = c.make("p", high, very_large());
  const auto r = select_on_each_node(c, p);
  CHECK(r[0].victims == name_list{"p1"});
  CHECK(r[0].violations == 1);
}

TEST_CASE("BE2 [ours]: a budget of another namespace does not count") {
  one_room s(mid, low, "team-a");
  SUBCASE("budget in default, pods in team-a: nothing violates, importance order decides") {
    s.c.budget(0, {"a", "b"}, {}, "default");
    const auto r = select_on_each_node(s.c, s.p);
    CHECK(r[0].victims == name_list{"b"});
    CHECK(r[0].violations == 0);
  }
  SUBCASE("same budget in team-a: b violates and is reprieved first") {
    s.c.budget(1, {"a", "b"}, {}, "team-a");
    const auto r = select_on_each_node(s.c, s.p);
    CHECK(r[0].victims == name_list{"a"});
    CHECK(r[0].violations == 0);
  }
}

TEST_CASE("BE3 [ours]: an empty or unmatched budget changes nothing") {
  one_room s;
  s.c.budget(0, {});  // a selector matching nothing
  s.c.budget(-3, {});
  const auto r = select_on_each_node(s.c, s.p);
  CHECK(r[0].victims == name_list{"b"});
  CHECK(r[0].violations == 0);
}

TEST_CASE("BE4 [ours]: disruptedPods are exempt and use none of the budget") {
  one_room s;
  SUBCASE("the exempt pod does not violate a budget that allows nothing") {
    s.c.budget(0, {"b"}, {"b"});
    const auto r = select_on_each_node(s.c, s.p);
    CHECK(r[0].victims == name_list{"b"});
    CHECK(r[0].violations == 0);
  }
  SUBCASE("the exempt pod leaves the single disruption to the other one") {
    s.c.budget(1, {"a", "b"}, {"a"});
    const auto r = select_on_each_node(s.c, s.p);
    CHECK(r[0].victims == name_list{"b"});  // b is not violating: a did not spend the budget
    CHECK(r[0].violations == 0);
  }
  SUBCASE("exempt in one budget, still counted by another") {
    s.c.budget(0, {"b"}, {"b"});
    s.c.budget(0, {"b"});
    const auto r = select_on_each_node(s.c, s.p);
    CHECK(r[0].victims == name_list{"a"});  // b violates the second budget, reprieved first
  }
}

TEST_CASE("BE5 [ours]: negative priorities order and classify like any others") {
  one_room s(neg, 2 * neg);  // a -100, b -200
  s.c.budget(1, {"a", "b"});
  // a is more important and spends the budget; b violates and is reprieved first.
  const auto r = select_on_each_node(s.c, s.p);
  CHECK(r[0].victims == name_list{"a"});
  CHECK(r[0].violations == 0);
}

TEST_CASE("BE5 [ours]: a preemptor of negative priority preempts pods of lower negative priority") {
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "a", neg, large());
  c.add(n1, "b", 2 * neg, large());
  const pod p = c.make("p", neg / 2, large());
  const auto r = select_on_each_node(c, p);
  CHECK(r[0].outcome.is_success());
  CHECK(r[0].victims == name_list{"a", "b"});
}

TEST_CASE("BE6 [ours]: a missing start time counts as the policy's now") {
  // x started at t5, y has no start time; same priority; one budget allowing one disruption.
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "x", mid, medium(), 5);
  c.add(n1, "y", mid, medium(), std::nullopt);
  c.budget(1, {"x", "y"});
  const pod p = c.make("p", high, large());

  SUBCASE("now = 0: y counts as older, spends the budget; x violates and stays") {
    const auto r = select_on_each_node(c, p, preempt::default_policy{.now = 0});
    CHECK(r[0].victims == name_list{"y"});
    CHECK(r[0].violations == 0);
  }
  SUBCASE("now = 10: x is older, spends the budget; y violates and stays") {
    const auto r = select_on_each_node(c, p, preempt::default_policy{.now = 10});
    CHECK(r[0].victims == name_list{"x"});
    CHECK(r[0].violations == 0);
  }
}

TEST_CASE("BE7 [ours]: budgets are not shared across nodes") {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2"), n3 = c.node("node3");
  c.add(n1, "p1", mid, large());
  c.add(n2, "p2", mid, large());
  c.add(n3, "p3", mid, large());
  c.budget(1, {"p1", "p2", "p3"});
  const pod p = c.make("p", high, large());
  const auto r = select_on_each_node(c, p);  // one scratch for the three nodes
  REQUIRE(r.size() == 3);
  for (const auto& nr : r) {
    CHECK(nr.victims.size() == 1);
    CHECK(nr.violations == 0);
  }
}

TEST_CASE("BE7 [ours]: a scratch reused with more budgets starts every budget fresh") {
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "a", mid, small());
  c.add(n1, "b", low, small());
  const pod p = c.make("p", high, very_large());
  preempt::victim_scratch<pod> scratch;
  preempt::model::resource_fit_state state;

  preempt::model::budget_table first, second;
  first.add_budget(0, 1);
  first.add_member(0, c.pod_ids.at("a"));
  first.add_member(0, c.pod_ids.at("b"));
  second.add_budget(0, 5);
  second.add_budget(0, 5);
  second.add_budget(0, 0);
  second.add_member(0, c.pod_ids.at("a"));
  second.add_member(2, c.pod_ids.at("b"));

  c.cluster.prepare_state(n1, state);
  auto r = preempt::select_victims(p, c.cluster[n1], state, first, scratch);
  CHECK(r.pdb_violations == 1);
  c.cluster.prepare_state(n1, state);
  r = preempt::select_victims(p, c.cluster[n1], state, second, scratch);
  CHECK(r.pdb_violations == 1);  // b overdraws budget 2 only
  c.cluster.prepare_state(n1, state);
  r = preempt::select_victims(p, c.cluster[n1], state, first, scratch);
  CHECK(r.pdb_violations == 1);  // budget 0 back at 1, not at 5 - 1 or 1 - 2
  c.cluster.prepare_state(n1, state);
  r = preempt::select_victims(p, c.cluster[n1], state, preempt::no_budgets{}, scratch);
  CHECK(r.pdb_violations == 0);
}

TEST_CASE("BE8 [ours]: a budget copy overdrawn stays overdrawn, whatever its allowed count") {
  preempt::model::budget_table t;
  t.add_budget(0, 1);
  t.add_budget(0, -2);
  t.add_budget(0, std::numeric_limits<std::int32_t>::min());
  t.add_budget(0, std::numeric_limits<std::int32_t>::max());
  preempt::victim_scratch<pod> scratch;
  scratch.start_node(t.budget_count());
  CHECK_FALSE(scratch.charge(0, t));  // 1 -> 0
  for (int k = 0; k < 3; ++k) {
    CHECK(scratch.charge(0, t));
    CHECK(scratch.charge(1, t));
    CHECK(scratch.charge(2, t));  // no wrap past the smallest count
    CHECK_FALSE(scratch.charge(3, t));
  }
  scratch.start_node(t.budget_count());  // the next node starts from the budget set again
  CHECK_FALSE(scratch.charge(0, t));
  CHECK(scratch.charge(0, t));
}

// ---- Errors from the state ---------------------------------------------------------------------

namespace {

constexpr std::string_view remove_error =
    "running RemovePod on PreFilter plugin \"test-plugin\": failed to remove pod: p";

struct error_case {
  named_cluster c;
  std::size_t n1 = c.node("node1", capacity(300, 300));
  pod p = c.make("p", high, medium());
  error_case() {
    c.add(n1, "a", mid, small());
    c.add(n1, "b", low, small());
  }
  preempt::victim_selection<pod> run(state_op op, int at) {
    c.cluster.prepare_state(n1, state);
    failing_state<preempt::model::resource_fit_state> failing(state, op, at, remove_error);
    return preempt::select_victims(p, c.cluster[n1], failing, c.budgets, scratch);
  }
  preempt::model::resource_fit_state state;
  preempt::victim_scratch<pod> scratch;
};

}  // namespace

TEST_CASE(
    "PF11 [TestPostFilter/\"only one node but failed with TestPlugin\"]: a RemovePod error while "
    "removing the potential victims is the node's outcome") {
  error_case s;
  for (int at : {1, 2}) {
    CAPTURE(at);
    const auto r = s.run(state_op::remove, at);
    CHECK(r.outcome.code() == status_code::error);
    CHECK(r.outcome.reason() == remove_error);
    CHECK(r.victims.empty());
    CHECK(r.pdb_violations == 0);
  }
}

TEST_CASE("PF11 [ours]: a RemovePod error while un-reprieving a victim is the outcome") {
  // Room for p (200) and one small pod: a is reprieved, b must go. Removes: a, b, then b again.
  error_case s;
  {
    const auto ok = s.run(state_op::remove, 99);
    REQUIRE(ok.outcome.is_success());
    CHECK(s.c.names(ok.victims) == name_list{"b"});
  }
  const auto r = s.run(state_op::remove, 3);
  CHECK(r.outcome.code() == status_code::error);
  CHECK(r.outcome.reason() == remove_error);
  CHECK(r.victims.empty());
}

TEST_CASE("PF11 [ours]: an AddPod error while reprieving is the outcome") {
  error_case s;
  for (int at : {1, 2}) {
    CAPTURE(at);
    const auto r = s.run(state_op::add, at);
    CHECK(r.outcome.code() == status_code::error);
    CHECK(r.outcome.reason() == remove_error);
    CHECK(r.victims.empty());
  }
}

TEST_CASE("PF11 [ours]: a filter error at the first fit check is the outcome") {
  error_case s;
  const auto r = s.run(state_op::fits, 1);
  CHECK(r.outcome.code() == status_code::error);
  CHECK(r.outcome.reason() == remove_error);
}

}  // namespace budgets_test
