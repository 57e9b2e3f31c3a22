// Compile-fail test: an observer hook whose parameters do not match what the evaluator passes
// (here the victims as a span of pods instead of a span of pointers to pods). The evaluator calls
// an optional hook only when the call is well-formed, so the mistake would silently disable the
// hook; a member of that name that cannot be called so is an error naming the expected
// signature. Without PREEMPT_COMPILE_FAIL the hook has the right signature.
#include <cstddef>
#include <cstdint>
#include <span>

#include "preempt/evaluator.hpp"
#include "support/tiny_cluster.hpp"

namespace {

using P = tiny::pod<>;

struct watcher {
  std::size_t seen = 0;
#if defined(PREEMPT_COMPILE_FAIL)
  void on_node_evaluated(std::size_t, const preempt::status&, std::span<const P>, std::int64_t){
#else
  void on_node_evaluated(std::size_t, const preempt::status&, std::span<const P* const>,
                         std::int64_t) {
#endif
      ++seen;
}
};  // namespace

}  // namespace

int compile_fail_observer_signature() {
  const P pods[] = {{1, 1, 0}};
  const tiny::node<> nodes[] = {{"n0", std::span<const P>(pods, 1), 1}};
  const tiny::cluster<> c{nodes};
  const P preemptor{9, 100, 0};
  preempt::evaluator<tiny::cluster<>, preempt::default_policy, watcher> ev;
  const auto& d = ev.evaluate(preemptor, c, tiny::all_unschedulable{}, preempt::no_budgets{},
                              preempt::no_nominations{}, preempt::inline_executor{});
  return static_cast<int>(d.kind) + static_cast<int>(ev.observer().seen);
}
