// tests/support/fixtures.hpp - small clusters written the way the upstream test tables read.
//
// Priorities, resource sizes and start times follow the conventions of upstream's preemption
// tests (default_preemption_test.go): neg/low/mid/high/very_high, small/medium/large/very_large
// (cpu millicores and memory bytes), tK = K nanoseconds after the epoch. A `named_cluster`
// remembers pod and node names so tests can compare victims by name.
//
// Also: node-state wrappers that count the calls the algorithms make (`counting_state`; upstream's
// "filter calls" are fits calls) or make one of them fail (`failing_state`), and helpers that run
// select_victims on every node of a named_cluster and turn the results into candidates.
#ifndef PREEMPT_TESTS_SUPPORT_FIXTURES_HPP
#define PREEMPT_TESTS_SUPPORT_FIXTURES_HPP

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>

#include "preempt/preempt.hpp"
#include "support/pods.hpp"

namespace fx {

using pod = preempt::model::resource_pod;
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
  preempt::model::resource_cluster cluster;
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
    return make_pod(
        uid, priority,
        {.requests = std::move(req), .start_time = start, .namespace_id = namespace_id(ns)});
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

// ---- Node-state wrappers ----------------------------------------------------------------------

// Delegates to a node state and counts the calls; records the uids of the pods added and removed,
// in call order. Upstream's "filter calls" (TestDryRunPreemption) are the fit checks: fits calls
// plus, when the inner state offers the optional yes/no `can_fit`, can_fit calls (checks()).
template <class S, class Uid = pod_id>
struct counting_state {
  explicit counting_state(S& s) : inner(s) {}

  template <class P>
  preempt::status remove_pod(const P& p) {
    ++remove_calls;
    removed.push_back(p.uid());
    return inner.remove_pod(p);
  }
  template <class P>
  preempt::status add_pod(const P& p) {
    ++add_calls;
    added.push_back(p.uid());
    return inner.add_pod(p);
  }
  template <class P>
  preempt::status fits(const P& p) {
    ++fits_calls;
    return inner.fits(p);
  }
  template <class P>
    requires requires(S& s, const P& p) { s.can_fit(p); }
  bool can_fit(const P& p) {
    ++can_fit_calls;
    return inner.can_fit(p);
  }

  int checks() const noexcept { return fits_calls + can_fit_calls; }

  S& inner;
  int fits_calls = 0, can_fit_calls = 0, add_calls = 0, remove_calls = 0;
  std::vector<Uid> added, removed;
};

// Delegates to a node state, but the `fail_at`-th call (1-based) of operation `which` returns
// status::error(reason) without reaching the inner state (upstream: a PreFilter AddPod/RemovePod
// extension or a filter that errors).
enum class state_op { remove, add, fits };

template <class S>
struct failing_state {
  failing_state(S& s, state_op op, int at, std::string_view why)
      : inner(s), which(op), fail_at(at), reason(why) {}

  template <class P>
  preempt::status remove_pod(const P& p) {
    if (hit(state_op::remove)) return preempt::status::error(reason);
    return inner.remove_pod(p);
  }
  template <class P>
  preempt::status add_pod(const P& p) {
    if (hit(state_op::add)) return preempt::status::error(reason);
    return inner.add_pod(p);
  }
  template <class P>
  preempt::status fits(const P& p) {
    if (hit(state_op::fits)) return preempt::status::error(reason);
    return inner.fits(p);
  }

  S& inner;
  state_op which;
  int fail_at;
  std::string_view reason;
  int calls = 0;  // calls of `which` so far

 private:
  bool hit(state_op op) { return op == which && ++calls == fail_at; }
};

// ---- select_victims on every node ---------------------------------------------------------------

struct node_result {
  std::size_t node_index = 0;
  std::string node;
  preempt::status outcome;
  std::vector<std::string> victims;     // names, in the order select_victims returned them
  std::vector<const pod*> victim_pods;  // the same victims
  std::int64_t violations = 0;
  int fit_checks = 0;  // fit checks (fits + can_fit calls) on this node
};

// Runs select_victims on every node of the cluster with the resource model (a fresh state and a
// fresh budget copy per node, one shared scratch, as a dry run does), counting fit checks.
template <class Policy = preempt::default_policy>
std::vector<node_result> select_on_each_node(const named_cluster& c, const pod& preemptor,
                                             const Policy& policy = {}) {
  std::vector<node_result> out;
  preempt::victim_scratch<pod> scratch;
  preempt::model::resource_fit_state state;
  for (std::size_t i = 0; i < c.cluster.size(); ++i) {
    c.cluster.prepare_state(i, state);
    counting_state<preempt::model::resource_fit_state> counted(state);
    const auto r =
        preempt::select_victims(preemptor, c.cluster[i], counted, c.budgets, scratch, policy);
    out.push_back({i, std::string(c.cluster[i].name()), r.outcome, c.names(r.victims),
                   std::vector<const pod*>(r.victims.begin(), r.victims.end()), r.pdb_violations,
                   counted.checks()});
  }
  return out;
}

// The candidates among the results (success with at least one victim; upstream's dry run turns a
// success without victims into an error), in node order. They refer to `results`, which must
// outlive them and stay unchanged.
template <class P = pod, class Result>
std::vector<preempt::candidate<P>> candidates_of(const std::vector<Result>& results) {
  std::vector<preempt::candidate<P>> out;
  for (const Result& r : results)
    if (r.outcome.is_success() && !r.victim_pods.empty())
      out.push_back(
          {r.node_index, r.node, {r.victim_pods.data(), r.victim_pods.size()}, r.violations});
  return out;
}

// Candidate node name -> victim names, as upstream's TestCustomSelection compares them.
template <class Result>
std::map<std::string, std::vector<std::string>> victims_by_node(const std::vector<Result>& rs) {
  std::map<std::string, std::vector<std::string>> out;
  for (const Result& r : rs)
    if (r.outcome.is_success() && !r.victims.empty()) out[r.node] = r.victims;
  return out;
}

using name_list = std::vector<std::string>;

}  // namespace fx

// Readable failure messages for the lists the tests compare.
namespace doctest {
template <class T>
struct StringMaker<std::vector<T>> {
  static String convert(const std::vector<T>& v) {
    String out = "{";
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i != 0) out += ", ";
      out += toString(v[i]);
    }
    return out + "}";
  }
};
}  // namespace doctest

#endif  // PREEMPT_TESTS_SUPPORT_FIXTURES_HPP
