// Workload-aware preemption, properties over random clusters with pod groups (seeded; more seeds
// from PREEMPT_TEST_SEED):
//   - units are evicted whole or not at all, and only units of lower priority than the group;
//   - the placed count never goes down: with exactly the victims gone, every placed member still
//     fits where the placement put it, each assumed for the next;
//   - the same input gives the same decision;
//   - without groups, the victims on the node a single member is placed on are today's
//     single-pod victims (select_victims), in the same order, with the same budget violations.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/random_cluster.hpp"
#include "support/workload_scene.hpp"

namespace workload_properties_test {

namespace {

namespace wl = preempt::workload;
using wlf::pod_def;

constexpr preempt::timestamp now = 1'000'000;

std::size_t pick(std::mt19937_64& rng, std::size_t n) {
  return static_cast<std::size_t>(rng() % n);
}

const std::int32_t priorities[] = {wlf::low, wlf::mid, wlf::high};

// A random cluster: up to 5 nodes, 4 groups (some under a CompositePodGroup), 12 pods.
void random_scene(wlf::scene& s, std::mt19937_64& rng, bool with_groups) {
  const std::size_t nodes = 1 + pick(rng, 5);
  for (std::size_t i = 0; i < nodes; ++i)
    s.node("n" + std::to_string(i), static_cast<std::int64_t>(pick(rng, 5)));
  std::vector<std::string> groups;
  if (with_groups) {
    if (pick(rng, 2) == 0) {
      s.group("cpg", pick(rng, 2) == 0, priorities[pick(rng, 3)],
              wl::group_kind::composite_pod_group);
    }
    const std::size_t count = pick(rng, 5);
    for (std::size_t g = 0; g < count; ++g) {
      const std::string name = "pg" + std::to_string(g);
      s.group(name, pick(rng, 2) == 0, priorities[pick(rng, 3)], wl::group_kind::pod_group,
              pick(rng, 3) == 0 ? "cpg" : "");
      groups.push_back(name);
    }
    groups.push_back("missing");
  }
  const std::size_t pods = pick(rng, 13);
  for (std::size_t k = 0; k < pods; ++k) {
    pod_def d;
    d.name = "v" + std::to_string(k);
    d.node = "n" + std::to_string(pick(rng, nodes));
    d.priority = priorities[pick(rng, 3)];
    if (!groups.empty() && pick(rng, 3) != 0) d.group = groups[pick(rng, groups.size())];
    d.size = 1 + static_cast<std::int64_t>(pick(rng, 2));
    if (pick(rng, 3) != 0) d.start = static_cast<preempt::timestamp>(pick(rng, 1000));
    d.terminating = pick(rng, 8) == 0;
    d.foo = pick(rng, 3) == 0;
    s.add(d);
  }
  if (pick(rng, 2) == 0) s.pdb_foo(static_cast<std::int32_t>(pick(rng, 3)));
}

}  // namespace

TEST_CASE("workload properties: whole units, lower priority only, placed count kept, determinism") {
  std::size_t preempted = 0, with_group_victims = 0;
  for (const std::uint64_t seed : rnd::seeds(400)) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    wlf::scene s;
    random_scene(s, rng, true);
    s.group_priority = priorities[1 + pick(rng, 2)];
    const std::size_t members = 1 + pick(rng, 3);
    for (std::size_t m = 0; m < members; ++m)
      s.member("m" + std::to_string(m), wl::no_node,
               preempt::preemption_policy::preempt_lower_priority,
               1 + static_cast<std::int64_t>(pick(rng, 2)));
    const auto g = s.preemptor();
    const wlf::round_robin place{1 + pick(rng, members)};

    wl::pod_group_evaluator<preempt::model::resource_cluster> ev({now});
    const auto& d = ev.evaluate(g, s.cluster, s.grps, s.budgets, preempt::no_nominations{}, place);
    if (d.kind != wl::group_decision_kind::preempt) {
      CHECK(d.victims.empty());
      CHECK(d.nominations.empty());
      continue;
    }
    ++preempted;
    const std::vector<const wlf::pod*> victims(d.victims.begin(), d.victims.end());
    const std::vector<wl::member_nomination> placed(d.nominations.begin(), d.nominations.end());
    const std::int64_t pdbv = d.pdb_violations;
    const std::size_t pgd = d.pod_group_disruptions;

    // Whole units, lower priority only.
    std::map<const wlf::pod*, int> is_victim;
    for (const wlf::pod* v : victims) ++is_victim[v];
    std::size_t evicted_units = 0, evicted_groups = 0;
    for (const wl::victim_unit& u : ev.units().units()) {
      std::size_t in = 0;
      for (const auto& m : ev.units().members_of(u))
        in += static_cast<std::size_t>(is_victim.count(m.pod));
      CHECK((in == 0 || in == u.size));
      if (in != 0) {
        CHECK(u.priority < g.priority);
        ++evicted_units;
        evicted_groups += u.is_group() ? 1u : 0u;
        if (u.size > 1) ++with_group_victims;
      }
    }
    for (const auto& [p, n] : is_victim) CHECK(n == 1);
    CHECK(pgd == evicted_groups);

    // The placed count never goes down: with only the victims gone, every placed member fits.
    CHECK(!placed.empty());
    std::vector<preempt::model::resource_fit_state> states;
    for (std::size_t i = 0; i < s.cluster.size(); ++i) {
      states.push_back(s.cluster.make_state());
      s.cluster.prepare_state(i, states.back());
    }
    for (std::size_t i = 0; i < s.cluster.size(); ++i)
      for (const wlf::pod& p : s.cluster[i].pods())
        if (is_victim.count(&p)) CHECK(states[i].remove_pod(p).is_success());
    for (const wl::member_nomination& n : placed) {
      CHECK(states[n.node].fits(*g.members[n.member]).is_success());
      CHECK(states[n.node].add_pod(*g.members[n.member]).is_success());
    }

    // Determinism.
    const auto& again =
        ev.evaluate(g, s.cluster, s.grps, s.budgets, preempt::no_nominations{}, place);
    CHECK(std::vector<const wlf::pod*>(again.victims.begin(), again.victims.end()) == victims);
    CHECK(std::vector<wl::member_nomination>(again.nominations.begin(), again.nominations.end()) ==
          placed);
    CHECK(again.pdb_violations == pdbv);
  }
  CHECK(preempted > 50);  // the generator reaches the interesting cases
  CHECK(with_group_victims > 10);
}

TEST_CASE(
    "workload properties: without groups, the victims on the member's node are select_victims'") {
  std::size_t compared = 0;
  for (const std::uint64_t seed : rnd::seeds(300)) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    wlf::scene s;
    random_scene(s, rng, false);
    s.group_priority = priorities[1 + pick(rng, 2)];
    s.member("m", wl::no_node, preempt::preemption_policy::preempt_lower_priority,
             1 + static_cast<std::int64_t>(pick(rng, 2)));
    const auto g = s.preemptor();
    const wlf::pod& member = *g.members[0];

    preempt::victim_scratch<wlf::pod> scratch;
    wl::pod_group_evaluator<preempt::model::resource_cluster> ev({now});
    for (std::size_t x = 0; x < s.cluster.size(); ++x) {
      CAPTURE(x);
      // One budget over the app=foo pods of node x (budgets elsewhere would be spent by pods the
      // single-pod path never looks at).
      preempt::model::budget_table budgets;
      const std::size_t b = budgets.add_budget(0, static_cast<std::int32_t>(pick(rng, 2)));
      for (const wlf::pod& p : s.cluster[x].pods())
        if (pick(rng, 2) == 0) budgets.add_member(b, p.uid());

      auto state = s.cluster.make_state();
      s.cluster.prepare_state(x, state);
      const auto single = preempt::select_victims(member, s.cluster[x], state, budgets, scratch,
                                                  preempt::default_policy{now});
      if (!single.is_candidate()) continue;
      const std::vector<const wlf::pod*> want(single.victims.begin(), single.victims.end());
      const std::int64_t want_pdb = single.pdb_violations;

      const auto& d = ev.evaluate(g, s.cluster, wl::no_groups{}, budgets, preempt::no_nominations{},
                                  wlf::fixed_placement{{x}});
      REQUIRE(d.kind == wl::group_decision_kind::preempt);
      CHECK(std::vector<const wlf::pod*>(d.victims.begin(), d.victims.end()) == want);
      CHECK(d.pdb_violations == want_pdb);
      CHECK(d.pod_group_disruptions == 0);
      ++compared;
    }
  }
  CHECK(compared > 100);
}

TEST_CASE("workload properties: single-pod victims on units equal select_victims without groups") {
  std::size_t candidates = 0;
  for (const std::uint64_t seed : rnd::seeds(300)) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    wlf::scene s;
    random_scene(s, rng, false);  // one budget at most: no pod counts against two
    const wlf::pod preemptor({.uid = 5000,
                              .priority = priorities[pick(rng, 3)],
                              .requests = {0, 0, 1 + static_cast<std::int64_t>(pick(rng, 2))},
                              .start_time = {}});
    wl::unit_scratch<wlf::pod> units;
    wl::build_victim_units(s.cluster, wl::no_groups{}, now, units);
    preempt::victim_scratch<wlf::pod> scratch;
    wl::unit_selection_scratch<wlf::pod> unit_scratch;
    for (std::size_t x = 0; x < s.cluster.size(); ++x) {
      CAPTURE(x);
      auto a = s.cluster.make_state();
      auto b = s.cluster.make_state();
      s.cluster.prepare_state(x, a);
      s.cluster.prepare_state(x, b);
      const auto want = preempt::select_victims(preemptor, s.cluster[x], a, s.budgets, scratch,
                                                preempt::default_policy{now});
      const auto got = wl::select_unit_victims(preemptor, x, s.cluster, b, units, s.budgets,
                                               preempt::no_nominated_pods<wlf::pod>, unit_scratch);
      CHECK(got.outcome == want.outcome);
      CHECK(std::vector<const wlf::pod*>(got.victims.begin(), got.victims.end()) ==
            std::vector<const wlf::pod*>(want.victims.begin(), want.victims.end()));
      CHECK(got.pdb_violations == want.pdb_violations);
      candidates += want.is_candidate() ? 1u : 0u;
    }
  }
  CHECK(candidates > 100);
}

TEST_CASE("workload properties: single-pod victims on units are whole lower-priority units") {
  std::size_t group_victims = 0;
  for (const std::uint64_t seed : rnd::seeds(300)) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    wlf::scene s;
    random_scene(s, rng, true);
    const wlf::pod preemptor({.uid = 5000,
                              .priority = priorities[1 + pick(rng, 2)],
                              .requests = {0, 0, 1},
                              .start_time = {}});
    wl::unit_scratch<wlf::pod> units;
    wl::build_victim_units(s.cluster, s.grps, now, units);
    wl::unit_selection_scratch<wlf::pod> unit_scratch;
    for (std::size_t x = 0; x < s.cluster.size(); ++x) {
      CAPTURE(x);
      auto state = s.cluster.make_state();
      s.cluster.prepare_state(x, state);
      const auto got = wl::select_unit_victims(preemptor, x, s.cluster, state, units, s.budgets,
                                               preempt::no_nominated_pods<wlf::pod>, unit_scratch);
      if (!got.is_candidate()) continue;
      std::map<const wlf::pod*, int> is_victim;
      for (const wlf::pod* v : got.victims) ++is_victim[v];
      for (const wl::victim_unit& u : units.units()) {
        std::size_t in = 0;
        for (const auto& m : units.members_of(u))
          in += static_cast<std::size_t>(is_victim.count(m.pod));
        CHECK((in == 0 || in == u.size));
        if (in != 0) {
          CHECK(u.priority < preemptor.priority());
          if (u.size > 1) ++group_victims;
        }
      }
      // The state is the node without its victims' members there, and the preemptor fits.
      CHECK(state.fits(preemptor).is_success());
    }
  }
  CHECK(group_victims > 10);
}

}  // namespace workload_properties_test
