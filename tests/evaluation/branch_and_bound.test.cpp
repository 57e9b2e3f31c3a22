// Branch and bound (evaluator_config::report_only_chosen, resource_fit_state::victim_score_bound):
//   * the bound is a bound: on random nodes, a node given a bound is a candidate with at least one
//     victim, and each of its five upstream scores is at most the bound's (the first two equal);
//   * the evaluator decides the same with and without it, on thousands of random clusters made
//     for ties (few priorities, start times and request sizes; pods without start time; `now`
//     before or after the start times), with nominated pods on some nodes, budgets in some
//     clusters, every filter code, random sampling and offsets: the same kind, node, victims in
//     order, violation count, message, nodes evaluated with their outcomes and sample size; the
//     candidates it lists are those of the full evaluation with victims selected, in order, and
//     the others are counted in candidates_bounded; inline and with 2 and 3 parallel workers;
//     nodes with nominated pods are never bounded; with budgets, nodes are bounded too.
//   * on uniform nodes (upstream's benchmark shape) the bound is exact and all but a few nodes are
//     bounded.
// PREEMPT_TEST_SEED=<n> adds one seed (as the other random tests).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "preempt/thread_pool.hpp"
#include "support/random_cluster.hpp"
#include "support/sanitizers.hpp"

namespace branch_and_bound_test {

namespace {

using preempt::decision_kind;
using preempt::status_code;
using pod = preempt::model::resource_pod;
using preempt::model::pod_id;
using preempt::model::pod_spec;
using preempt::model::resource_vector;

constexpr std::size_t cluster_count =
    PREEMPT_TEST_UNDER_ASAN || PREEMPT_TEST_UNDER_TSAN ? 1500 : 4000;

using rnd::pick;
using rnd::seeds;

struct nominations {
  std::vector<std::vector<const pod*>> by_node;
  const std::vector<const pod*>& nominated_to(std::size_t i) const { return by_node[i]; }
};

// A random cluster made for ties. Immovable (the nominations point into `pending`).
struct scenario {
  preempt::model::resource_cluster cluster;
  preempt::model::budget_table budgets;
  std::vector<pod> pending;
  nominations noms;
  preempt::filter_statuses statuses{0, status_code::unschedulable};
  preempt::sampling_args args;
  preempt::attempt at;
  pod preemptor{pod_spec{}};
  preempt::timestamp now = 1000;

  explicit scenario(std::uint64_t seed) {
    std::mt19937_64 g(seed);
    constexpr std::array<std::int32_t, 5> priorities{-5, 0, 0, 3, 7};
    now = pick(g, 0, 1) == 0 ? 250 : 1000;
    const auto nodes = static_cast<std::size_t>(pick(g, 1, 30));
    const bool uniform = pick(g, 0, 3) == 0;  // every pod of a node alike but its start time
    const bool with_budgets = pick(g, 0, 4) == 0;
    pod_id uid = 1;
    for (std::size_t n = 0; n < nodes; ++n) {
      const std::size_t i =
          cluster.add_node("node-" + std::to_string(n),
                           {pick(g, 6, 10) * 100, pick(g, 6, 10) * 100, pick(g, 4, 12)});
      const auto count = pick(g, 0, 10);
      const resource_vector same{pick(g, 1, 3) * 100, pick(g, 0, 3) * 100};
      for (std::int64_t k = 0; k < count; ++k) {
        std::optional<preempt::timestamp> start;
        if (pick(g, 0, 4) != 0) start = pick(g, 0, 5) * 100;
        const std::int32_t prio =
            uniform ? 0 : priorities[static_cast<std::size_t>(pick(g, 0, priorities.size() - 1))];
        const resource_vector req =
            uniform ? same : resource_vector{pick(g, 0, 3) * 100, pick(g, 0, 3) * 100};
        pod p({.uid = uid++, .priority = prio, .requests = req, .start_time = start});
        if (with_budgets && pick(g, 0, 3) == 0) {
          if (budgets.budget_count() == 0)
            budgets.add_budget(0, static_cast<std::int32_t>(pick(g, 0, 1)));
          budgets.add_member(0, p.uid());
        }
        cluster.add_pod(i, std::move(p));
      }
    }
    noms.by_node.resize(nodes);
    const auto nominated = pick(g, 0, 3);
    pending.reserve(static_cast<std::size_t>(nominated));
    for (std::int64_t k = 0; k < nominated; ++k) {
      pending.emplace_back(pod_spec{.uid = uid++,
                                    .priority = static_cast<std::int32_t>(pick(g, 0, 1) * 10),
                                    .requests = {100, 100},
                                    .start_time = {}});
      noms.by_node[static_cast<std::size_t>(pick(g, 0, static_cast<std::int64_t>(nodes) - 1))]
          .push_back(&pending.back());
    }
    preemptor = pod({.uid = uid++,
                     .priority = pick(g, 0, 2) == 0 ? 3 : 10,
                     .requests = {pick(g, 2, 6) * 100, pick(g, 0, 5) * 100},
                     .start_time = {}});
    for (std::size_t i = 0; i < nodes; ++i) {
      const auto r = pick(g, 0, 19);
      statuses.set(i, r < 16   ? status_code::unschedulable
                      : r < 18 ? status_code::unschedulable_and_unresolvable
                               : status_code::success);
    }
    args.min_candidate_nodes_percentage = static_cast<std::int32_t>(pick(g, 0, 2) * 50);
    args.min_candidate_nodes_absolute = static_cast<std::int32_t>(pick(g, 1, 8));
    at.offset = static_cast<std::size_t>(pick(g, 0, 2 * static_cast<std::int64_t>(nodes)));
  }
  scenario(const scenario&) = delete;
  scenario& operator=(const scenario&) = delete;
};

using evaluator = preempt::evaluator<preempt::model::resource_cluster>;

evaluator make(const scenario& s, bool bound, std::size_t parallelism) {
  preempt::evaluator_config cfg;
  cfg.sampling = s.args;
  cfg.parallelism = parallelism;
  cfg.min_parallel_nodes = 0;           // the helpers take any dry run
  cfg.workers_within_hardware = false;  // every worker, whatever the machine
  cfg.chunk = 2;
  cfg.report_only_chosen = bound;
  return evaluator(cfg, preempt::default_policy{s.now});
}

std::vector<pod_id> uids(std::span<const pod* const> victims) {
  std::vector<pod_id> out;
  for (const pod* v : victims) out.push_back(v->uid());
  return out;
}

// `b` (bounded) against `f` (full): the same answer, and b's candidates are f's minus the bounded.
template <class D>
void compare(const D& b, const D& f) {
  CHECK(b.kind == f.kind);
  CHECK(std::string(b.message) == std::string(f.message));
  CHECK(b.clear_nomination == f.clear_nomination);
  CHECK(b.potential_nodes == f.potential_nodes);
  CHECK(b.candidates_wanted == f.candidates_wanted);
  REQUIRE(b.diagnosis.size() == f.diagnosis.size());
  for (std::size_t i = 0; i < f.diagnosis.size(); ++i) {
    CHECK(b.diagnosis[i].node_index == f.diagnosis[i].node_index);
    CHECK(b.diagnosis[i].outcome.code() == f.diagnosis[i].outcome.code());
  }
  CHECK(f.candidates_bounded == 0);
  CHECK(b.candidates.size() + b.candidates_bounded == f.candidates.size());
  std::size_t j = 0;  // b's candidates appear in f's, in order, with the same victims
  for (const auto& c : b.candidates) {
    while (j < f.candidates.size() && f.candidates[j].node_index != c.node_index) ++j;
    REQUIRE(j < f.candidates.size());
    CHECK(uids(c.victims) == uids(f.candidates[j].victims));
    CHECK(c.pdb_violations == f.candidates[j].pdb_violations);
  }
  if (f.kind != decision_kind::nominated) return;
  CHECK(b.node_index == f.node_index);
  CHECK(b.node_name == f.node_name);
  CHECK(uids(b.victims) == uids(f.victims));
  CHECK(b.pdb_violations == f.pdb_violations);
  CHECK(b.candidates[b.choice.index].node_index == b.node_index);
}

}  // namespace

TEST_CASE("victim_score_bound bounds the scores select_victims gives a node") {
  std::size_t bounded = 0, exact = 0;
  for (const std::uint64_t seed : seeds(cluster_count, 7)) {
    CAPTURE(seed);
    const scenario s(seed);
    preempt::model::resource_fit_state state;
    preempt::victim_scratch<pod> scratch;
    const preempt::default_policy policy{s.now};
    const preempt::default_scores scores{s.now};
    for (std::size_t i = 0; i < s.cluster.size(); ++i) {
      CAPTURE(i);
      s.cluster.prepare_state(i, state);
      const auto bound = state.victim_score_bound(s.preemptor, s.now);
      const auto r = preempt::select_victims(s.preemptor, s.cluster[i], state,
                                             preempt::no_budgets{}, scratch, policy);
      if (!bound) continue;
      ++bounded;
      REQUIRE(r.is_candidate());
      REQUIRE(!r.victims.empty());
      const auto actual = scores.all(preempt::candidate<pod>{i, {}, r.victims, r.pdb_violations});
      CHECK(actual[0] == (*bound)[0]);
      CHECK(actual[1] == (*bound)[1]);
      for (std::size_t k = 2; k < actual.size(); ++k) CHECK(actual[k] <= (*bound)[k]);
      exact += actual == *bound;
    }
  }
  MESSAGE(bounded << " nodes bounded, " << exact << " exactly");
  CHECK(bounded > cluster_count);
  CHECK(exact > bounded / 4);
}

TEST_CASE(
    "victim_score_bound gives nothing once the state has changed, or for a node "
    "without room") {
  preempt::model::resource_cluster c;
  c.add_node("n", {1000, 1000, 10});
  c.add_pod(0, pod({.uid = 1, .priority = 0, .requests = {600, 0}, .start_time = 5}));
  c.add_pod(0, pod({.uid = 2, .priority = 0, .requests = {300, 0}, .start_time = 7}));
  const pod preemptor({.uid = 3, .priority = 10, .requests = {500, 0}, .start_time = {}});
  preempt::model::resource_fit_state state;
  c.prepare_state(0, state);
  const auto bound = state.victim_score_bound(preemptor, 0);
  REQUIRE(bound);
  // At least one victim of priority 0 (400 short, pods of at most 600). With both gone there are
  // 500 to spare, room for at most one pod of 300 or more before the first victim: its start time
  // is at most the second one's, 7. (The reprieve keeps the pod started at 7: the victim is the
  // one started at 5.)
  CHECK((*bound)[0] == 0);
  CHECK((*bound)[1] == 0);
  CHECK((*bound)[2] == -(std::int64_t{1} << 31));
  CHECK((*bound)[3] == -1);
  CHECK((*bound)[4] == 7);
  (void)state.remove_pod(c[0].pods()[1]);
  CHECK(!state.victim_score_bound(preemptor, 0));
  c.prepare_state(0, state);
  const pod too_big({.uid = 4, .priority = 10, .requests = {1100, 0}, .start_time = {}});
  CHECK(!state.victim_score_bound(too_big, 0));
  const pod no_victims({.uid = 5, .priority = 10, .requests = {50, 0}, .start_time = {}});
  CHECK(!state.victim_score_bound(no_victims, 0));  // fits as it is
  const pod same_priority({.uid = 6, .priority = 0, .requests = {500, 0}, .start_time = {}});
  CHECK(!state.victim_score_bound(same_priority, 0));  // no lower-priority pod
}

TEST_CASE("report_only_chosen: the same decision as the full dry run on random clusters") {
  std::size_t nominated = 0, bounded = 0, with_bounded = 0, bounded_with_budgets = 0;
  preempt::thread_pool pool(2);
  for (const std::uint64_t seed : seeds(cluster_count, 1u << 16)) {
    CAPTURE(seed);
    const scenario s(seed);
    auto full = make(s, false, 1);
    auto inline_bound = make(s, true, 1);
    const auto& f = full.evaluate(s.preemptor, s.cluster, s.statuses, s.budgets, s.noms,
                                  preempt::inline_executor{}, s.at);
    const auto& b = inline_bound.evaluate(s.preemptor, s.cluster, s.statuses, s.budgets, s.noms,
                                          preempt::inline_executor{}, s.at);
    compare(b, f);
    if (s.budgets.budget_count() > 0) bounded_with_budgets += b.candidates_bounded;
    for (const auto& c : f.candidates)  // a node with nominated pods is never bounded
      if (!s.noms.by_node[c.node_index].empty())
        CHECK(std::any_of(b.candidates.begin(), b.candidates.end(),
                          [&](const auto& k) { return k.node_index == c.node_index; }));
    nominated += f.kind == decision_kind::nominated;
    bounded += b.candidates_bounded;
    with_bounded += b.candidates_bounded > 0;
    if (seed % 4 == 0) {
      const std::size_t parallelism = seed % 8 == 0 ? 2 : 3;
      auto parallel_bound = make(s, true, parallelism);
      const auto& p = parallel_bound.evaluate(s.preemptor, s.cluster, s.statuses, s.budgets, s.noms,
                                              pool.get_executor(), s.at);
      compare(p, f);
    }
  }
  MESSAGE(nominated << " nominated; " << bounded << " candidates bounded in " << with_bounded
                    << " decisions; " << bounded_with_budgets << " with budgets");
  CHECK(bounded_with_budgets > 0);
  CHECK(nominated > cluster_count / 3);
  CHECK(with_bounded > cluster_count / 10);
}

// Watches every node: the evaluator then selects every node's victims.
struct node_watcher {
  std::size_t nodes = 0;
  void on_node_evaluated(std::size_t, const preempt::status&, std::span<const pod* const>,
                         std::int64_t) {
    ++nodes;
  }
};

// Scores of its own: the bound on the upstream scores says nothing about them.
struct own_scores : preempt::default_policy {
  static std::int64_t fewest(const preempt::candidate<pod>& c) {
    return -static_cast<std::int64_t>(c.victims.size());
  }
  std::array<std::int64_t (*)(const preempt::candidate<pod>&), 1> score_functions() const {
    return {&own_scores::fewest};
  }
};

TEST_CASE("report_only_chosen bounds nothing for an observer of nodes or custom scores") {
  preempt::model::resource_cluster c;
  pod_id uid = 1;
  for (std::size_t n = 0; n < 20; ++n) {
    c.add_node("node-" + std::to_string(n), {1000, 1000, 10});
    for (int k = 0; k < 4; ++k)
      c.add_pod(n, pod({.uid = uid++,
                        .priority = 0,
                        .requests = {200, 100},
                        .start_time = 1000 - static_cast<preempt::timestamp>(n) * 10 + k}));
  }
  const pod preemptor({.uid = uid++, .priority = 10, .requests = {500, 100}, .start_time = {}});
  const preempt::filter_statuses statuses(20, status_code::unschedulable);
  preempt::evaluator_config cfg;
  cfg.sampling.min_candidate_nodes_percentage = 100;
  cfg.report_only_chosen = true;
  preempt::attempt at;
  at.offset = 0;
  preempt::evaluator<preempt::model::resource_cluster> plain(cfg);
  const auto& d = plain.evaluate(preemptor, c, statuses, preempt::no_budgets{},
                                 preempt::no_nominations{}, preempt::inline_executor{}, at);
  CHECK(d.candidates_bounded > 0);
  preempt::evaluator<preempt::model::resource_cluster, preempt::default_policy, node_watcher>
      watched(cfg);
  const auto& w = watched.evaluate(preemptor, c, statuses, preempt::no_budgets{},
                                   preempt::no_nominations{}, preempt::inline_executor{}, at);
  CHECK(w.candidates_bounded == 0);
  CHECK(w.candidates.size() == 20);
  CHECK(watched.observer().nodes == 20);
  CHECK(w.node_index == d.node_index);
  preempt::evaluator<preempt::model::resource_cluster, own_scores> scored(cfg);
  const auto& o = scored.evaluate(preemptor, c, statuses, preempt::no_budgets{},
                                  preempt::no_nominations{}, preempt::inline_executor{}, at);
  CHECK(o.candidates_bounded == 0);
  CHECK(o.candidates.size() == 20);
}

TEST_CASE("report_only_chosen on uniform nodes: all but the record holders are bounded") {
  preempt::model::resource_cluster c;
  std::mt19937_64 g(3);
  pod_id uid = 1;
  constexpr std::size_t nodes = 400;
  for (std::size_t n = 0; n < nodes; ++n) {
    c.add_node("node-" + std::to_string(n), {4000, 32000, 110});
    for (int k = 0; k < 30; ++k)
      c.add_pod(n, pod({.uid = uid++,
                        .priority = 0,
                        .requests = {120, 500},
                        .start_time = pick(g, 0, 1'000'000)}));
  }
  const pod preemptor({.uid = uid++, .priority = 10, .requests = {3000, 500}, .start_time = {}});
  const preempt::filter_statuses statuses(nodes, status_code::unschedulable);
  preempt::evaluator_config cfg;
  cfg.sampling.min_candidate_nodes_percentage = 100;
  evaluator full(cfg);
  cfg.report_only_chosen = true;
  evaluator bound(cfg);
  preempt::attempt at;
  at.offset = 0;
  const auto& f = full.evaluate(preemptor, c, statuses, preempt::no_budgets{},
                                preempt::no_nominations{}, preempt::inline_executor{}, at);
  const auto& b = bound.evaluate(preemptor, c, statuses, preempt::no_budgets{},
                                 preempt::no_nominations{}, preempt::inline_executor{}, at);
  compare(b, f);
  REQUIRE(f.kind == decision_kind::nominated);
  CHECK(f.victims.size() == 22);
  MESSAGE(b.candidates.size() << " of " << nodes << " nodes had their victims selected");
  CHECK(b.candidates.size() < 30);  // about ln(400) record holders
  CHECK(b.candidates.size() + b.candidates_bounded == nodes);
}

TEST_CASE("priority_summary's request bounds hold as pods come and go") {
  std::mt19937_64 g(11);
  preempt::model::resource_cluster c;
  c.add_node("n", {4000, 16000, 110});
  pod_id uid = 1;
  std::vector<pod_id> uids;
  const auto check = [&] {
    const auto& summary = c[0].priorities();
    for (const pod& p : c[0].pods())
      for (std::size_t d = 0; d < summary.smallest().size(); ++d) {
        CHECK(summary.smallest()[d] <= p.requests()[d]);
        CHECK(summary.largest()[d] >= p.requests()[d]);
      }
  };
  for (int round = 0; round < 200; ++round) {
    if (uids.empty() || pick(g, 0, 2) != 0) {
      uids.push_back(uid);
      c.add_pod(0, pod({.uid = uid++,
                        .priority = static_cast<std::int32_t>(pick(g, 0, 3)),
                        .requests = {pick(g, 0, 500), pick(g, 0, 900)},
                        .start_time = pick(g, 0, 9)}));
    } else {
      const auto at =
          static_cast<std::size_t>(pick(g, 0, static_cast<std::int64_t>(uids.size()) - 1));
      REQUIRE(c.remove_pod(0, uids[at]));
      uids.erase(uids.begin() + static_cast<std::ptrdiff_t>(at));
    }
    check();
  }
  // Loading a node at once gives exact bounds.
  std::vector<pod> batch;
  for (int k = 0; k < 5; ++k)
    batch.push_back(
        pod({.uid = uid++, .priority = 1, .requests = {100 + k, 200}, .start_time = k}));
  preempt::model::resource_cluster fresh;
  fresh.add_node("m", {4000, 16000, 110});
  fresh.add_pods(0, batch);
  CHECK(fresh[0].priorities().smallest()[0] == 100);
  CHECK(fresh[0].priorities().largest()[0] == 104);
  CHECK(fresh[0].priorities().smallest()[1] == 200);
  CHECK(fresh[0].priorities().largest()[2] == 1);  // one pod slot each
}

}  // namespace branch_and_bound_test
