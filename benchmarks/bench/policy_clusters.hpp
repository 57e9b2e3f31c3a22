// benchmarks/bench/policy_clusters.hpp - seeded clusters on which the opt-in preemption policies
// have something to decide, for benchmarks/policies.bench.cpp (one cluster of 5000 nodes) and
// benchmarks/policy_table.cpp (2,000 small ones).
//
// A cluster: `nodes` nodes of 4 or 8 CPUs (64Gi, 110 slots), each filled to 92-100% of its CPU
// with pods of 100m, 250m, 500m, 1, 2 or 4 CPUs (memory in proportion), priorities 0, 100, 1000
// (lower than the preemptor's 5000) or 10000 (higher), started up to two hours before the
// decision (one in five within the last ten minutes), in four namespaces; every pod has a cost of
// 1 to 10 (say, work lost since its last checkpoint) and about one in six is pinned (could run on
// no other node); per namespace, budgets of 0 or 1 allowed disruption over about two thirds of
// its pods. The preemptor asks 2 to 8 CPUs at priority 5000, with some nominated pods of higher
// priority. Filter statuses: Success where it fits, Unschedulable elsewhere.
// Everything depends on the seed only (std::mt19937_64 draws, one per statement).
#ifndef PREEMPT_BENCHMARKS_BENCH_POLICY_CLUSTERS_HPP
#define PREEMPT_BENCHMARKS_BENCH_POLICY_CLUSTERS_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "preempt/preemption_policies.hpp"

namespace bench::policies {

using pod = preempt::model::resource_pod;

inline constexpr preempt::timestamp minute = 60'000'000'000;  // timestamps in nanoseconds
inline constexpr preempt::timestamp now = 1'000'000 * minute;
inline constexpr std::int32_t preemptor_priority = 5000;

// Per pod (by uid - 1): cost and pinning.
struct pod_facts {
  std::vector<std::int64_t> cost;
  std::vector<std::uint8_t> pinned;
};

struct cost_of {
  const pod_facts* facts = nullptr;
  std::int64_t operator()(const pod& p) const {
    const std::size_t i = static_cast<std::size_t>(p.uid()) - 1;
    return i < facts->cost.size() ? facts->cost[i] : 1;
  }
};
struct reschedulable_of {
  const pod_facts* facts = nullptr;
  bool operator()(const pod& p) const {
    const std::size_t i = static_cast<std::size_t>(p.uid()) - 1;
    return i >= facts->pinned.size() || facts->pinned[i] == 0;
  }
};
using policy_type = preempt::preemption_policies<cost_of, reschedulable_of>;

struct cluster {
  preempt::model::resource_cluster nodes;
  preempt::model::budget_table budgets;
  preempt::filter_statuses statuses;
  std::vector<pod> nominated;  // stable: reserved up front
  std::unique_ptr<preempt::nomination_ledger<pod>> ledger;
  pod preemptor{preempt::model::pod_spec{}};
  pod_facts facts;
  std::size_t pods = 0;

  // A policy with these options and this cluster's costs and pinning.
  policy_type policy(const preempt::policy_options& options) const {
    policy_type p;
    p.now = now;
    p.options = options;
    p.cost = cost_of{&facts};
    p.reschedulable = reschedulable_of{&facts};
    return p;
  }
};

inline std::int64_t draw(std::mt19937_64& g, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(g);
}

inline std::unique_ptr<cluster> make_cluster(std::uint64_t seed, std::size_t node_count) {
  constexpr std::int64_t Gi = std::int64_t{1} << 30;
  constexpr std::int64_t sizes[] = {100, 250, 500, 1000, 2000, 4000};
  constexpr std::int32_t priorities[] = {0, 0, 100, 100, 1000, 10000};
  std::mt19937_64 g(seed);
  auto c = std::make_unique<cluster>();
  c->nodes.reserve_nodes(node_count);
  preempt::model::pod_id uid = 1;
  std::vector<std::pair<preempt::model::pod_id, std::uint32_t>> by_namespace;
  for (std::size_t n = 0; n < node_count; ++n) {
    const std::int64_t cpu = std::int64_t{4000} << draw(g, 0, 1);
    const auto node = c->nodes.add_node("node-" + std::to_string(n), {cpu, 64 * Gi, 110});
    const std::int64_t target = cpu * draw(g, 92, 100) / 100;
    std::int64_t used = 0;
    while (used < target) {
      std::int64_t size = sizes[draw(g, 0, 5)];
      if (used + size > cpu) size = std::max<std::int64_t>(cpu - used, 100);
      if (used + size > cpu) break;
      const std::int32_t priority = priorities[draw(g, 0, 5)];
      const bool recent = draw(g, 0, 4) == 0;
      const preempt::timestamp started =
          now - (recent ? draw(g, 0, 10) * minute : draw(g, 0, 120) * minute);
      const auto ns = static_cast<std::uint32_t>(draw(g, 0, 3));
      c->nodes.add_pod(node, pod({.uid = uid,
                                  .priority = priority,
                                  .requests = {size, size * Gi / 1000},
                                  .start_time = started,
                                  .namespace_id = ns}));
      c->facts.cost.push_back(draw(g, 1, 10));
      c->facts.pinned.push_back(draw(g, 0, 5) == 0 ? 1 : 0);
      by_namespace.emplace_back(uid, ns);
      ++uid;
      ++c->pods;
      used += size;
    }
  }
  // Budgets: per namespace, one per 20 pods or so, each over about two thirds of them.
  for (std::uint32_t ns = 0; ns < 4; ++ns) {
    std::vector<preempt::model::pod_id> members;
    for (const auto& [u, n] : by_namespace)
      if (n == ns) members.push_back(u);
    const std::size_t count = members.size() / 20 + 1;
    for (std::size_t b = 0; b < count; ++b) {
      const auto allowed = static_cast<std::int32_t>(draw(g, 0, 1));
      const std::size_t budget = c->budgets.add_budget(ns, allowed);
      for (std::size_t k = b; k < members.size(); k += count)
        if (draw(g, 0, 2) != 0) c->budgets.add_member(budget, members[k]);
    }
  }
  c->preemptor = pod({.uid = uid++,
                      .priority = preemptor_priority,
                      .requests = {draw(g, 2, 8) * 1000, draw(g, 1, 6) * Gi},
                      .start_time = {}});
  // A few higher-priority pods nominated to nodes (the two-pass fit respects them).
  const std::size_t nominated = node_count / 10 + 1;
  c->nominated.reserve(nominated);
  c->ledger = std::make_unique<preempt::nomination_ledger<pod>>(node_count);
  for (std::size_t k = 0; k < nominated; ++k) {
    c->nominated.emplace_back(preempt::model::pod_spec{
        .uid = uid++, .priority = 10000, .requests = {500, Gi / 2}, .start_time = {}});
    const auto node =
        static_cast<std::size_t>(draw(g, 0, static_cast<std::int64_t>(node_count) - 1));
    c->ledger->nominate(c->nominated.back(), node);
  }
  c->statuses = preempt::filter_statuses(node_count);
  auto state = c->nodes.make_state();
  for (std::size_t n = 0; n < node_count; ++n) {
    c->nodes.prepare_state(n, state);
    const bool fits =
        preempt::fits_with_nominated(state, c->preemptor, c->ledger->reader().nominated_to(n))
            .is_success();
    c->statuses.set(n, fits ? preempt::status_code::success : preempt::status_code::unschedulable);
  }
  return c;
}

// The policies compared, by name.
struct named_policy {
  const char* name;
  preempt::policy_options options;
};

inline std::vector<named_policy> compared_policies() {
  preempt::policy_options spare, cost, hard, runtime, all;
  spare.spare_reschedulable = true;
  cost.min_cost = true;
  hard.hard_budgets = true;
  runtime.min_runtime = 10 * minute;
  all = {.spare_reschedulable = true,
         .min_cost = true,
         .hard_budgets = true,
         .min_runtime = 10 * minute};
  return {{"spare-reschedulable", spare},
          {"min-cost", cost},
          {"hard-budgets", hard},
          {"min-runtime 10m", runtime},
          {"all four", all}};
}

}  // namespace bench::policies

#endif  // PREEMPT_BENCHMARKS_BENCH_POLICY_CLUSTERS_HPP
