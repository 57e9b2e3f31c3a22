// tests/bare_metal/main.cpp - one preemption decision and one inline dispatch on a Cortex-M4
// without an operating system (newlib, no threads, no exceptions, no RTTI), checked against the
// answer the x86-64 tests check (tests/support/tiny_scenario.hpp). The exit status is main's, via
// semihosting: 0 when every value matches.
//
// SPDX-License-Identifier: Apache-2.0
#include <chrono>
#include <cstdio>
#include <type_traits>

#include "preempt/metrics.hpp"
#include "preempt/workload/group_metrics.hpp"
#include "support/tiny_scenario.hpp"

#if !defined(PREEMPT_NO_THREADS)
#error "the bare-metal build must select PREEMPT_NO_THREADS (newlib's libstdc++ has no threads)"
#endif

// The metrics' 64-bit counters are plain integers here: Cortex-M has no lock-free 64-bit atomics,
// and std::atomic<std::uint64_t> would need libatomic (.ci/bare-metal also checks that the program
// calls no __atomic_* function).
static_assert(!std::is_same_v<preempt::detail::metric_counter, std::atomic<std::uint64_t>>);

// Both metric sets count here as on x86-64.
static bool metrics_ok() {
  preempt::metrics m;
  m.record_attempt();
  m.record_victims(3);
  preempt::workload::workload_metrics w;
  w.record_attempt(preempt::status_code::success);
  w.record_victims(preempt::workload::unit_kind::pod_group, 3, 1, 2);
  w.record_execution(preempt::workload::unit_kind::pod_group, true, std::chrono::nanoseconds(5));
  return m.attempts() == 1 && w.attempts(preempt::status_code::success) == 1 &&
         w.actuations() == 1 && w.pdb_violations(preempt::workload::unit_kind::pod_group) == 2 &&
         w.executions(preempt::workload::unit_kind::pod_group, true) == 1;
}

int main() {
  const tiny::scenario_result r = tiny::run_scenario();
  std::printf("decision: kind %d, node %u, victim %u\n", r.kind,
              static_cast<unsigned>(r.node_index), static_cast<unsigned>(r.victim));
  std::printf("dispatch: %u eviction(s) of %u, nominated to %u, %u claim(s) left\n",
              static_cast<unsigned>(r.evictions), static_cast<unsigned>(r.evicted),
              static_cast<unsigned>(r.nominated_node), static_cast<unsigned>(r.claims_left));
  std::printf("seeded offsets: %u %u %u\n", static_cast<unsigned>(r.seeded_offsets[0]),
              static_cast<unsigned>(r.seeded_offsets[1]),
              static_cast<unsigned>(r.seeded_offsets[2]));
  const bool counted = metrics_ok();
  std::printf("metrics: %s\n", counted ? "counted" : "WRONG COUNTS");
  const bool ok = tiny::scenario_ok(r) && counted;
  std::printf("%s\n", ok ? "bare-metal: same answer as on x86-64" : "bare-metal: WRONG ANSWER");
  return ok ? 0 : 1;
}
