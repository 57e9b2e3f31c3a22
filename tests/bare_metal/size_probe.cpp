// tests/bare_metal/size_probe.cpp - what the library costs in flash on a Cortex-M4: built three
// times by .ci/bare-metal with PREEMPT_SIZE_PROBE set to
//   0  nothing (the start-up code and newlib's exit path: the baseline),
//   1  victim selection and candidate choice (select_victims on each node, pick_best_candidate),
//   2  the whole inline path (evaluator, inline dispatcher, nomination ledger, in-flight table),
// and linked with --gc-sections; the text size above the baseline is the library's cost,
// including what it pulls from libstdc++ and newlib (operator new, malloc, string routines).
// The inputs are read through a volatile so that nothing is folded at compile time.
//
// SPDX-License-Identifier: Apache-2.0
#include <cstddef>

#if PREEMPT_SIZE_PROBE >= 1
#include "preempt/candidate_choice.hpp"
#include "preempt/victim_selection.hpp"
#endif
#if PREEMPT_SIZE_PROBE >= 2
#include "support/tiny_scenario.hpp"
#endif
#include "support/tiny_cluster.hpp"

volatile int preemptor_priority = 100;

int main() {
#if PREEMPT_SIZE_PROBE == 1
  using P = tiny::pod<>;
  static P pods[] = {{1, 10, 5}, {2, 20, 6}, {3, 5, 5}, {4, 50, 6}, {5, 200, 5}, {6, 1, 6}};
  const tiny::node<> nodes[] = {
      {"a", {pods, 2}, 2}, {"b", {pods + 2, 2}, 2}, {"c", {pods + 4, 2}, 2}};
  const tiny::cluster<> c{nodes};
  const P preemptor{100, preemptor_priority, 0};
  preempt::victim_scratch<P> scratch[3];
  preempt::candidate<P> cands[3];
  std::size_t count = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    tiny::state<> st;
    c.prepare_state(i, st);
    const auto r =
        preempt::select_victims(preemptor, nodes[i], st, preempt::no_budgets{}, scratch[i]);
    if (r.is_candidate()) cands[count++] = {i, nodes[i].name(), r.victims, r.pdb_violations};
  }
  const auto best =
      preempt::pick_best_candidate<P>(std::span<const preempt::candidate<P>>(cands, count));
  return cands[best.index].node_index == 2 ? 0 : 1;  // node "c", as in tiny_scenario.hpp
#elif PREEMPT_SIZE_PROBE == 2
  return tiny::scenario_ok(tiny::run_scenario()) && preemptor_priority == 100 ? 0 : 1;
#else
  return preemptor_priority == 100 ? 0 : 1;
#endif
}
