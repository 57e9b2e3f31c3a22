// The test filter state of tests/support/filter_state.hpp on its own (FSn), and one end-to-end
// topology-spread scenario through victim selection and node choice (PR2, upstream TestPreempt).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/filter_state.hpp"
#include "support/fixtures.hpp"

namespace filter_state_test {

namespace {

using flt::test_pod;
using preempt::status_code;

test_pod plain(std::string name, std::int64_t cpu = 100, std::int64_t mem = 100) {
  return {.name = std::move(name), .cpu = cpu, .mem = mem};
}
test_pod labelled(std::string name, std::string key) {
  return {.name = std::move(name), .labels = {{std::move(key), "x"}}, .cpu = 100, .mem = 100};
}

}  // namespace

TEST_CASE("FS1 [ours]: resources: pod slots, cpu and memory, each reported") {
  flt::test_cluster c;
  c.nodes = {flt::make_node("node1")};
  c.nodes[0].max_pods = 2;
  c.nodes[0].pod_list = {plain("a", 300, 100), plain("b", 100, 300)};
  const test_pod p = plain("p", 200, 250);
  flt::node_evaluation ev(c, 0, p);

  const auto st = ev.state.fits(p);
  CHECK(st.code() == status_code::unschedulable);
  CHECK(std::vector<std::string_view>(st.reasons().begin(), st.reasons().end()) ==
        std::vector<std::string_view>{"Too many pods", "Insufficient cpu", "Insufficient memory"});

  CHECK(ev.state.remove_pod(c.nodes[0].pod_list[0]).is_success());
  const auto st2 = ev.state.fits(p);
  CHECK(st2.code() == status_code::unschedulable);
  CHECK(st2.reason() == "Insufficient memory");

  CHECK(ev.state.remove_pod(c.nodes[0].pod_list[1]).is_success());
  CHECK(ev.state.fits(p).is_success());
}

TEST_CASE(
    "FS2 [ours]: the incoming pod's anti-affinity rejects matching pods on the same node only") {
  flt::test_cluster c;
  c.nodes = {flt::make_node("node1"), flt::make_node("node2")};
  c.nodes[0].pod_list = {labelled("foo-1", "foo"), plain("other")};
  c.nodes[1].pod_list = {labelled("foo-2", "foo")};
  test_pod p = plain("p");
  p.anti_affinity = flt::selector{"foo", ""};

  flt::node_evaluation ev(c, 0, p);
  const auto st = ev.state.fits(p);
  CHECK(st.code() == status_code::unschedulable);
  CHECK(st.reason() == "node(s) didn't match pod anti-affinity rules");
  CHECK(ev.state.remove_pod(c.nodes[0].pod_list[0]).is_success());
  CHECK(ev.state.fits(p).is_success());  // foo-2 on node2 does not matter

  SUBCASE("a selector with a value") {
    p.anti_affinity = flt::selector{"foo", "y"};
    flt::node_evaluation ev2(c, 0, p);
    CHECK(ev2.state.fits(p).is_success());
  }
}

TEST_CASE("FS3 [ours]: an existing pod's anti-affinity rejects a matching incoming pod") {
  flt::test_cluster c;
  c.nodes = {flt::make_node("node1")};
  test_pod guard = plain("guard");
  guard.anti_affinity = flt::selector{"foo", ""};
  c.nodes[0].pod_list = {guard};

  const test_pod foo = labelled("p", "foo");
  flt::node_evaluation ev(c, 0, foo);
  const auto st = ev.state.fits(foo);
  CHECK(st.code() == status_code::unschedulable);
  CHECK(st.reason() == "node(s) didn't satisfy existing pods anti-affinity rules");

  const test_pod bar = labelled("q", "bar");
  flt::node_evaluation ev2(c, 0, bar);
  CHECK(ev2.state.fits(bar).is_success());

  SUBCASE("an added pod counts too") {
    test_pod added = plain("added");
    added.anti_affinity = flt::selector{"bar", ""};
    CHECK(ev2.state.add_pod(added).is_success());
    CHECK(ev2.state.fits(bar).code() == status_code::unschedulable);
    CHECK(ev2.state.remove_pod(added).is_success());
    CHECK(ev2.state.fits(bar).is_success());
  }
}

TEST_CASE("FS4 [ours]: spread counts are cluster-wide and follow add/remove on any node's state") {
  // zone1: node-a (1 foo pod), node-b (none); zone2: node-x (none). maxSkew 1 on zone.
  flt::test_cluster c;
  c.nodes = {flt::make_node("node-a", "zone1"), flt::make_node("node-b", "zone1"),
             flt::make_node("node-x", "zone2")};
  c.nodes[0].pod_list = {labelled("a1", "foo")};
  test_pod p = labelled("p", "foo");
  p.spread = {{"zone", 1, {"foo", ""}}};

  flt::spread_counts counts(p, c);
  CHECK(counts.count(0, "zone1") == 1);
  CHECK(counts.count(0, "zone2") == 0);
  CHECK(counts.min_count(0) == 0);

  flt::filter_state on_b(c.nodes[1], &counts);
  flt::filter_state on_x(c.nodes[2], &counts);
  // node-b is in zone1: 1 + 1 - 0 = 2 > 1, although node-b itself has no foo pod.
  CHECK(on_b.fits(p).code() == status_code::unschedulable);
  CHECK(on_b.fits(p).reason() == "node(s) didn't match pod topology spread constraints");
  CHECK(on_x.fits(p).is_success());

  // A foo pod added to node-x's state raises zone2's count: node-b now fits (1 + 1 - 1 = 1).
  const test_pod x1 = labelled("x1", "foo");
  CHECK(on_x.add_pod(x1).is_success());
  CHECK(counts.count(0, "zone2") == 1);
  CHECK(on_b.fits(p).is_success());
  CHECK(on_x.remove_pod(x1).is_success());
  CHECK(on_b.fits(p).code() == status_code::unschedulable);

  // Pods that do not match the selector do not count.
  const test_pod x2 = labelled("x2", "bar");
  CHECK(on_x.add_pod(x2).is_success());
  CHECK(counts.count(0, "zone2") == 0);
}

TEST_CASE("FS5 [ours]: spread: self-match and missing topology label") {
  flt::test_cluster c;
  c.nodes = {flt::make_node("node-a", "zone1"), flt::make_node("node-z")};  // node-z: no zone
  c.nodes[0].pod_list = {labelled("a1", "foo")};

  SUBCASE("a pod not matching its own selector does not count itself") {
    test_pod p = labelled("p", "bar");
    p.spread = {{"zone", 0, {"foo", ""}}};
    flt::node_evaluation ev(c, 0, p);
    CHECK(ev.state.fits(p).is_success());  // 1 + 0 - 1 = 0 (node-z has no zone: no domain)
  }
  SUBCASE("a node without the topology label cannot host the pod") {
    test_pod p = labelled("p", "foo");
    p.spread = {{"zone", 1, {"foo", ""}}};
    flt::node_evaluation ev(c, 1, p);
    const auto st = ev.state.fits(p);
    CHECK(st.code() == status_code::unschedulable_and_unresolvable);
    CHECK(st.reason() ==
          "node(s) didn't match pod topology spread constraints (missing required label)");
  }
}

TEST_CASE(
    "FS6 [ours]: state errors: removing a pod that is not there, adding one twice, wrong counts") {
  flt::test_cluster c;
  c.nodes = {flt::make_node("node1", "zone1")};
  c.nodes[0].pod_list = {plain("a")};
  test_pod p = labelled("p", "foo");
  p.spread = {{"zone", 1, {"foo", ""}}};
  flt::node_evaluation ev(c, 0, p);

  const test_pod stranger = plain("stranger");
  CHECK(ev.state.remove_pod(stranger).code() == status_code::error);
  CHECK(ev.state.add_pod(c.nodes[0].pod_list[0]).code() == status_code::error);
  CHECK(ev.state.pod_count() == 1);

  test_pod other = labelled("other", "foo");
  other.spread = p.spread;
  CHECK(ev.state.fits(other).code() == status_code::error);
  CHECK(ev.state.fits(p).is_success());
}

TEST_CASE("FS7 [ours]: select_victims leaves counts and state without the victims") {
  flt::test_cluster c;
  c.nodes = {flt::make_node("node-a", "zone1"), flt::make_node("node-x", "zone2")};
  c.nodes[0].pod_list = {labelled("a1", "foo"), labelled("a2", "foo")};
  test_pod p = labelled("p", "foo");
  p.prio = 10;
  p.spread = {{"zone", 1, {"foo", ""}}};

  flt::node_evaluation ev(c, 0, p);
  preempt::victim_scratch<test_pod> scratch;
  const auto r = preempt::select_victims(p, c.nodes[0], ev.state, preempt::no_budgets{}, scratch);
  REQUIRE(r.outcome.is_success());
  // zone1 may hold at most 1 foo pod next to p (zone2 has none): both must go.
  REQUIRE(r.victims.size() == 2);
  CHECK(ev.counts.count(0, "zone1") == 0);
  CHECK(ev.state.pod_count() == 0);
  CHECK(ev.state.fits(p).is_success());
}

TEST_CASE(
    "PR2 [TestPreempt/\"preemption for topology spread constraints\"]: topology spread end to end: "
    "node-b with victim pod-b1") {
  flt::test_cluster c;
  c.nodes = {flt::make_node("node-a", "zone1"), flt::make_node("node-b", "zone1"),
             flt::make_node("node-x", "zone2")};
  const auto foo = [](std::string name, std::int32_t prio) {
    test_pod q = labelled(std::move(name), "foo");
    q.prio = prio;
    return q;
  };
  c.nodes[0].pod_list = {foo("pod-a1", fx::high), foo("pod-a2", fx::high)};
  c.nodes[1].pod_list = {foo("pod-b1", fx::low)};
  c.nodes[2].pod_list = {foo("pod-x1", fx::high), foo("pod-x2", fx::high)};
  test_pod p = foo("p", fx::high);
  p.spread = {{"zone", 1, {"foo", ""}}, {"hostname", 1, {"foo", ""}}};

  const auto results = flt::select_on_each_node(c, p);
  const auto cands = fx::candidates_of<test_pod>(results);
  REQUIRE(cands.size() == 1);
  const auto best = preempt::pick_best_candidate<test_pod>(cands);
  REQUIRE(best.index == 0);
  CHECK(cands[0].node_name == "node-b");
  CHECK(results[1].victims == fx::name_list{"pod-b1"});
}

}  // namespace filter_state_test
