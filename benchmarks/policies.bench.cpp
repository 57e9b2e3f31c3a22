// The opt-in preemption policies (preempt/preemption_policies.hpp) against the default decision:
// the whole evaluation (preempt::evaluator::evaluate, inline, upstream's sampling: 500 of the
// 5000 nodes wanted) on one 5000-node cluster of bench/policy_clusters.hpp (mixed pod sizes,
// priorities, budgets, costs, pinned pods, nominated pods).
//
// Rows: policies/<name>, name = default (preempt::default_policy, the upstream decision with every
// shortcut), off (preemption_policies with every option off: the same decision on the policies'
// path), spare-reschedulable, min-cost, hard-budgets, min-runtime 10m, all four. Counters:
// nodes_evaluated, victims, cost (their total), pdb_violations, budgets_exceeded (victims taking a
// budget below zero), nominated (1 or 0). Timing: thread CPU time (bench/measure.hpp).
#include <benchmark/benchmark.h>

#include <cstddef>
#include <memory>
#include <string>

#include "bench/measure.hpp"
#include "bench/policy_clusters.hpp"
#include "preempt/preempt.hpp"
#include "preempt/preemption_policies.hpp"

namespace {

namespace bp = bench::policies;

const bp::cluster& fixture() {
  static const std::unique_ptr<bp::cluster> c = bp::make_cluster(2026, 5000);
  return *c;
}

template <class Policy>
void run(benchmark::State& state, const Policy& policy) {
  const bp::cluster& c = fixture();
  preempt::evaluator<preempt::model::resource_cluster, Policy> ev({}, policy);
  preempt::attempt at;
  at.offset = 0;
  const auto evaluate = [&]() -> const auto& {
    return ev.evaluate(c.preemptor, c.nodes, c.statuses, c.budgets, c.ledger->reader(),
                       preempt::inline_executor{}, at);
  };
  const auto& d = evaluate();
  const bool nominated = d.kind == preempt::decision_kind::nominated;
  std::int64_t cost = 0;
  for (const bp::pod* v : d.victims) cost += bp::cost_of{&c.facts}(*v);
  state.counters["nodes_evaluated"] = static_cast<double>(d.diagnosis.size());
  state.counters["victims"] = static_cast<double>(d.victims.size());
  state.counters["cost"] = static_cast<double>(cost);
  state.counters["pdb_violations"] = static_cast<double>(d.pdb_violations);
  state.counters["budgets_exceeded"] =
      static_cast<double>(preempt::count_budget_violations(d.victims, c.budgets));
  state.counters["nominated"] = nominated ? 1 : 0;
  const double ns = bench::timed_loop(
      state,
      [&] {
        const auto& r = evaluate();
        std::size_t chosen = r.node_index;
        benchmark::DoNotOptimize(chosen);
      },
      bench::timer::thread_cpu);
  state.counters["us_per_decision"] = ns / 1000.0;
}

void BM_default(benchmark::State& state) { run(state, preempt::default_policy{bp::now}); }

void BM_policy(benchmark::State& state, preempt::policy_options options) {
  run(state, fixture().policy(options));
}

[[maybe_unused]] const bool registered = [] {
  benchmark::RegisterBenchmark("policies/default", BM_default)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("policies/off", BM_policy, preempt::policy_options{})
      ->Unit(benchmark::kMicrosecond);
  for (const bp::named_policy& p : bp::compared_policies())
    benchmark::RegisterBenchmark(("policies/" + std::string(p.name)).c_str(), BM_policy, p.options)
        ->Unit(benchmark::kMicrosecond);
  return true;
}();

}  // namespace
