// W5 (nominations pile up): the decision on the PreemptionAsync shape (5000 nodes x 4 victims of
// 900m, a 3000m priority-10 preemptor) while 0, 1 or 5 pending pods are nominated to every node,
// alternately of priority 10 (the two-pass fit counts them: 100m each) and 5 (lower: skipped),
// read through a preempt::nomination_ledger's reader (shared lock held during the decision).
// With one counted nominee the preemptor still needs 3 victims, with three it needs all 4.
// Sampled (upstream defaults: 500 of 5000 nodes) and full (every node).
// Counters: support/measure.hpp, plus x_no_nominations (ns per decision over the same decision
// with no nominations at all, preempt::no_nominations, measured right before).
#include <benchmark/benchmark.h>

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/fixtures.hpp"
#include "bench/measure.hpp"
#include "preempt/preempt.hpp"

namespace {

using evaluator = preempt::evaluator<preempt::model::resource_cluster>;
constexpr std::size_t node_count = 5000;

const bench::world& fixture(std::size_t per_node) {
  static std::map<std::size_t, std::unique_ptr<bench::world>> cache;
  auto& slot = cache[per_node];
  if (!slot) {
    slot = bench::make_world_per_node(node_count, 4, bench::preemptor_kind::high);
    bench::add_nominations(*slot, per_node);
  }
  return *slot;
}

void BM_nominations(benchmark::State& state) {
  const auto per_node = static_cast<std::size_t>(state.range(0));
  const bool full = state.range(1) != 0;
  const bench::world& w = fixture(per_node);
  preempt::evaluator_config cfg;
  if (full) cfg.sampling.min_candidate_nodes_percentage = 100;
  evaluator ev(cfg);
  preempt::attempt at;
  at.offset = 0;
  const auto evaluate = [&]() -> const auto& {
    return ev.evaluate(w.preemptor, w.cluster, w.statuses, preempt::no_budgets{}, w.ledger.reader(),
                       preempt::inline_executor{}, at);
  };
  const auto& d0 = evaluate();
  bench::expect(d0.kind == preempt::decision_kind::nominated && !d0.victims.empty(),
                "nominations: no preemption");
  const std::size_t victims = d0.victims.size();
  const std::size_t node = d0.node_index;
  const std::vector<std::size_t> nodes = bench::nodes_evaluated(d0);
  const std::size_t pods = bench::pods_on(w.cluster, nodes);

  evaluator plain(cfg);
  const double none_ns = bench::time_ns(
      [&] {
        const auto& d = plain.evaluate(w.preemptor, w.cluster, w.statuses, preempt::no_budgets{},
                                       preempt::no_nominations{}, preempt::inline_executor{}, at);
        benchmark::DoNotOptimize(d.node_index);
      },
      0.1);
  const double scan =
      bench::plain_scan_ns_per_pod([&] { return bench::plain_scan(w.cluster, nodes); }, pods);
  const double ref = bench::reference_ns(
      std::to_string(per_node) + (full ? "/full" : "/sampled"),
      [&] {
        const auto r = naive_reference::preempt(w.preemptor, w.reference_input(cfg.sampling, 0));
        bench::expect(r.kind == preempt::decision_kind::nominated && r.node_index == node &&
                          r.victims.size() == victims,
                      "nominations: the reference disagrees");
        benchmark::DoNotOptimize(r.node_index);
      },
      static_cast<double>(pods) * static_cast<double>(4 + 4 * per_node));
  const double ns = bench::timed_loop(state, [&] {
    const auto& d = evaluate();
    std::size_t n = d.node_index;
    benchmark::DoNotOptimize(n);
  });
  bench::report(state, ns, pods, scan, ref);
  state.counters["x_no_nominations"] = ns / none_ns;
  state.counters["victims"] = static_cast<double>(victims);
  state.counters["nodes_evaluated"] = static_cast<double>(nodes.size());
}

}  // namespace

BENCHMARK(BM_nominations)
    ->ArgNames({"nominated_per_node", "full"})
    ->ArgsProduct({{0, 1, 5}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);
