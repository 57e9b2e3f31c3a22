// The opt-in preemption policies (preempt/preemption_policies.hpp, policy_selection.hpp): each on a
// node or cluster built so that it has something to decide, against upstream's answer on the same
// input, and each with nothing to decide (upstream's answer, whole). Random clusters are in
// tests/evaluation/policy_properties.test.cpp.
//
// Convention: cpu only (memory 0); a node's cpu is full unless said; priorities below the
// preemptor's 1000; start times make the importance order explicit.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "preempt/preemption_policies.hpp"
#include "preempt/victim_reasons.hpp"

namespace preemption_policies_test {

namespace {

using preempt::model::resource_cluster;
using preempt::model::resource_pod;

resource_pod pod(preempt::model::pod_id uid, std::int32_t priority, std::int64_t cpu,
                 std::optional<preempt::timestamp> start = 0) {
  return resource_pod(
      {.uid = uid, .priority = priority, .requests = {cpu, 0}, .start_time = start});
}

resource_pod preemptor(std::int64_t cpu) {
  return resource_pod({.uid = 999, .priority = 1000, .requests = {cpu, 0}, .start_time = {}});
}

std::set<preempt::model::pod_id> uids(std::span<const resource_pod* const> victims) {
  std::set<preempt::model::pod_id> out;
  for (const resource_pod* v : victims) out.insert(v->uid());
  return out;
}

// Cost by uid (1 unless listed).
struct cost_table {
  std::vector<std::pair<preempt::model::pod_id, std::int64_t>> costs;
  std::int64_t operator()(const resource_pod& p) const {
    for (const auto& [u, c] : costs)
      if (u == p.uid()) return c;
    return 1;
  }
};

// Pinned by uid.
struct pinned_table {
  std::set<preempt::model::pod_id> pinned;
  bool operator()(const resource_pod& p) const { return !pinned.contains(p.uid()); }
};

using policies = preempt::preemption_policies<cost_table, pinned_table>;

// Selects on node 0 of the cluster with `pol`.
struct one_node {
  resource_cluster cluster;
  preempt::model::budget_table budgets;
  preempt::victim_scratch<resource_pod> scratch;

  template <class Policy>
  preempt::victim_selection<resource_pod> select(const resource_pod& me, const Policy& pol) {
    auto state = cluster.make_state();
    cluster.prepare_state(0, state);
    return preempt::select_victims(me, cluster[0], state, budgets, scratch, pol);
  }
};

}  // namespace

TEST_CASE("min_cost: the fewest victims where upstream's reprieve evicts two") {
  // a (30, 4 cpu), b and c (10, 2 cpu each) fill 8 cpu; the preemptor needs 4. Upstream gives a
  // back first, then neither b nor c fits: two victims. Evicting a alone makes room.
  one_node n;
  const auto x = n.cluster.add_node("n", {8, 0, 110});
  n.cluster.add_pod(x, pod(1, 30, 4, 0));
  n.cluster.add_pod(x, pod(2, 10, 2, 1));
  n.cluster.add_pod(x, pod(3, 10, 2, 2));
  const auto me = preemptor(4);

  const auto up = n.select(me, preempt::default_policy{});
  REQUIRE(up.is_candidate());
  CHECK(uids(up.victims) == std::set<preempt::model::pod_id>{2, 3});

  policies pol;
  pol.options.min_cost = true;
  const auto mc = n.select(me, pol);
  REQUIRE(mc.is_candidate());
  CHECK(uids(mc.victims) == std::set<preempt::model::pod_id>{1});

  SUBCASE("with costs: two cheap pods rather than one dear one") {
    pol.cost.costs = {{1, 5}};
    const auto dear = n.select(me, pol);
    REQUIRE(dear.is_candidate());
    CHECK(uids(dear.victims) == std::set<preempt::model::pod_id>{2, 3});
  }
  SUBCASE("beyond the exact bound: the better of the cost-order pass and upstream") {
    pol.options.exact_victims = 1;
    const auto greedy = n.select(me, pol);
    REQUIRE(greedy.is_candidate());
    // The pass in cost order (all 1: upstream's order) is upstream's answer.
    CHECK(uids(greedy.victims) == std::set<preempt::model::pod_id>{2, 3});
  }
  SUBCASE("the state afterwards: the chosen victims removed") {
    auto state = n.cluster.make_state();
    n.cluster.prepare_state(0, state);
    const auto r = preempt::select_victims(me, n.cluster[0], state, n.budgets, n.scratch, pol);
    REQUIRE(r.is_candidate());
    CHECK(state.fits(me).is_success());
    CHECK(state.requested()[0] == 4);  // b and c left
  }
}

TEST_CASE("min_cost: the choice of node by total cost, then upstream's criteria") {
  // n1: one victim of priority 10 and cost 7; n2: two victims of priority 50, cost 1 each.
  // Upstream picks n1 (lowest highest-priority victim); by cost, n2.
  resource_cluster c;
  const auto n1 = c.add_node("n1", {4, 0, 110});
  const auto n2 = c.add_node("n2", {4, 0, 110});
  c.add_pod(n1, pod(1, 10, 4));
  c.add_pod(n2, pod(2, 50, 2));
  c.add_pod(n2, pod(3, 50, 2));
  const auto me = preemptor(4);
  preempt::filter_statuses statuses(2, preempt::status_code::unschedulable);
  preempt::nomination_ledger<resource_pod> ledger(2);
  const preempt::attempt at{.offset = 0, .nominated_node = std::nullopt};

  preempt::evaluator<resource_cluster> up;
  const auto& d0 = up.evaluate(me, c, statuses, preempt::no_budgets{}, ledger.reader(),
                               preempt::inline_executor{}, at);
  REQUIRE(d0.kind == preempt::decision_kind::nominated);
  CHECK(d0.node_name == "n1");

  policies pol;
  pol.options.min_cost = true;
  pol.cost.costs = {{1, 7}};
  preempt::evaluator<resource_cluster, policies> ev({}, pol);
  const auto& d = ev.evaluate(me, c, statuses, preempt::no_budgets{}, ledger.reader(),
                              preempt::inline_executor{}, at);
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  CHECK(d.node_name == "n2");
  CHECK(d.choice.deciding_score == 0);  // the total cost

  SUBCASE("equal costs: upstream's criteria decide, as upstream") {
    ev.policy().cost.costs = {{1, 2}};
    const auto& tie = ev.evaluate(me, c, statuses, preempt::no_budgets{}, ledger.reader(),
                                  preempt::inline_executor{}, at);
    REQUIRE(tie.kind == preempt::decision_kind::nominated);
    CHECK(tie.node_name == "n1");
    CHECK(tie.choice.deciding_score == 2);  // upstream's "lowest highest-priority victim"
  }
}

TEST_CASE("hard_budgets: another victim set without violation, where upstream exceeds a budget") {
  // A budget (1 allowed) over a (30, 2 cpu), v1 (20, 6 cpu) and v2 (20, 2 cpu); d (10, 2 cpu)
  // has none. 12 cpu full; the preemptor needs 6. Upstream gives v1 back first (violating), then
  // nothing else fits: a, v2 and d are evicted, two of the budget's pods for one allowed. Evicting
  // v1 alone takes one disruption and makes room.
  one_node n;
  const auto x = n.cluster.add_node("n", {12, 0, 110});
  n.cluster.add_pod(x, pod(1, 30, 2, 0));  // a
  n.cluster.add_pod(x, pod(2, 20, 6, 1));  // v1
  n.cluster.add_pod(x, pod(3, 20, 2, 2));  // v2
  n.cluster.add_pod(x, pod(4, 10, 2, 3));  // d
  const auto b = n.budgets.add_budget(0, 1);
  for (preempt::model::pod_id u : {1u, 2u, 3u}) n.budgets.add_member(b, u);
  const auto me = preemptor(6);

  const auto up = n.select(me, preempt::default_policy{});
  REQUIRE(up.is_candidate());
  CHECK(uids(up.victims) == std::set<preempt::model::pod_id>{1, 3, 4});
  CHECK(up.pdb_violations == 1);
  CHECK(preempt::count_budget_violations(up.victims, n.budgets) == 1);

  policies pol;
  pol.options.hard_budgets = true;
  const auto hard = n.select(me, pol);
  REQUIRE(hard.is_candidate());
  CHECK(uids(hard.victims) == std::set<preempt::model::pod_id>{2});
  CHECK(hard.pdb_violations == 0);
  CHECK(preempt::count_budget_violations(hard.victims, n.budgets) == 0);

  SUBCASE("no such set: the node is rejected") {
    one_node t;
    const auto y = t.cluster.add_node("n", {4, 0, 110});
    t.cluster.add_pod(y, pod(1, 10, 4));
    t.budgets.add_member(t.budgets.add_budget(0, 0), 1);
    const auto r = t.select(preemptor(4), pol);
    CHECK_FALSE(r.is_candidate());
    CHECK(r.outcome.code() == preempt::status_code::unschedulable);
    CHECK(r.outcome.reason() == preempt::budget_violation_reason);
    CHECK(t.select(preemptor(4), preempt::default_policy{}).is_candidate());
  }
}

TEST_CASE("hard_budgets: unschedulable where every candidate violates, upstream nominates") {
  resource_cluster c;
  const auto n1 = c.add_node("n1", {4, 0, 110});
  c.add_pod(n1, pod(1, 10, 4));
  preempt::model::budget_table budgets;
  budgets.add_member(budgets.add_budget(0, 0), 1);
  const auto me = preemptor(4);
  preempt::filter_statuses statuses(1, preempt::status_code::unschedulable);
  preempt::nomination_ledger<resource_pod> ledger(1);
  const preempt::attempt at{.offset = 0, .nominated_node = std::nullopt};

  preempt::evaluator<resource_cluster> up;
  CHECK(
      up.evaluate(me, c, statuses, budgets, ledger.reader(), preempt::inline_executor{}, at).kind ==
      preempt::decision_kind::nominated);
  policies pol;
  pol.options.hard_budgets = true;
  preempt::evaluator<resource_cluster, policies> ev({}, pol);
  const auto& d =
      ev.evaluate(me, c, statuses, budgets, ledger.reader(), preempt::inline_executor{}, at);
  CHECK(d.kind == preempt::decision_kind::unschedulable);
  CHECK(d.message ==
        "preemption: 0/1 nodes are available: 1 Preemption would violate a PodDisruptionBudget.");
  CHECK(preempt::refused_by_budgets(d.diagnosis));
}

TEST_CASE("metrics: budget refusals count decisions hard_budgets left without a candidate") {
  // n1 only with a violation; n2 too small whatever is evicted.
  resource_cluster c;
  const auto n1 = c.add_node("n1", {4, 0, 110});
  const auto n2 = c.add_node("n2", {2, 0, 110});
  c.add_pod(n1, pod(1, 10, 4));
  c.add_pod(n2, pod(2, 10, 2));
  preempt::model::budget_table budgets, open_budgets;
  budgets.add_member(budgets.add_budget(0, 0), 1);
  open_budgets.add_member(open_budgets.add_budget(0, 1), 1);
  preempt::filter_statuses statuses(2, preempt::status_code::unschedulable);
  preempt::nomination_ledger<resource_pod> ledger(2);
  const preempt::attempt at{.offset = 0, .nominated_node = std::nullopt};
  preempt::metrics m;
  policies pol;
  pol.options.hard_budgets = true;
  preempt::evaluator<resource_cluster, policies, preempt::metrics_hooks> ev(
      {}, pol, preempt::metrics_hooks{&m});
  const auto evaluate = [&](const resource_pod& me,
                            const preempt::model::budget_table& with) -> const auto& {
    return ev.evaluate(me, c, statuses, with, ledger.reader(), preempt::inline_executor{}, at);
  };

  const auto& refused = evaluate(preemptor(4), budgets);
  CHECK(refused.kind == preempt::decision_kind::unschedulable);
  CHECK(preempt::refused_by_budgets(refused.diagnosis));
  CHECK(m.budget_refusals() == 1);
  // Unschedulable for want of room alone: no refusal.
  const auto& too_big = evaluate(preemptor(8), budgets);
  CHECK(too_big.kind == preempt::decision_kind::unschedulable);
  CHECK_FALSE(preempt::refused_by_budgets(too_big.diagnosis));
  CHECK(m.budget_refusals() == 1);
  // A candidate without violation (n2): nominated, no refusal although n1 was rejected.
  CHECK(evaluate(preemptor(2), budgets).kind == preempt::decision_kind::nominated);
  CHECK(m.budget_refusals() == 1);
  // The budget allows it now: nominated.
  CHECK(evaluate(preemptor(4), open_budgets).kind == preempt::decision_kind::nominated);
  CHECK(m.budget_refusals() == 1);
  CHECK(m.attempts() == 4);

  // Upstream (no hard_budgets) never refuses.
  preempt::metrics up_metrics;
  preempt::evaluator<resource_cluster, preempt::default_policy, preempt::metrics_hooks> up(
      {}, {}, preempt::metrics_hooks{&up_metrics});
  CHECK(up.evaluate(preemptor(4), c, statuses, budgets, ledger.reader(), preempt::inline_executor{},
                    at)
            .kind == preempt::decision_kind::nominated);
  CHECK(up_metrics.budget_refusals() == 0);
}

TEST_CASE("spare_reschedulable: of two equal-priority pods, the one that can run elsewhere goes") {
  // p1 (started first) can run elsewhere, p2 is pinned to this node; either alone makes room.
  // Upstream evicts the later-started p2; the policy gives p2 back first and evicts p1.
  one_node n;
  const auto x = n.cluster.add_node("n", {4, 0, 110});
  n.cluster.add_pod(x, pod(1, 10, 2, 0));
  n.cluster.add_pod(x, pod(2, 10, 2, 5));
  const auto me = preemptor(2);
  CHECK(uids(n.select(me, preempt::default_policy{}).victims) ==
        std::set<preempt::model::pod_id>{2});

  policies pol;
  pol.options.spare_reschedulable = true;
  pol.reschedulable.pinned = {2};
  const auto r = n.select(me, pol);
  REQUIRE(r.is_candidate());
  CHECK(uids(r.victims) == std::set<preempt::model::pod_id>{1});

  SUBCASE("different priorities: importance first, as upstream") {
    one_node t;
    const auto y = t.cluster.add_node("n", {4, 0, 110});
    t.cluster.add_pod(y, pod(1, 20, 2, 0));
    t.cluster.add_pod(y, pod(2, 10, 2, 5));
    CHECK(uids(t.select(me, pol).victims) == std::set<preempt::model::pod_id>{2});
  }
  SUBCASE("no pinned pod: upstream's answer") {
    pol.reschedulable.pinned = {};
    CHECK(uids(n.select(me, pol).victims) == std::set<preempt::model::pod_id>{2});
  }
}

TEST_CASE("spare_reschedulable: never more pinned victims than upstream on the node") {
  // Equal priority: p1 (pinned, 2 cpu), p2 (1 cpu), p3 (pinned, 1 cpu). Upstream gives p1 back,
  // then neither p2 nor p3 fits; the policy's pass (p1, p3, p2) evicts the same two pods.
  one_node n;
  const auto x = n.cluster.add_node("n", {4, 0, 110});
  n.cluster.add_pod(x, pod(1, 10, 2, 0));
  n.cluster.add_pod(x, pod(2, 10, 1, 1));
  n.cluster.add_pod(x, pod(3, 10, 1, 2));
  const auto me = preemptor(2);
  policies pol;
  pol.options.spare_reschedulable = true;
  pol.reschedulable.pinned = {1, 3};
  const auto up = n.select(me, preempt::default_policy{});
  const auto r = n.select(me, pol);
  REQUIRE(up.is_candidate());
  REQUIRE(r.is_candidate());
  const auto pinned_count = [&](std::span<const resource_pod* const> v) {
    std::size_t k = 0;
    for (const resource_pod* p : v) k += pol.reschedulable(*p) ? std::size_t{0} : std::size_t{1};
    return k;
  };
  CHECK(pinned_count(r.victims) <= pinned_count(up.victims));
  CHECK(uids(r.victims) == std::set<preempt::model::pod_id>{2, 3});
}

TEST_CASE("min_runtime: a pod that has not run long enough is no victim") {
  one_node n;
  const auto x = n.cluster.add_node("n", {4, 0, 110});
  n.cluster.add_pod(x, pod(1, 10, 2, 0));            // ran 100
  n.cluster.add_pod(x, pod(2, 10, 2, 95));           // ran 5
  n.cluster.add_pod(x, pod(3, 5, 0, std::nullopt));  // not started
  const auto me = preemptor(2);
  policies pol;
  pol.now = 100;
  pol.options.min_runtime = 10;
  const auto r = n.select(me, pol);
  REQUIRE(r.is_candidate());
  CHECK(uids(r.victims) == std::set<preempt::model::pod_id>{1});
  CHECK(uids(n.select(me, preempt::default_policy{100}).victims) ==
        std::set<preempt::model::pod_id>{2});

  SUBCASE("only young pods: no victims on the node") {
    pol.options.min_runtime = 1000;
    const auto none = n.select(me, pol);
    CHECK_FALSE(none.is_candidate());
    CHECK(none.outcome.reason() == preempt::no_victims_reason);
  }
  SUBCASE("a runtime met by every pod changes nothing") {
    pol.options.min_runtime = 0;  // the pod without a start time stays spared
    const auto all = n.select(me, pol);
    CHECK(uids(all.victims) == uids(n.select(me, preempt::default_policy{100}).victims));
  }
}

TEST_CASE("policies all off: upstream's answer, victims and violation count alike") {
  one_node n;
  const auto x = n.cluster.add_node("n", {12, 0, 110});
  n.cluster.add_pod(x, pod(1, 30, 2, 0));
  n.cluster.add_pod(x, pod(2, 20, 6, 1));
  n.cluster.add_pod(x, pod(3, 20, 2, 2));
  n.cluster.add_pod(x, pod(4, 10, 2, 3));
  const auto b = n.budgets.add_budget(0, 1);
  for (preempt::model::pod_id u : {1u, 2u, 3u}) n.budgets.add_member(b, u);
  const auto me = preemptor(6);
  const auto up = n.select(me, preempt::default_policy{});
  const std::set<preempt::model::pod_id> up_victims = uids(up.victims);
  const std::int64_t up_violations = up.pdb_violations;
  const auto r = n.select(me, policies{});
  CHECK(uids(r.victims) == up_victims);
  CHECK(r.pdb_violations == up_violations);
}

TEST_CASE("explain_victims: the condition each victim's eviction relieves, with amounts") {
  one_node n;
  const auto x = n.cluster.add_node("n", {9, 0, 110});
  n.cluster.add_pod(x, pod(1, 30, 4, 0));
  n.cluster.add_pod(x, pod(2, 10, 2, 1));
  n.cluster.add_pod(x, pod(3, 10, 3, 2));
  const auto me = preemptor(5);
  auto state = n.cluster.make_state();
  n.cluster.prepare_state(0, state);
  const auto r = preempt::select_victims(me, n.cluster[0], state, n.budgets, n.scratch);
  REQUIRE(r.is_candidate());
  REQUIRE(uids(r.victims) == std::set<preempt::model::pod_id>{2, 3});
  const auto before = state.requested();
  std::vector<preempt::victim_explanation> seen;
  const preempt::status st = preempt::explain_victims(
      me, state, r.victims, preempt::no_nominated_pods<resource_pod>,
      [&](std::size_t, const preempt::victim_explanation& e) { seen.push_back(e); });
  CHECK(st.is_success());
  CHECK(state.requested() == before);  // as it began
  REQUIRE(seen.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    CHECK(seen[i].fit.code() == preempt::status_code::unschedulable);
    CHECK(seen[i].fit.reason() == "Insufficient cpu");
    REQUIRE(seen[i].shortages().size() == 1);
    CHECK(seen[i].shortages()[0].dimension == preempt::model::resource::cpu);
    CHECK(seen[i].shortages()[0].wanted == 5);
  }
  // Keeping the 2-cpu victim (beside a) leaves 3 cpu; keeping the 3-cpu one leaves 2.
  const std::int64_t left2 =
      r.victims[0]->uid() == 2 ? seen[0].shortages()[0].left : seen[1].shortages()[0].left;
  CHECK(left2 == 3);
}

}  // namespace preemption_policies_test
