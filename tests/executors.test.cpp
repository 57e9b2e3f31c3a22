// The executors (executor.hpp, manual_executor.hpp, thread_pool.hpp): the concept, inline
// dispatch, the manual context's orders, and a thread-pool stress test meant for ThreadSanitizer
// (concurrent submitters, tasks that submit tasks, shutdown while work is still arriving).
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <numeric>
#include <thread>
#include <type_traits>
#include <vector>

#include "preempt/executor.hpp"
#include "preempt/manual_executor.hpp"
#include "preempt/thread_pool.hpp"
#include "support/executors.hpp"
#include "support/sanitizers.hpp"

namespace executors_test {

namespace {

using preempt::task_ref;
using order = preempt::manual_context::order;

// ---- The concept ----------------------------------------------------------------------------

struct not_inline_declared {
  static constexpr bool always_inline = false;
  void execute(task_ref t) const noexcept { t(); }
};
struct mutable_execute {  // execute must be const
  void execute(task_ref t) { t(); }
};
struct move_only_executor {
  move_only_executor() = default;
  move_only_executor(move_only_executor&&) noexcept = default;
  move_only_executor(const move_only_executor&) = delete;
  void execute(task_ref t) const { t(); }
};
struct no_execute {};

static_assert(preempt::executor<preempt::inline_executor>);
static_assert(preempt::executor<preempt::manual_executor>);
static_assert(preempt::executor<preempt::pool_executor>);
static_assert(preempt::executor<not_inline_declared>);
static_assert(!preempt::executor<int>);
static_assert(!preempt::executor<no_execute>);
static_assert(!preempt::executor<mutable_execute>);
static_assert(!preempt::executor<move_only_executor>);
static_assert(preempt::is_always_inline_v<preempt::inline_executor>);
static_assert(!preempt::is_always_inline_v<preempt::manual_executor>);
static_assert(!preempt::is_always_inline_v<preempt::pool_executor>);
static_assert(!preempt::is_always_inline_v<not_inline_declared>);
static_assert(!preempt::is_always_inline_v<int>);
static_assert(std::is_trivially_copyable_v<task_ref>);

// A task that counts its runs and records the order.
struct recorded_task {
  int id = 0;
  std::vector<int>* log = nullptr;
  int runs = 0;
  void run() noexcept {
    ++runs;
    if (log != nullptr) log->push_back(id);
  }
};

std::vector<int> iota(int n, int from = 0) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), from);
  return v;
}

}  // namespace

TEST_CASE("task_ref calls the member run of the object it refers to") {
  recorded_task t;
  const task_ref r = task_ref::to_member_run(t);
  CHECK(t.runs == 0);
  r();
  CHECK(t.runs == 1);
  const task_ref copy = r;
  CHECK(copy == r);
  recorded_task other;
  CHECK_FALSE(task_ref::to_member_run(other) == r);
}

TEST_CASE("inline_executor runs the task on the calling thread before execute returns") {
  recorded_task t;
  std::thread::id ran_on;
  struct thread_task {
    std::thread::id* where;
    void run() noexcept { *where = std::this_thread::get_id(); }
  } tt{&ran_on};
  const preempt::inline_executor ex;
  ex.execute(task_ref::to_member_run(t));
  CHECK(t.runs == 1);
  ex.execute(task_ref::to_member_run(tt));
  CHECK(ran_on == std::this_thread::get_id());
  exf::inline_fixture fx;
  fx.executor().execute(task_ref::to_member_run(t));
  CHECK(t.runs == 2);
  CHECK(fx.finish() == 0);
}

// ---- manual_context -------------------------------------------------------------------------

TEST_CASE("manual_context runs nothing until drained, then each task once in the chosen order") {
  constexpr int n = 12;
  for (order how : {order::fifo, order::lifo, order::shuffled}) {
    CAPTURE(exf::to_string(how));
    preempt::manual_context ctx;
    ctx.seed(7);
    std::vector<int> log;
    std::vector<recorded_task> tasks(n);
    const preempt::manual_executor ex = ctx.get_executor();
    const preempt::manual_executor copy = ex;  // copies share the context
    for (int i = 0; i < n; ++i) {
      tasks[static_cast<std::size_t>(i)] = {i, &log, 0};
      (i % 2 == 0 ? ex : copy).execute(task_ref::to_member_run(tasks[static_cast<std::size_t>(i)]));
    }
    CHECK(log.empty());
    CHECK(ctx.pending() == n);
    CHECK(ctx.ran() == 0);
    CHECK(ctx.drain(how) == n);
    CHECK(ctx.pending() == 0);
    CHECK(ctx.ran() == n);
    for (const auto& t : tasks) CHECK(t.runs == 1);
    std::vector<int> sorted = log;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == iota(n));
    if (how == order::fifo) CHECK(log == iota(n));
    if (how == order::lifo) {
      std::vector<int> reversed = iota(n);
      std::reverse(reversed.begin(), reversed.end());
      CHECK(log == reversed);
    }
    if (how == order::shuffled) {
      CHECK(log != iota(n));
      // The same seed gives the same order.
      preempt::manual_context again;
      again.seed(7);
      std::vector<int> log2;
      std::vector<recorded_task> tasks2(n);
      for (int i = 0; i < n; ++i) {
        tasks2[static_cast<std::size_t>(i)] = {i, &log2, 0};
        again.get_executor().execute(task_ref::to_member_run(tasks2[static_cast<std::size_t>(i)]));
      }
      again.drain(order::shuffled);
      CHECK(log2 == log);
    }
    CHECK(ctx.drain(how) == 0);
    CHECK_FALSE(ctx.run_one(how));
  }
}

TEST_CASE("manual_context::run_one runs a single task") {
  preempt::manual_context ctx;
  ctx.reserve(8);
  std::vector<int> log;
  std::vector<recorded_task> tasks(3);
  for (int i = 0; i < 3; ++i) {
    tasks[static_cast<std::size_t>(i)] = {i, &log, 0};
    ctx.get_executor().execute(task_ref::to_member_run(tasks[static_cast<std::size_t>(i)]));
  }
  CHECK(ctx.run_one(order::lifo));
  CHECK(log == std::vector<int>{2});
  CHECK(ctx.run_one(order::fifo));
  CHECK(log == std::vector<int>{2, 0});
  CHECK(ctx.pending() == 1);
  CHECK(ctx.ran() == 2);
  CHECK(ctx.run_one());
  CHECK_FALSE(ctx.run_one());
  CHECK(log == std::vector<int>{2, 0, 1});
}

namespace {
// A task that queues `children` more tasks (each queuing its own, down to `depth` 0).
struct spawning_task {
  preempt::manual_executor ex;
  std::vector<int>* log;
  int id;
  int depth;
  std::vector<std::unique_ptr<spawning_task>> children;
  int runs = 0;

  void run() noexcept {
    ++runs;
    log->push_back(id);
    if (depth == 0) return;
    for (int k = 0; k < 2; ++k) {
      children.push_back(std::make_unique<spawning_task>(
          spawning_task{ex, log, id * 10 + k + 1, depth - 1, {}, 0}));
      ex.execute(task_ref::to_member_run(*children.back()));
    }
  }
  int total_runs() const {
    int sum = runs;
    for (const auto& c : children) sum += c->total_runs();
    return sum;
  }
  bool each_once() const {
    if (runs != 1) return false;
    for (const auto& c : children)
      if (!c->each_once()) return false;
    return true;
  }
};
}  // namespace

TEST_CASE("manual_context runs tasks queued while draining in the same drain") {
  for (order how : {order::fifo, order::lifo, order::shuffled}) {
    CAPTURE(exf::to_string(how));
    preempt::manual_context ctx;
    std::vector<int> log;
    spawning_task root{ctx.get_executor(), &log, 1, 3, {}, 0};
    ctx.get_executor().execute(task_ref::to_member_run(root));
    CHECK(ctx.drain(how) == 15);  // 1 + 2 + 4 + 8
    CHECK(root.total_runs() == 15);
    CHECK(root.each_once());
    CHECK(ctx.pending() == 0);
    if (how == order::fifo)
      CHECK(log == std::vector<int>{1, 11, 12, 111, 112, 121, 122, 1111, 1112, 1121, 1122, 1211,
                                    1212, 1221, 1222});
    if (how == order::lifo)
      CHECK(log == std::vector<int>{1, 12, 122, 1222, 1221, 121, 1212, 1211, 11, 112, 1122, 1121,
                                    111, 1112, 1111});
  }
}

TEST_CASE("manual_context accepts tasks from several threads at once") {
  constexpr int threads = 4;
  constexpr int per_thread = PREEMPT_TEST_UNDER_TSAN ? 500 : 2000;
  preempt::manual_context ctx;
  std::vector<std::atomic<int>> runs(threads * per_thread);
  struct task {
    std::atomic<int>* counter;
    void run() noexcept { counter->fetch_add(1, std::memory_order_relaxed); }
  };
  std::vector<task> tasks(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) tasks[i].counter = &runs[i];
  std::vector<std::thread> submitters;
  for (int t = 0; t < threads; ++t)
    submitters.emplace_back([&, t] {
      const preempt::manual_executor ex = ctx.get_executor();
      for (int i = 0; i < per_thread; ++i)
        ex.execute(task_ref::to_member_run(tasks[static_cast<std::size_t>(t * per_thread + i)]));
    });
  for (auto& th : submitters) th.join();
  CHECK(ctx.pending() == runs.size());
  CHECK(ctx.drain(order::shuffled) == runs.size());
  bool each_once = true;
  for (const auto& r : runs) each_once = each_once && r.load() == 1;
  CHECK(each_once);
}

TEST_CASE("the manual fixture drains on finish and on destruction") {
  recorded_task a, b;
  {
    exf::manual_lifo_fixture fx;
    fx.executor().execute(task_ref::to_member_run(a));
    CHECK(a.runs == 0);
    CHECK(fx.finish() == 1);
    CHECK(a.runs == 1);
    fx.executor().execute(task_ref::to_member_run(b));
    CHECK(b.runs == 0);
  }
  CHECK(b.runs == 1);
}

// ---- thread_pool ----------------------------------------------------------------------------

namespace {

struct counted {
  std::atomic<int> runs{0};
  void run() noexcept { runs.fetch_add(1, std::memory_order_relaxed); }
};

// A task that, when run, submits its two children (a binary tree of `nodes` tasks in an array).
struct tree_task {
  const preempt::pool_executor* ex = nullptr;
  std::vector<tree_task>* all = nullptr;
  std::size_t index = 0;
  std::atomic<int> runs{0};

  void run() noexcept {
    runs.fetch_add(1, std::memory_order_relaxed);
    for (std::size_t child : {2 * index + 1, 2 * index + 2})
      if (child < all->size()) ex->execute(task_ref::to_member_run((*all)[child]));
  }
};

bool all_ran_once(const std::vector<counted>& v) {
  return std::all_of(v.begin(), v.end(), [](const counted& c) { return c.runs.load() == 1; });
}
bool all_ran_once(const std::vector<tree_task>& v) {
  return std::all_of(v.begin(), v.end(), [](const tree_task& c) { return c.runs.load() == 1; });
}

}  // namespace

TEST_CASE("thread_pool: concurrent submitters, tasks that submit tasks, join runs all once") {
  constexpr std::size_t submitters = 4;
  constexpr std::size_t per_submitter = PREEMPT_TEST_UNDER_TSAN ? 1500 : 5000;
  constexpr std::size_t tree_size = PREEMPT_TEST_UNDER_TSAN ? 1023 : 4095;
  for (std::size_t threads : {1u, 2u, 4u}) {
    CAPTURE(threads);
    std::vector<counted> tasks(submitters * per_submitter);
    std::vector<std::vector<tree_task>> trees(submitters);
    std::atomic<bool> go{false};
    {
      preempt::thread_pool pool(threads);
      CHECK(pool.size() == threads);
      const preempt::pool_executor ex = pool.get_executor();
      for (auto& tree : trees) {
        tree = std::vector<tree_task>(tree_size);
        for (std::size_t i = 0; i < tree_size; ++i) {
          tree[i].ex = &ex;
          tree[i].all = &tree;
          tree[i].index = i;
        }
      }
      std::vector<std::thread> threads_;
      for (std::size_t s = 0; s < submitters; ++s)
        threads_.emplace_back([&, s] {
          while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
          const preempt::pool_executor mine = pool.get_executor();
          for (std::size_t i = 0; i < per_submitter; ++i) {
            mine.execute(task_ref::to_member_run(tasks[s * per_submitter + i]));
            if (i == per_submitter / 2) mine.execute(task_ref::to_member_run(trees[s][0]));
          }
        });
      go.store(true, std::memory_order_release);
      for (auto& t : threads_) t.join();
      pool.join();  // everything queued, including tasks queued by tasks, has run
      CHECK(all_ran_once(tasks));
      for (const auto& tree : trees) CHECK(all_ran_once(tree));
      pool.join();  // idempotent
    }               // the destructor joins again
    CHECK(all_ran_once(tasks));
  }
}

TEST_CASE("thread_pool: work submitted while join() runs is never lost nor run twice") {
  constexpr std::size_t submitters = 3;
  constexpr std::size_t per_submitter = PREEMPT_TEST_UNDER_TSAN ? 2000 : 20000;
  constexpr std::size_t tree_size = 511;
  for (int round = 0; round < (PREEMPT_TEST_UNDER_TSAN ? 2 : 5); ++round) {
    CAPTURE(round);
    std::vector<counted> tasks(submitters * per_submitter);
    std::vector<std::vector<tree_task>> trees(submitters);
    std::atomic<std::size_t> started{0};
    preempt::thread_pool pool(2);
    const preempt::pool_executor ex = pool.get_executor();
    for (auto& tree : trees) {
      tree = std::vector<tree_task>(tree_size);
      for (std::size_t i = 0; i < tree_size; ++i) {
        tree[i].ex = &ex;
        tree[i].all = &tree;
        tree[i].index = i;
      }
    }
    std::vector<std::thread> threads_;
    for (std::size_t s = 0; s < submitters; ++s)
      threads_.emplace_back([&, s] {
        started.fetch_add(1);
        for (std::size_t i = 0; i < per_submitter; ++i) {
          ex.execute(task_ref::to_member_run(tasks[s * per_submitter + i]));
          // Trees started late may grow after the workers are gone: the rest runs inline.
          if (i == per_submitter - 1) ex.execute(task_ref::to_member_run(trees[s][0]));
        }
      });
    while (started.load() < submitters) std::this_thread::yield();
    pool.join();  // races with the submitters
    for (auto& t : threads_) t.join();
    CHECK(all_ran_once(tasks));
    for (const auto& tree : trees) CHECK(all_ran_once(tree));
  }
}

TEST_CASE("thread_pool: execute after join runs the task inline") {
  preempt::thread_pool pool(2);
  pool.join();
  std::thread::id where;
  struct task {
    std::thread::id* where;
    int runs = 0;
    void run() noexcept {
      ++runs;
      *where = std::this_thread::get_id();
    }
  } t{&where};
  pool.get_executor().execute(task_ref::to_member_run(t));
  CHECK(t.runs == 1);  // before execute returned
  CHECK(where == std::this_thread::get_id());
}

TEST_CASE("thread_pool: concurrent joins") {
  std::vector<counted> tasks(2000);
  preempt::thread_pool pool(2);
  for (auto& t : tasks) pool.get_executor().execute(task_ref::to_member_run(t));
  std::thread other([&] { pool.join(); });
  pool.join();
  other.join();
  CHECK(all_ran_once(tasks));
}

TEST_CASE("thread_pool: one thread runs tasks first-in-first-out, across ring growth") {
  preempt::thread_pool pool(1);
  const preempt::pool_executor ex = pool.get_executor();
  std::mutex m;
  std::vector<int> log;
  struct logged {
    std::mutex* m;
    std::vector<int>* log;
    int id;
    void run() noexcept {
      std::lock_guard lock(*m);
      log->push_back(id);
    }
  };
  // Move the ring's head off zero first.
  std::vector<logged> warmup;
  for (int i = 0; i < 10; ++i) warmup.push_back({&m, &log, -1});
  for (auto& t : warmup) ex.execute(task_ref::to_member_run(t));
  // A task that blocks the only worker while 40 more are queued (the ring grows from 16).
  std::atomic<bool> release{false}, blocked{false};
  struct gate {
    std::atomic<bool>* release;
    std::atomic<bool>* blocked;
    void run() noexcept {
      blocked->store(true);
      while (!release->load()) std::this_thread::yield();
    }
  } g{&release, &blocked};
  ex.execute(task_ref::to_member_run(g));
  while (!blocked.load()) std::this_thread::yield();
  std::vector<logged> tasks;
  for (int i = 0; i < 40; ++i) tasks.push_back({&m, &log, i});
  for (auto& t : tasks) ex.execute(task_ref::to_member_run(t));
  release.store(true);
  pool.join();
  std::vector<int> want(10, -1);
  for (int i = 0; i < 40; ++i) want.push_back(i);
  CHECK(log == want);
}

TEST_CASE("thread_pool: reserve and the pool fixture") {
  exf::pool_fixture fx;
  fx.pool.reserve(1000);
  std::vector<counted> tasks(1000);
  for (auto& t : tasks) fx.executor().execute(task_ref::to_member_run(t));
  CHECK(fx.finish() == 0);
  fx.pool.join();
  CHECK(all_ran_once(tasks));
}

}  // namespace executors_test
