// benchmarks/bench/fixtures.hpp - the clusters the benchmarks run on, in upstream's shapes
// (upstream's scheduler_perf default_preemption/performance-config.yaml):
//
//   node                4 CPU, 32Gi, 110 pod slots
//   low-priority pod    priority 0; `p` per node share 3.6 CPU (900m each at 4 per node, 120m at
//                       30, 32m at 110) and min(500Mi, 28Gi / p) of memory
//   preemptor           3000m, 500Mi, priority 10: must evict 3 of 4 victims (22 of 30, 81 of 110)
//   huge pod            9 CPU, 500Mi, priority 10: fits no node (the Unschedulable workload)
//
// Start times are distinct and seeded-random, so a node's insertion order is not its importance
// order (model::resource_cluster sorts on insert, as a scheduler cache would keep it). Every node's
// filter status is Unschedulable (resource shortage), so every node is a potential node.
//
// The same data is also given in the naive reference's form (naive_reference::input) so that
// x_reference compares both on identical fixtures. Everything is built outside the timed loops.
#ifndef PREEMPT_BENCHMARKS_BENCH_FIXTURES_HPP
#define PREEMPT_BENCHMARKS_BENCH_FIXTURES_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "reference/naive_preemption.hpp"

namespace bench {

using pod = preempt::model::resource_pod;
using preempt::model::pod_id;
using preempt::model::pod_spec;
using preempt::model::resource_vector;

inline constexpr std::int64_t Mi = std::int64_t{1} << 20;
inline constexpr std::int64_t Gi = std::int64_t{1} << 30;

namespace shapes {
inline constexpr std::int64_t node_cpu = 4000;
inline constexpr std::int64_t node_memory = 32 * Gi;
inline constexpr std::int64_t node_slots = 110;
inline constexpr std::int64_t used_cpu = 3600;  // by the low-priority pods of a node
inline constexpr std::int32_t low_priority = 0;
inline constexpr std::int32_t high_priority = 10;
inline constexpr std::int64_t preemptor_cpu = 3000;
inline constexpr std::int64_t huge_cpu = 9000;
inline constexpr std::int64_t pod_memory = 500 * Mi;

inline resource_vector node_allocatable() { return {node_cpu, node_memory, node_slots}; }
inline std::int64_t low_pod_cpu(std::int64_t per_node) { return used_cpu / per_node; }
inline std::int64_t low_pod_memory(std::int64_t per_node) {
  return std::min(pod_memory, 28 * Gi / per_node);
}
}  // namespace shapes

enum class preemptor_kind { high, huge };

inline pod make_preemptor(preemptor_kind k, pod_id uid) {
  const std::int64_t cpu = k == preemptor_kind::high ? shapes::preemptor_cpu : shapes::huge_cpu;
  return pod({.uid = uid,
              .priority = shapes::high_priority,
              .requests = {cpu, shapes::pod_memory},
              .start_time = {}});
}

// Aborts with a message: used where a fixture or a decision is not what the benchmark expects
// (e.g. no preemption happened where one must).
[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "benchmark fixture check failed: %s\n", what);
  std::abort();
}
inline void expect(bool ok, const char* what) {
  if (!ok) fail(what);
}

// A cluster with its filter statuses, budgets and nominations, in both forms.
struct world {
  preempt::model::resource_cluster cluster;
  preempt::filter_statuses statuses;
  std::vector<preempt::status_code> codes;
  preempt::model::budget_table budgets;
  std::vector<naive_reference::budget> ref_budgets;
  std::vector<pod> pending;  // nominated pods (stable addresses: reserved up front)
  preempt::nomination_ledger<pod> ledger;
  std::vector<std::vector<const pod*>> ref_nominated;
  pod preemptor{pod_spec{}};
  std::size_t pods = 0;
  pod_id next_uid = 1;

  world() = default;
  world(const world&) = delete;
  world& operator=(const world&) = delete;

  // The reference's view of this world.
  naive_reference::input reference_input(preempt::sampling_args sampling,
                                         std::size_t offset = 0) const {
    naive_reference::input in;
    in.cluster = &cluster;
    in.statuses = codes;
    in.budgets = ref_budgets.empty() ? nullptr : &ref_budgets;
    in.nominated = ref_nominated.empty() ? nullptr : &ref_nominated;
    in.sampling = sampling;
    in.offset = offset;
    in.now = 0;
    return in;
  }
};

// `nodes` nodes; `total_pods` low-priority pods dealt round-robin (pod k on node k % nodes), each
// sized for `per_node_shape` pods per node; every node Unschedulable for the preemptor.
inline std::unique_ptr<world> make_world(std::size_t nodes, std::size_t total_pods,
                                         std::int64_t per_node_shape, preemptor_kind k,
                                         std::uint64_t seed = 42) {
  auto w = std::make_unique<world>();
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<std::int64_t> start(0, 1'000'000'000);
  w->cluster.reserve_nodes(nodes);
  for (std::size_t n = 0; n < nodes; ++n) {
    w->cluster.add_node("node-" + std::to_string(n), shapes::node_allocatable());
    w->cluster.reserve_pods(n, (total_pods + nodes - 1) / nodes);
  }
  const std::int64_t cpu = shapes::low_pod_cpu(per_node_shape);
  const std::int64_t mem = shapes::low_pod_memory(per_node_shape);
  for (std::size_t i = 0; i < total_pods; ++i) {
    const std::int64_t t = start(g);
    w->cluster.add_pod(i % nodes, pod({.uid = w->next_uid++,
                                       .priority = shapes::low_priority,
                                       .requests = {cpu, mem},
                                       .start_time = t}));
  }
  w->pods = total_pods;
  w->statuses = preempt::filter_statuses(nodes, preempt::status_code::unschedulable);
  w->codes.assign(nodes, preempt::status_code::unschedulable);
  w->preemptor = make_preemptor(k, w->next_uid++);
  return w;
}

inline std::unique_ptr<world> make_world_per_node(std::size_t nodes, std::int64_t per_node,
                                                  preemptor_kind k, std::uint64_t seed = 42) {
  return make_world(nodes, nodes * static_cast<std::size_t>(per_node), per_node, k, seed);
}

// Budgets over the pods of `w` (W3). Pod g in global order "slot-major" (g = slot * nodes + node,
// so consecutive g are on different nodes). Disjoint: budget b selects pods 3b .. 3b+2.
// Overlapping: budget b selects pods 3b .. 3b+5, so most selected pods count against two budgets.
// Every budget allows `allowed` disruptions; every fourth budget lists its first pod in
// disruptedPods.
inline void add_budgets(world& w, std::size_t count, bool overlapping, std::int32_t allowed) {
  const std::size_t nodes = w.cluster.size();
  std::vector<const pod*> order;  // slot-major
  for (std::size_t slot = 0;; ++slot) {
    bool any = false;
    for (std::size_t n = 0; n < nodes; ++n) {
      const auto pods = w.cluster[n].pods();
      if (slot < pods.size()) {
        order.push_back(&pods[slot]);
        any = true;
      }
    }
    if (!any) break;
  }
  const std::size_t width = overlapping ? 6 : 3;
  w.ref_budgets.resize(count);
  for (std::size_t b = 0; b < count; ++b) {
    w.budgets.add_budget(0, allowed);
    naive_reference::budget& rb = w.ref_budgets[b];
    rb.namespace_id = 0;
    rb.allowed = allowed;
    for (std::size_t j = 0; j < width; ++j) {
      const std::size_t g = (3 * b + j) % order.size();
      w.budgets.add_member(b, order[g]->uid());
      rb.members.push_back(order[g]->uid());
    }
    if (b % 4 == 0) {
      w.budgets.add_disrupted(b, rb.members.front());
      rb.disrupted.push_back(rb.members.front());
    }
    std::sort(rb.members.begin(), rb.members.end());
    rb.members.erase(std::unique(rb.members.begin(), rb.members.end()), rb.members.end());
    std::sort(rb.disrupted.begin(), rb.disrupted.end());
  }
}

// `per_node` pending pods nominated to every node (W5): alternately priority 10 (>= the
// preemptor's: the two-pass fit counts them) and 5 (lower: skipped), 100m / 500Mi each.
inline void add_nominations(world& w, std::size_t per_node) {
  const std::size_t nodes = w.cluster.size();
  w.pending.reserve(nodes * per_node);
  w.ledger.reserve(nodes * per_node, nodes, per_node);
  w.ref_nominated.assign(nodes, {});
  for (std::size_t n = 0; n < nodes; ++n)
    for (std::size_t j = 0; j < per_node; ++j) {
      const std::int32_t prio = j % 2 == 0 ? shapes::high_priority : shapes::high_priority / 2;
      w.pending.emplace_back(pod_spec{.uid = w.next_uid++,
                                      .priority = prio,
                                      .requests = {100, shapes::pod_memory},
                                      .start_time = {}});
      w.ledger.nominate(w.pending.back(), n);
      w.ref_nominated[n].push_back(&w.pending.back());
    }
}

// The "physical limit": read every pod's priority, start time and all its requests, on the given
// nodes, once.
inline std::int64_t plain_scan(const preempt::model::resource_cluster& c,
                               std::span<const std::size_t> nodes) {
  std::int64_t sum = 0;
  for (const std::size_t n : nodes)
    for (const pod& p : c[n].pods()) {
      sum += p.priority();
      sum += p.start_time().value_or(0);
      const resource_vector& r = p.requests();
      for (std::size_t d = 0; d < r.size(); ++d) sum += r.data()[d];
    }
  return sum;
}

inline std::vector<std::size_t> all_nodes(const preempt::model::resource_cluster& c) {
  std::vector<std::size_t> v(c.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

inline std::size_t pods_on(const preempt::model::resource_cluster& c,
                           std::span<const std::size_t> nodes) {
  std::size_t n = 0;
  for (const std::size_t i : nodes) n += c[i].pods().size();
  return n;
}

// The nodes a decision evaluated, in order.
template <class D>
std::vector<std::size_t> nodes_evaluated(const D& d) {
  std::vector<std::size_t> v;
  for (const auto& diag : d.diagnosis) v.push_back(diag.node_index);
  return v;
}

}  // namespace bench

#endif  // PREEMPT_BENCHMARKS_BENCH_FIXTURES_HPP
