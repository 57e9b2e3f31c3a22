// Compile-fail test: a decision copied out of the evaluator. The decision is a view into the
// evaluator's buffers, which its next evaluate call reuses or frees, so it is not copyable:
// `auto d = ev.evaluate(...)` must not compile (it was a use after free once the next evaluation
// grew the buffers). Without PREEMPT_COMPILE_FAIL the same file binds it by reference and must
// compile; with it, the error shows the deleted copy constructor and its hint.
#include <span>

#include "preempt/evaluator.hpp"
#include "support/tiny_cluster.hpp"

static_assert(!std::is_copy_constructible_v<preempt::decision<tiny::pod<>>>);
static_assert(!std::is_copy_assignable_v<preempt::decision<tiny::pod<>>>);

int compile_fail_decision_copy() {
  using P = tiny::pod<>;
  const P pods[] = {{1, 1, 0}};
  const tiny::node<> nodes[] = {{"n0", std::span<const P>(pods, 1), 1}};
  const tiny::cluster<> c{nodes};
  const P preemptor{9, 100, 0};
  preempt::evaluator<tiny::cluster<>> ev;
#if defined(PREEMPT_COMPILE_FAIL)
  auto d = ev.evaluate(preemptor, c, tiny::all_unschedulable{}, preempt::no_budgets{},
                       preempt::no_nominations{}, preempt::inline_executor{});
#else
  const auto& d = ev.evaluate(preemptor, c, tiny::all_unschedulable{}, preempt::no_budgets{},
                              preempt::no_nominations{}, preempt::inline_executor{});
#endif
  return static_cast<int>(d.kind);
}
