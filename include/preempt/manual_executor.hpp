// preempt/manual_executor.hpp - an executor that runs work only when the caller says so.
//
// `manual_context` queues the tasks its executors receive; nothing runs until the owner drains
// the queue, one task at a time or all at once, in first-in-first-out, last-in-first-out or a
// seeded random order. Tests use it to reach chosen interleavings of asynchronous work
// deterministically, and single-threaded event loops use it as their run queue.
//
// The context is immovable and must outlive its executors and the tasks it holds. Tasks queued
// while draining (work that spawns work) are run by the same drain call.
//
// Allocation: the queue grows geometrically (reserve() avoids it). No exceptions of its own.
// Thread-safety: execute may be called from any thread; draining is for one thread at a time.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_MANUAL_EXECUTOR_HPP
#define PREEMPT_MANUAL_EXECUTOR_HPP

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <random>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/executor.hpp"

PREEMPT_NAMESPACE_BEGIN

class manual_context;

// The handle given to the algorithms; copies share the context.
class manual_executor {
 public:
  // Its tasks run only when the owner drains the context (preempt/executor.hpp).
  static constexpr bool drained_by_owner = true;

  explicit manual_executor(manual_context& ctx) noexcept : ctx_(&ctx) {}
  void execute(task_ref t) const;

 private:
  manual_context* ctx_;
};

class manual_context {
 public:
  enum class order { fifo, lifo, shuffled };

  manual_context() = default;
  manual_context(const manual_context&) = delete;
  manual_context& operator=(const manual_context&) = delete;

  manual_executor get_executor() noexcept { return manual_executor(*this); }

  void reserve(std::size_t n) {
    std::lock_guard lock(mutex_);
    queue_.reserve(n);
  }

  std::size_t pending() const {
    std::lock_guard lock(mutex_);
    return queue_.size();
  }

  // Runs one queued task chosen by `how`; false when the queue was empty.
  bool run_one(order how = order::fifo) {
    task_ref t = task_ref(nullptr, nullptr);
    {
      std::lock_guard lock(mutex_);
      if (queue_.empty()) return false;
      std::size_t pick = 0;
      if (how == order::lifo) pick = queue_.size() - 1;
      if (how == order::shuffled)
        pick = std::uniform_int_distribution<std::size_t>(0, queue_.size() - 1)(rng_);
      t = queue_[pick];
      queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(pick));
    }
    t();
    ++ran_;
    return true;
  }

  // Runs tasks until none is left, including tasks queued meanwhile; returns how many ran.
  std::size_t drain(order how = order::fifo) {
    std::size_t n = 0;
    while (run_one(how)) ++n;
    return n;
  }

  // Seeds the order::shuffled choice.
  void seed(std::uint64_t s) { rng_.seed(s); }

  // How many tasks have run since construction.
  std::size_t ran() const noexcept { return ran_; }

 private:
  friend class manual_executor;
  void push(task_ref t) {
    std::lock_guard lock(mutex_);
    queue_.push_back(t);
  }

  mutable std::mutex mutex_;
  std::vector<task_ref> queue_;
  std::mt19937_64 rng_{0x5EED};
  std::size_t ran_ = 0;
};

inline void manual_executor::execute(task_ref t) const { ctx_->push(t); }

static_assert(executor<manual_executor>);
static_assert(!is_always_inline_v<manual_executor>);

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_MANUAL_EXECUTOR_HPP
