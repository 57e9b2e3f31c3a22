// preempt/detail/users.hpp - how a nomination ledger or an in-flight table knows that a
// dispatcher still uses it.
//
// A dispatcher keeps references to its ledger and its in-flight table, and its background work
// reads them from executor threads until the dispatcher's destructor has waited for it. Declared
// in the wrong order (the dispatcher before the table it uses, as class members), the table is
// destroyed first and that work reads freed memory. users counts the dispatchers attached to a
// table; user_of<T> attaches when its dispatcher first starts work (by then both objects are
// constructed, whatever their declaration order) until it is destroyed. The table's destructor,
// and a move of it, check that none is left, so the wrong order stops the program with a message
// instead.
//
// O(1); no allocation; no exceptions. Thread-safe (a plain counter under PREEMPT_NO_THREADS).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_USERS_HPP
#define PREEMPT_DETAIL_USERS_HPP

#include <cstddef>

#include "preempt/config.hpp"

#if !defined(PREEMPT_NO_THREADS)
#include <atomic>
#endif

PREEMPT_NAMESPACE_BEGIN
namespace detail {

class users {
 public:
  users() noexcept = default;
  users(const users&) = delete;
  users& operator=(const users&) = delete;

  void attach() const noexcept { ++count_; }
  void detach() const noexcept { --count_; }
  bool none() const noexcept { return count_ == 0; }

 private:
#if defined(PREEMPT_NO_THREADS)
  mutable std::size_t count_ = 0;
#else
  mutable std::atomic<std::size_t> count_{0};
#endif
};

// A reference to a table, attached to it from attach() (called by one thread, before any work
// that uses the table starts) for as long as this object lives.
template <class T>
class user_of {
 public:
  explicit user_of(T& table) noexcept : table_(&table) {}
  user_of(const user_of&) = delete;
  user_of& operator=(const user_of&) = delete;
  ~user_of() {
    if (attached_) table_->users_.detach();
  }

  void attach() noexcept {
    if (attached_) return;
    table_->users_.attach();
    attached_ = true;
  }

  T& operator*() const noexcept { return *table_; }
  T* operator->() const noexcept { return table_; }

 private:
  T* table_;
  bool attached_ = false;
};

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_USERS_HPP
