// Victim selection on one node of 4, 30 and 110 pods, next to a plain scan over the same pods.
//
// Counters: ns_per_pod (time per decision over the node's pod count), x_plain_scan (that time
// over the time of a plain loop that reads every pod's priority and requests, measured in this
// binary on the same data), allocs_per_op (global operator new calls per decision), x_reference
// (the naive reference's SelectVictimsOnNode on the same node, tests/reference/, over this time).
//
// BM_select_victims: mixed priorities, the preemptor needs 40% of the node (the first benchmark).
// BM_select_victims_upstream (W1 per node): upstream shapes (support/fixtures.hpp): a 4-CPU node
// with 4, 30 or 110 priority-0 pods using 3.6 CPU, a 3000m priority-10 preemptor; the plain scan
// reads every pod's priority, start time and all its requests (the definition of every other
// benchmark). Both run on nodes kept in importance order (model::resource_cluster), so no sort
// happens.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/fixtures.hpp"
#include "bench/measure.hpp"
#include "preempt/preempt.hpp"
#include "support/counting_new.hpp"

namespace {

using pod = preempt::model::resource_pod;

struct fixture {
  preempt::model::resource_cluster cluster;
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
  f.preemptor = pod({.uid = 1000000,
                     .priority = 1000,
                     .requests = {per_pod * pods * 4 / 10, 1 << 20},
                     .start_time = {}});
  return f;
}

// What a decision must at least do: read every pod once.
std::int64_t plain_scan(const preempt::model::resource_node& node, std::int32_t priority) {
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
  const auto ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start);
  return ns.count() / rounds / static_cast<double>(node.pods().size());
}

// Wall-clock nanoseconds per pod over the timed loop of `state`.
template <class Body>
double time_per_pod(benchmark::State& state, Body&& body) {
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) body();
  const auto ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start);
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
    // DoNotOptimize on a local: g++ 12 -O1/-O2 drops the write when it is given `victims` (a
    // captured reference) directly (benchmark 1.7.1's "+m,r" asm constraint).
    std::size_t n = r.victims.size();
    benchmark::DoNotOptimize(n);
    victims = n;
  });
  const double allocs = static_cast<double>(counting::count() - allocs_before);
  naive_reference::input in;
  in.cluster = &f.cluster;
  in.statuses = {preempt::status_code::unschedulable};
  const double ref = bench::reference_ns("mixed/" + std::to_string(state.range(0)), [&] {
    const auto r = naive_reference::select_victims(f.preemptor, in, 0);
    bench::expect(r.victims.size() == victims, "select_victims: the reference disagrees");
    benchmark::DoNotOptimize(r.victims.data());
  });
  state.counters["victims"] = static_cast<double>(victims);
  state.counters["ns_per_pod"] = ns_per_pod;
  state.counters["x_plain_scan"] = ns_per_pod / scan;
  state.counters["allocs_per_op"] = allocs / static_cast<double>(state.iterations());
  state.counters["x_reference"] = ref / (ns_per_pod * static_cast<double>(state.range(0)));
}

// W1 per node, upstream shapes.
void BM_select_victims_upstream(benchmark::State& state) {
  const std::int64_t per_node = state.range(0);
  const auto w = bench::make_world_per_node(1, per_node, bench::preemptor_kind::high);
  const auto& node = w->cluster[0];
  preempt::victim_scratch<pod> scratch;
  preempt::model::resource_fit_state fit;
  const preempt::no_budgets budgets;
  w->cluster.prepare_state(0, fit);
  const auto r0 = preempt::select_victims(w->preemptor, node, fit, budgets, scratch);  // warm-up
  bench::expect(r0.is_candidate() && !r0.victims.empty(), "select_victims: no preemption");
  const std::size_t victims = r0.victims.size();
  const std::vector<std::size_t> nodes{0};
  const double scan = bench::plain_scan_ns_per_pod(
      [&] { return bench::plain_scan(w->cluster, nodes); }, node.pods().size());
  const naive_reference::input in = w->reference_input({});
  const double ref = bench::reference_ns("upstream/" + std::to_string(per_node), [&] {
    const auto r = naive_reference::select_victims(w->preemptor, in, 0);
    bench::expect(r.victims.size() == victims, "select_victims: the reference disagrees");
    benchmark::DoNotOptimize(r.victims.data());
  });
  const double ns = bench::timed_loop(state, [&] {
    w->cluster.prepare_state(0, fit);
    const auto r = preempt::select_victims(w->preemptor, node, fit, budgets, scratch);
    std::size_t n = r.victims.size();
    benchmark::DoNotOptimize(n);
  });
  bench::report(state, ns, node.pods().size(), scan, ref);
  state.counters["victims"] = static_cast<double>(victims);
}

}  // namespace

BENCHMARK(BM_plain_scan)->Arg(4)->Arg(30)->Arg(110);
BENCHMARK(BM_select_victims)->Arg(4)->Arg(30)->Arg(110);
BENCHMARK(BM_select_victims_upstream)->ArgName("pods")->Arg(4)->Arg(30)->Arg(110);
