// tests/support/p2300_scheduler.hpp - a P2300-shaped scheduler of our own for the tests of
// preempt/execution.hpp: written as std::execution specifies user types (member functions
// schedule(), connect(), start(), set_value() ...), and checked against the sender library's own
// concepts. Scheduling queues the operation; the test runs the queue (run_all, possibly from
// another thread) or shuts the scheduler down, which completes what is queued with set_stopped.
// Its queue is a ring that grows only when full, so that it allocates nothing in steady state (the
// executor's own allocations are what the tests count).
//
// Thread-safety: schedule/start from any thread; run_all and shut_down from one thread at a time.
#ifndef PREEMPT_TESTS_SUPPORT_P2300_SCHEDULER_HPP
#define PREEMPT_TESTS_SUPPORT_P2300_SCHEDULER_HPP

#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

#include "preempt/execution.hpp"

#if PREEMPT_HAS_EXECUTION

namespace p2300_test {

namespace ex = PREEMPT_EXECUTION_NAMESPACE;

class queue_context {
 public:
  // A type-erased queued operation: what completes it.
  struct queued {
    void (*complete)(queued*, bool stopped) noexcept = nullptr;
  };

  class scheduler {
   public:
    using scheduler_concept = ex::scheduler_t;

    template <class R>
    struct operation : queued {
      using operation_state_concept = ex::operation_state_t;
      queue_context* ctx;
      R receiver;

      operation(queue_context* c, R r) : ctx(c), receiver(std::move(r)) {
        this->complete = [](queued* q, bool stopped) noexcept {
          auto& op = *static_cast<operation*>(q);
          if (stopped)
            ex::set_stopped(std::move(op.receiver));
          else
            ex::set_value(std::move(op.receiver));
        };
      }
      operation(const operation&) = delete;
      operation& operator=(const operation&) = delete;
      void start() & noexcept { ctx->push(this); }
    };

    struct env {
      queue_context* ctx;
      template <class Tag>
      scheduler query(ex::get_completion_scheduler_t<Tag>) const noexcept {
        return scheduler{ctx};
      }
    };

    struct sender {
      using sender_concept = ex::sender_t;
      using completion_signatures =
          ex::completion_signatures<ex::set_value_t(), ex::set_stopped_t()>;
      queue_context* ctx;

      template <class R>
      operation<R> connect(R r) const {
        return operation<R>(ctx, std::move(r));
      }
      env get_env() const noexcept { return {ctx}; }
    };

    explicit scheduler(queue_context* c) noexcept : ctx_(c) {}
    sender schedule() const noexcept { return {ctx_}; }
    friend bool operator==(const scheduler&, const scheduler&) noexcept = default;

   private:
    queue_context* ctx_;
  };

  scheduler get_scheduler() noexcept { return scheduler(this); }

  // Completes every queued operation with set_value, including those queued meanwhile.
  std::size_t run_all() { return drain(false); }
  // Completes every queued operation with set_stopped (the run queue is going away).
  std::size_t shut_down() { return drain(true); }

  std::size_t started() const {
    std::lock_guard lock(mutex_);
    return started_;
  }
  std::size_t pending() const {
    std::lock_guard lock(mutex_);
    return count_;
  }

 private:
  void push(queued* q) {
    std::lock_guard lock(mutex_);
    if (count_ == ring_.size()) {  // full: twice the room, in order
      std::vector<queued*> bigger(ring_.size() * 2);
      for (std::size_t i = 0; i < count_; ++i) bigger[i] = ring_[(head_ + i) % ring_.size()];
      ring_ = std::move(bigger);
      head_ = 0;
    }
    ring_[(head_ + count_) % ring_.size()] = q;
    ++count_;
    ++started_;
  }
  std::size_t drain(bool stopped) {
    std::size_t n = 0;
    for (;;) {
      queued* q = nullptr;
      {
        std::lock_guard lock(mutex_);
        if (count_ == 0) return n;
        q = ring_[head_];
        head_ = (head_ + 1) % ring_.size();
        --count_;
      }
      q->complete(q, stopped);
      ++n;
    }
  }

  mutable std::mutex mutex_;
  std::vector<queued*> ring_ = std::vector<queued*>(256);
  std::size_t head_ = 0;
  std::size_t count_ = 0;
  std::size_t started_ = 0;
};

static_assert(ex::scheduler<queue_context::scheduler>);
static_assert(ex::sender<queue_context::scheduler::sender>);

}  // namespace p2300_test

#endif  // PREEMPT_HAS_EXECUTION
#endif  // PREEMPT_TESTS_SUPPORT_P2300_SCHEDULER_HPP
