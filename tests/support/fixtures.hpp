// tests/support/fixtures.hpp - small clusters written the way the upstream test tables read.
//
// Priorities, resource sizes and start times follow the conventions of the behavioural spec
// (section 7): neg/low/mid/high/very_high, small/medium/large/very_large (cpu millicores and memory
// bytes), tK = K nanoseconds after the epoch. A `named_cluster` remembers pod and node names so
// tests can compare victims by name.
#ifndef PREEMPT_TESTS_SUPPORT_FIXTURES_HPP
#define PREEMPT_TESTS_SUPPORT_FIXTURES_HPP

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"

namespace fx {

using preempt::model::pod;
using preempt::model::pod_id;
using preempt::model::resource_vector;

inline constexpr std::int32_t neg = -100, low = 0, mid = 100, high = 1000, very_high = 10000;

inline resource_vector res(std::int64_t cpu, std::int64_t mem) { return {cpu, mem}; }
inline resource_vector small() { return res(100, 100); }
inline resource_vector medium() { return res(200, 200); }
inline resource_vector large() { return res(300, 300); }
inline resource_vector very_large() { return res(500, 500); }
// Node capacities: cpu, memory, pod slots.
inline resource_vector capacity(std::int64_t cpu, std::int64_t mem, std::int64_t pods = 32) {
  return {cpu, mem, pods};
}
inline resource_vector very_large_node() { return capacity(500, 500); }
inline resource_vector one_pod_node() { return capacity(500, 500, 1); }
inline resource_vector node_res() { return capacity(200, 400); }

struct named_cluster {
  preempt::model::cluster cluster;
  preempt::model::budget_table budgets;
  std::map<pod_id, std::string> pod_names;
  std::map<std::string, pod_id> pod_ids;
  std::map<std::string, std::uint32_t> namespaces{{"default", 0}};
  pod_id next_uid = 1;

  std::size_t node(std::string name, resource_vector alloc = very_large_node()) {
    return cluster.add_node(std::move(name), std::move(alloc));
  }

  pod make(const std::string& name, std::int32_t priority, resource_vector req,
           std::optional<preempt::timestamp> start = 0, const std::string& ns = "default") {
    const pod_id uid = next_uid++;
    pod_names[uid] = name;
    pod_ids[name] = uid;
    return pod({.uid = uid,
                .priority = priority,
                .requests = std::move(req),
                .start_time = start,
                .namespace_id = namespace_id(ns)});
  }

  void add(std::size_t node_index, const std::string& name, std::int32_t priority,
           resource_vector req, std::optional<preempt::timestamp> start = 0,
           const std::string& ns = "default") {
    cluster.add_pod(node_index, make(name, priority, std::move(req), start, ns));
  }

  std::uint32_t namespace_id(const std::string& ns) {
    auto [it, inserted] = namespaces.emplace(ns, static_cast<std::uint32_t>(namespaces.size()));
    return it->second;
  }

  // A budget over the named pods (its selector, evaluated by the test).
  std::size_t budget(std::int32_t allowed, const std::vector<std::string>& members,
                     const std::vector<std::string>& disrupted = {},
                     const std::string& ns = "default") {
    const std::size_t b = budgets.add_budget(namespace_id(ns), allowed);
    for (const auto& m : members) budgets.add_member(b, pod_ids.at(m));
    for (const auto& d : disrupted) {
      // disruptedPods may name pods that do not exist.
      const auto it = pod_ids.find(d);
      budgets.add_disrupted(b, it != pod_ids.end() ? it->second : next_uid++);
    }
    return b;
  }

  std::vector<std::string> names(std::span<const pod* const> pods) const {
    std::vector<std::string> out;
    for (const pod* p : pods) out.push_back(pod_names.at(p->uid()));
    return out;
  }
};

}  // namespace fx

#endif  // PREEMPT_TESTS_SUPPORT_FIXTURES_HPP
