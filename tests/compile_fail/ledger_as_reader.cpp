// Compile-fail test: a nomination_ledger passed to evaluate where its reader is expected. The
// ledger does not model nominations_of (its unlocked view is nominated_to_unlocked), and the
// evaluator says what to pass instead; without PREEMPT_COMPILE_FAIL the same file passes
// ledger.reader() and must compile (tests/CMakeLists.txt builds both and expects the error to say
// "pass the nomination ledger's reader()").
#include <span>

#include "preempt/evaluator.hpp"
#include "preempt/nomination_ledger.hpp"
#include "support/tiny_cluster.hpp"

static_assert(!preempt::nominations_of<preempt::nomination_ledger<tiny::pod<>>, tiny::pod<>>);
static_assert(
    preempt::nominations_of<preempt::nomination_ledger<tiny::pod<>>::reader_view, tiny::pod<>>);

int compile_fail_ledger_as_reader() {
  using P = tiny::pod<>;
  const P pods[] = {{1, 1, 0}};
  const tiny::node<> nodes[] = {{"n0", std::span<const P>(pods, 1), 1}};
  const tiny::cluster<> c{nodes};
  const P preemptor{9, 100, 0};
  preempt::nomination_ledger<P> ledger(1);
  preempt::evaluator<tiny::cluster<>> ev;
#if defined(PREEMPT_COMPILE_FAIL)
  const auto& d = ev.evaluate(preemptor, c, tiny::all_unschedulable{}, preempt::no_budgets{},
                              ledger, preempt::inline_executor{});
#else
  const auto& d = ev.evaluate(preemptor, c, tiny::all_unschedulable{}, preempt::no_budgets{},
                              ledger.reader(), preempt::inline_executor{});
#endif
  return static_cast<int>(d.kind);
}
