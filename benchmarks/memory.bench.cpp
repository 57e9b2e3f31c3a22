// Memory of the default model: bytes per pod and per node (sizeof plus heap), measured by a global
// operator new that tracks live heap bytes (this file's own, not tests/support/counting_new.hpp,
// which counts calls only).
//
// BM_model_memory/pods:<p>: builds a model::resource_cluster of 1000 nodes (4 CPU / 32Gi / 110
// slots) with p pods each (the timed loop: add_node + add_pod, so ns_per_pod is the cost of
// building), then reports
//   bytes_per_pod          heap growth from adding the pods / pods, as add_pod grows each node's
//                          vector geometrically (what a caller gets without reserve_pods)
//   bytes_per_pod_reserved the same with reserve_pods(p) first (= sizeof(model::resource_pod))
//   bytes_per_node         (sizeof(cluster) + heap of the nodes without pods) / nodes
//   eval_bytes_per_node    heap an evaluator keeps after a full dry run over every node / nodes
//   index_bytes_per_node   model::resource_rejection_index for one priority / nodes (included in
//                          eval_bytes_per_node: an evaluator keeps one per priority, up to four)
//   eval_budgets_bytes_per_node  the same with a model::budget_table: its memo of the budgets per
//                          node included
//   ledger_bytes_per_node  nomination_ledger after reserve(nodes, nodes, 1) and one nomination
//                          per node / nodes
//   budget_bytes_per_member budget_table bytes per (budget, pod) membership
// Target: <= 128 bytes per pod plus 1 KiB per node.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"

// --- live-bytes operator new -----------------------------------------------------------------
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace heap {
inline std::atomic<std::int64_t> live{0};
inline std::atomic<std::size_t> calls{0};
constexpr std::size_t header = 16;  // keeps max_align_t alignment
inline void* take(std::size_t n) noexcept {
  calls.fetch_add(1, std::memory_order_relaxed);
  auto* base = static_cast<unsigned char*>(std::malloc(n + header));
  if (base == nullptr) return nullptr;
  *reinterpret_cast<std::size_t*>(base) = n;
  live.fetch_add(static_cast<std::int64_t>(n), std::memory_order_relaxed);
  return base + header;
}
inline void give(void* p) noexcept {
  if (p == nullptr) return;
  auto* base = static_cast<unsigned char*>(p) - header;
  live.fetch_sub(static_cast<std::int64_t>(*reinterpret_cast<std::size_t*>(base)),
                 std::memory_order_relaxed);
  std::free(base);
}
inline std::int64_t bytes() noexcept { return live.load(std::memory_order_relaxed); }
}  // namespace heap

void* operator new(std::size_t n) {
  if (void* p = heap::take(n)) return p;
  std::abort();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return heap::take(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return heap::take(n); }
void operator delete(void* p) noexcept { heap::give(p); }
void operator delete[](void* p) noexcept { heap::give(p); }
void operator delete(void* p, std::size_t) noexcept { heap::give(p); }
void operator delete[](void* p, std::size_t) noexcept { heap::give(p); }

namespace {

using pod = preempt::model::resource_pod;
constexpr std::size_t node_count = 1000;

void build(preempt::model::resource_cluster& c, std::int64_t per_node, bool reserve,
           preempt::model::pod_id& uid) {
  c.reserve_nodes(node_count);
  for (std::size_t n = 0; n < node_count; ++n) {
    c.add_node("node-" + std::to_string(n), {4000, std::int64_t{32} << 30, 110});
    if (reserve) c.reserve_pods(n, static_cast<std::size_t>(per_node));
  }
  for (std::int64_t k = 0; k < per_node; ++k)
    for (std::size_t n = 0; n < node_count; ++n)
      c.add_pod(n, pod({.uid = uid++,
                        .priority = 0,
                        .requests = {3600 / per_node, 500 << 20},
                        .start_time = static_cast<std::int64_t>(uid * 7919 % 100000)}));
}

void BM_model_memory(benchmark::State& state) {
  const std::int64_t per_node = state.range(0);
  const auto pods = static_cast<double>(node_count) * static_cast<double>(per_node);
  preempt::model::pod_id uid = 1;

  // Nodes alone.
  std::int64_t node_heap = 0;
  {
    const std::int64_t before = heap::bytes();
    preempt::model::resource_cluster c;
    c.reserve_nodes(node_count);
    for (std::size_t n = 0; n < node_count; ++n)
      c.add_node("node-" + std::to_string(n), {4000, std::int64_t{32} << 30, 110});
    node_heap = heap::bytes() - before;
  }
  // Pods, without and with reserve_pods.
  double per_pod = 0, per_pod_reserved = 0, eval_per_node = 0, eval_budgets_per_node = 0,
         index_per_node = 0;
  {
    const std::int64_t before = heap::bytes();
    preempt::model::resource_cluster c;
    build(c, per_node, false, uid);
    per_pod = static_cast<double>(heap::bytes() - before - node_heap) / pods;

    // An evaluator's working memory after a full dry run over every node.
    preempt::evaluator_config cfg;
    cfg.sampling.min_candidate_nodes_percentage = 100;
    const std::int64_t before_eval = heap::bytes();
    {
      preempt::evaluator<preempt::model::resource_cluster> ev(cfg);
      const preempt::filter_statuses statuses(node_count, preempt::status_code::unschedulable);
      const std::int64_t statuses_heap = heap::bytes() - before_eval;
      const pod preemptor(
          {.uid = uid++, .priority = 10, .requests = {3000, 500 << 20}, .start_time = {}});
      const auto& d = ev.evaluate(preemptor, c, statuses, preempt::no_budgets{},
                                  preempt::no_nominations{}, preempt::inline_executor{});
      if (d.kind != preempt::decision_kind::nominated || d.diagnosis.size() != node_count)
        std::abort();
      eval_per_node = static_cast<double>(heap::bytes() - before_eval - statuses_heap) /
                      static_cast<double>(node_count);
      // The rejection index alone (the evaluator above holds one, for the preemptor's priority).
      preempt::model::resource_rejection_index index;
      if (!index.prepare(c, preemptor)) std::abort();
      index_per_node = static_cast<double>(index.bytes()) / static_cast<double>(node_count);
    }
    // The same with a budget table (here without budgets): the evaluator then also keeps, per
    // node, what the budgets answered there (its stamps, and a violation flag per pod charged).
    const std::int64_t before_budgets = heap::bytes();
    {
      const preempt::model::budget_table budgets;
      const std::int64_t table_heap = heap::bytes() - before_budgets;
      preempt::evaluator<preempt::model::resource_cluster> ev(cfg);
      const preempt::filter_statuses statuses(node_count, preempt::status_code::unschedulable);
      const std::int64_t statuses_heap = heap::bytes() - before_budgets - table_heap;
      const pod preemptor(
          {.uid = uid++, .priority = 10, .requests = {3000, 500 << 20}, .start_time = {}});
      const auto& d = ev.evaluate(preemptor, c, statuses, budgets, preempt::no_nominations{},
                                  preempt::inline_executor{});
      if (d.kind != preempt::decision_kind::nominated || d.diagnosis.size() != node_count)
        std::abort();
      eval_budgets_per_node =
          static_cast<double>(heap::bytes() - before_budgets - table_heap - statuses_heap) /
          static_cast<double>(node_count);
    }
  }
  {
    const std::int64_t before = heap::bytes();
    preempt::model::resource_cluster c;
    build(c, per_node, true, uid);
    per_pod_reserved = static_cast<double>(heap::bytes() - before - node_heap) / pods;
  }
  // Ledger and budget table.
  double ledger_per_node = 0, budget_per_member = 0;
  {
    std::vector<pod> pending;
    pending.reserve(node_count);
    for (std::size_t n = 0; n < node_count; ++n)
      pending.emplace_back(preempt::model::pod_spec{
          .uid = uid++, .priority = 10, .requests = {100, 1}, .start_time = {}});
    const std::int64_t before = heap::bytes();
    {
      preempt::nomination_ledger<pod> ledger;
      ledger.reserve(node_count, node_count, 1);
      for (std::size_t n = 0; n < node_count; ++n) ledger.nominate(pending[n], n);
      ledger_per_node =
          static_cast<double>(heap::bytes() - before + static_cast<std::int64_t>(sizeof ledger)) /
          static_cast<double>(node_count);
    }
    const std::int64_t before_b = heap::bytes();
    {
      preempt::model::budget_table t;
      constexpr std::size_t members = 30000;
      for (std::size_t b = 0; b < members / 3; ++b) t.add_budget(0, 1);
      for (std::size_t m = 0; m < members; ++m) t.add_member(m / 3, m + 1);
      budget_per_member =
          static_cast<double>(heap::bytes() - before_b) / static_cast<double>(members);
    }
  }

  // Timed: building the cluster (nodes and pods, no reserve).
  const std::size_t calls_before = heap::calls.load();
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    preempt::model::resource_cluster c;
    build(c, per_node, false, uid);
    benchmark::DoNotOptimize(c.size());
  }
  const double ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  const auto iterations = static_cast<double>(state.iterations());
  state.counters["ns_per_pod"] = ns / (pods * iterations);
  state.counters["allocs_per_pod"] =
      static_cast<double>(heap::calls.load() - calls_before) / (pods * iterations);
  state.counters["bytes_per_pod"] = per_pod;
  state.counters["bytes_per_pod_reserved"] = per_pod_reserved;
  state.counters["bytes_per_node"] =
      (static_cast<double>(sizeof(preempt::model::resource_cluster)) +
       static_cast<double>(node_heap)) /
      static_cast<double>(node_count);
  state.counters["sizeof_pod"] = static_cast<double>(sizeof(pod));
  state.counters["sizeof_node"] = static_cast<double>(sizeof(preempt::model::resource_node));
  state.counters["eval_bytes_per_node"] = eval_per_node;
  state.counters["eval_budgets_bytes_per_node"] = eval_budgets_per_node;
  state.counters["index_bytes_per_node"] = index_per_node;
  state.counters["ledger_bytes_per_node"] = ledger_per_node;
  state.counters["budget_bytes_per_member"] = budget_per_member;
}

}  // namespace

BENCHMARK(BM_model_memory)
    ->ArgName("pods")
    ->Arg(4)
    ->Arg(30)
    ->Arg(110)
    ->Unit(benchmark::kMillisecond);
