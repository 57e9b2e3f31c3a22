// The nodes of a pod group's placement ranked by the victims a member would condemn there
// (preempt/workload/victim_cost_ranking.hpp), from k8s.io/kubernetes v1.38.0-beta.0:
//
//   R1  TestCompareVictimSets (preemption/util_test.go), every row both ways
//   R2  TestDefaultPreemption_PodGroupPreemptionRankNodes (defaultpreemption): the ranks of the
//       nodes, after Reserve on one node and after Unreserve, through pod_group_evaluator under
//       kubernetes_1_38 (its placement gets the ranking)
//   R3  the evaluator hands the ranking to a placement that takes it under v1.38 only; a placement
//       without it decides as before; v1.38 orders equal units by their first pods' UIDs
//       (podIdentityLess), or by the caller's IdentityLess
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/workload_scene.hpp"

namespace victim_cost_ranking_test {

namespace {

namespace wl = preempt::workload;
using wl::unit_cost;
using wl::unit_kind;

int compare(const std::vector<unit_cost>& a, const std::vector<unit_cost>& b) {
  return wl::compare_victim_sets(a, b);
}

}  // namespace

TEST_CASE("R1 [TestCompareVictimSets]") {
  // makeVictim(name, priority, keyType, podCount, startOffset, pdbViolations).
  const unit_cost very_low_pod{1, unit_kind::pod, 1, 0};
  const unit_cost very_low_pg3{1, unit_kind::pod_group, 3, 0};
  const unit_cost low_pod{10, unit_kind::pod, 1, 0};
  const unit_cost low_pod_pdb{10, unit_kind::pod, 1, 1};
  const unit_cost mid_low_pod{9, unit_kind::pod, 1, 0};
  const unit_cost mid_high_pod{19, unit_kind::pod, 1, 0};
  const unit_cost high_pod{20, unit_kind::pod, 1, 0};
  const unit_cost high_pg2{20, unit_kind::pod_group, 2, 0};
  const unit_cost pg1{10, unit_kind::pod_group, 1, 0};
  const unit_cost pg2{10, unit_kind::pod_group, 2, 0};
  const unit_cost pg3{10, unit_kind::pod_group, 3, 0};
  const unit_cost pg4{10, unit_kind::pod_group, 4, 0};
  const unit_cost younger_low_pod{10, unit_kind::pod, 1, 0};  // start times do not count

  struct row {
    const char* name;
    std::vector<unit_cost> set1, set2;
    int want;
  };
  const std::vector<row> rows = {
      {"empty set strictly preferred over non-empty set", {}, {low_pod}, -1},
      {"fewer PDB violations strictly preferred", {high_pod}, {low_pod_pdb}, -1},
      {"lower priority victim preferred over higher priority victim", {low_pod}, {high_pod}, -1},
      {"priorities across the set compared before total pod count",
       {high_pod, very_low_pg3},
       {high_pod, mid_high_pod},
       -1},
      {"fewer evicted pods at highest priority preferred even with higher secondary priority",
       {low_pod, mid_low_pod},
       {pg3, very_low_pod},
       -1},
      {"fewer evicted pods at highest priority preferred over multi-pod group at same priority",
       {high_pod, mid_high_pod},
       {high_pg2, very_low_pod},
       -1},
      {"fewer total evicted pods preferred when priorities match",
       {pg2},
       {low_pod, low_pod, low_pod},
       -1},
      {"one 4-pod PodGroup preferred over three 3-pod PodGroups of same priority",
       {pg4},
       {pg3, pg3, pg3},
       -1},
      {"standalone pod preferred over PodGroup of same priority and total pod count",
       {low_pod},
       {pg1},
       -1},
      {"smaller PodGroup preferred over larger PodGroup of same priority", {pg2}, {pg4}, -1},
      {"fewer victim units preferred when structural importance ties",
       {low_pod},
       {low_pod, younger_low_pod},
       -1},
      {"equal cost when structural importance and counts tie", {younger_low_pod}, {low_pod}, 0},
  };
  for (const row& r : rows) {
    CAPTURE(r.name);
    CHECK(compare(r.set1, r.set2) == r.want);
    CHECK(compare(r.set2, r.set1) == -r.want);
  }
}

namespace {

using ranked_nodes = std::vector<std::pair<std::string, int>>;

// The nodes in RankNodes' order with their ranks: a stable sort by compare, rank 0 where nothing
// survives, one more at each change of cost.
template <class Ranking>
ranked_nodes rank_all(const Ranking& ranking, const wlf::scene& s) {
  std::vector<std::size_t> order(ranking.node_count());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ranking.compare(a, b) < 0; });
  ranked_nodes out;
  int rank = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    std::vector<std::uint32_t> surviving;
    ranking.surviving(order[i], surviving);
    if (!surviving.empty() && (i == 0 || ranking.compare(order[i - 1], order[i]) != 0)) ++rank;
    out.emplace_back(std::string(s.cluster[order[i]].name()), surviving.empty() ? 0 : rank);
  }
  return out;
}

// A placement that takes the ranking: records the ranks before and after Reserve on `reserve`
// and after Unreserve, and places nobody.
struct ranking_probe {
  const wlf::scene* s = nullptr;
  std::string reserve;
  ranked_nodes initial, after_reserve, after_unreserve;
  int calls_with_ranking = 0;

  template <class S, class Ranking>
  preempt::status operator()(std::span<const wlf::pod* const>, wl::node_states<S>&,
                             std::span<std::size_t>, Ranking& ranking) {
    ++calls_with_ranking;
    initial = rank_all(ranking, *s);
    if (!reserve.empty()) {
      const std::size_t mark = ranking.condemn(s->cluster.find(reserve));
      after_reserve = rank_all(ranking, *s);
      ranking.release(mark);
      after_unreserve = rank_all(ranking, *s);
    }
    return preempt::status::unschedulable("probe");
  }
  template <class S>
  preempt::status operator()(std::span<const wlf::pod* const>, wl::node_states<S>&,
                             std::span<std::size_t>) {
    return preempt::status::unschedulable("probe without ranking");
  }
};

using evaluator = wl::pod_group_evaluator<preempt::model::resource_cluster>;
constexpr wl::group_evaluator_config v1_38{.profile = preempt::upstream_profile::kubernetes_1_38};

ranking_probe probe(wlf::scene& s, const std::string& reserve = "") {
  s.group_priority = 100;
  s.member("preemptor-1");
  ranking_probe p{&s, reserve, {}, {}, {}, 0};
  evaluator ev(v1_38);
  const auto& d =
      ev.evaluate(s.preemptor(), s.cluster, s.grps, s.budgets, preempt::no_nominations{}, p);
  CHECK(p.calls_with_ranking == 1);
  CHECK(d.outcome.reason() == "probe");
  return p;
}

}  // namespace

TEST_CASE("R2 [TestDefaultPreemption_PodGroupPreemptionRankNodes]") {
  SUBCASE("tied victim sets receive identical ranks and preserve input order") {
    wlf::scene s;
    for (const char* n : {"node-high", "node-tie-1", "node-tie-2"}) s.node(n, 10);
    s.add({.name = "victim-tie-1", .node = "node-tie-1", .priority = 10});
    s.add({.name = "victim-tie-2", .node = "node-tie-2", .priority = 10});
    s.add({.name = "victim-high", .node = "node-high", .priority = 20});
    CHECK(probe(s).initial == ranked_nodes{{"node-tie-1", 1}, {"node-tie-2", 1}, {"node-high", 2}});
  }
  SUBCASE("multiple victims on a single node sorted by MoreImportantVictim") {
    wlf::scene s;
    for (const char* n : {"node-multi", "node-mid"}) s.node(n, 10);
    s.add({.name = "victim-high", .node = "node-multi", .priority = 20});
    s.add({.name = "victim-low", .node = "node-multi", .priority = 5});
    s.add({.name = "victim-mid", .node = "node-mid", .priority = 15});
    CHECK(probe(s).initial == ranked_nodes{{"node-mid", 1}, {"node-multi", 2}});
  }
  SUBCASE(
      "free node, standalone pod, multi-node PodGroup, higher-priority pod; Reserve and "
      "Unreserve") {
    wlf::scene s;
    for (const char* n : {"node-high", "node-pg-1", "node-pg-2", "node-pod", "node-free"})
      s.node(n, 10);
    s.group("pg-victim", true, 10);
    s.add({.name = "victim-pod", .node = "node-pod", .priority = 10});
    s.add({.name = "victim-pg-1", .node = "node-pg-1", .priority = 10, .group = "pg-victim"});
    s.add({.name = "victim-pg-2", .node = "node-pg-2", .priority = 10, .group = "pg-victim"});
    s.add({.name = "victim-high", .node = "node-high", .priority = 20});
    const ranked_nodes initial = {
        {"node-free", 0}, {"node-pod", 1}, {"node-pg-1", 2}, {"node-pg-2", 2}, {"node-high", 3}};
    const auto p = probe(s, "node-pg-1");
    CHECK(p.initial == initial);
    CHECK(p.after_reserve == ranked_nodes{{"node-pg-1", 0},
                                          {"node-pg-2", 0},
                                          {"node-free", 0},
                                          {"node-pod", 1},
                                          {"node-high", 2}});
    CHECK(p.after_unreserve == initial);
  }
  SUBCASE("all candidate nodes have zero victims") {
    wlf::scene s;
    for (const char* n : {"node-1", "node-2", "node-3"}) s.node(n, 10);
    s.add({.name = "higher", .node = "node-2", .priority = 500});  // not a potential victim
    s.add({.name = "lower", .node = "node-1", .priority = 10});    // some victim must exist
    const auto p = probe(s, "node-1");
    CHECK(p.after_reserve == ranked_nodes{{"node-1", 0}, {"node-2", 0}, {"node-3", 0}});
  }
}

TEST_CASE("R3: the ranking reaches a placement that takes it, under v1.38 only") {
  wlf::scene s;
  s.node("n1", 1);
  s.node("n2", 1);
  s.add({.name = "a", .node = "n1", .priority = 10});
  s.add({.name = "b", .node = "n2", .priority = 10});
  s.member("m");

  SUBCASE("v1.37 calls the placement without it") {
    ranking_probe p{&s, "", {}, {}, {}, 0};
    evaluator ev;
    const auto& d =
        ev.evaluate(s.preemptor(), s.cluster, s.grps, s.budgets, preempt::no_nominations{}, p);
    CHECK(p.calls_with_ranking == 0);
    CHECK(d.outcome.reason() == "probe without ranking");
  }
  SUBCASE("equal units by their first pods' UIDs (podIdentityLess), or the caller's order") {
    // Both on one node with room for one more pod: the more important one is reprieved, the
    // other evicted for the member.
    wlf::scene t;
    t.node("n1", 2);
    t.add({.name = "a", .node = "n1", .priority = 10});
    t.add({.name = "b", .node = "n1", .priority = 10});
    t.member("m");
    const auto victim = [&](const auto&... identity_less) {
      evaluator ev(v1_38);
      const auto& d =
          ev.evaluate(t.preemptor(), t.cluster, t.grps, t.budgets, preempt::no_nominations{},
                      wlf::round_robin{1}, std::span<const std::size_t>{}, identity_less...);
      REQUIRE(d.victims.size() == 1);
      return t.names.at(d.victims[0]->uid());
    };
    CHECK(victim() == "b");  // a's uid is the smaller: a is the more important
    const auto reversed = [](const wlf::pod& x, const wlf::pod& y) { return y.uid() < x.uid(); };
    CHECK(victim(reversed) == "a");
  }
  SUBCASE("a placement without the ranking decides under v1.38 as before") {
    evaluator ev(v1_38);
    const auto& d = ev.evaluate(s.preemptor(), s.cluster, s.grps, s.budgets,
                                preempt::no_nominations{}, wlf::round_robin{1});
    REQUIRE(d.kind == wl::group_decision_kind::preempt);
    REQUIRE(d.victims.size() == 1);
    CHECK(s.names.at(d.victims[0]->uid()) == "a");
  }
}

}  // namespace victim_cost_ranking_test
