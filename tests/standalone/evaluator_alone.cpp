// The single-pod evaluator compiles no pod-group code: a program that includes
// preempt/evaluator.hpp (and the dispatcher, ledger and in-flight table of
// tests/support/tiny_scenario.hpp) sees none of the headers under preempt/workload/, and still
// gives that scenario's answer. The pod groups come in through preempt/workload/unit_grouping.hpp,
// the victim grouping it supplies (preempt/victim_grouping.hpp). Its own executable: preempt_tests
// may be built with preempt.hpp precompiled (PREEMPT_TEST_PCH).
#include "preempt/evaluator.hpp"
#include "support/tiny_scenario.hpp"

// The include guards of every header under include/preempt/workload/.
#if defined(PREEMPT_WORKLOAD_BUILD_VICTIM_UNITS_HPP) ||                                         \
    defined(PREEMPT_WORKLOAD_GROUP_DECISION_HPP) ||                                             \
    defined(PREEMPT_WORKLOAD_GROUP_DISPATCH_HPP) ||                                             \
    defined(PREEMPT_WORKLOAD_GROUP_EVALUATOR_HPP) ||                                            \
    defined(PREEMPT_WORKLOAD_GROUP_METRICS_HPP) ||                                              \
    defined(PREEMPT_WORKLOAD_GROUP_PREEMPTOR_HPP) || defined(PREEMPT_WORKLOAD_GROUP_SET_HPP) || \
    defined(PREEMPT_WORKLOAD_PLACEMENT_HPP) || defined(PREEMPT_WORKLOAD_UNIT_BUDGETS_HPP) ||    \
    defined(PREEMPT_WORKLOAD_UNIT_ELIGIBILITY_HPP) ||                                           \
    defined(PREEMPT_WORKLOAD_UNIT_GROUPING_HPP) ||                                              \
    defined(PREEMPT_WORKLOAD_UNIT_VICTIM_SELECTION_HPP) ||                                      \
    defined(PREEMPT_WORKLOAD_VICTIM_UNIT_HPP) || defined(PREEMPT_WORKLOAD_VICTIM_UNITS_HPP)
#error "preempt/evaluator.hpp includes a pod-group header (preempt/workload/)"
#endif

#include <cstdio>

// Without a header that supplies a grouping, no type is taken as pod groups.
struct not_groups {};
static_assert(!preempt::victim_groups<not_groups, tiny::pod<>>);
static_assert(preempt::victim_grouping<preempt::no_victim_grouping, tiny::pod<>>);

int main() {
  const bool ok = tiny::scenario_ok(tiny::run_scenario());
  std::printf("evaluator.hpp alone: %s\n", ok ? "the expected decision" : "WRONG decision");
  return ok ? 0 : 1;
}
