// W3 (many PDBs): the W1 decision on 1000 nodes x 30 pods (sampled, upstream defaults: 100
// candidates wanted) with 0, 100, 1,000 or 10,000 disruption budgets in a model::budget_table.
//   selectors  disjoint: budget b selects 3 pods; overlapping: 6 pods, so most selected pods count
//              against two budgets (support/fixtures.hpp add_budgets: a budget's pods are on
//              different nodes; every fourth budget lists one pod in disruptedPods)
//   allowed    1: no node ever violates a budget (each budget has at most one pod per node), so the
//              dry run does the same work as without budgets: the cost of the budget lookups
//              alone; 0: every selected victim violates, candidates with violations pile up and,
//              with 10,000 budgets (every pod selected), the dry run reads all 1000 nodes looking
//              for one without violations
// Counters (support/measure.hpp) plus x_no_budgets: ns per pod read over the ns per pod of the
// same decision with no budgets at all (preempt::no_budgets), measured right before in the same
// binary; target: <= 2 at 10,000 budgets. x_no_budgets_per_op compares whole decisions. The
// evaluator remembers, per node, what the budgets answered there (whether no eviction can violate
// one, and the violation flags of the pods it charged) until the node's pods or the budgets
// change: the timed loop decides on an unchanged cluster, as a scheduler between changes does.
// x_no_budgets_cold is the same ratio with that memo stale at every decision (right after any
// change of the budgets).
// The reference tests every budget against every potential victim (upstream's structure).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "bench/fixtures.hpp"
#include "bench/measure.hpp"
#include "preempt/preempt.hpp"

namespace {

using evaluator = preempt::evaluator<preempt::model::resource_cluster>;
constexpr std::size_t node_count = 1000;
constexpr std::int64_t per_node = 30;

const bench::world& fixture(std::size_t budgets, bool overlapping, std::int32_t allowed) {
  static std::map<std::tuple<std::size_t, bool, std::int32_t>, std::unique_ptr<bench::world>> cache;
  auto& slot = cache[{budgets, overlapping, allowed}];
  if (!slot) {
    slot = bench::make_world_per_node(node_count, per_node, bench::preemptor_kind::high);
    bench::add_budgets(*slot, budgets, overlapping, allowed);
  }
  return *slot;
}

void BM_budgets(benchmark::State& state) {
  const auto budgets = static_cast<std::size_t>(state.range(0));
  const bool overlapping = state.range(1) != 0;
  const auto allowed = static_cast<std::int32_t>(state.range(2));
  const bench::world& w = fixture(budgets, overlapping, allowed);
  evaluator ev;
  preempt::attempt at;
  at.offset = 0;
  const auto& d0 = ev.evaluate(w.preemptor, w.cluster, w.statuses, w.budgets,
                               preempt::no_nominations{}, preempt::inline_executor{}, at);
  bench::expect(d0.kind == preempt::decision_kind::nominated && !d0.victims.empty(),
                "budgets: no preemption");
  const std::vector<std::size_t> nodes = bench::nodes_evaluated(d0);
  const std::size_t pods = bench::pods_on(w.cluster, nodes);
  const std::int64_t violations = d0.pdb_violations;
  std::size_t with_violations = 0;
  for (const auto& c : d0.candidates) with_violations += c.pdb_violations > 0;

  // The same decision without budgets, on the same cluster.
  evaluator plain;
  const auto& dn = plain.evaluate(w.preemptor, w.cluster, w.statuses, preempt::no_budgets{},
                                  preempt::no_nominations{}, preempt::inline_executor{}, at);
  const std::size_t pods_none = bench::pods_on(w.cluster, bench::nodes_evaluated(dn));
  const double none_ns = bench::time_ns(
      [&] {
        const auto& d = plain.evaluate(w.preemptor, w.cluster, w.statuses, preempt::no_budgets{},
                                       preempt::no_nominations{}, preempt::inline_executor{}, at);
        benchmark::DoNotOptimize(d.node_index);
      },
      0.1);

  // Cold: the evaluator's memo of the budgets on each node (model::budget_table and
  // model::resource_cluster name their contents with stamp()) is stale at every decision, as right
  // after any change of the budgets: the decisions alternate between the table and a copy with one
  // more, empty, budget (the same answers, another stamp).
  preempt::model::budget_table renewed = w.budgets;
  renewed.add_budget(0, 0);
  evaluator cold;
  bool flip = false;
  const double cold_ns = bench::time_ns(
      [&] {
        flip = !flip;
        const auto& d =
            cold.evaluate(w.preemptor, w.cluster, w.statuses, flip ? renewed : w.budgets,
                          preempt::no_nominations{}, preempt::inline_executor{}, at);
        benchmark::DoNotOptimize(d.node_index);
      },
      0.1);

  const double scan =
      bench::plain_scan_ns_per_pod([&] { return bench::plain_scan(w.cluster, nodes); }, pods);
  const std::string key = std::to_string(budgets) + (overlapping ? "/overlapping/" : "/disjoint/") +
                          std::to_string(allowed);
  const double ref = bench::reference_ns(
      key,
      [&] {
        const auto r = naive_reference::preempt(w.preemptor, w.reference_input({}, 0));
        bench::expect(r.kind == preempt::decision_kind::nominated &&
                          r.node_index == d0.node_index && r.violations == violations,
                      "budgets: the reference disagrees");
        benchmark::DoNotOptimize(r.node_index);
      },
      static_cast<double>(pods) * static_cast<double>(std::max<std::size_t>(budgets, per_node)));
  const double ns = bench::timed_loop(state, [&] {
    const auto& d = ev.evaluate(w.preemptor, w.cluster, w.statuses, w.budgets,
                                preempt::no_nominations{}, preempt::inline_executor{}, at);
    std::size_t n = d.node_index;
    benchmark::DoNotOptimize(n);
  });
  bench::report(state, ns, pods, scan, ref);
  state.counters["x_no_budgets"] =
      (ns / static_cast<double>(pods)) / (none_ns / static_cast<double>(pods_none));
  state.counters["x_no_budgets_per_op"] = ns / none_ns;
  state.counters["x_no_budgets_cold"] =
      (cold_ns / static_cast<double>(pods)) / (none_ns / static_cast<double>(pods_none));
  state.counters["nodes_evaluated"] = static_cast<double>(nodes.size());
  state.counters["candidates_violating"] = static_cast<double>(with_violations);
  state.counters["violations"] = static_cast<double>(violations);
}

}  // namespace

BENCHMARK(BM_budgets)
    ->ArgNames({"budgets", "overlapping", "allowed"})
    ->ArgsProduct({{0, 100, 1000, 10000}, {0, 1}, {1, 0}})
    ->Unit(benchmark::kMicrosecond);
