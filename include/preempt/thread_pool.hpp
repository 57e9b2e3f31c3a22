// preempt/thread_pool.hpp - a fixed-size thread pool executor (opt-in; not in preempt.hpp).
//
// `thread_pool` starts its worker threads on construction and runs queued tasks on them in
// first-in-first-out order. `get_executor()` hands out copyable handles. Shutdown (join() or the
// destructor) keeps accepting work: it lets the workers finish every task already queued,
// including tasks queued by running tasks, then joins them. Each task runs exactly once; none is
// lost or run twice. Executing on a pool that has been joined runs the task inline on the caller,
// so late work is never dropped.
//
// A worker that runs out of tasks polls the queue for a short while (idle_poll) before it sleeps,
// so a task queued right after the last one (the next batch of a parallel dry run) starts without
// the cost of waking a sleeping thread; it yields the processor between polls. One worker polls
// at a time (the others sleep at once), and a task queued while it polls wakes no other worker:
// on a machine with fewer cores than threads, polling workers would take the processor from the
// ones that work.
//
// Allocation: the queue is a ring buffer that grows geometrically (reserve() avoids it). No
// exceptions of its own beyond those of std::thread construction. Thread-safety: every member may
// be called from any thread, except that join() must not be called from a worker.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_THREAD_POOL_HPP
#define PREEMPT_THREAD_POOL_HPP

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/executor.hpp"

PREEMPT_NAMESPACE_BEGIN

class thread_pool;

class pool_executor {
 public:
  explicit pool_executor(thread_pool& pool) noexcept : pool_(&pool) {}
  void execute(task_ref t) const;

 private:
  thread_pool* pool_;
};

class thread_pool {
 public:
  explicit thread_pool(std::size_t threads) {
    PREEMPT_ASSERT(threads > 0, "thread_pool needs at least one thread");
    ring_.resize(initial_queue_capacity, task_ref(nullptr, nullptr));
    workers_.reserve(threads);
    for (std::size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }
  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;
  ~thread_pool() { join(); }

  pool_executor get_executor() noexcept { return pool_executor(*this); }
  std::size_t size() const noexcept { return workers_.size(); }

  void reserve(std::size_t tasks) {
    std::lock_guard lock(mutex_);
    grow_to(tasks);
  }

  // Runs everything queued, then stops and joins the workers. Idempotent.
  void join() {
    std::lock_guard joining(join_mutex_);  // concurrent joins wait for the first one
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      stopping_polled_.store(true, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread& t : workers_)
      if (t.joinable()) t.join();
  }

 private:
  friend class pool_executor;

  void push(task_ref t) {
    bool poller_takes_it = false;
    {
      std::unique_lock lock(mutex_);
      if (stopping_ && active_workers_ == 0) {
        lock.unlock();
        t();  // the pool is gone: run the late task here rather than drop it
        return;
      }
      if (count_ == ring_.size()) grow_to(ring_.size() * 2);
      ring_[(head_ + count_) % ring_.size()] = t;
      ++count_;
      queued_.store(count_, std::memory_order_release);
      // A polling worker takes the only queued task without being woken: waking a sleeping
      // worker as well would only have it poll beside the others. Nothing is missed: a poller
      // clears polling_ before it takes the lock to wait, so a push that still reads it set
      // holds the lock before that worker looks at count_ under it, and the worker finds the task.
      poller_takes_it = count_ == 1 && polling_.load(std::memory_order_acquire);
    }
    if (!poller_takes_it) wake_.notify_one();
  }

  void grow_to(std::size_t n) {
    if (n <= ring_.size()) return;
    std::vector<task_ref> bigger(n, task_ref(nullptr, nullptr));
    for (std::size_t i = 0; i < count_; ++i) bigger[i] = ring_[(head_ + i) % ring_.size()];
    ring_ = std::move(bigger);
    head_ = 0;
  }

  void work() {
    std::unique_lock lock(mutex_);
    ++active_workers_;
    for (;;) {
      if (count_ == 0 && !stopping_) {
        lock.unlock();
        // One worker polls at a time: the others would only take processor time from the
        // threads that work (the next task wakes one of them anyway).
        if (polling_.exchange(true, std::memory_order_acquire) == false) {
          poll_for_work();
          polling_.store(false, std::memory_order_release);
        }
        lock.lock();
      }
      wake_.wait(lock, [this] { return count_ > 0 || stopping_; });
      if (count_ == 0) break;  // stopping and nothing left
      const task_ref t = ring_[head_];
      head_ = (head_ + 1) % ring_.size();
      --count_;
      queued_.store(count_, std::memory_order_release);
      lock.unlock();
      t();
      lock.lock();
    }
    --active_workers_;
  }

  // Polls, without the lock, until a task is queued, the pool stops or idle_poll has passed.
  void poll_for_work() const noexcept {
    const auto until = std::chrono::steady_clock::now() + idle_poll;
    do {
      if (queued_.load(std::memory_order_acquire) != 0 ||
          stopping_polled_.load(std::memory_order_acquire))
        return;
      std::this_thread::yield();
    } while (std::chrono::steady_clock::now() < until);
  }

  // How long an idle worker polls before it sleeps.
  static constexpr std::chrono::microseconds idle_poll{50};

  std::mutex join_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_;
  // Tasks the queue holds before it first grows (it doubles when full; reserve() grows it ahead).
  static constexpr std::size_t initial_queue_capacity = 16;

  std::vector<task_ref> ring_;
  std::size_t head_ = 0;
  std::size_t count_ = 0;
  std::atomic<std::size_t> queued_{0};  // count_, for the polling workers
  std::size_t active_workers_ = 0;
  bool stopping_ = false;
  std::atomic<bool> stopping_polled_{false};  // stopping_, for the polling workers
  std::atomic<bool> polling_{false};          // a worker polls (at most one at a time)
  std::vector<std::thread> workers_;
};

inline void pool_executor::execute(task_ref t) const { pool_->push(t); }

static_assert(executor<pool_executor>);

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_THREAD_POOL_HPP
