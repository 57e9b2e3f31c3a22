// Victim selection on one node of 4, 30 and 110 pods, next to a plain scan over the same pods.
//
// Counters: ns_per_pod (time per decision over the node's pod count), x_plain_scan (that time
// over the time of a plain loop that reads every pod's priority and requests, measured in this
// binary on the same data), allocs_per_op (global operator new calls per decision).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "../tests/support/counting_new.hpp"
#include "preempt/preempt.hpp"

namespace {

using preempt::model::pod;

struct fixture {
  preempt::model::cluster cluster;
  pod preemptor{preempt::model::pod_spec{}};
};

// A node with `pods` pods of mixed priorities filling 90% of its cpu; the preemptor needs 40% of
// the node, so about half of the lower-priority pods are victims.
fixture make_node(std::int64_t pods) {
  fixture f;
  const std::int64_t per_pod = 100;
  const auto n = f.cluster.add_node("node", {per_pod * pods * 10 / 9, 1 << 30, 256});
  for (std::int64_t k = 0; k < pods; ++k)
    f.cluster.add_pod(n, pod({.uid = static_cast<std::uint64_t>(k + 1),
                              .priority = static_cast<std::int32_t>((k * 7) % 5) * 100,
                              .requests = {per_pod, 1 << 20},
                              .start_time = k * 1000}));
  f.preemptor = pod({.uid = 1000000, .priority = 1000, .requests = {per_pod * pods * 4 / 10, 1 << 20},
                     .start_time = {}});
  return f;
}

// What a decision must at least do: read every pod once.
std::int64_t plain_scan(const preempt::model::cluster::node& node, std::int32_t priority) {
  std::int64_t sum = 0;
  for (const pod& p : node.pods())
    if (p.priority() < priority) sum += p.requests()[0];
  return sum;
}

double plain_scan_ns_per_pod(const fixture& f) {
  const auto& node = f.cluster[0];
  constexpr int rounds = 200000;
  std::int64_t sink = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < rounds; ++r) {
    benchmark::DoNotOptimize(sink += plain_scan(node, f.preemptor.priority()));
    benchmark::ClobberMemory();
  }
  const auto ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start);
  return ns.count() / rounds / static_cast<double>(node.pods().size());
}

// Wall-clock nanoseconds per pod over the timed loop of `state`.
template <class Body>
double time_per_pod(benchmark::State& state, Body&& body) {
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) body();
  const auto ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start);
  return ns.count() / static_cast<double>(state.iterations()) / static_cast<double>(state.range(0));
}

void BM_plain_scan(benchmark::State& state) {
  const fixture f = make_node(state.range(0));
  state.counters["ns_per_pod"] = time_per_pod(state, [&] {
    std::int64_t sum = plain_scan(f.cluster[0], f.preemptor.priority());
    benchmark::DoNotOptimize(sum);
  });
}

void BM_select_victims(benchmark::State& state) {
  const fixture f = make_node(state.range(0));
  const double scan = plain_scan_ns_per_pod(f);
  preempt::victim_scratch<pod> scratch;
  preempt::model::resource_fit_state fit;
  const preempt::no_budgets budgets;
  std::size_t victims = 0;
  f.cluster.prepare_state(0, fit);
  (void)preempt::select_victims(f.preemptor, f.cluster[0], fit, budgets, scratch);  // warm-up
  const std::size_t allocs_before = counting::count();
  const double ns_per_pod = time_per_pod(state, [&] {
    f.cluster.prepare_state(0, fit);
    const auto r = preempt::select_victims(f.preemptor, f.cluster[0], fit, budgets, scratch);
    victims = r.victims.size();
    benchmark::DoNotOptimize(victims);
  });
  const double allocs = static_cast<double>(counting::count() - allocs_before);
  state.counters["victims"] = static_cast<double>(victims);
  state.counters["ns_per_pod"] = ns_per_pod;
  state.counters["x_plain_scan"] = ns_per_pod / scan;
  state.counters["allocs_per_op"] = allocs / static_cast<double>(state.iterations());
}

}  // namespace

BENCHMARK(BM_plain_scan)->Arg(4)->Arg(30)->Arg(110);
BENCHMARK(BM_select_victims)->Arg(4)->Arg(30)->Arg(110);
