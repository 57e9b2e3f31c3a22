// preempt/detail/metric_counter.hpp - the 64-bit counter behind preempt::metrics and
// preempt::workload::workload_metrics.
//
// With threads it is std::atomic<std::uint64_t> (relaxed increments). Where 64-bit atomics are not
// lock-free (32-bit ARM before armv7, Cortex-M, some 32-bit MIPS), that calls libatomic: link with
// -latomic there. Under PREEMPT_NO_THREADS nothing else can touch a counter, so it is a plain
// integer with the two members the metrics use (fetch_add, load), and no atomic is used at all.
//
// No allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_METRIC_COUNTER_HPP
#define PREEMPT_DETAIL_METRIC_COUNTER_HPP

#include <atomic>
#include <cstdint>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

#if defined(PREEMPT_NO_THREADS)
// A counter with std::atomic's interface for the members the metrics use, without atomics.
class metric_counter {
 public:
  constexpr metric_counter(std::uint64_t v = 0) noexcept : v_(v) {}
  std::uint64_t fetch_add(std::uint64_t d, std::memory_order) noexcept {
    const std::uint64_t old = v_;
    v_ += d;
    return old;
  }
  std::uint64_t load(std::memory_order) const noexcept { return v_; }

 private:
  std::uint64_t v_;
};
#else
using metric_counter = std::atomic<std::uint64_t>;
#endif

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_METRIC_COUNTER_HPP
