// tests/support/tiny_scenario.hpp - one preemption decision and one inline dispatch on a tiny
// cluster, with the answer every build must give: x86-64 (tests/embedding.test.cpp) and the
// bare-metal Cortex-M4 program (tests/bare_metal/main.cpp) run it and compare with the same
// expected values, so a target whose integer types or standard library differ cannot drift.
//
// Three nodes, two pods each, full; the preemptor (priority 100) needs one slot. Node "a" would
// lose its priority-10 pod, node "b" its priority-5 pod, node "c" its priority-1 pod (its
// priority-200 pod cannot be preempted): the lowest most-important victim wins, node "c".
#ifndef PREEMPT_TESTS_SUPPORT_TINY_SCENARIO_HPP
#define PREEMPT_TESTS_SUPPORT_TINY_SCENARIO_HPP

#include <cstddef>
#include <cstdint>

#include "preempt/dispatcher.hpp"
#include "preempt/evaluator.hpp"
#include "preempt/in_flight.hpp"
#include "preempt/nomination_ledger.hpp"
#include "support/tiny_cluster.hpp"

namespace tiny {

struct scenario_result {
  int kind = -1;                       // preempt::decision_kind
  std::size_t node_index = 99;         // the nominated node
  std::uint32_t victim = 0;            // the one victim's uid
  std::size_t evictions = 0;           // performed by the dispatch
  std::uint32_t evicted = 0;           // the uid the eviction client saw
  std::size_t nominated_node = 99;     // the ledger's nomination of the preemptor afterwards
  std::size_t claims_left = 99;        // in-flight victim claims after the inline dispatch
  std::size_t seeded_offsets[3] = {};  // offset_sequence(42).next(1000), three times
};

inline constexpr int expected_kind = static_cast<int>(preempt::decision_kind::nominated);
inline constexpr std::size_t expected_node = 2;
inline constexpr std::uint32_t expected_victim = 6;
inline constexpr std::size_t expected_seeded_offsets[3] = {413, 291, 858};

inline scenario_result run_scenario() {
  using P = pod<>;
  static const P a_pods[] = {{1, 10, 5}, {2, 20, 6}};
  static const P b_pods[] = {{3, 5, 5}, {4, 50, 6}};
  static const P c_pods[] = {{5, 200, 5}, {6, 1, 6}};
  static const node<> nodes[] = {{"a", a_pods, 2}, {"b", b_pods, 2}, {"c", c_pods, 2}};
  const cluster<> c{nodes};
  const P preemptor{100, 100, 0};

  scenario_result out;
  preempt::evaluator<cluster<>> ev;
  const auto& d = ev.evaluate(preemptor, c, all_unschedulable{}, preempt::no_budgets{},
                              preempt::no_nominations{}, preempt::inline_executor{},
                              preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
  out.kind = static_cast<int>(d.kind);
  out.node_index = d.node_index;
  if (d.victims.size() == 1) out.victim = d.victims[0]->uid();

  preempt::nomination_ledger<P, preempt::null_mutex> ledger(c.size());
  preempt::in_flight_table<P> table;
  recording_client<> client;
  preempt::dispatcher<P, preempt::inline_executor, recording_client<>, preempt::no_dispatch_hooks,
                      preempt::null_mutex>
      dispatch(ledger, table, client, preempt::inline_executor{});
  const preempt::dispatch_result r = dispatch.apply(preemptor, d);
  out.evictions = r.evictions;
  out.evicted = client.count == 1 ? client.evicted[0] : 0;
  if (const auto n = ledger.node_of(preemptor.uid())) out.nominated_node = *n;
  out.claims_left = table.victims_in_flight();

  preempt::offset_sequence offsets(42);
  for (std::size_t& o : out.seeded_offsets) o = offsets.next(1000);
  return out;
}

// Whether a result is the expected one.
inline bool scenario_ok(const scenario_result& r) {
  return r.kind == expected_kind && r.node_index == expected_node && r.victim == expected_victim &&
         r.evictions == 1 && r.evicted == expected_victim && r.nominated_node == expected_node &&
         r.claims_left == 0 && r.seeded_offsets[0] == expected_seeded_offsets[0] &&
         r.seeded_offsets[1] == expected_seeded_offsets[1] &&
         r.seeded_offsets[2] == expected_seeded_offsets[2];
}

}  // namespace tiny

#endif  // PREEMPT_TESTS_SUPPORT_TINY_SCENARIO_HPP
