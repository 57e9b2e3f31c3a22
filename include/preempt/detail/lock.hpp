// preempt/detail/lock.hpp - the library's locks, with and without threads.
//
// null_mutex (a lock that does nothing), default_mutex and default_shared_mutex (std::mutex and
// std::shared_mutex, or null_mutex under PREEMPT_NO_THREADS), and two scoped guards,
// exclusive_guard and shared_guard, that need nothing from <mutex>: with PREEMPT_NO_THREADS no
// threading header is included at all.
//
// No allocation; no exceptions of its own (a std::mutex's lock may throw std::system_error).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_LOCK_HPP
#define PREEMPT_DETAIL_LOCK_HPP

#include "preempt/config.hpp"

#if !defined(PREEMPT_NO_THREADS)
#include <mutex>
#include <shared_mutex>
#endif

PREEMPT_NAMESPACE_BEGIN

// A lock that does nothing, for single-threaded callers.
struct null_mutex {
  void lock() noexcept {}
  void unlock() noexcept {}
  bool try_lock() noexcept { return true; }
  void lock_shared() noexcept {}
  void unlock_shared() noexcept {}
  bool try_lock_shared() noexcept { return true; }
};

namespace detail {

#if defined(PREEMPT_NO_THREADS)
using default_mutex = null_mutex;
using default_shared_mutex = null_mutex;
#else
using default_mutex = std::mutex;
using default_shared_mutex = std::shared_mutex;
#endif

// Holds m.lock() for its lifetime.
template <class M>
class exclusive_guard {
 public:
  explicit exclusive_guard(M& m) : m_(m) { m_.lock(); }
  exclusive_guard(const exclusive_guard&) = delete;
  exclusive_guard& operator=(const exclusive_guard&) = delete;
  ~exclusive_guard() { m_.unlock(); }

 private:
  M& m_;
};

// Holds m.lock_shared() for its lifetime; movable, so that a view can carry it.
template <class M>
class shared_guard {
 public:
  explicit shared_guard(M& m) : m_(&m) { m_->lock_shared(); }
  shared_guard(shared_guard&& other) noexcept : m_(other.m_) { other.m_ = nullptr; }
  shared_guard(const shared_guard&) = delete;
  shared_guard& operator=(const shared_guard&) = delete;
  shared_guard& operator=(shared_guard&&) = delete;
  ~shared_guard() {
    if (m_ != nullptr) m_->unlock_shared();
  }

 private:
  M* m_;
};

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_LOCK_HPP
