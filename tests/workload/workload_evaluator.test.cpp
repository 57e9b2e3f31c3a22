// Single-pod preemption with pod groups as victims through the whole decision
// (preempt/evaluator.hpp, the overload taking a workload::group_set; Kubernetes v1.37
// DefaultPreemption with GenericWorkload): units built once per decision, whole units evicted
// across nodes, the node choice on the flattened victims, group priority in the terminating-pod
// check; and with workload::no_groups, the decision of the overload without groups, on every
// executor.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "preempt/manual_executor.hpp"
#include "preempt/preempt.hpp"
#include "preempt/thread_pool.hpp"
#include "support/workload_scene.hpp"

namespace workload_evaluator_test {

namespace {

namespace wl = preempt::workload;
using evaluator = preempt::evaluator<preempt::model::resource_cluster>;

// Every node unschedulable for the preemptor (the filter status that lets preemption try it).
preempt::filter_statuses all_unschedulable(std::size_t n) {
  preempt::filter_statuses st(n);
  for (std::size_t i = 0; i < n; ++i) st.set(i, preempt::status_code::unschedulable);
  return st;
}

wlf::pod preemptor_pod(std::int32_t priority, std::int64_t slots = 1) {
  return wlf::pod({.uid = 5000, .priority = priority, .requests = {0, 0, slots}, .start_time = {}});
}

}  // namespace

TEST_CASE("evaluator with groups: an all-mode group is evicted whole, across nodes") {
  wlf::scene s;
  s.node("n1", 2);
  s.node("n2", 2);
  s.group("gang", true, wlf::low);
  // n1: g1 (gang) + plain mid; n2: g2 (gang) + plain p2 low.
  s.add({.name = "g1", .node = "n1", .priority = wlf::low, .group = "gang"});
  s.add({.name = "m1", .node = "n1", .priority = wlf::mid});
  s.add({.name = "g2", .node = "n2", .priority = wlf::low, .group = "gang"});
  s.add({.name = "p2", .node = "n2", .priority = wlf::low});
  const wlf::pod me = preemptor_pod(wlf::high);
  const auto statuses = all_unschedulable(2);
  evaluator ev;
  const auto& d = ev.evaluate(me, s.cluster, s.grps, statuses, s.budgets, preempt::no_nominations{},
                              preempt::inline_executor{},
                              preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  // n1: evicting the gang takes g2 on n2 too (2 pods); n2: p2 alone suffices (a plain pod is
  // less important than a group member of equal priority), so n2 wins on fewer victims.
  CHECK(d.node_name == "n2");
  CHECK(s.named(d.victims) == std::set<std::string>{"p2"});
  REQUIRE(d.candidates.size() == 2);
  for (const auto& c : d.candidates)
    if (c.node_name == "n1") CHECK(s.named(c.victims) == std::set<std::string>{"g1", "g2"});

  SUBCASE("without groups every pod is its own victim") {
    const auto& plain = ev.evaluate(me, s.cluster, statuses, s.budgets, preempt::no_nominations{},
                                    preempt::inline_executor{},
                                    preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
    REQUIRE(plain.kind == preempt::decision_kind::nominated);
    for (const auto& c : plain.candidates)
      if (c.node_name == "n1") CHECK(s.named(c.victims) == std::set<std::string>{"g1"});
  }
}

TEST_CASE("evaluator with groups: a member's priority is its group's") {
  wlf::scene s;
  s.node("n1", 1);
  s.group("important", false, 2000);
  s.add({.name = "inverted", .node = "n1", .priority = wlf::low, .group = "important"});
  const wlf::pod me = preemptor_pod(wlf::high);
  const auto statuses = all_unschedulable(1);
  evaluator ev;
  const auto& d = ev.evaluate(me, s.cluster, s.grps, statuses, s.budgets, preempt::no_nominations{},
                              preempt::inline_executor{},
                              preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
  CHECK(d.kind == preempt::decision_kind::unschedulable);
  CHECK(d.message ==
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.");
}

TEST_CASE("evaluator with groups: the terminating-pod check compares the group's priority") {
  wlf::scene s;
  s.node("n1", 4);
  s.node("n2", 1);
  s.group("low-group", false, wlf::low);
  s.group("high-group", false, 2000);
  s.add({.name = "p2", .node = "n2", .priority = wlf::low});
  const wlf::pod me = preemptor_pod(wlf::high);
  const auto statuses = all_unschedulable(2);
  evaluator ev;
  const preempt::attempt nominated_n1{.offset = 0, .nominated_node = 0};

  SUBCASE("a pod of high priority in a lower group blocks") {
    s.add({.name = "t", .node = "n1", .priority = 5000, .group = "low-group", .terminating = true});
    const auto& d =
        ev.evaluate(me, s.cluster, s.grps, statuses, s.budgets, preempt::no_nominations{},
                    preempt::inline_executor{}, nominated_n1);
    CHECK(d.kind == preempt::decision_kind::not_eligible);
    // Without groups the pod's own priority (5000) does not block.
    const auto& plain = ev.evaluate(me, s.cluster, statuses, s.budgets, preempt::no_nominations{},
                                    preempt::inline_executor{}, nominated_n1);
    CHECK(plain.kind != preempt::decision_kind::not_eligible);
  }
  SUBCASE("a pod of low priority in a higher group does not block") {
    s.add({.name = "t",
           .node = "n1",
           .priority = wlf::low,
           .group = "high-group",
           .terminating = true});
    const auto& d =
        ev.evaluate(me, s.cluster, s.grps, statuses, s.budgets, preempt::no_nominations{},
                    preempt::inline_executor{}, nominated_n1);
    CHECK(d.kind != preempt::decision_kind::not_eligible);
    const auto& plain = ev.evaluate(me, s.cluster, statuses, s.budgets, preempt::no_nominations{},
                                    preempt::inline_executor{}, nominated_n1);
    CHECK(plain.kind == preempt::decision_kind::not_eligible);
  }
}

TEST_CASE("evaluator with no_groups decides as without groups, on every executor") {
  wlf::scene s;
  for (int i = 0; i < 12; ++i) s.node("n" + std::to_string(i), 1 + i % 3);
  for (int i = 0; i < 12; ++i)
    for (int k = 0; k < 1 + i % 3; ++k)
      s.add({.name = "p" + std::to_string(i) + "." + std::to_string(k),
             .node = "n" + std::to_string(i),
             .priority = static_cast<std::int32_t>(10 * ((i * 7 + k * 3) % 5)),
             .start = static_cast<preempt::timestamp>((i * 13 + k) % 7),
             .foo = (i + k) % 4 == 0});
  s.pdb_foo(1);
  const auto statuses = all_unschedulable(12);
  const wlf::pod me = preemptor_pod(35, 2);

  const auto summary = [&](const evaluator::decision_type& d) {
    std::vector<std::string> out{std::to_string(static_cast<int>(d.kind)), std::string(d.node_name),
                                 std::string(d.message), std::to_string(d.pdb_violations)};
    for (const auto* v : d.victims) out.push_back(s.names.at(v->uid()));
    for (const auto& diag : d.diagnosis)
      out.push_back(std::to_string(diag.node_index) + ":" +
                    std::string(preempt::to_string(diag.outcome.code())));
    return out;
  };
  for (std::size_t offset = 0; offset < 12; offset += 5) {
    evaluator plain_ev;
    const auto want = summary(plain_ev.evaluate(
        me, s.cluster, statuses, s.budgets, preempt::no_nominations{}, preempt::inline_executor{},
        preempt::attempt{.offset = offset, .nominated_node = std::nullopt}));
    evaluator inline_ev;
    CHECK(summary(inline_ev.evaluate(
              me, s.cluster, wl::no_groups{}, statuses, s.budgets, preempt::no_nominations{},
              preempt::inline_executor{},
              preempt::attempt{.offset = offset, .nominated_node = std::nullopt})) == want);
    preempt::thread_pool pool(2);
    evaluator pooled([] {
      preempt::evaluator_config c;
      c.parallelism = 3;
      c.min_parallel_nodes = 0;           // the helpers take any dry run
      c.workers_within_hardware = false;  // every worker, whatever the machine
      c.chunk = 1;
      return c;
    }());
    CHECK(summary(pooled.evaluate(
              me, s.cluster, wl::no_groups{}, statuses, s.budgets, preempt::no_nominations{},
              pool.get_executor(),
              preempt::attempt{.offset = offset, .nominated_node = std::nullopt})) == want);
    preempt::manual_context manual;
    evaluator manual_ev([] {
      preempt::evaluator_config c;
      c.parallelism = 2;
      c.min_parallel_nodes = 0;           // the helpers take any dry run
      c.workers_within_hardware = false;  // every worker, whatever the machine
      c.chunk = 2;
      return c;
    }());
    CHECK(summary(manual_ev.evaluate(
              me, s.cluster, wl::no_groups{}, statuses, s.budgets, preempt::no_nominations{},
              manual.get_executor(),
              preempt::attempt{.offset = offset, .nominated_node = std::nullopt})) == want);
    manual.drain();
  }
}

TEST_CASE(
    "evaluator with groups: every executor gives the same decision, units are evicted whole "
    "(random clusters)") {
  std::size_t whole_units_seen = 0;  // candidates evicting an all-mode unit of several pods
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    std::uint32_t state = seed * 2654435761u;
    const auto next = [&](std::uint32_t n) {
      state = state * 1664525u + 1013904223u;
      return (state >> 8) % n;
    };
    wlf::scene s;
    const std::size_t nodes = 3 + next(6);
    for (std::size_t i = 0; i < nodes; ++i) s.node("n" + std::to_string(i), 2 + next(3));
    const std::size_t groups = 1 + next(4);
    for (std::size_t g = 0; g < groups; ++g)
      s.group("g" + std::to_string(g), next(2) == 0, static_cast<std::int32_t>(10 * next(4)));
    int k = 0;
    for (std::size_t i = 0; i < nodes; ++i)
      for (std::size_t j = 0, n = 1 + next(3); j < n; ++j)
        s.add({.name = "p" + std::to_string(k++),
               .node = "n" + std::to_string(i),
               .priority = static_cast<std::int32_t>(10 * next(4)),
               .group = next(2) == 0
                            ? "g" + std::to_string(next(static_cast<std::uint32_t>(groups)))
                            : "",
               .start = static_cast<preempt::timestamp>(next(5)),
               .foo = next(4) == 0});
    s.pdb_foo(static_cast<std::int32_t>(next(2)));
    const auto statuses = all_unschedulable(nodes);
    const wlf::pod me = preemptor_pod(25, 1 + next(2));
    const preempt::attempt at{.offset = next(static_cast<std::uint32_t>(nodes)),
                              .nominated_node = std::nullopt};

    const auto summary = [&](const evaluator::decision_type& d) {
      std::vector<std::string> out{std::to_string(static_cast<int>(d.kind)),
                                   std::string(d.node_name), std::string(d.message),
                                   std::to_string(d.pdb_violations)};
      for (const auto* v : d.victims) out.push_back(s.names.at(v->uid()));
      for (const auto& c : d.candidates) {
        out.push_back(std::string(c.node_name));
        for (const auto* v : c.victims) out.push_back(s.names.at(v->uid()));
      }
      return out;
    };
    evaluator inline_ev;
    const auto& d = inline_ev.evaluate(me, s.cluster, s.grps, statuses, s.budgets,
                                       preempt::no_nominations{}, preempt::inline_executor{}, at);
    const auto want = summary(d);
    // Units whole: a victim whose group is in `all` mode brings every pod of that group.
    for (const auto& c : d.candidates) {
      const std::set<std::string> chosen = s.named(c.victims);
      for (std::size_t x = 0; x < s.cluster.size(); ++x)
        for (const auto& p : s.cluster[x].pods()) {
          const std::size_t key = wl::highest_all_ancestor(s.grps, p);
          if (key == wl::no_group) continue;
          for (std::size_t y = 0; y < s.cluster.size(); ++y)
            for (const auto& q : s.cluster[y].pods())
              if (wl::highest_all_ancestor(s.grps, q) == key) {
                CHECK(chosen.count(s.names.at(p.uid())) == chosen.count(s.names.at(q.uid())));
                if (&p != &q && chosen.count(s.names.at(p.uid())) != 0) ++whole_units_seen;
              }
          // Only lower priority than the preemptor, compared by the group's priority.
          if (chosen.count(s.names.at(p.uid())) != 0)
            CHECK(wl::effective_priority(s.grps, p) < me.priority());
        }
    }
    preempt::thread_pool pool(2);
    evaluator pooled([] {
      preempt::evaluator_config c;
      c.parallelism = 3;
      c.min_parallel_nodes = 0;           // the helpers take any dry run
      c.workers_within_hardware = false;  // every worker, whatever the machine
      c.chunk = 1;
      return c;
    }());
    CHECK(summary(pooled.evaluate(me, s.cluster, s.grps, statuses, s.budgets,
                                  preempt::no_nominations{}, pool.get_executor(), at)) == want);
    preempt::manual_context manual;
    evaluator manual_ev([] {
      preempt::evaluator_config c;
      c.parallelism = 2;
      c.min_parallel_nodes = 0;           // the helpers take any dry run
      c.workers_within_hardware = false;  // every worker, whatever the machine
      c.chunk = 2;
      return c;
    }());
    CHECK(summary(manual_ev.evaluate(me, s.cluster, s.grps, statuses, s.budgets,
                                     preempt::no_nominations{}, manual.get_executor(), at)) ==
          want);
    manual.drain();
  }
  CHECK(whole_units_seen > 0);
}

TEST_CASE(
    "evaluator with no_groups: many equally important victims come out in upstream's "
    "sort.Slice order, as without groups") {
  wlf::scene s;
  const std::size_t n0 = s.cluster.add_node("n0", {24'000, 1LL << 40, 100});
  const std::size_t budget = s.budgets.add_budget(0, 2);
  for (wlf::uid u = 1; u <= 24; ++u) {  // 1000m each: the node is full
    s.names[u] = "p" + std::to_string(u);
    if (u % 5 == 0) s.budgets.add_member(budget, u);
    s.cluster.add_pod(n0, wlf::pod({.uid = u,
                                    .priority = static_cast<std::int32_t>(10 * (u % 2)),
                                    .requests = {1000, 0, 1},
                                    .start_time = static_cast<preempt::timestamp>(u % 3)}));
  }
  const auto statuses = all_unschedulable(1);
  const wlf::pod me({.uid = 5000, .priority = 25, .requests = {17'000, 0, 1}, .start_time = {}});
  const preempt::attempt at{.offset = 0, .nominated_node = std::nullopt};
  evaluator plain_ev, unit_ev;
  const auto& plain = plain_ev.evaluate(me, s.cluster, statuses, s.budgets,
                                        preempt::no_nominations{}, preempt::inline_executor{}, at);
  const auto& units = unit_ev.evaluate(me, s.cluster, wl::no_groups{}, statuses, s.budgets,
                                       preempt::no_nominations{}, preempt::inline_executor{}, at);
  REQUIRE(plain.kind == preempt::decision_kind::nominated);
  REQUIRE(plain.victims.size() > 12);
  std::vector<std::string> a, b;
  for (const auto* v : plain.victims) a.push_back(s.names.at(v->uid()));
  for (const auto* v : units.victims) b.push_back(s.names.at(v->uid()));
  CHECK(a == b);
  CHECK(plain.pdb_violations == units.pdb_violations);
}

}  // namespace workload_evaluator_test
