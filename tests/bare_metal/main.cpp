// tests/bare_metal/main.cpp - one preemption decision and one inline dispatch on a Cortex-M4
// without an operating system (newlib, no threads, no exceptions, no RTTI), checked against the
// answer the x86-64 tests check (tests/support/tiny_scenario.hpp). The exit status is main's, via
// semihosting: 0 when every value matches.
//
// SPDX-License-Identifier: Apache-2.0
#include <cstdio>

#include "support/tiny_scenario.hpp"

#if !defined(PREEMPT_NO_THREADS)
#error "the bare-metal build must select PREEMPT_NO_THREADS (newlib's libstdc++ has no threads)"
#endif

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
  const bool ok = tiny::scenario_ok(r);
  std::printf("%s\n", ok ? "bare-metal: same answer as on x86-64" : "bare-metal: WRONG ANSWER");
  return ok ? 0 : 1;
}
