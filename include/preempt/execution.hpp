// preempt/execution.hpp - P2300 senders and receivers: a scheduler as an executor, and the
// dispatcher's completion as a sender (opt-in; not in preempt.hpp).
//
// Compiled only with a sender library: std::execution where __cpp_lib_senders says it exists, else
// NVIDIA's stdexec when <stdexec/execution.hpp> is on the include path. PREEMPT_HAS_EXECUTION
// says which (1) or that neither is there (0: the header then declares nothing else).
//
//   scheduler_executor<S>(sched)  an executor (preempt/executor.hpp) running each task on `sched`
//                                 (schedule(sched), connected to a receiver that runs the task).
//                                 The operation states live in slots it pools (shared by the
//                                 executor's copies, growing in chunks), so a task costs no heap
//                                 allocation once the pool covers the tasks in flight. A task
//                                 completed with set_stopped or set_error (a scheduler shut down)
//                                 runs on the completing thread: an executor runs every task once.
//                                 An inline scheduler (stdexec::inline_scheduler, or one for which
//                                 preempt::is_inline_scheduler is specialized true) is mapped to
//                                 the always-inline path: execute runs the task at once, and the
//                                 dispatcher and evaluator take their synchronous paths.
//   when_idle(dispatcher)         a sender of set_value() once the dispatcher has no background
//                                 work (wait_idle as a sender), or set_stopped() when the
//                                 receiver's stop token is requested first. It completes on the
//                                 thread that finished the last work (or inline, when idle at
//                                 start); starting it allocates nothing.
//
// Exceptions: none of its own (a slot chunk's allocation may throw std::bad_alloc where
// exceptions are on; the dispatcher then rolls back). Thread-safety: execute from any thread.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_EXECUTION_HPP
#define PREEMPT_EXECUTION_HPP

#include "preempt/config.hpp"

#if defined(__cpp_lib_senders)
#include <execution>
#define PREEMPT_HAS_EXECUTION 1
#define PREEMPT_EXECUTION_NAMESPACE ::std::execution
#elif defined(__has_include)
#if __has_include(<stdexec/execution.hpp>)
#include <stdexec/execution.hpp>
#define PREEMPT_HAS_EXECUTION 1
#define PREEMPT_EXECUTION_NAMESPACE ::stdexec
#endif
#endif
#if !defined(PREEMPT_HAS_EXECUTION)
#define PREEMPT_HAS_EXECUTION 0
#endif

#if PREEMPT_HAS_EXECUTION

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "preempt/dispatcher.hpp"
#include "preempt/executor.hpp"

PREEMPT_NAMESPACE_BEGIN

namespace detail::p2300 {
namespace ex = PREEMPT_EXECUTION_NAMESPACE;
}  // namespace detail::p2300

// Whether scheduling on S completes inline, before start returns: specialize it true for an inline
// scheduler of your own.
template <class S>
struct is_inline_scheduler
    : std::bool_constant<std::is_same_v<S, detail::p2300::ex::inline_scheduler>> {};

namespace detail::p2300 {

// The operation states of one executor's tasks, in slots it pools.
template <class S>
class task_slots : public std::enable_shared_from_this<task_slots<S>> {
 public:
  explicit task_slots(S sched) : sched_(std::move(sched)) {}

  // Starts `t` on the scheduler in a free slot.
  void start(task_ref t) {
    slot* s = acquire();
    s->task = t;
    s->keepalive = this->shared_from_this();  // the slots outlive their tasks
    op_state* op = ::new (static_cast<void*>(s->storage))
        op_state(ex::connect(ex::schedule(sched_), receiver{s}));
    ex::start(*op);
  }

  // Makes room for `n` tasks in flight at once without allocating.
  void reserve(std::size_t n) {
    std::lock_guard lock(mutex_);
    while (capacity_ < n) grow();
  }

 private:
  struct slot;

  struct receiver {
    using receiver_concept = ex::receiver_t;
    slot* s;

    void set_value() && noexcept { s->finish(); }
    template <class E>
    void set_error(E&&) && noexcept {
      s->finish();  // the task runs all the same, here
    }
    void set_stopped() && noexcept { s->finish(); }
    ex::env<> get_env() const noexcept { return {}; }
  };

  using op_state = decltype(ex::connect(ex::schedule(std::declval<S&>()), receiver{nullptr}));

  struct slot {
    alignas(op_state) unsigned char storage[sizeof(op_state)];
    task_ref task;
    std::shared_ptr<task_slots> keepalive;
    slot* next = nullptr;

    // The scheduler completed: free the slot, then run the task.
    void finish() noexcept {
      std::destroy_at(std::launder(reinterpret_cast<op_state*>(storage)));
      const task_ref t = task;
      std::shared_ptr<task_slots> owner = std::move(keepalive);
      owner->release(this);
      t();
    }
  };

  static constexpr std::size_t chunk = 32;

  slot* acquire() {
    std::lock_guard lock(mutex_);
    if (free_ == nullptr) grow();
    slot* s = free_;
    free_ = s->next;
    return s;
  }
  void release(slot* s) noexcept {
    std::lock_guard lock(mutex_);
    s->next = free_;
    free_ = s;
  }
  void grow() {
    chunks_.push_back(std::make_unique<slot[]>(chunk));
    for (std::size_t i = 0; i < chunk; ++i) {
      chunks_.back()[i].next = free_;
      free_ = &chunks_.back()[i];
    }
    capacity_ += chunk;
  }

  S sched_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<slot[]>> chunks_;
  slot* free_ = nullptr;
  std::size_t capacity_ = 0;
};

}  // namespace detail::p2300

// A P2300 scheduler as an executor (see the header comment).
template <class S, bool Inline = is_inline_scheduler<S>::value>
class scheduler_executor {
 public:
  explicit scheduler_executor(S sched)
      : slots_(std::make_shared<detail::p2300::task_slots<S>>(std::move(sched))) {}

  void execute(task_ref t) const { slots_->start(t); }
  // Room for `n` tasks in flight at once without allocating.
  void reserve(std::size_t n) const { slots_->reserve(n); }

 private:
  std::shared_ptr<detail::p2300::task_slots<S>> slots_;
};

// An inline scheduler: the always-inline path.
template <class S>
class scheduler_executor<S, true> {
 public:
  static constexpr bool always_inline = true;
  explicit scheduler_executor(S) noexcept {}
  void execute(task_ref t) const noexcept { t(); }
  void reserve(std::size_t) const noexcept {}
};

namespace detail::p2300 {

template <class Dispatcher>
struct idle_sender {
  using sender_concept = ex::sender_t;
  using completion_signatures = ex::completion_signatures<ex::set_value_t(), ex::set_stopped_t()>;

  Dispatcher* dispatcher;

  template <class R>
  struct operation : idle_waiter {
    using operation_state_concept = ex::operation_state_t;
    using token_type = ex::stop_token_of_t<ex::env_of_t<R>>;

    struct on_stop {
      operation* op;
      void operator()() const noexcept { op->stop_requested(); }
    };
    using callback_type = ex::stop_callback_for_t<token_type, on_stop>;

    Dispatcher* dispatcher;
    R receiver;
    std::optional<callback_type> callback;
    std::atomic<bool> registered{false};
    std::atomic<bool> stopping{false};

    operation(Dispatcher* d, R r) : dispatcher(d), receiver(std::move(r)) {}
    operation(const operation&) = delete;
    operation& operator=(const operation&) = delete;

    void start() & noexcept {
      this->on_idle = &operation::idle;
      callback.emplace(ex::get_stop_token(ex::get_env(receiver)), on_stop{this});
      if (stopping.load()) {  // stopped before it waited
        callback.reset();
        ex::set_stopped(std::move(receiver));
        return;
      }
      if (!dispatcher->add_idle_waiter(*this)) {  // idle already
        callback.reset();
        ex::set_value(std::move(receiver));
        return;
      }
      registered.store(true);
      // A stop requested while registering: whoever takes the waiter back completes.
      if (stopping.load() && dispatcher->remove_idle_waiter(*this)) {
        callback.reset();
        ex::set_stopped(std::move(receiver));
      }
    }

    // The dispatcher is idle (on the thread that finished its last work).
    static void idle(idle_waiter* w) noexcept {
      auto& op = *static_cast<operation*>(w);
      op.callback.reset();  // waits for a stop callback running on another thread
      ex::set_value(std::move(op.receiver));
    }

    void stop_requested() noexcept {
      stopping.store(true);
      if (registered.load() && dispatcher->remove_idle_waiter(*this))
        ex::set_stopped(std::move(receiver));
    }
  };

  template <class R>
  operation<R> connect(R r) const {
    return operation<R>(dispatcher, std::move(r));
  }
  ex::env<> get_env() const noexcept { return {}; }
};

}  // namespace detail::p2300

// A sender of the dispatcher's idleness (see the header comment).
template <class D>
detail::p2300::idle_sender<D> when_idle(D& dispatcher) noexcept {
  return {&dispatcher};
}

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_HAS_EXECUTION
#endif  // PREEMPT_EXECUTION_HPP
