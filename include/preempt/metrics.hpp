// preempt/metrics.hpp - upstream's preemption metrics, ready to plug into the observer hooks.
//
// `metrics` keeps the counters kube-scheduler exports (pkg/scheduler/metrics):
//   attempts            scheduler_preemption_attempts_total (every evaluation)
//   victims histogram   scheduler_preemption_victims (buckets 1, 2, 4, ..., 64, then +Inf)
//   async executions    scheduler_preemption_goroutines_execution_total{result}
//   async durations     scheduler_preemption_goroutines_duration_seconds{result}
//                       (buckets 0.01 s · 2^k for k = 0..19, then +Inf)
// and, beyond upstream, for the opt-in policies (no upstream metric to match):
//   budget refusals     decisions without a candidate because the hard_budgets policy rejected
//                       every node that would have been one (preempt/policy_options.hpp)
//   throttle holds      nominations throttled_apply held back under an eviction_throttle
//                       (preempt/throttled_dispatch.hpp): the preemptor waits, nothing evicted
// Unlike upstream, the duration and result are those of the finished work: upstream's goroutine
// records them in a deferred call whose arguments Go evaluates when the defer is declared, so it
// reports "success" and about 0 s whatever happens.
// `metrics_hooks{&m}` forwards the evaluator observer and dispatcher hook calls to `m`
// (on_refused_by_budgets from the evaluator, on_throttled from throttled_apply); derive from it to
// add reactivate() and nominations_cleared().
//
// Allocation: none. Thread-safe: relaxed atomic counters; a snapshot may mix concurrent updates.
// The counters are 64-bit. Where 64-bit atomics are not lock-free (32-bit ARM before armv7,
// Cortex-M, some 32-bit MIPS), std::atomic<std::uint64_t> calls libatomic: link with -latomic
// there. Under PREEMPT_NO_THREADS the counters are plain integers (nothing else can touch them),
// so no atomic is used at all.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_METRICS_HPP
#define PREEMPT_METRICS_HPP

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "preempt/config.hpp"
#include "preempt/detail/metric_counter.hpp"

PREEMPT_NAMESPACE_BEGIN

class metrics {
 public:
  static constexpr std::size_t victim_buckets = 8;     // <=1, <=2, ..., <=64, +Inf
  static constexpr std::size_t duration_buckets = 21;  // <=0.01 s · 2^k, k = 0..19, +Inf

  void record_attempt() noexcept { attempts_.fetch_add(1, std::memory_order_relaxed); }

  void record_victims(std::size_t victims) noexcept {
    std::size_t bucket = 0;
    for (std::size_t bound = 1; bucket + 1 < victim_buckets && victims > bound; bound *= 2)
      ++bucket;
    victims_[bucket].fetch_add(1, std::memory_order_relaxed);
  }

  void record_async(bool success, std::chrono::nanoseconds elapsed) noexcept {
    const std::size_t r = success ? 0 : 1;
    executions_[r].fetch_add(1, std::memory_order_relaxed);
    const double seconds = std::chrono::duration<double>(elapsed).count();
    std::size_t bucket = 0;
    for (double bound = 0.01; bucket + 1 < duration_buckets && seconds > bound; bound *= 2)
      ++bucket;
    durations_[r][bucket].fetch_add(1, std::memory_order_relaxed);
    duration_sum_ns_[r].fetch_add(static_cast<std::uint64_t>(elapsed.count()),
                                  std::memory_order_relaxed);
  }

  void record_budget_refusal() noexcept {
    budget_refusals_.fetch_add(1, std::memory_order_relaxed);
  }
  void record_throttle_hold() noexcept { throttle_holds_.fetch_add(1, std::memory_order_relaxed); }

  std::uint64_t attempts() const noexcept { return attempts_.load(std::memory_order_relaxed); }
  std::uint64_t budget_refusals() const noexcept {
    return budget_refusals_.load(std::memory_order_relaxed);
  }
  std::uint64_t throttle_holds() const noexcept {
    return throttle_holds_.load(std::memory_order_relaxed);
  }
  std::uint64_t victims_bucket(std::size_t b) const noexcept {
    return victims_[b].load(std::memory_order_relaxed);
  }
  std::uint64_t preemptions() const noexcept {
    std::uint64_t n = 0;
    for (const auto& b : victims_) n += b.load(std::memory_order_relaxed);
    return n;
  }
  std::uint64_t async_executions(bool success) const noexcept {
    return executions_[success ? 0 : 1].load(std::memory_order_relaxed);
  }
  std::uint64_t async_duration_bucket(bool success, std::size_t b) const noexcept {
    return durations_[success ? 0 : 1][b].load(std::memory_order_relaxed);
  }
  std::chrono::nanoseconds async_duration_sum(bool success) const noexcept {
    return std::chrono::nanoseconds(static_cast<std::int64_t>(
        duration_sum_ns_[success ? 0 : 1].load(std::memory_order_relaxed)));
  }

 private:
  detail::metric_counter attempts_{0};
  detail::metric_counter budget_refusals_{0};
  detail::metric_counter throttle_holds_{0};
  std::array<detail::metric_counter, victim_buckets> victims_{};
  std::array<detail::metric_counter, 2> executions_{};
  std::array<std::array<detail::metric_counter, duration_buckets>, 2> durations_{};
  std::array<detail::metric_counter, 2> duration_sum_ns_{};
};

// Observer and dispatcher hooks that feed a `metrics`.
struct metrics_hooks {
  metrics* sink = nullptr;

  template <class P>
  void on_attempt_started(const P&) const noexcept {
    sink->record_attempt();
  }
  template <class P>
  void on_preemption_dispatched(const P&, std::size_t victims) const noexcept {
    sink->record_victims(victims);
  }
  template <class P>
  void on_refused_by_budgets(const P&) const noexcept {
    sink->record_budget_refusal();
  }
  template <class P>
  void on_throttled(const P&) const noexcept {
    sink->record_throttle_hold();
  }
  template <class P, class Duration>
  void on_async_finished(const P&, bool success, Duration elapsed) const noexcept {
    sink->record_async(success, std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed));
  }
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_METRICS_HPP
