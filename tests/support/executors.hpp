// tests/support/executors.hpp - the executors a test runs the evaluator on, as doctest fixtures.
//
// Each fixture gives
//   X::name           for messages
//   X::parallelism    the evaluator parallelism to use with it (1 inline; 3 otherwise, more
//                     workers than the pool has threads)
//   X::chunk          the evaluator chunk to use with it (1: small batches, so that a dry run of a
//                     few nodes spans several batches and stops in the middle of one)
//   fx.executor()     a preempt executor
//   fx.finish()       runs whatever the executor still holds (manual: drains the context in the
//                     fixture's order; others: nothing)
// so that one test body runs over all of them:
//   TEST_CASE_TEMPLATE("...", X, PREEMPT_TEST_EXECUTORS) { ... }
//
// Lifetime: an evaluator's destructor waits until every helper task it queued has run, and a
// manual context runs nothing until drained. Declare the fixture AFTER the evaluators that use it
// (it is then destroyed first; its destructor drains), or call finish() before they die. A
// `with_executor<X, Evaluator>` bundles both in that order.
#ifndef PREEMPT_TESTS_SUPPORT_EXECUTORS_HPP
#define PREEMPT_TESTS_SUPPORT_EXECUTORS_HPP

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "preempt/evaluator.hpp"
#include "preempt/executor.hpp"
#include "preempt/manual_executor.hpp"
#include "preempt/sampling.hpp"
#include "preempt/thread_pool.hpp"

namespace exf {

using order = preempt::manual_context::order;

constexpr std::string_view to_string(order o) noexcept {
  switch (o) {
    case order::fifo: return "fifo";
    case order::lifo: return "lifo";
    case order::shuffled: return "shuffled";
  }
  return "?";
}

// Runs every task on the calling thread, before execute returns.
struct inline_fixture {
  static constexpr std::string_view name = "inline";
  static constexpr std::size_t parallelism = 1;
  static constexpr std::size_t chunk = 1;

  preempt::inline_executor executor() const noexcept { return {}; }
  std::size_t finish() noexcept { return 0; }
};

// Queues every task in a manual context; nothing runs until finish() drains it in order O (the
// evaluating thread then does all the work itself, and the helpers run late, after the decision).
template <order O>
struct basic_manual_fixture {
  static constexpr std::string_view name = O == order::fifo   ? "manual-fifo"
                                           : O == order::lifo ? "manual-lifo"
                                                              : "manual-shuffled";
  static constexpr std::size_t parallelism = 3;
  static constexpr std::size_t chunk = 1;

  basic_manual_fixture() { ctx.seed(0xC0FFEE); }
  basic_manual_fixture(const basic_manual_fixture&) = delete;
  basic_manual_fixture& operator=(const basic_manual_fixture&) = delete;
  ~basic_manual_fixture() { finish(); }

  preempt::manual_executor executor() noexcept { return ctx.get_executor(); }
  // Drains in the fixture's order; returns how many tasks ran.
  std::size_t finish() { return ctx.drain(O); }
  std::size_t finish(order how) { return ctx.drain(how); }

  preempt::manual_context ctx;
};

using manual_fixture = basic_manual_fixture<order::fifo>;
using manual_lifo_fixture = basic_manual_fixture<order::lifo>;
using manual_shuffled_fixture = basic_manual_fixture<order::shuffled>;

// A thread pool with 2 threads, given 3 workers' worth of work: the evaluating thread and the
// helpers race for the items.
struct pool_fixture {
  static constexpr std::string_view name = "pool";
  static constexpr std::size_t parallelism = 3;
  static constexpr std::size_t chunk = 1;

  preempt::pool_executor executor() noexcept { return pool.get_executor(); }
  std::size_t finish() noexcept { return 0; }

  preempt::thread_pool pool{2};
};

// The evaluator configuration for fixture X.
template <class X>
preempt::evaluator_config config(preempt::sampling_args sampling = {}) {
  preempt::evaluator_config cfg;
  cfg.sampling = sampling;
  cfg.parallelism = X::parallelism;
  cfg.min_parallel_nodes = 0;           // the helpers take any dry run
  cfg.workers_within_hardware = false;  // every worker, whatever the machine
  cfg.chunk = X::chunk;
  return cfg;
}

// An evaluator and the fixture it runs on, destroyed in a safe order (fixture first).
template <class X, class Evaluator>
struct with_executor {
  template <class... Args>
  explicit with_executor(preempt::sampling_args sampling = {}, Args&&... args)
      : ev(config<X>(sampling), std::forward<Args>(args)...) {}

  // evaluate(...) on the fixture's executor.
  template <class Pod, class Cluster, class Statuses, class Budgets, class Nominations,
            class Extenders = preempt::no_extenders>
  const auto& evaluate(const Pod& preemptor, const Cluster& cluster, const Statuses& statuses,
                       const Budgets& budgets, const Nominations& nominations,
                       const preempt::attempt& a = {}, Extenders&& extenders = {}) {
    return ev.evaluate(preemptor, cluster, statuses, budgets, nominations, fx.executor(), a,
                       std::forward<Extenders>(extenders));
  }

  Evaluator ev;
  X fx;  // after ev: destroyed first
};

}  // namespace exf

// All executor fixtures, for TEST_CASE_TEMPLATE.
#define PREEMPT_TEST_EXECUTORS                                        \
  exf::inline_fixture, exf::manual_fixture, exf::manual_lifo_fixture, \
      exf::manual_shuffled_fixture, exf::pool_fixture

#endif  // PREEMPT_TESTS_SUPPORT_EXECUTORS_HPP
