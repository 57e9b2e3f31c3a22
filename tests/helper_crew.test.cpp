// detail::helper_crew (preempt/detail/helper_crew.hpp): the helpers an evaluator lends to an
// executor for a parallel dry run. Every item runs exactly once; the calling thread never waits for
// a helper that has not started (a manual queue drained later, an executor that refuses); a helper
// still queued is not queued twice; helpers on a pool really work beside the caller; the
// destructor waits for queued helpers.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "preempt/detail/helper_crew.hpp"
#include "preempt/executor.hpp"
#include "preempt/manual_executor.hpp"
#include "preempt/thread_pool.hpp"

namespace helper_crew_test {

namespace {

using preempt::detail::crew_job;
using preempt::detail::helper_crew;

constexpr std::size_t nobody = static_cast<std::size_t>(-1);

// A job that records, per item, how often it ran and on which worker.
struct recorded_job {
  explicit recorded_job(std::size_t items) : runs(items), worker(items) {
    for (auto& w : worker) w.store(nobody);
    job.count = items;
    job.context = this;
    job.process = [](crew_job& j, std::size_t item, std::size_t w) noexcept {
      auto& self = *static_cast<recorded_job*>(j.context);
      self.runs[item].fetch_add(1);
      self.worker[item].store(w);
      if (self.during) self.during(item);
    };
  }

  std::size_t ran_by(std::size_t w) const {
    std::size_t n = 0;
    for (const auto& x : worker)
      if (x.load() == w) ++n;
    return n;
  }
  bool each_ran_once() const {
    for (const auto& r : runs)
      if (r.load() != 1) return false;
    return true;
  }

  crew_job job;
  std::vector<std::atomic<int>> runs;
  std::vector<std::atomic<std::size_t>> worker;
  void (*during)(std::size_t) = nullptr;
};

}  // namespace

TEST_CASE("helper_crew: with helpers that have not run, the caller does every item itself") {
  preempt::manual_context ctx;
  helper_crew crew(4);
  recorded_job r(10);
  crew.run(r.job, ctx.get_executor());
  CHECK(r.each_ran_once());
  CHECK(r.ran_by(0) == 10);
  CHECK(ctx.pending() == 3);  // helpers 1..3 were lent
  // Run late, the helpers find no job and touch no item.
  CHECK(ctx.drain() == 3);
  CHECK(r.each_ran_once());
}

TEST_CASE("helper_crew: a helper still queued is not lent again") {
  preempt::manual_context ctx;
  helper_crew crew(3);
  recorded_job first(5), second(5);
  crew.run(first.job, ctx.get_executor());
  CHECK(ctx.pending() == 2);
  crew.run(second.job, ctx.get_executor());
  CHECK(ctx.pending() == 2);
  CHECK(second.each_ran_once());
  CHECK(ctx.drain() == 2);
  // Free again: the next run lends them again.
  recorded_job third(5);
  crew.run(third.job, ctx.get_executor());
  CHECK(ctx.pending() == 2);
  ctx.drain();
}

TEST_CASE("helper_crew: no more helpers than items, none for an empty job") {
  preempt::manual_context ctx;
  helper_crew crew(4);
  recorded_job two(2);
  crew.run(two.job, ctx.get_executor());
  CHECK(two.each_ran_once());
  CHECK(ctx.pending() == 1);
  ctx.drain();
  recorded_job none(0);
  crew.run(none.job, ctx.get_executor());
  CHECK(ctx.pending() == 0);
}

TEST_CASE("helper_crew: one worker runs everything inline") {
  helper_crew crew(1);
  recorded_job r(7);
  crew.run(r.job, preempt::inline_executor{});
  CHECK(r.each_ran_once());
  CHECK(r.ran_by(0) == 7);
}

namespace {
// Items that wait until all three have started: they finish only if three workers run at once.
std::atomic<int> started{0};
void wait_for_three(std::size_t) {
  started.fetch_add(1);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (started.load() < 3 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::yield();
}
}  // namespace

TEST_CASE("helper_crew: helpers on a pool work beside the calling thread") {
  preempt::thread_pool pool(2);
  helper_crew crew(3);
  recorded_job r(3);
  started = 0;
  r.during = wait_for_three;
  crew.run(r.job, pool.get_executor());
  CHECK(r.each_ran_once());
  CHECK(started.load() == 3);
  CHECK(r.ran_by(0) == 1);
  CHECK(r.ran_by(1) == 1);
  CHECK(r.ran_by(2) == 1);
}

#if PREEMPT_HAS_EXCEPTIONS
namespace {
struct refusing_executor {
  std::shared_ptr<int> calls = std::make_shared<int>(0);
  void execute(preempt::task_ref) const {
    ++*calls;
    throw std::runtime_error("queue full");
  }
};
}  // namespace

TEST_CASE("helper_crew: an executor that refuses the helpers leaves the work to the caller") {
  helper_crew crew(3);
  refusing_executor ex;
  recorded_job r(6);
  crew.run(r.job, ex);
  CHECK(r.each_ran_once());
  CHECK(r.ran_by(0) == 6);
  CHECK(*ex.calls == 2);
  // The refused helpers were released: the next run offers them again.
  recorded_job again(6);
  crew.run(again.job, ex);
  CHECK(again.each_ran_once());
  CHECK(*ex.calls == 4);
}
#endif

TEST_CASE("helper_crew: the destructor waits until every queued helper has run") {
  preempt::manual_context ctx;
  auto crew = std::make_unique<helper_crew>(3);
  recorded_job r(4);
  crew->run(r.job, ctx.get_executor());
  REQUIRE(ctx.pending() == 2);
  std::atomic<bool> destroyed{false};
  std::thread destroyer([&] {
    crew.reset();
    destroyed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(destroyed.load());  // still waiting for the two queued helpers
  CHECK(ctx.drain() == 2);        // they run against a live crew
  destroyer.join();
  CHECK(destroyed.load());
}

TEST_CASE(
    "helper_crew: items claimed several at a time still run once each, the last claim short") {
  preempt::thread_pool pool(2);
  helper_crew crew(3);
  for (const std::size_t grain :
       {std::size_t{1}, std::size_t{4}, std::size_t{7}, std::size_t{64}, std::size_t{1000}}) {
    CAPTURE(grain);
    recorded_job r(101);  // no multiple of 4, 7 or 64: the last claim is cut at the count
    r.job.grain = grain;
    crew.run(r.job, pool.get_executor());
    CHECK(r.each_ran_once());
    CHECK(r.job.done.load() == 101);
    CHECK(r.ran_by(0) + r.ran_by(1) + r.ran_by(2) == 101);
    if (grain >= 101)
      CHECK(r.ran_by(0) + r.ran_by(1) + r.ran_by(2) == r.ran_by(r.worker[0].load()));
  }
}

}  // namespace helper_crew_test
