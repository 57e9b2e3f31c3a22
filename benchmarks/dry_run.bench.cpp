// W1 (PreemptionBasic-like): the whole decision, preempt::evaluator::evaluate, on clusters of
// 500, 1000 and 5000 nodes with 4, 30 or 110 low-priority pods per node (upstream shapes, see
// support/fixtures.hpp) and a 3000m priority-10 preemptor that must evict on any node; inline with
// 30 pods per node also at 100,000 nodes (3 million pods; sampled: 10,000 candidates wanted).
//
// Families: dry_run/<sampling>/<executor>/pods:<p>, argument `nodes`.
//   sampling  sampled = upstream defaults (10%, at least 100 candidates: 500 nodes -> 100,
//             5000 -> 500); full = 100% (every node is evaluated); full-bound and sampled-bound:
//             the same with branch and bound (evaluator_config::report_only_chosen: a node that
//             cannot beat the best candidate before it is counted without selecting its victims;
//             the same decision, checked against the full evaluation before timing)
//   executor  inline = preempt::inline_executor (one thread); pool1 / pool2 = preempt::thread_pool
//             with 1 / 2 threads and evaluator parallelism pool threads + 1 (the calling thread
//             works too), i.e. 2 / 3 workers (at most as many as the machine's hardware threads:
//             evaluator_config::workers_within_hardware), and the evaluator's own rule for handing
//             a dry run out (min_parallel_nodes, min_parallel_pods; counter handed_out: 1 when the
//             helpers were called): what a caller with a pool gets
// The dry run starts at offset 0 every time (same nodes every iteration). Counters: see
// support/measure.hpp, plus nodes_evaluated, victims and workers. Timing: thread CPU time for
// inline, wall time for the pools (their helpers run on other threads; load-sensitive). The
// reference and the plain scan read the same nodes. Aborts if a decision does not nominate a node
// with victims. BM_plain_scan_threads/threads:1|2: the plain scan of the 5000 x 110 cluster on one
// thread and split over two (the second on pool1's thread), the machine's own ceiling for the
// 2-worker speed-up on that cluster (wall time).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bench/fixtures.hpp"
#include "bench/measure.hpp"
#include "preempt/preempt.hpp"
#include "preempt/thread_pool.hpp"

namespace {

using bench::pod;
using evaluator = preempt::evaluator<preempt::model::resource_cluster>;

enum class exec_kind { inline_, pool1, pool2 };

const bench::world& fixture(std::size_t nodes, std::int64_t per_node) {
  static std::map<std::pair<std::size_t, std::int64_t>, std::unique_ptr<bench::world>> cache;
  auto& slot = cache[{nodes, per_node}];
  if (!slot) slot = bench::make_world_per_node(nodes, per_node, bench::preemptor_kind::high);
  return *slot;
}

preempt::thread_pool& pool(std::size_t threads) {
  static preempt::thread_pool one(1), two(2);
  return threads == 1 ? one : two;
}

// The pool's executor, counting the helpers it is handed.
struct counting_executor {
  preempt::pool_executor inner;
  std::atomic<std::size_t>* handed;
  void execute(preempt::task_ref t) const {
    handed->fetch_add(1, std::memory_order_relaxed);
    inner.execute(t);
  }
};
std::atomic<std::size_t> helpers_handed{0};

preempt::sampling_args sampling(bool full) {
  preempt::sampling_args a;
  if (full) a.min_candidate_nodes_percentage = 100;
  return a;
}

template <class E>
void run(benchmark::State& state, const bench::world& w, bool full, bool bound, std::size_t workers,
         const E& ex) {
  preempt::evaluator_config cfg;
  cfg.sampling = sampling(full);
  cfg.parallelism = workers;
  cfg.report_only_chosen = bound;
  evaluator ev(cfg);
  preempt::attempt at;
  at.offset = 0;
  const auto evaluate = [&]() -> const auto& {
    return ev.evaluate(w.preemptor, w.cluster, w.statuses, preempt::no_budgets{},
                       preempt::no_nominations{}, ex, at);
  };
  // Warm-up, and the checks: a nomination with victims; the expected number of nodes evaluated.
  const std::size_t handed_before = helpers_handed.load();
  const auto& d0 = evaluate();
  const bool handed_out = helpers_handed.load() != handed_before;
  bench::expect(d0.kind == preempt::decision_kind::nominated && !d0.victims.empty(),
                "dry run: no preemption");
  const std::size_t wanted = preempt::number_of_candidates(cfg.sampling, w.cluster.size());
  bench::expect(d0.diagnosis.size() == wanted, "dry run: unexpected number of nodes evaluated");
  const std::vector<std::size_t> nodes = bench::nodes_evaluated(d0);
  const std::size_t victims = d0.victims.size();
  const std::size_t bounded = d0.candidates_bounded;
  if (bound) {  // the same decision as the full evaluation
    preempt::evaluator_config all = cfg;
    all.report_only_chosen = false;
    all.parallelism = 1;
    evaluator reference(all);
    const auto& r = reference.evaluate(w.preemptor, w.cluster, w.statuses, preempt::no_budgets{},
                                       preempt::no_nominations{}, preempt::inline_executor{}, at);
    bench::expect(r.node_index == d0.node_index && r.victims.size() == d0.victims.size() &&
                      std::equal(r.victims.begin(), r.victims.end(), d0.victims.begin()),
                  "dry run: branch and bound changed the decision");
  }
  const std::size_t pods = bench::pods_on(w.cluster, nodes);
  // More warm-up with helpers: each worker's scratch grows the first time it takes an item.
  for (int i = 0; i < (workers == 1 || bench::brief_run() ? 1 : 30); ++i) (void)evaluate();

  const double scan =
      bench::plain_scan_ns_per_pod([&] { return bench::plain_scan(w.cluster, nodes); }, pods);
  const std::string key = std::to_string(w.cluster.size()) + "x" +
                          std::to_string(w.pods / w.cluster.size()) + (full ? "/full" : "/sampled");
  const double ref = bench::reference_ns(
      key,
      [&] {
        const auto r = naive_reference::preempt(w.preemptor, w.reference_input(cfg.sampling, 0));
        bench::expect(r.kind == preempt::decision_kind::nominated && r.tried.size() == wanted,
                      "dry run: the reference did not nominate");
        benchmark::DoNotOptimize(r.node_index);
      },
      static_cast<double>(pods) * static_cast<double>(w.pods / w.cluster.size()));

  const double ns = bench::timed_loop(
      state,
      [&] {
        const auto& d = evaluate();
        std::size_t chosen = d.node_index;  // (a local: see victim_selection.bench.cpp)
        benchmark::DoNotOptimize(chosen);
      },
      workers == 1 ? bench::timer::thread_cpu : bench::timer::wall);
  bench::report(state, ns, pods, scan, ref);
  state.counters["nodes_evaluated"] = static_cast<double>(nodes.size());
  state.counters["victims"] = static_cast<double>(victims);
  state.counters["candidates_bounded"] = static_cast<double>(bounded);
  state.counters["workers"] = static_cast<double>(workers);
  state.counters["handed_out"] = handed_out ? 1 : 0;
  state.SetComplexityN(static_cast<benchmark::IterationCount>(pods));
  state.SetItemsProcessed(state.iterations() * static_cast<benchmark::IterationCount>(pods));
}

void BM_dry_run(benchmark::State& state, bool full, bool bound, exec_kind k,
                std::int64_t per_node) {
  const bench::world& w = fixture(static_cast<std::size_t>(state.range(0)), per_node);
  switch (k) {
    case exec_kind::inline_: run(state, w, full, bound, 1, preempt::inline_executor{}); break;
    case exec_kind::pool1:
      run(state, w, full, bound, 2, counting_executor{pool(1).get_executor(), &helpers_handed});
      break;
    case exec_kind::pool2:
      run(state, w, full, bound, 3, counting_executor{pool(2).get_executor(), &helpers_handed});
      break;
  }
}

// The plain scan of every pod of the 5000 x 110 cluster on 1 thread, or split in two halves, the
// second on the thread pool the 2-worker dry run uses (wall time, hand-off included): how much a
// second thread can speed up merely reading these pods on this machine (the scan is bound by
// memory bandwidth, which the two threads share), the ceiling of the 2-worker dry run's speed-up.
void BM_plain_scan_threads(benchmark::State& state) {
  const bench::world& w = fixture(5000, 110);
  const std::vector<std::size_t> nodes = bench::all_nodes(w.cluster);
  const std::span<const std::size_t> all(nodes);
  const std::span<const std::size_t> first = all.first(all.size() / 2);
  const std::span<const std::size_t> second = all.subspan(all.size() / 2);
  struct half_scan {
    const bench::world* w;
    std::span<const std::size_t> nodes;
    std::int64_t sum = 0;
    std::atomic<bool> done{false};
    void run() noexcept {
      sum = bench::plain_scan(w->cluster, nodes);
      done.store(true, std::memory_order_release);
      done.notify_one();
    }
  };
  const bool two = state.range(0) == 2;
  for (auto _ : state) {
    if (!two) {
      std::int64_t sum = bench::plain_scan(w.cluster, all);
      benchmark::DoNotOptimize(sum);
      continue;
    }
    half_scan other{&w, second};
    pool(1).get_executor().execute(preempt::task_ref::to_member_run(other));
    std::int64_t sum = bench::plain_scan(w.cluster, first);
    other.done.wait(false, std::memory_order_acquire);
    sum += other.sum;
    benchmark::DoNotOptimize(sum);
  }
  state.counters["pods_read"] = static_cast<double>(w.pods);
}
BENCHMARK(BM_plain_scan_threads)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

[[maybe_unused]] const bool registered = [] {
  const std::pair<const char*, exec_kind> execs[] = {
      {"inline", exec_kind::inline_}, {"pool1", exec_kind::pool1}, {"pool2", exec_kind::pool2}};
  for (const bool bound : {false, true})
    for (const bool full : {false, true})
      for (const auto& [exec_name, k] : execs)
        for (const std::int64_t per_node : {4, 30, 110}) {
          const std::string name = std::string("dry_run/") + (full ? "full" : "sampled") +
                                   (bound ? "-bound/" : "/") + exec_name +
                                   "/pods:" + std::to_string(per_node);
          auto* b =
              benchmark::RegisterBenchmark(name.c_str(), BM_dry_run, full, bound, k, per_node);
          b->ArgName("nodes")->Arg(500)->Arg(1000)->Arg(5000);
          // 100,000 nodes x 30 pods (3 million pods): one thread, sampled and bounded.
          if (k == exec_kind::inline_ && per_node == 30 && (!full || bound)) b->Arg(100000);
          b->Unit(benchmark::kMicrosecond)->Complexity(benchmark::oN);
          if (k != exec_kind::inline_) b->UseRealTime();
        }
  return true;
}();

}  // namespace
