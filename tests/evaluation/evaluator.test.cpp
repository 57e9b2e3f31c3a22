// The whole preemption decision (evaluator.hpp; upstream's Evaluator.Preempt), scenario by
// scenario. Every test body runs on every executor fixture (tests/support/executors.hpp: inline,
// manual in three drain orders, thread pool) and expects the same decision from each.
//
//   PFn  upstream TestPostFilter
//   DRn  upstream TestDryRunPreemption: candidates and fit checks ("filter calls"),
//        counted on the nodes the decision kept (a parallel dry run may look ahead and discard)
//   ELn  upstream TestPodEligibleToPreemptOthers, through attempt::nominated_node
//   EXn  upstream TestCallExtenders, with extenders modelling candidate_extender
//   which nodes are tried, from their filter status (upstream's findCandidates; the older
//   TestNodesWherePreemptionMightHelp)
// plus the observer hooks, clear_nomination, and a few edge cases (no nodes, offsets, nominations).
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/executors.hpp"
#include "support/fixtures.hpp"
#include "support/test_states.hpp"

namespace evaluator_test {

namespace {

using namespace fx;
using preempt::decision_kind;
using preempt::status_code;

template <class X, class C = preempt::model::resource_cluster,
          class Policy = preempt::default_policy, class Observer = preempt::null_observer>
using run = exf::with_executor<X, preempt::evaluator<C, Policy, Observer>>;

constexpr preempt::no_nominations no_noms{};

preempt::filter_statuses all_unschedulable(std::size_t n) {
  preempt::filter_statuses st(n);
  st.set_all(status_code::unschedulable);
  return st;
}

preempt::attempt at_offset(std::size_t offset) {
  preempt::attempt a;
  a.offset = offset;
  return a;
}

preempt::attempt nominated_to(std::size_t node) {
  preempt::attempt a;
  a.offset = 0;
  a.nominated_node = node;
  return a;
}

preempt::sampling_args sampling(std::int32_t pct, std::int32_t abs) {
  preempt::sampling_args s;
  s.min_candidate_nodes_percentage = pct;
  s.min_candidate_nodes_absolute = abs;
  return s;
}

// "node1{p1,p2}/0": node, victims in decision order, budget violations.
template <class Span>
name_list candidate_list(const named_cluster& c, const Span& cands) {
  name_list out;
  for (const auto& k : cands) {
    std::string s(k.node_name);
    s += '{';
    bool first = true;
    for (const std::string& v : c.names(k.victims)) {
      if (!first) s += ',';
      s += v;
      first = false;
    }
    s += "}/" + std::to_string(k.pdb_violations);
    out.push_back(std::move(s));
  }
  return out;
}

// "node1:Success" per kept node, in evaluation order.
template <class D>
name_list diagnosis_list(const named_cluster& c, const D& d) {
  name_list out;
  for (const auto& n : d.diagnosis) {
    std::string s(c.cluster[n.node_index].name());
    s += ':';
    s += preempt::to_string(n.outcome.code());
    out.push_back(std::move(s));
  }
  return out;
}

template <class D>
void check_nominated(const named_cluster& c, const D& d, std::string_view node,
                     const name_list& victims, std::int64_t violations = 0) {
  CHECK(d.kind == decision_kind::nominated);
  CHECK(d.code() == status_code::success);
  CHECK(d.node_name == node);
  CHECK(d.node_index == c.cluster.find(node));
  CHECK(c.names(d.victims) == victims);
  CHECK(d.pdb_violations == violations);
  CHECK(d.message.empty());
  CHECK_FALSE(d.clear_nomination);
}

// Upstream "no candidates": unschedulable with a FitError, nomination cleared.
template <class D>
void check_no_candidates(const D& d, std::string_view message) {
  CHECK(d.kind == decision_kind::unschedulable);
  CHECK(d.code() == status_code::unschedulable);
  CHECK(d.message == message);
  CHECK(d.clear_nomination);
  CHECK(d.node_index == D::npos);
  CHECK(d.node_name.empty());
  CHECK(d.victims.empty());
  CHECK(d.candidates.empty());
}

template <class D>
void check_not_eligible(const D& d, std::string_view message) {
  CHECK(d.kind == decision_kind::not_eligible);
  CHECK(d.code() == status_code::unschedulable);
  CHECK(d.message == message);
  CHECK_FALSE(d.clear_nomination);
  CHECK(d.node_index == D::npos);
  CHECK(d.diagnosis.empty());
  CHECK(d.candidates.empty());
}

template <class D>
void check_error(const D& d, std::string_view message) {
  CHECK(d.kind == decision_kind::error);
  CHECK(d.code() == status_code::error);
  CHECK(d.message == message);
  CHECK_FALSE(d.clear_nomination);
  CHECK(d.node_index == D::npos);
  CHECK(d.victims.empty());
}

// Adds a pod built from a full spec (flags that named_cluster::add does not set).
void add_spec(named_cluster& c, std::size_t node, const std::string& name,
              preempt::model::pod_spec spec) {
  spec.uid = c.next_uid++;
  c.pod_names[spec.uid] = name;
  c.pod_ids[name] = spec.uid;
  c.cluster.add_pod(node, pod(std::move(spec)));
}

preempt::model::pod_spec terminating_pod(std::int32_t priority, bool by_preemption) {
  return {.uid = 0,
          .priority = priority,
          .requests = small(),
          .start_time = 0,
          .namespace_id = 0,
          .terminating = true,
          .terminating_by_preemption = by_preemption};
}

// Five nodes node1..node5, each with pK (mid, large): TestDryRunPreemption DR16-DR19.
named_cluster five_nodes(std::int32_t p2_priority = mid, std::int32_t p5_priority = mid) {
  named_cluster c;
  for (int k = 1; k <= 5; ++k) {
    const auto n = c.node("node" + std::to_string(k));
    c.add(n, "p" + std::to_string(k), k == 2 ? p2_priority : k == 5 ? p5_priority : mid, large());
  }
  return c;
}

// An extender modelling preempt::candidate_extender<pod> (callExtenders, TestCallExtenders).
struct test_extender {
  enum class action {
    echo,        // returns its input
    keep_node1,  // keeps only node1
    no_victims,  // returns every node without victims
    fail,        // returns an error
    drop_all,    // returns nothing
    last_victim  // keeps every node with only its last victim
  };
  action act = action::echo;
  bool supports = true;
  bool interested = true;
  bool ignorable = false;
  int calls = 0;
  name_list seen;  // node names of the last input
  std::vector<const pod*> storage;

  bool supports_preemption() const { return supports; }
  bool is_interested(const pod&) const { return interested; }
  bool is_ignorable() const { return ignorable; }
  preempt::status process_preemption(const pod&, std::span<const preempt::candidate<pod>> in,
                                     std::vector<preempt::candidate<pod>>& out) {
    ++calls;
    seen.clear();
    for (const auto& k : in) seen.emplace_back(k.node_name);
    if (act == action::fail) return preempt::status::error("extender preempt error");
    storage.clear();
    storage.reserve(in.size());
    for (const auto& k : in) {
      switch (act) {
        case action::echo: out.push_back(k); break;
        case action::keep_node1:
          if (k.node_name == "node1") out.push_back(k);
          break;
        case action::no_victims: out.push_back({k.node_index, k.node_name, {}, 0}); break;
        case action::fail:
        case action::drop_all: break;
        case action::last_victim:
          storage.push_back(k.victims.back());
          out.push_back({k.node_index, k.node_name, {&storage.back(), 1}, 0});
          break;
      }
    }
    return preempt::status::ok();
  }
};
static_assert(preempt::candidate_extender<test_extender, pod>);

// Only the first pod of each node (model::resource_cluster order: the most important) may be a
// victim: upstream's fake SelectVictimsOnNode that returns the first pod (TestDryRunPreemption
// DR20, DR21).
struct first_pod_only : preempt::default_policy {
  template <class Node, class P>
  bool is_eligible_victim(const Node& n, const P& victim, const P&) const {
    return !n.pods().empty() && &victim == &n.pods().front();
  }
};

}  // namespace

// ---- TestPostFilter --------------------------------------------------------------------------

TEST_CASE_TEMPLATE(
    "PF1 [TestPostFilter/\"pod with higher priority can be made schedulable\"]: a higher-priority "
    "pod can be made schedulable",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1", one_pod_node());
  c.add(n1, "p1", low, small());
  const pod p = c.make("p", high, small());
  run<X> r;
  const auto& d = r.evaluate(p, c.cluster, all_unschedulable(1), c.budgets, no_noms);
  check_nominated(c, d, "node1", {"p1"});
  CHECK(candidate_list(c, d.candidates) == name_list{"node1{p1}/0"});
  CHECK(diagnosis_list(c, d) == name_list{"node1:Success"});
  CHECK(d.potential_nodes == 1);
  CHECK(d.choice.index == 0);
}

TEST_CASE_TEMPLATE(
    "PF2 [TestPostFilter/\"pod with tied priority is still unschedulable\"]: a pod of tied "
    "priority stays unschedulable",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1", one_pod_node());
  c.add(n1, "p1", low, small());
  const pod p = c.make("p", low, small());
  run<X> r;
  const auto& d = r.evaluate(p, c.cluster, all_unschedulable(1), c.budgets, no_noms);
  check_no_candidates(
      d, "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.");
  CHECK(diagnosis_list(c, d) == name_list{"node1:UnschedulableAndUnresolvable"});
}

TEST_CASE_TEMPLATE(
    "PF3 [TestPostFilter/\"preemption should respect filteredNodesStatuses\"]: an "
    "UnschedulableAndUnresolvable node is never tried",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1", one_pod_node());
  c.add(n1, "p1", low, small());
  const pod p = c.make("p", high, small());
  preempt::filter_statuses st(1);
  st.set(n1, status_code::unschedulable_and_unresolvable);
  run<X> r;
  const auto& d = r.evaluate(p, c.cluster, st, c.budgets, no_noms);
  check_no_candidates(
      d, "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
  CHECK(d.diagnosis.empty());
  CHECK(d.potential_nodes == 0);
}

TEST_CASE_TEMPLATE(
    "PF4 [TestPostFilter/\"preemption should respect absent NodeToStatusReader entry meaning "
    "UnschedulableAndUnresolvable\"]: a node absent from the filter map counts as "
    "UnschedulableAndUnresolvable",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1", one_pod_node());
  c.add(n1, "p1", low, small());
  const pod p = c.make("p", high, small());
  run<X> r;
  const auto& d = r.evaluate(p, c.cluster, preempt::filter_statuses{}, c.budgets, no_noms);
  check_no_candidates(
      d, "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
  CHECK(d.diagnosis.empty());

  // With an absent code of Unschedulable, the absent node is tried.
  const auto& d2 = r.evaluate(p, c.cluster, preempt::filter_statuses(0, status_code::unschedulable),
                              c.budgets, no_noms);
  check_nominated(c, d2, "node1", {"p1"});
}

TEST_CASE_TEMPLATE(
    "PF5 [TestPostFilter/\"pod can be made schedulable on one node\"]: preemption succeeds on the "
    "one node that has a lower-priority pod",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1", one_pod_node());
  const auto n2 = c.node("node2", one_pod_node());
  c.add(n1, "p1", high, small());
  c.add(n2, "p2", low, small());
  const pod p = c.make("p", mid, small());
  run<X> r;
  for (std::size_t offset : {0u, 1u}) {
    CAPTURE(offset);
    const auto& d =
        r.evaluate(p, c.cluster, all_unschedulable(2), c.budgets, no_noms, at_offset(offset));
    check_nominated(c, d, "node2", {"p2"});
    CHECK(candidate_list(c, d.candidates) == name_list{"node2{p2}/0"});
  }
}

TEST_CASE_TEMPLATE(
    "PF7 [TestPostFilter/\"preemption result filtered out by extenders\"]: an extender keeping "
    "node1 only decides the nomination",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1", one_pod_node());
  const auto n2 = c.node("node2", one_pod_node());
  c.add(n1, "p1", low, small());
  c.add(n2, "p2", low, small());
  const pod p = c.make("p", high, small());
  run<X> r;
  // Without the extender, starting at node2 nominates node2 (all scores tie; first found wins).
  {
    const auto& d =
        r.evaluate(p, c.cluster, all_unschedulable(2), c.budgets, no_noms, at_offset(1));
    check_nominated(c, d, "node2", {"p2"});
    CHECK(candidate_list(c, d.candidates) == name_list{"node2{p2}/0", "node1{p1}/0"});
  }
  test_extender ext;
  ext.act = test_extender::action::keep_node1;
  const auto& d = r.evaluate(p, c.cluster, all_unschedulable(2), c.budgets, no_noms, at_offset(1),
                             std::array<test_extender*, 1>{&ext});
  check_nominated(c, d, "node1", {"p1"});
  CHECK(candidate_list(c, d.candidates) == name_list{"node1{p1}/0"});
  CHECK(ext.calls == 1);
  CHECK(ext.seen == name_list{"node2", "node1"});
}

TEST_CASE_TEMPLATE(
    "PF8 [TestPostFilter/\"no candidate nodes found, no enough resource after removing low "
    "priority pods\"]: not enough resources even after removing every lower-priority pod",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1", node_res());
  const auto n2 = c.node("node2", node_res());
  c.add(n1, "p1", low, small());
  c.add(n2, "p2", low, small());
  const pod p = c.make("p", high, large());
  run<X> r;
  const auto& d = r.evaluate(p, c.cluster, all_unschedulable(2), c.budgets, no_noms, at_offset(0));
  check_no_candidates(d, "preemption: 0/2 nodes are available: 2 Insufficient cpu.");
  // The request is above the nodes' allocatable cpu: NodeResourcesFit's fitsRequest marks the
  // shortage Unresolvable, in the dry run as in the scheduling cycle.
  CHECK(diagnosis_list(c, d) ==
        name_list{"node1:UnschedulableAndUnresolvable", "node2:UnschedulableAndUnresolvable"});
}

TEST_CASE_TEMPLATE(
    "PF9 [TestPostFilter/\"no candidate nodes found with mixed reasons, no lower priority pod and "
    "no enough CPU resource\"]: reasons of several nodes are counted and sorted",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1", one_pod_node());
  const auto n2 = c.node("node2", node_res());
  const auto n3 = c.node("node3", one_pod_node());
  c.add(n1, "p1", high, small());
  c.add(n2, "p2", low, small());
  c.add(n3, "p3", high, small());
  const pod p = c.make("p", high, large());
  run<X> r;
  for (std::size_t offset : {0u, 1u, 2u}) {
    CAPTURE(offset);
    const auto& d =
        r.evaluate(p, c.cluster, all_unschedulable(3), c.budgets, no_noms, at_offset(offset));
    check_no_candidates(d,
                        "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption "
                        "victims found for incoming pod.");
    CHECK(d.diagnosis.size() == 3);
    CHECK(d.offset == offset);
  }
}

TEST_CASE_TEMPLATE(
    "PF10 [TestPostFilter/\"no candidate nodes found with mixed reason, 2 "
    "UnschedulableAndUnresolvable nodes and 2 nodes don't have enough CPU resource\"]: "
    "unresolvable and absent nodes count as not helpful",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1", node_res());
  const auto n2 = c.node("node2", node_res());
  c.node("node3", node_res());
  const auto n4 = c.node("node4", node_res());
  c.add(n1, "p1", low, small());
  c.add(n2, "p2", low, small());
  const pod p = c.make("p", high, large());
  preempt::filter_statuses st;  // node3 stays absent
  st.set(n1, status_code::unschedulable);
  st.set(n2, status_code::unschedulable);
  st.set(n4, status_code::unschedulable_and_unresolvable);
  run<X> r;
  const auto& d = r.evaluate(p, c.cluster, st, c.budgets, no_noms, at_offset(0));
  check_no_candidates(d,
                      "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is "
                      "not helpful for scheduling.");
  // Tried (filter status Unschedulable), and the dry run finds the request above allocatable.
  CHECK(diagnosis_list(c, d) ==
        name_list{"node1:UnschedulableAndUnresolvable", "node2:UnschedulableAndUnresolvable"});
  CHECK(d.potential_nodes == 2);
}

TEST_CASE_TEMPLATE(
    "PF11 [TestPostFilter/\"only one node but failed with TestPlugin\"]: a RemovePod extension "
    "error on the only node fails the attempt",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1", capacity(1000, 1000));
  c.add(n1, "p1", low, small());
  const pod p = c.make("p", high, large());
  tst::test_cluster tc(c);
  tc.flag_error(n1);
  run<X, tst::test_cluster> r;
  const auto& d = r.evaluate(p, tc, all_unschedulable(1), c.budgets, no_noms);
  check_error(d,
              "preemption: running RemovePod on PreFilter plugin \"test-plugin\": failed to "
              "remove pod: p");
  CHECK(d.candidates.empty());
  CHECK(diagnosis_list(c, d) == name_list{"node1:Error"});
}

TEST_CASE_TEMPLATE(
    "PF12 [TestPostFilter/\"one failed with TestPlugin and the other pass\"]: an error on one node "
    "is ignored when another node is a candidate",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1", capacity(1000, 1000));
  const auto n2 = c.node("node2", capacity(400, 400));
  c.add(n1, "p1", low, small());
  c.add(n2, "p2", low, medium());
  const pod p = c.make("p", high, large());
  tst::test_cluster tc(c);
  tc.flag_error(n1);
  run<X, tst::test_cluster> r;
  for (std::size_t offset : {0u, 1u}) {
    CAPTURE(offset);
    const auto& d = r.evaluate(p, tc, all_unschedulable(2), c.budgets, no_noms, at_offset(offset));
    check_nominated(c, d, "node2", {"p2"});
    CHECK(candidate_list(c, d.candidates) == name_list{"node2{p2}/0"});
    CHECK(d.diagnosis.size() == 2);  // one candidate of two wanted: both nodes are evaluated
  }
}

// ---- TestDryRunPreemption --------------------------------------------------------------------

TEST_CASE_TEMPLATE(
    "DR1 [TestDryRunPreemption/\"a pod that does not fit on any node\"]: a filter that rejects "
    "everything leaves no candidate",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2");
  c.add(n1, "p1", mid, small());
  c.add(n2, "p2", mid, small());
  const pod p = c.make("p", high, small());
  tst::filter_chain f;
  f.false_filter = true;
  tst::test_cluster tc(c, f);
  run<X, tst::test_cluster> r;
  const auto& d = r.evaluate(p, tc, all_unschedulable(2), c.budgets, no_noms, at_offset(0));
  check_no_candidates(d, "preemption: 0/2 nodes are available: 2 Nodes failed the fake plugin.");
  CHECK(diagnosis_list(c, d) == name_list{"node1:Unschedulable", "node2:Unschedulable"});
  CHECK(tc.kept_fit_checks(d) == 2);
  CHECK(tc.fit_checks(n1) == 1);
  CHECK(tc.fit_checks(n2) == 1);
}

TEST_CASE_TEMPLATE(
    "DR2 [TestDryRunPreemption/\"a pod that fits with no preemption\"]: a fake filter failing "
    "everywhere defeats a filter that accepts all",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2");
  c.add(n1, "p1", mid, small());
  c.add(n2, "p2", mid, small());
  const pod p = c.make("p", high, small());
  tst::filter_chain f;
  f.fake_unschedulable = true;
  f.resources = false;  // TrueFilter only
  tst::test_cluster tc(c, f);
  run<X, tst::test_cluster> r;
  const auto& d = r.evaluate(p, tc, all_unschedulable(2), c.budgets, no_noms);
  check_no_candidates(d, "preemption: 0/2 nodes are available: 2 injecting failure for pod.");
  CHECK(tc.kept_fit_checks(d) == 2);
  CHECK(tc.total_fit_checks() == 2);
}

TEST_CASE_TEMPLATE(
    "DR3 [TestDryRunPreemption/\"a pod that fits on one node with no preemption\"]: a pod that "
    "would fit node1 without preemption",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2");
  c.add(n1, "p1", mid, small());
  c.add(n2, "p2", mid, small());
  const pod p = c.make("node1", high, small());  // MatchFilter: fits only on node1

  SUBCASE("with the fake filter failing everywhere: no candidate, one fit check per node") {
    tst::filter_chain f;
    f.fake_unschedulable = true;
    f.match_filter = true;
    f.resources = false;
    tst::test_cluster tc(c, f);
    run<X, tst::test_cluster> r;
    const auto& d = r.evaluate(p, tc, all_unschedulable(2), c.budgets, no_noms);
    check_no_candidates(d, "preemption: 0/2 nodes are available: 2 injecting failure for pod.");
    CHECK(tc.kept_fit_checks(d) == 2);
  }
  SUBCASE("without it: node1 needs no victim, which the dry run reports as an error") {
    tst::filter_chain f;
    f.match_filter = true;
    f.resources = false;
    tst::test_cluster tc(c, f);
    run<X, tst::test_cluster> r;
    const auto& d = r.evaluate(p, tc, all_unschedulable(2), c.budgets, no_noms, at_offset(0));
    check_error(d, "preemption: expected at least one victim pod on node \"node1\"");
    CHECK(diagnosis_list(c, d) == name_list{"node1:Error", "node2:Unschedulable"});
    CHECK(d.candidates.empty());
    CHECK(tc.kept_fit_checks(d) == 3);  // node1: 1 + 1 reprieve; node2: 1
  }
}

TEST_CASE_TEMPLATE(
    "DR11 [TestDryRunPreemption/\"get Unschedulable in the preemption phase when the filter "
    "plugins filtering the nodes\"]: the fake filter failing everywhere on the DR4 nodes",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2");
  c.add(n1, "p1", mid, large());
  c.add(n2, "p2", mid, large());
  const pod p = c.make("p", high, large());
  tst::filter_chain f;
  f.fake_unschedulable = true;
  tst::test_cluster tc(c, f);
  run<X, tst::test_cluster> r;
  const auto& d = r.evaluate(p, tc, all_unschedulable(2), c.budgets, no_noms);
  check_no_candidates(d, "preemption: 0/2 nodes are available: 2 injecting failure for pod.");
  CHECK(tc.kept_fit_checks(d) == 2);

  // Control: without the fake filter both nodes are candidates (DR4), 4 fit checks.
  tc.filters.fake_unschedulable = false;
  tc.reset_counts();
  const auto& d4 = r.evaluate(p, tc, all_unschedulable(2), c.budgets, no_noms, at_offset(0));
  CHECK(candidate_list(c, d4.candidates) == name_list{"node1{p1}/0", "node2{p2}/0"});
  CHECK(tc.kept_fit_checks(d4) == 4);
}

TEST_CASE_TEMPLATE(
    "DR16 [TestDryRunPreemption/\"all nodes are possible candidates, but DefaultPreemptionArgs "
    "limits to 2\"]: the dry run stops after the wanted number of candidates",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c = five_nodes();
  const pod p = c.make("p", high, large());
  tst::test_cluster tc(c);
  run<X, tst::test_cluster> r(sampling(40, 1));
  const auto& d = r.evaluate(p, tc, all_unschedulable(5), c.budgets, no_noms, at_offset(4));
  CHECK(d.potential_nodes == 5);
  CHECK(d.candidates_wanted == 2);
  CHECK(d.offset == 4);
  CHECK(candidate_list(c, d.candidates) == name_list{"node5{p5}/0", "node1{p1}/0"});
  CHECK(diagnosis_list(c, d) == name_list{"node5:Success", "node1:Success"});
  CHECK(tc.kept_fit_checks(d) == 4);
  if (X::parallelism == 1) CHECK(tc.total_fit_checks() == 4);
  check_nominated(c, d, "node5", {"p5"});  // every score ties: the first candidate found wins
  CHECK(d.choice.deciding_score == preempt::default_scores::count);
}

TEST_CASE_TEMPLATE(
    "DR17 [TestDryRunPreemption/\"some nodes are not possible candidates, DefaultPreemptionArgs "
    "limits to 2\"]: nodes without victims do not count toward the wanted candidates",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c = five_nodes(very_high, very_high);
  const pod p = c.make("p", high, large());
  tst::test_cluster tc(c);
  run<X, tst::test_cluster> r(sampling(40, 1));
  const auto& d = r.evaluate(p, tc, all_unschedulable(5), c.budgets, no_noms, at_offset(4));
  CHECK(candidate_list(c, d.candidates) == name_list{"node1{p1}/0", "node3{p3}/0"});
  CHECK(diagnosis_list(c, d) == name_list{"node5:UnschedulableAndUnresolvable", "node1:Success",
                                          "node2:UnschedulableAndUnresolvable", "node3:Success"});
  CHECK(tc.kept_fit_checks(d) == 4);
  if (X::parallelism == 1) CHECK(tc.total_fit_checks() == 4);
  check_nominated(c, d, "node1", {"p1"});
}

TEST_CASE_TEMPLATE(
    "DR18 [TestDryRunPreemption/\"preemption offset across multiple scheduling cycles and wrap "
    "around\"]: offsets across attempts, wrapping around",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c = five_nodes();
  const pod p1 = c.make("p", high, large());
  const pod p2 = c.make("q", high, large());
  const pod p3 = c.make("r", high, large());
  tst::test_cluster tc(c);
  run<X, tst::test_cluster> r(sampling(40, 1));
  const std::array<const pod*, 3> preemptors{&p1, &p2, &p3};
  const std::array<std::size_t, 3> offsets{4, 1, 3};
  const std::array<name_list, 3> expected{name_list{"node5{p5}/0", "node1{p1}/0"},
                                          name_list{"node2{p2}/0", "node3{p3}/0"},
                                          name_list{"node4{p4}/0", "node5{p5}/0"}};
  for (std::size_t k = 0; k < 3; ++k) {
    CAPTURE(k);
    tc.reset_counts();
    const auto& d = r.evaluate(*preemptors[k], tc, all_unschedulable(5), c.budgets, no_noms,
                               at_offset(offsets[k]));
    CHECK(candidate_list(c, d.candidates) == expected[k]);
    CHECK(tc.kept_fit_checks(d) == 4);
    CHECK(d.kind == decision_kind::nominated);
  }
  // Offsets are taken modulo the number of potential nodes.
  const auto& d = r.evaluate(p1, tc, all_unschedulable(5), c.budgets, no_noms, at_offset(9));
  CHECK(d.offset == 4);
  CHECK(candidate_list(c, d.candidates) == expected[0]);
}

TEST_CASE_TEMPLATE(
    "DR19 [TestDryRunPreemption/\"preemption looks past numCandidates until a non-PDB violating "
    "node is found\"]: the search goes past the wanted count to find a node without violations",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c = five_nodes();
  c.budget(0, {"p1", "p2", "p5"});  // app=foo, disruptionsAllowed 0
  const pod p = c.make("p", high, large());
  tst::test_cluster tc(c);
  run<X, tst::test_cluster> r(sampling(40, 2));
  const auto& d = r.evaluate(p, tc, all_unschedulable(5), c.budgets, no_noms, at_offset(4));
  CHECK(d.candidates_wanted == 2);
  // node5 and node1 fill the violating list; node2 (violating) overflows and is dropped; node3
  // is the first without violations and ends the search.
  CHECK(diagnosis_list(c, d) ==
        name_list{"node5:Success", "node1:Success", "node2:Success", "node3:Success"});
  CHECK(candidate_list(c, d.candidates) == name_list{"node3{p3}/0", "node5{p5}/1", "node1{p1}/1"});
  CHECK(tc.kept_fit_checks(d) == 8);
  if (X::parallelism == 1) CHECK(tc.total_fit_checks() == 8);
  check_nominated(c, d, "node3", {"p3"}, 0);
  CHECK(d.choice.index == 0);
  CHECK(d.choice.deciding_score == 0);  // fewest violations
}

TEST_CASE_TEMPLATE(
    "DR20-DR21 [TestDryRunPreemption/\"no pdb violation\", \"pdb violation on each node\"]: a "
    "victim selection that returns the first pod of each node",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2");
  c.add(n1, "p1", low, large());
  c.add(n1, "q1", low, small());
  c.add(n2, "p2", low, large());
  c.add(n2, "q2", low, small());
  const pod p = c.make("p", high, large());

  SUBCASE("DR20 [TestDryRunPreemption/\"no pdb violation\"]: no budget, no violation") {
    run<X, preempt::model::resource_cluster, first_pod_only> r;
    const auto& d =
        r.evaluate(p, c.cluster, all_unschedulable(2), c.budgets, no_noms, at_offset(0));
    CHECK(candidate_list(c, d.candidates) == name_list{"node1{p1}/0", "node2{p2}/0"});
    check_nominated(c, d, "node1", {"p1"}, 0);
  }
  SUBCASE(
      "DR21 [TestDryRunPreemption/\"pdb violation on each node\"]: each victim violates a budget") {
    c.budget(0, {"p1", "p2"});
    run<X, preempt::model::resource_cluster, first_pod_only> r;
    const auto& d =
        r.evaluate(p, c.cluster, all_unschedulable(2), c.budgets, no_noms, at_offset(0));
    CHECK(candidate_list(c, d.candidates) == name_list{"node1{p1}/1", "node2{p2}/1"});
    check_nominated(c, d, "node1", {"p1"}, 1);
  }
}

// ---- TestPodEligibleToPreemptOthers ----------------------------------------------------------

TEST_CASE_TEMPLATE(
    "EL1-EL5 [TestPodEligibleToPreemptOthers]: eligibility through the nominated node", X,
    PREEMPT_TEST_EXECUTORS) {
  // node1: the nominated node, with a low pod that is terminating (with or without the
  // DisruptionTarget condition); node2: a low pod the preemptor may evict.
  const auto make = [](bool by_preemption) {
    named_cluster c;
    const auto n1 = c.node("node1", one_pod_node());
    const auto n2 = c.node("node2", one_pod_node());
    add_spec(c, n1, "t1", terminating_pod(low, by_preemption));
    c.add(n2, "p2", low, small());
    return c;
  };
  const std::string not_eligible_terminating =
      "preemption: not eligible due to a terminating pod on the nominated node.";

  SUBCASE(
      "EL1 [TestPodEligibleToPreemptOthers/\"Pod with nominated node\"]: nominated node "
      "UnschedulableAndUnresolvable, terminating pod without condition") {
    named_cluster c = make(false);
    const pod p = c.make("p", high, small());
    preempt::filter_statuses st(2, status_code::unschedulable);
    st.set(0, status_code::unschedulable_and_unresolvable);
    run<X> r;
    const auto& d = r.evaluate(p, c.cluster, st, c.budgets, no_noms, nominated_to(0));
    check_nominated(c, d, "node2", {"p2"});
  }
  SUBCASE(
      "EL1' [ours]: an unresolvable nominated node frees the pod even from a preempting victim") {
    named_cluster c = make(true);
    const pod p = c.make("p", high, small());
    preempt::filter_statuses st(2, status_code::unschedulable);
    st.set(0, status_code::unschedulable_and_unresolvable);
    run<X> r;
    const auto& d = r.evaluate(p, c.cluster, st, c.budgets, no_noms, nominated_to(0));
    check_nominated(c, d, "node2", {"p2"});
  }
  SUBCASE(
      "EL2 [TestPodEligibleToPreemptOthers/\"Pod without nominated node\"]: no nominated node") {
    named_cluster c = make(true);
    const pod p = c.make("p", high, small());
    run<X> r;
    const auto& d =
        r.evaluate(p, c.cluster, all_unschedulable(2), c.budgets, no_noms, at_offset(1));
    check_nominated(c, d, "node2", {"p2"});
  }
  SUBCASE(
      "EL3 [TestPodEligibleToPreemptOthers/\"Pod with 'PreemptNever' preemption policy\"]: "
      "preemptionPolicy Never") {
    named_cluster c = make(false);
    preempt::model::pod_spec spec{.uid = 100,
                                  .priority = high,
                                  .requests = small(),
                                  .start_time = 0,
                                  .namespace_id = 0,
                                  .terminating = false,
                                  .terminating_by_preemption = false,
                                  .preemption_policy = preempt::preemption_policy::never};
    const pod p(spec);
    run<X> r;
    const auto& d = r.evaluate(p, c.cluster, all_unschedulable(2), c.budgets, no_noms);
    check_not_eligible(d, "preemption: not eligible due to preemptionPolicy=Never.");
    // Never wins over a nominated node that would otherwise free the pod.
    preempt::filter_statuses st(2, status_code::unschedulable);
    st.set(0, status_code::unschedulable_and_unresolvable);
    const auto& d2 = r.evaluate(p, c.cluster, st, c.budgets, no_noms, nominated_to(0));
    check_not_eligible(d2, "preemption: not eligible due to preemptionPolicy=Never.");
    // PreemptLowerPriority (the default) may preempt.
    spec.preemption_policy = preempt::preemption_policy::preempt_lower_priority;
    const pod q(spec);
    const auto& d3 =
        r.evaluate(q, c.cluster, all_unschedulable(2), c.budgets, no_noms, at_offset(1));
    check_nominated(c, d3, "node2", {"p2"});
  }
  SUBCASE(
      "EL4 [TestPodEligibleToPreemptOthers/\"preemption victim pod terminating, as indicated by "
      "the dedicated DisruptionTarget condition\"]: a lower-priority pod terminating by preemption "
      "on the nominated node") {
    named_cluster c = make(true);
    const pod p = c.make("p", high, small());
    run<X> r;
    const auto& d =
        r.evaluate(p, c.cluster, all_unschedulable(2), c.budgets, no_noms, nominated_to(0));
    check_not_eligible(d, not_eligible_terminating);
    // The same pod on another node than the nominated one does not block.
    const auto& d2 =
        r.evaluate(p, c.cluster, all_unschedulable(2), c.budgets, no_noms, nominated_to(1));
    CHECK(d2.kind == decision_kind::nominated);
    // A nomination outside the cluster is no nomination.
    const auto& d3 =
        r.evaluate(p, c.cluster, all_unschedulable(2), c.budgets, no_noms, nominated_to(7));
    CHECK(d3.kind == decision_kind::nominated);
  }
  SUBCASE("EL4' [ours]: only a pod that would be a legal victim blocks") {
    named_cluster c = make(true);
    const pod tied = c.make("tied", low, small());  // the terminating pod is not lower
    run<X> r;
    const auto& d =
        r.evaluate(tied, c.cluster, all_unschedulable(2), c.budgets, no_noms, nominated_to(0));
    CHECK(d.kind != decision_kind::not_eligible);
    const pod p = c.make("p", high, small());
    struct no_victim_on_node1 : preempt::default_policy {
      bool is_eligible_victim(const preempt::model::resource_node& n, const pod&,
                              const pod&) const {
        return n.name() != "node1";
      }
    };
    run<X, preempt::model::resource_cluster, no_victim_on_node1> r2;
    const auto& d2 =
        r2.evaluate(p, c.cluster, all_unschedulable(2), c.budgets, no_noms, nominated_to(0));
    check_nominated(c, d2, "node2", {"p2"});
  }
  SUBCASE(
      "EL5 [TestPodEligibleToPreemptOthers/\"non-victim Pods terminating\"]: a terminating pod "
      "without the DisruptionTarget condition does not block") {
    named_cluster c = make(false);
    const pod p = c.make("p", high, small());
    run<X> r;
    const auto& d =
        r.evaluate(p, c.cluster, all_unschedulable(2), c.budgets, no_noms, nominated_to(0));
    check_nominated(c, d, "node1", {"t1"});
  }
}

// ---- TestCallExtenders -----------------------------------------------------------------------

TEST_CASE_TEMPLATE("EX1-EX8 [TestCallExtenders]: extenders on the single candidate node1{victim}",
                   X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1", one_pod_node());
  c.add(n1, "victim", low, small());
  const pod p = c.make("p", high, small());
  const auto st = all_unschedulable(1);
  using action = test_extender::action;
  run<X> r;
  const auto with = [&](test_extender& e) -> const auto& {
    return r.evaluate(p, c.cluster, st, c.budgets, no_noms, {}, std::array<test_extender*, 1>{&e});
  };

  SUBCASE("EX1 [TestCallExtenders/\"no extenders\"]: no extender") {
    const auto& d = r.evaluate(p, c.cluster, st, c.budgets, no_noms);
    check_nominated(c, d, "node1", {"victim"});
    CHECK(candidate_list(c, d.candidates) == name_list{"node1{victim}/0"});
  }
  SUBCASE("EX2 [TestCallExtenders/\"one extender supports preemption\"]: an extender that echoes") {
    test_extender e;
    const auto& d = with(e);
    check_nominated(c, d, "node1", {"victim"});
    CHECK(candidate_list(c, d.candidates) == name_list{"node1{victim}/0"});
    CHECK(e.calls == 1);
  }
  SUBCASE(
      "EX3 [TestCallExtenders/\"one extender with return no victims\"]: a node returned without "
      "victims fails the attempt") {
    test_extender e;
    e.act = action::no_victims;
    const auto& d = with(e);
    check_error(d, "preemption: expected at least one victim pod on node \"node1\"");
  }
  SUBCASE(
      "EX4 [TestCallExtenders/\"one extender does not support preemption\"]: an extender that does "
      "not support preemption is skipped") {
    test_extender e;
    e.act = action::drop_all;
    e.supports = false;
    const auto& d = with(e);
    check_nominated(c, d, "node1", {"victim"});
    CHECK(candidate_list(c, d.candidates) == name_list{"node1{victim}/0"});
    CHECK(e.calls == 0);
  }
  SUBCASE("EX4' [ours]: an extender not interested in the pod is skipped") {
    test_extender e;
    e.act = action::drop_all;
    e.interested = false;
    const auto& d = with(e);
    check_nominated(c, d, "node1", {"victim"});
    CHECK(e.calls == 0);
  }
  SUBCASE(
      "EX5 [TestCallExtenders/\"one extender with no return victims and is ignorable\"]: an "
      "ignorable extender's node without victims is dropped") {
    test_extender e;
    e.act = action::no_victims;
    e.ignorable = true;
    const auto& d = with(e);
    CHECK(d.kind == decision_kind::unschedulable);
    CHECK(d.message == "preemption: no candidate node for preemption");
    CHECK_FALSE(d.clear_nomination);  // upstream returns a nil result: keep the nomination
    CHECK(d.candidates.empty());
    CHECK(d.node_name.empty());
  }
  SUBCASE(
      "EX6 [TestCallExtenders/\"one extender returns error and is ignorable\"]: an ignorable "
      "extender's error is skipped") {
    test_extender e;
    e.act = action::fail;
    e.ignorable = true;
    const auto& d = with(e);
    check_nominated(c, d, "node1", {"victim"});
    CHECK(candidate_list(c, d.candidates) == name_list{"node1{victim}/0"});
    CHECK(e.calls == 1);
  }
  SUBCASE(
      "EX7 [TestCallExtenders/\"one extender returns error and is not ignorable\"]: a "
      "non-ignorable extender's error fails the attempt") {
    test_extender e;
    e.act = action::fail;
    const auto& d = with(e);
    check_error(d, "preemption: extender preempt error");
  }
  SUBCASE(
      "EX8 [TestCallExtenders/\"one extender with empty victims input\"]: with no candidate no "
      "extender runs") {
    const pod tied = c.make("tied", low, small());
    test_extender e;
    const auto& d =
        r.evaluate(tied, c.cluster, st, c.budgets, no_noms, {}, std::array<test_extender*, 1>{&e});
    check_no_candidates(
        d, "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.");
    CHECK(e.calls == 0);
  }
}

TEST_CASE_TEMPLATE("extender chains: order, replaced victims, an empty result ends the chain", X,
                   PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2");
  c.add(n1, "p1.1", mid, small());
  c.add(n1, "p1.2", low, small());
  c.add(n2, "p2", mid, large());
  const pod p = c.make("p", high, very_large());
  const auto st = all_unschedulable(2);
  using action = test_extender::action;
  run<X> r;

  // Without extenders node2 wins (fewer victims... of the same top priority, smaller sum).
  {
    const auto& d = r.evaluate(p, c.cluster, st, c.budgets, no_noms, at_offset(0));
    check_nominated(c, d, "node2", {"p2"});
    CHECK(candidate_list(c, d.candidates) == name_list{"node1{p1.1,p1.2}/0", "node2{p2}/0"});
  }
  SUBCASE("each extender sees the previous one's result") {
    std::vector<test_extender> exts(3);
    exts[0].act = action::echo;
    exts[1].act = action::keep_node1;
    exts[2].act = action::echo;
    const auto& d = r.evaluate(p, c.cluster, st, c.budgets, no_noms, at_offset(0), exts);
    check_nominated(c, d, "node1", {"p1.1", "p1.2"});
    CHECK(exts[0].seen == name_list{"node1", "node2"});
    CHECK(exts[2].seen == name_list{"node1"});
  }
  SUBCASE("an extender may change the victims") {
    test_extender e;
    e.act = action::last_victim;
    const auto& d = r.evaluate(p, c.cluster, st, c.budgets, no_noms, at_offset(0),
                               std::array<test_extender*, 1>{&e});
    CHECK(candidate_list(c, d.candidates) == name_list{"node1{p1.2}/0", "node2{p2}/0"});
    check_nominated(c, d, "node1", {"p1.2"});  // lowest highest-priority victim
  }
  SUBCASE("an empty result stops the chain") {
    std::vector<test_extender> exts(2);
    exts[0].act = action::drop_all;
    const auto& d = r.evaluate(p, c.cluster, st, c.budgets, no_noms, at_offset(0), exts);
    CHECK(d.kind == decision_kind::unschedulable);
    CHECK(d.message == "preemption: no candidate node for preemption");
    CHECK_FALSE(d.clear_nomination);
    CHECK(exts[0].calls == 1);
    CHECK(exts[1].calls == 0);
  }
  SUBCASE("an error after a filtering extender fails the attempt") {
    std::vector<test_extender> exts(2);
    exts[0].act = action::keep_node1;
    exts[1].act = action::fail;
    const auto& d = r.evaluate(p, c.cluster, st, c.budgets, no_noms, at_offset(0), exts);
    check_error(d, "preemption: extender preempt error");
  }
}

// TestCallExtenders' EX3/EX7 expect no candidates from a failed extender call (upstream's
// callExtenders returns nil). The decision's documented `candidates` are "the candidates after the
// extenders".
TEST_CASE_TEMPLATE(
    "EX3/EX7 [TestCallExtenders/\"one extender with return no victims\", \"one extender returns "
    "error and is not ignorable\"]: a failed extender call leaves no candidates in the decision",
    X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1", one_pod_node());
  c.add(n1, "victim", low, small());
  const pod p = c.make("p", high, small());
  run<X> r;
  for (auto act : {test_extender::action::fail, test_extender::action::no_victims}) {
    test_extender e;
    e.act = act;
    const auto& d = r.evaluate(p, c.cluster, all_unschedulable(1), c.budgets, no_noms, {},
                               std::array<test_extender*, 1>{&e});
    CHECK(d.kind == decision_kind::error);
    CHECK(d.candidates.empty());
  }
}

// ---- findCandidates: which nodes are tried ---------------------------------------------------

TEST_CASE_TEMPLATE("only nodes whose filter status is exactly Unschedulable are tried", X,
                   PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const std::array<const char*, 6> names{"ok",    "unsched",  "unresolvable",
                                         "error", "unsched2", "absent"};
  for (const char* n : names) {
    const auto i = c.node(n);
    c.add(i, std::string("p-") + n, low, large());
  }
  const pod p = c.make("p", high, large());
  preempt::filter_statuses st(5);
  st.set(0, status_code::success);
  st.set(1, status_code::unschedulable);
  st.set(2, status_code::unschedulable_and_unresolvable);
  st.set(3, status_code::error);
  st.set(4, status_code::unschedulable);
  run<X> r;
  const auto& d = r.evaluate(p, c.cluster, st, c.budgets, no_noms, at_offset(0));
  CHECK(d.potential_nodes == 2);
  CHECK(diagnosis_list(c, d) == name_list{"unsched:Success", "unsched2:Success"});
  CHECK(candidate_list(c, d.candidates) ==
        name_list{"unsched{p-unsched}/0", "unsched2{p-unsched2}/0"});

  const pod big = c.make("big", high, res(600, 100));
  const auto& d2 = r.evaluate(big, c.cluster, st, c.budgets, no_noms, at_offset(1));
  check_no_candidates(d2,
                      "preemption: 0/6 nodes are available: 2 Insufficient cpu, 4 Preemption is "
                      "not helpful for scheduling.");
  CHECK(diagnosis_list(c, d2) ==
        name_list{"unsched2:UnschedulableAndUnresolvable", "unsched:UnschedulableAndUnresolvable"});
}

// ---- Edge cases -----------------------------------------------------------------------------

TEST_CASE_TEMPLATE("a cluster without nodes is an error", X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const pod p = c.make("p", high, small());
  run<X> r;
  const auto& d = r.evaluate(p, c.cluster, preempt::filter_statuses{}, c.budgets, no_noms);
  check_error(d, "preemption: no nodes available");
  CHECK(d.diagnosis.empty());
  CHECK(d.candidates.empty());
}

TEST_CASE_TEMPLATE("several errors without a candidate are aggregated", X, PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  for (int k = 1; k <= 3; ++k) {
    const auto n = c.node("node" + std::to_string(k), capacity(1000, 1000));
    c.add(n, "p" + std::to_string(k), low, small());
  }
  const pod p = c.make("p", high, large());
  tst::test_cluster tc(c);
  tc.flag_error(0);
  tc.flag_error(2);
  run<X, tst::test_cluster> r;
  SUBCASE("the same message twice is reported once") {
    // node2 is not tried: the two RemovePod errors remain.
    preempt::filter_statuses st(3, status_code::unschedulable);
    st.set(1, status_code::unschedulable_and_unresolvable);
    const auto& d = r.evaluate(p, tc, st, c.budgets, no_noms);
    check_error(d,
                "preemption: running RemovePod on PreFilter plugin \"test-plugin\": failed to "
                "remove pod: p");
  }
  SUBCASE("different messages are listed in evaluation order") {
    // node2: the preemptor fits without evicting p2 ("expected at least one victim").
    tc.filters.resources = false;
    const auto& d = r.evaluate(p, tc, all_unschedulable(3), c.budgets, no_noms, at_offset(1));
    check_error(
        d,
        "preemption: [expected at least one victim pod on node \"node2\", running RemovePod "
        "on PreFilter plugin \"test-plugin\": failed to remove pod: p]");
    CHECK(diagnosis_list(c, d) == name_list{"node2:Error", "node3:Error", "node1:Error"});
  }
}

TEST_CASE_TEMPLATE("nominated pods reserve room on their node (two-pass fit)", X,
                   PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2");
  c.add(n1, "p1", low, large());
  c.add(n2, "p2", low, large());
  c.add(n2, "p2.2", low, small());
  const pod p = c.make("p", high, large());
  const pod reserved = c.make("reserved", very_high, large());
  struct nominations {
    std::vector<std::vector<const pod*>> by_node;
    const std::vector<const pod*>& nominated_to(std::size_t i) const { return by_node[i]; }
  };
  static_assert(preempt::nominations_of<nominations, pod>);
  run<X> r;
  // Without nominations node1 wins (one victim).
  check_nominated(c,
                  r.evaluate(p, c.cluster, all_unschedulable(2), c.budgets, no_noms, at_offset(0)),
                  "node1", {"p1"});
  // A very-high pod nominated to node1 leaves too little room there: node2 is chosen.
  const nominations noms{{{&reserved}, {}}};
  const auto& d = r.evaluate(p, c.cluster, all_unschedulable(2), c.budgets, noms, at_offset(0));
  CHECK(diagnosis_list(c, d) == name_list{"node1:Unschedulable", "node2:Success"});
  check_nominated(c, d, "node2", {"p2"});
}

TEST_CASE_TEMPLATE("without an injected offset the start is drawn from the seeded generator", X,
                   PREEMPT_TEST_EXECUTORS) {
  named_cluster c = five_nodes();
  const pod p = c.make("p", high, large());
  preempt::evaluator_config cfg = exf::config<X>(sampling(40, 1));
  cfg.seed = 42;
  preempt::evaluator<preempt::model::resource_cluster> a(cfg), b(cfg);
  X fx;  // after the evaluators
  std::vector<std::size_t> offsets_a, offsets_b;
  bool varied = false;
  for (int k = 0; k < 20; ++k) {
    const auto& da =
        a.evaluate(p, c.cluster, all_unschedulable(5), c.budgets, no_noms, fx.executor());
    CHECK(da.offset < 5);
    CHECK(da.candidates.size() == 2);
    CHECK(da.diagnosis.front().node_index == da.offset);
    offsets_a.push_back(da.offset);
    const auto& db =
        b.evaluate(p, c.cluster, all_unschedulable(5), c.budgets, no_noms, fx.executor());
    offsets_b.push_back(db.offset);
    varied = varied || offsets_a.back() != offsets_a.front();
  }
  CHECK(offsets_a == offsets_b);  // same seed, same draws
  CHECK(varied);
  fx.finish();
}

// ---- Observer and clear_nomination ----------------------------------------------------------

namespace {
struct counting_observer {
  int attempts = 0;
  std::vector<std::size_t> nodes;  // every node evaluated, in order
  std::vector<status_code> codes;
  std::vector<std::int64_t> violations;
  std::vector<std::size_t> victim_counts;
  int chosen = 0;
  std::size_t chosen_node = static_cast<std::size_t>(-1);
  std::size_t chosen_victims = 0;
  std::thread::id thread;
  bool one_thread = true;

  void on_thread() {
    if (thread == std::thread::id{}) thread = std::this_thread::get_id();
    one_thread = one_thread && thread == std::this_thread::get_id();
  }
  void on_attempt_started(const pod&) {
    on_thread();
    ++attempts;
  }
  void on_node_evaluated(std::size_t i, const preempt::status& s, std::span<const pod* const> v,
                         std::int64_t viol) {
    on_thread();
    nodes.push_back(i);
    codes.push_back(s.code());
    victim_counts.push_back(v.size());
    violations.push_back(viol);
  }
  void on_candidate_chosen(const preempt::candidate<pod>& k) {
    on_thread();
    ++chosen;
    chosen_node = k.node_index;
    chosen_victims = k.victims.size();
  }
};
}  // namespace

TEST_CASE_TEMPLATE("an observer sees attempts, the nodes kept and the chosen candidate", X,
                   PREEMPT_TEST_EXECUTORS) {
  named_cluster c = five_nodes();
  c.budget(0, {"p1", "p2", "p5"});
  const pod p = c.make("p", high, large());
  const pod tied = c.make("tied", mid, large());
  preempt::model::pod_spec never_spec{.uid = 999,
                                      .priority = high,
                                      .requests = large(),
                                      .start_time = 0,
                                      .namespace_id = 0,
                                      .terminating = false,
                                      .terminating_by_preemption = false,
                                      .preemption_policy = preempt::preemption_policy::never};
  const pod never(never_spec);
  run<X, preempt::model::resource_cluster, preempt::default_policy, counting_observer> r(
      sampling(40, 2));
  const counting_observer& o = r.ev.observer();
  const std::thread::id me = std::this_thread::get_id();

  const auto& d = r.evaluate(p, c.cluster, all_unschedulable(5), c.budgets, no_noms, at_offset(4));
  CHECK(o.attempts == 1);
  CHECK(o.nodes.size() == d.diagnosis.size());
  REQUIRE(o.nodes.size() == 4);
  for (std::size_t k = 0; k < o.nodes.size(); ++k) {
    CHECK(o.nodes[k] == d.diagnosis[k].node_index);
    CHECK(o.codes[k] == d.diagnosis[k].outcome.code());
  }
  CHECK(o.violations == std::vector<std::int64_t>{1, 1, 1, 0});  // node2's candidate was dropped
  CHECK(o.victim_counts == std::vector<std::size_t>{1, 1, 1, 1});
  CHECK(o.chosen == 1);
  CHECK(o.chosen_node == d.node_index);
  CHECK(c.cluster[o.chosen_node].name() == "node3");
  CHECK(o.chosen_victims == 1);

  const auto& d2 =
      r.evaluate(tied, c.cluster, all_unschedulable(5), c.budgets, no_noms, at_offset(0));
  CHECK(d2.kind == decision_kind::unschedulable);
  CHECK(o.attempts == 2);
  CHECK(o.nodes.size() == 4 + d2.diagnosis.size());
  CHECK(d2.diagnosis.size() == 5);
  CHECK(o.chosen == 1);  // nothing chosen

  const auto& d3 = r.evaluate(never, c.cluster, all_unschedulable(5), c.budgets, no_noms);
  CHECK(d3.kind == decision_kind::not_eligible);
  CHECK(o.attempts == 3);  // counted even when not eligible
  CHECK(o.nodes.size() == 9);
  CHECK(o.chosen == 1);
  CHECK(o.one_thread);
  CHECK(o.thread == me);
}

TEST_CASE_TEMPLATE("clear_nomination is set only when the dry run found no candidate", X,
                   PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1", one_pod_node());
  c.add(n1, "p1", low, small());
  const pod p = c.make("p", high, small());
  const pod tied = c.make("tied", low, small());
  tst::test_cluster tc(c);
  run<X, tst::test_cluster> r;
  const auto st = all_unschedulable(1);
  CHECK_FALSE(r.evaluate(p, tc, st, c.budgets, no_noms).clear_nomination);  // nominated
  CHECK(r.evaluate(tied, tc, st, c.budgets, no_noms).clear_nomination);     // no candidate
  CHECK(r.evaluate(p, tc, preempt::filter_statuses{}, c.budgets, no_noms)
            .clear_nomination);  // none tried
  tc.flag_error(n1);
  const auto& e = r.evaluate(p, tc, st, c.budgets, no_noms);  // error without a candidate
  CHECK(e.kind == decision_kind::error);
  CHECK_FALSE(e.clear_nomination);
  // not eligible: see EL3/EL4; extenders removing every candidate: see EX5.
}

// GetOffsetAndNumCandidates allows numCandidates = 0 (abs 0, n * pct < 100): both bounded lists
// have capacity 0, so every candidate is dropped and the attempt ends with "no candidates".
// Upstream's DryRunPreemption records only failed nodes in the status map; a node tried
// successfully is absent from it and the FitError counts it as "Preemption is not helpful for
// scheduling" (the status of an absent node).
TEST_CASE_TEMPLATE("wanted 0: successful nodes count as not helpful in the message", X,
                   PREEMPT_TEST_EXECUTORS) {
  named_cluster c;
  const auto n1 = c.node("node1", one_pod_node());
  c.node("node2", one_pod_node());
  c.add(n1, "p1", low, small());
  const pod p = c.make("p", high, small());
  preempt::filter_statuses st(2);
  st.set(n1, status_code::unschedulable);
  run<X> r(sampling(10, 0));
  const auto& d = r.evaluate(p, c.cluster, st, c.budgets, no_noms, at_offset(0));
  CHECK(d.candidates_wanted == 0);
  CHECK(d.candidates.empty());
  CHECK(diagnosis_list(c, d) == name_list{"node1:Success"});
  check_no_candidates(
      d, "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
}

}  // namespace evaluator_test
