// preempt/execution.hpp against a P2300-shaped scheduler of our own (tests/support/
// p2300_scheduler.hpp) and against stdexec's run_loop, static_thread_pool and inline_scheduler:
//   - scheduler_executor runs every task once, also when the scheduler completes with set_stopped
//     (shut down), and, once its slots cover the tasks in flight, allocates nothing per task;
//   - an inline scheduler is the always-inline path;
//   - the dispatcher runs on a scheduler: async dispatch, the gate, and when_idle, its completion
//     as a sender (set_value when idle, set_stopped when the receiver's stop token is requested).
// Its own executable: it counts allocations (support/counting_new.hpp) and is built with a sender
// library only (tests/CMakeLists.txt finds stdexec: ../shared/third_party/stdexec or
// PREEMPT_STDEXEC_INCLUDE_DIR); without one it says so and is skipped (exit 77).
#include <cstdio>

#include "preempt/execution.hpp"

#if !PREEMPT_HAS_EXECUTION
int main() {
  std::printf(
      "execution: SKIPPED: no sender library (std::execution, or stdexec on the include path: "
      "configure with -DPREEMPT_STDEXEC_INCLUDE_DIR=<stdexec>/include)\n");
  return 77;
}
#else

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include <exec/static_thread_pool.hpp>

#include "preempt/dispatcher.hpp"
#include "preempt/in_flight.hpp"
#include "preempt/nomination_ledger.hpp"
#include "support/counting_new.hpp"
#include "support/p2300_scheduler.hpp"
#include "support/pods.hpp"

namespace {

namespace ex = PREEMPT_EXECUTION_NAMESPACE;
using pod = preempt::model::resource_pod;
using own = p2300_test::queue_context;

struct counter {
  std::atomic<int> runs{0};
  void run() noexcept { runs.fetch_add(1); }
};

struct quick_client {
  std::atomic<int> calls{0};
  preempt::eviction_result evict(const pod&, const pod&) {
    calls.fetch_add(1);
    return preempt::eviction_result::evicted();
  }
};

struct wake {
  std::atomic<int>* reactivated;
  void reactivate(const pod&) const noexcept { reactivated->fetch_add(1); }
};

static_assert(preempt::executor<preempt::scheduler_executor<own::scheduler>>);
static_assert(!preempt::is_always_inline_v<preempt::scheduler_executor<own::scheduler>>);
static_assert(preempt::is_always_inline_v<preempt::scheduler_executor<ex::inline_scheduler>>);

// A receiver whose environment carries a stop token of the test's.
struct stop_env {
  ex::inplace_stop_token token;
  ex::inplace_stop_token query(ex::get_stop_token_t) const noexcept { return token; }
};
struct probe_receiver {
  using receiver_concept = ex::receiver_t;
  int* value;
  int* stopped;
  ex::inplace_stop_token token;
  void set_value() && noexcept { ++*value; }
  void set_stopped() && noexcept { ++*stopped; }
  template <class E>
  void set_error(E&&) && noexcept {}
  stop_env get_env() const noexcept { return {token}; }
};

}  // namespace

TEST_CASE("scheduler_executor: each task runs once, on the scheduler, also when it stops") {
  own ctx;
  const preempt::scheduler_executor<own::scheduler> x(ctx.get_scheduler());
  counter a, b, c;
  x.execute(preempt::task_ref::to_member_run(a));
  x.execute(preempt::task_ref::to_member_run(b));
  CHECK(a.runs == 0);  // queued on the scheduler
  CHECK(ctx.run_all() == 2);
  CHECK(a.runs == 1);
  CHECK(b.runs == 1);
  // Shut down: the operation completes with set_stopped, and the task still runs (once).
  x.execute(preempt::task_ref::to_member_run(c));
  CHECK(ctx.shut_down() == 1);
  CHECK(c.runs == 1);
}

TEST_CASE("scheduler_executor: no heap allocation per task once its slots cover the tasks") {
  own ctx;
  const preempt::scheduler_executor<own::scheduler> x(ctx.get_scheduler());
  x.reserve(64);
  std::vector<counter> tasks(64);
  const auto burst = [&] {
    for (counter& t : tasks) x.execute(preempt::task_ref::to_member_run(t));
    ctx.run_all();
  };
  burst();  // the scheduler's own queue grows once
  const std::size_t before = counting::count();
  for (int i = 0; i < 20; ++i) burst();
  CHECK(counting::count() - before == 0);
  CHECK(tasks[0].runs == 21);
}

TEST_CASE("scheduler_executor: an inline scheduler is the always-inline path") {
  const preempt::scheduler_executor<ex::inline_scheduler> x(ex::inline_scheduler{});
  counter a;
  const std::size_t before = counting::count();
  x.execute(preempt::task_ref::to_member_run(a));
  CHECK(a.runs == 1);
  CHECK(counting::count() - before == 0);
}

TEST_CASE("dispatcher on our scheduler: async dispatch, the gate, and when_idle as a sender") {
  own ctx;
  preempt::nomination_ledger<pod> ledger(1);
  preempt::in_flight_table<pod> table;
  quick_client client;
  std::atomic<int> reactivated{0};
  using executor = preempt::scheduler_executor<own::scheduler>;
  preempt::dispatcher<pod, executor, quick_client, wake> d(
      ledger, table, client, executor(ctx.get_scheduler()), wake{&reactivated});
  const pod victim = fx::make_pod(1, 0), other = fx::make_pod(2, 0);
  const pod preemptor = fx::make_pod(3, 100);
  const pod* const victims[] = {&victim, &other};
  REQUIRE(d.preempt_on(preemptor, 0, victims).started);
  CHECK(d.is_preemption_running(preemptor.uid()));

  // when_idle: not yet; the scheduler runs on another thread; then it completes with set_value.
  int value = 0, stopped = 0;
  ex::inplace_stop_source never;
  auto op = ex::connect(preempt::when_idle(d), probe_receiver{&value, &stopped, never.get_token()});
  ex::start(op);
  CHECK(value == 0);
  std::thread runner([&] {
    while (d.jobs_running() > 0) ctx.run_all();
  });
  runner.join();
  CHECK(value == 1);
  CHECK(stopped == 0);
  CHECK(client.calls == 2);
  CHECK(reactivated == 0);  // the last victim's deletion was accepted: its event will wake it
  // Idle already: completes at once.
  auto idle_now =
      ex::connect(preempt::when_idle(d), probe_receiver{&value, &stopped, never.get_token()});
  ex::start(idle_now);
  CHECK(value == 2);
}

TEST_CASE("when_idle: a stop request completes it with set_stopped, the work goes on") {
  own ctx;
  preempt::nomination_ledger<pod> ledger(1);
  preempt::in_flight_table<pod> table;
  quick_client client;
  std::atomic<int> reactivated{0};
  using executor = preempt::scheduler_executor<own::scheduler>;
  preempt::dispatcher<pod, executor, quick_client, wake> d(
      ledger, table, client, executor(ctx.get_scheduler()), wake{&reactivated});
  const pod victim = fx::make_pod(1, 0);
  const pod preemptor = fx::make_pod(3, 100);
  const pod* const victims[] = {&victim};
  REQUIRE(d.preempt_on(preemptor, 0, victims).started);
  int value = 0, stopped = 0;
  ex::inplace_stop_source stop;
  auto op = ex::connect(preempt::when_idle(d), probe_receiver{&value, &stopped, stop.get_token()});
  ex::start(op);
  std::thread stopper([&] { stop.request_stop(); });
  stopper.join();
  CHECK(stopped == 1);
  CHECK(value == 0);
  ctx.run_all();  // the dispatcher's work was not stopped
  CHECK(d.jobs_running() == 0);
  CHECK(value == 0);  // and the operation completed only once
  // A token stopped before start: stopped at once.
  int v2 = 0, s2 = 0;
  REQUIRE(d.preempt_on(fx::make_pod(4, 100), 0, victims).started == false);  // v is accepted
  auto early = ex::connect(preempt::when_idle(d), probe_receiver{&v2, &s2, stop.get_token()});
  ex::start(early);
  CHECK(v2 + s2 == 1);
}

TEST_CASE("stdexec: run_loop, static_thread_pool and sync_wait(when_idle)") {
  // run_loop: the tasks run when the loop runs.
  ex::run_loop loop;
  const preempt::scheduler_executor<decltype(loop.get_scheduler())> on_loop(loop.get_scheduler());
  counter a;
  on_loop.execute(preempt::task_ref::to_member_run(a));
  loop.finish();
  loop.run();
  CHECK(a.runs == 1);

  // A thread pool: a dispatcher on it; sync_wait on its completion.
  exec::static_thread_pool pool(2);
  using executor = preempt::scheduler_executor<decltype(pool.get_scheduler())>;
  preempt::nomination_ledger<pod> ledger(1);
  preempt::in_flight_table<pod> table;
  quick_client client;
  std::atomic<int> reactivated{0};
  {
    preempt::dispatcher<pod, executor, quick_client, wake> d(
        ledger, table, client, executor(pool.get_scheduler()), wake{&reactivated});
    std::vector<pod> victims;
    for (preempt::model::pod_id i = 0; i < 8; ++i) victims.push_back(fx::make_pod(10 + i, 0));
    std::vector<const pod*> pointers;
    for (const pod& v : victims) pointers.push_back(&v);
    const pod preemptor = fx::make_pod(1, 100);
    REQUIRE(d.preempt_on(preemptor, 0, pointers).started);
    ex::sync_wait(preempt::when_idle(d));
    CHECK(d.jobs_running() == 0);
    CHECK(client.calls == 8);
    CHECK_FALSE(d.is_preemption_running(preemptor.uid()));
  }
}

#endif  // PREEMPT_HAS_EXECUTION
