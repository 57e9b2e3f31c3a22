// Loading one node with many pods into a model::resource_cluster: add_pods (one sort, the way
// preempt-whatif loads a dump) against add_pod one at a time (a sorted insert each, O(p) per pod,
// quadratic over the node). Pods arrive in random importance order, as in a dump: random priority
// among four classes, random start time, unique uids. The complexity fit (Google Benchmark's
// BigO, N = pods on the node) shows add_pods at N log N; one at a time grows as N^2.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "preempt/preempt.hpp"

namespace {

using preempt::model::resource_cluster;
using preempt::model::resource_pod;

std::vector<resource_pod> random_pods(std::size_t n) {
  std::mt19937_64 g(42);
  std::vector<resource_pod> pods;
  pods.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    preempt::model::pod_spec s;
    s.uid = k + 1;
    s.priority = static_cast<std::int32_t>(g() % 4) * 1000;
    s.start_time = static_cast<preempt::timestamp>(g() % 2'000'000);
    s.requests.set(preempt::model::resource::cpu, 10);
    pods.emplace_back(std::move(s));
  }
  return pods;
}

void BM_add_pods_one_node(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<resource_pod> pods = random_pods(n);
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<resource_pod> batch = pods;
    resource_cluster c;
    c.add_node("n", {});
    state.ResumeTiming();
    c.add_pods(0, batch);
    benchmark::DoNotOptimize(c[0].pods().data());
  }
  state.SetComplexityN(static_cast<benchmark::IterationCount>(n));
}
BENCHMARK(BM_add_pods_one_node)
    ->RangeMultiplier(4)
    ->Range(1 << 10, 200'000)
    ->Complexity(benchmark::oNLogN)
    ->Unit(benchmark::kMillisecond);

void BM_add_pod_one_at_a_time(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<resource_pod> pods = random_pods(n);
  for (auto _ : state) {
    resource_cluster c;
    c.add_node("n", {});
    for (const resource_pod& p : pods) c.add_pod(0, p);
    benchmark::DoNotOptimize(c[0].pods().data());
  }
  state.SetComplexityN(static_cast<benchmark::IterationCount>(n));
}
// Up to 16,384 pods only (0.4 s a load; 50,000 take 4.4 s), so that the smoke run stays brief.
BENCHMARK(BM_add_pod_one_at_a_time)
    ->RangeMultiplier(4)
    ->Range(1 << 10, 1 << 14)
    ->Complexity(benchmark::oNSquared)
    ->Unit(benchmark::kMillisecond);

}  // namespace
