// tests/support/random_cluster.hpp - seeded random clusters for property tests.
//
// Seeds come from a fixed list plus PREEMPT_TEST_SEED from the environment, so a failure printed
// with its seed can be replayed.
#ifndef PREEMPT_TESTS_SUPPORT_RANDOM_CLUSTER_HPP
#define PREEMPT_TESTS_SUPPORT_RANDOM_CLUSTER_HPP

#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "preempt/preempt.hpp"
#include "reference/naive_preemption.hpp"

namespace rnd {

using pod = preempt::model::resource_pod;

// `count` seeds; a different `salt` gives a different list (for a second property in one file).
inline std::vector<std::uint64_t> seeds(std::size_t count, std::uint64_t salt = 0) {
  std::vector<std::uint64_t> out;
  if (const char* env = std::getenv("PREEMPT_TEST_SEED"))
    out.push_back(std::strtoull(env, nullptr, 10));
  for (std::uint64_t s = 1; out.size() < count; ++s)
    out.push_back((s + salt) * 0x9E3779B97F4A7C15ull);
  return out;
}

struct shape {
  std::size_t max_nodes = 8;
  std::size_t max_pods = 10;
  std::size_t max_budgets = 3;
  std::size_t max_nominated = 2;
};

struct world {
  preempt::model::resource_cluster cluster;
  preempt::model::budget_table budgets;
  // The same budgets as the generator made them, in the naive reference's form (its oracle does
  // not read the library's budget index).
  std::vector<naive_reference::budget> reference_budgets;
  std::vector<pod> nominated;  // not on any node
  pod preemptor{preempt::model::pod_spec{}};
  preempt::timestamp now = 1000;
};

inline std::int64_t pick(std::mt19937_64& g, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(g);
}

// Priorities come from a small set so that ties are common; some pods have no start time; some
// pods are in two namespaces; budgets allow 0..2 disruptions and may list disrupted pods.
inline world make_world(std::uint64_t seed, const shape& s = {}) {
  std::mt19937_64 g(seed);
  world w;
  const std::int32_t priorities[] = {-100, 0, 0, 100, 100, 1000};
  const auto priority = [&] { return priorities[pick(g, 0, 5)]; };
  preempt::model::pod_id uid = 1;
  const auto node_count =
      static_cast<std::size_t>(pick(g, 1, static_cast<std::int64_t>(s.max_nodes)));
  const auto budget_count =
      static_cast<std::size_t>(pick(g, 0, static_cast<std::int64_t>(s.max_budgets)));
  // One draw per statement: argument evaluation order is unspecified, and the same seed must build
  // the same cluster under every compiler.
  for (std::size_t b = 0; b < budget_count; ++b) {
    const auto ns = static_cast<std::uint32_t>(pick(g, 0, 1));
    const auto allowed = static_cast<std::int32_t>(pick(g, 0, 2));
    w.budgets.add_budget(ns, allowed);
    w.reference_budgets.push_back(
        {.namespace_id = ns, .allowed = allowed, .members = {}, .disrupted = {}});
  }
  for (std::size_t n = 0; n < node_count; ++n) {
    const auto i = w.cluster.add_node("node" + std::to_string(n + 1),
                                      {pick(g, 4, 12) * 100, pick(g, 4, 12) * 100, pick(g, 3, 12)});
    const auto pods = pick(g, 0, static_cast<std::int64_t>(s.max_pods));
    for (std::int64_t k = 0; k < pods; ++k) {
      std::optional<preempt::timestamp> start;
      if (pick(g, 0, 4) != 0) start = pick(g, 0, 5) * 100;
      pod p({.uid = uid++,
             .priority = priority(),
             .requests = {pick(g, 0, 4) * 100, pick(g, 0, 4) * 100},
             .start_time = start,
             .namespace_id = static_cast<std::uint32_t>(pick(g, 0, 1))});
      for (std::size_t b = 0; b < budget_count; ++b) {
        if (pick(g, 0, 2) == 0) {
          w.budgets.add_member(b, p.uid());
          w.reference_budgets[b].members.push_back(p.uid());  // uids ascend: sorted
        }
        if (pick(g, 0, 9) == 0) {
          w.budgets.add_disrupted(b, p.uid());
          w.reference_budgets[b].disrupted.push_back(p.uid());
        }
      }
      w.cluster.add_pod(i, std::move(p));
    }
  }
  const auto nominated = pick(g, 0, static_cast<std::int64_t>(s.max_nominated));
  for (std::int64_t k = 0; k < nominated; ++k)
    w.nominated.emplace_back(
        preempt::model::pod_spec{.uid = uid++,
                                 .priority = priority(),
                                 .requests = {pick(g, 0, 3) * 100, pick(g, 0, 3) * 100},
                                 .start_time = {}});
  w.preemptor = pod({.uid = uid++,
                     .priority = priorities[pick(g, 1, 5)],
                     .requests = {pick(g, 1, 6) * 100, pick(g, 1, 6) * 100},
                     .start_time = {}});
  return w;
}

}  // namespace rnd

#endif  // PREEMPT_TESTS_SUPPORT_RANDOM_CLUSTER_HPP
