// preempt/executor.hpp - where the library runs its work: the executor concept.
//
// An executor is a cheap, copyable handle with one const member, `execute(task_ref)`. It runs the
// given unit of work exactly once: before execute returns (inline dispatch) or later, on some
// other context (async dispatch: a thread pool, an event loop, an embedded queue). The library
// never hands over a closure that owns anything: a `task_ref` is two pointers to state that the
// library keeps alive until the work has run, so an executor can store it in any queue without
// allocating. Adapting a runtime takes a few lines (see examples/).
//
// An executor that always runs work inline declares `static constexpr bool always_inline = true;`
// and the algorithms then take a synchronous path with no in-flight tracking at all. One that runs
// work only when its owner drains it declares `static constexpr bool drained_by_owner = true;`:
// destroying what waits for its work while some is queued is then a contract failure, not a hang.
//
// The work must not throw (task_ref's function is noexcept). An executor's execute may throw
// only if it cannot accept the work (e.g. allocation failure); the algorithms then roll back.
//
// No allocation; no exceptions; `inline_executor` is stateless and thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_EXECUTOR_HPP
#define PREEMPT_EXECUTOR_HPP

#include <concepts>
#include <type_traits>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN

// A non-owning reference to a unit of work: call it exactly once.
class task_ref {
 public:
  using function = void (*)(void*) noexcept;

  // An empty reference (executors keep arrays of them); calling it is a contract violation.
  constexpr task_ref() noexcept = default;
  constexpr task_ref(void* self, function fn) noexcept : self_(self), fn_(fn) {}

  // Refers to `obj`, whose `run()` member is called when the task runs. `obj` must outlive the run.
  template <class T>
    requires requires(T& t) {
      { t.run() } noexcept;
    }
  static constexpr task_ref to_member_run(T& obj) noexcept {
    return task_ref(&obj, [](void* p) noexcept { static_cast<T*>(p)->run(); });
  }

  void operator()() const noexcept {
    PREEMPT_ASSERT(fn_ != nullptr, "task_ref: calling an empty task");
    fn_(self_);
  }

  // Whether it refers to work (false when default-constructed).
  constexpr explicit operator bool() const noexcept { return fn_ != nullptr; }

  friend constexpr bool operator==(const task_ref&, const task_ref&) noexcept = default;

 private:
  void* self_ = nullptr;
  function fn_ = nullptr;
};

template <class E>
concept executor = std::copy_constructible<E> && std::is_nothrow_move_constructible_v<E> &&
                   requires(const E& ex, task_ref t) { ex.execute(t); };

// True when E promises to run every task before execute returns.
template <class E>
inline constexpr bool is_always_inline_v = requires { requires E::always_inline; };

// True when E runs tasks only when its owner drains it (`static constexpr bool drained_by_owner =
// true`, as manual_executor): work queued there must not be waited for by the thread that would
// drain it.
template <class E>
inline constexpr bool is_drained_by_owner_v = requires { requires E::drained_by_owner; };

// Runs each task at once, on the calling thread.
struct inline_executor {
  static constexpr bool always_inline = true;
  void execute(task_ref t) const noexcept { t(); }
};

static_assert(executor<inline_executor>);
static_assert(is_always_inline_v<inline_executor>);

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_EXECUTOR_HPP
