// preempt/detail/content_stamp.hpp - a number that names one state of an object's contents.
//
// content_stamp holds a value drawn from one process-wide counter: renew() draws a new one
// whenever the contents change, so two states share a value only when one is a copy of the other
// (a copy keeps the value, as its contents are the same). A move leaves the source with a fresh
// value, since its contents are gone. Something computed from an object's contents can then be
// kept with the stamp it was computed at and trusted only while the stamp is the same: a stale
// result is recomputed, never used (model::resource_node::stamp, model::budget_table::stamp).
// Values start at 1; 0 is never drawn ("computed from nothing").
//
// O(1); renew is one relaxed atomic increment (a plain one under PREEMPT_NO_THREADS). No
// allocation; no exceptions. Thread-safety: renew from any thread; one stamp is read and renewed
// like the object it belongs to.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_CONTENT_STAMP_HPP
#define PREEMPT_DETAIL_CONTENT_STAMP_HPP

#include <cstdint>

#include "preempt/config.hpp"
#include "preempt/detail/metric_counter.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

// The counter every content_stamp draws from (64 bits: it does not wrap in practice).
inline metric_counter content_stamps{0};

class content_stamp {
 public:
  content_stamp() noexcept : value_(draw()) {}
  content_stamp(const content_stamp&) noexcept = default;
  content_stamp& operator=(const content_stamp&) noexcept = default;
  content_stamp(content_stamp&& other) noexcept : value_(other.value_) { other.renew(); }
  content_stamp& operator=(content_stamp&& other) noexcept {
    value_ = other.value_;
    if (&other != this) other.renew();
    return *this;
  }

  // The contents changed: a value no other state has had.
  void renew() noexcept { value_ = draw(); }
  std::uint64_t value() const noexcept { return value_; }

 private:
  static std::uint64_t draw() noexcept {
    return content_stamps.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  std::uint64_t value_;
};

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_CONTENT_STAMP_HPP
