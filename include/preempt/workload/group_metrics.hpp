// preempt/workload/group_metrics.hpp - kube-scheduler's workload-preemption metrics, under the
// names of upstream's code (pkg/scheduler/metrics; the KEP's scheduler_podgroup_preemption_* names
// do not exist there).
//
// `workload_metrics` keeps:
//   attempts(code)          scheduler_workload_preemption_attempts_total{result}: one per pod-group
//                           preemption (PodGroupPostFilter), by final status code
//   evaluations(code, b)    scheduler_preemption_evaluation_duration_seconds{preemptor="podgroup",
//                           result}: one per victim search (buckets 0.001 s · 2^k, k = 0..15, +Inf;
//                           upstream labels a CompositePodGroup's search "podgroup" too)
//   victims_bucket(b)       scheduler_workload_preemption_victims: victims per actuation (buckets
//                           1, 2, 4, ..., 1024, +Inf); pod-group preemptions do not feed
//                           scheduler_preemption_victims
//   disruptions(kind, b)    scheduler_preemption_workload_disruptions{preemptor}: evicted units
//   that
//                           are pod groups, per actuation, observed only when > 0
//   pdb_violations(kind)    scheduler_preemption_pdb_violations_total{preemptor}
//   executions(kind, ok)    scheduler_preemption_execution_duration_seconds{preemptor,result} count
//                           (result "success" or "error")
// `kind` is the preemptor label: pod_group ("podgroup") or composite_pod_group
// ("compositepodgroup"). preempt/workload/group_dispatch.hpp records them all when given a
// workload_metrics; workload_metrics_hooks records the asynchronous executions from a dispatcher.
//
// Allocation: none. Thread-safe: relaxed atomic counters; a snapshot may mix concurrent updates.
// The counters are preempt::detail::metric_counter: 64-bit atomics (libatomic where they are not
// lock-free), plain integers under PREEMPT_NO_THREADS.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WORKLOAD_GROUP_METRICS_HPP
#define PREEMPT_WORKLOAD_GROUP_METRICS_HPP

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "preempt/config.hpp"
#include "preempt/detail/metric_counter.hpp"
#include "preempt/status.hpp"
#include "preempt/workload/victim_unit.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace workload {

class workload_metrics {
 public:
  static constexpr std::size_t count_buckets = 12;     // <=1, <=2, ..., <=1024, +Inf
  static constexpr std::size_t duration_buckets = 17;  // <=0.001 s · 2^k, k = 0..15, +Inf

  void record_attempt(status_code result) noexcept {
    attempts_[code_index(result)].fetch_add(1, std::memory_order_relaxed);
  }
  void record_evaluation(status_code result, std::chrono::nanoseconds elapsed) noexcept {
    evaluations_[code_index(result)][duration_bucket(elapsed)].fetch_add(1,
                                                                         std::memory_order_relaxed);
  }
  // upstream's observeVictims for a pod-group preemptor.
  void record_victims(unit_kind preemptor, std::size_t victims, std::size_t disruptions,
                      std::int64_t pdb_violations) noexcept {
    victims_[count_bucket(victims)].fetch_add(1, std::memory_order_relaxed);
    if (disruptions > 0)
      disruptions_[kind_index(preemptor)][count_bucket(disruptions)].fetch_add(
          1, std::memory_order_relaxed);
    if (pdb_violations > 0)
      pdb_violations_[kind_index(preemptor)].fetch_add(static_cast<std::uint64_t>(pdb_violations),
                                                       std::memory_order_relaxed);
  }
  void record_execution(unit_kind preemptor, bool success, std::chrono::nanoseconds) noexcept {
    executions_[kind_index(preemptor)][success ? 0 : 1].fetch_add(1, std::memory_order_relaxed);
  }

  std::uint64_t attempts(status_code result) const noexcept {
    return attempts_[code_index(result)].load(std::memory_order_relaxed);
  }
  std::uint64_t evaluations(status_code result) const noexcept {
    std::uint64_t n = 0;
    for (const auto& b : evaluations_[code_index(result)]) n += b.load(std::memory_order_relaxed);
    return n;
  }
  std::uint64_t evaluations_bucket(status_code result, std::size_t b) const noexcept {
    return evaluations_[code_index(result)][b].load(std::memory_order_relaxed);
  }
  std::uint64_t victims_bucket(std::size_t b) const noexcept {
    return victims_[b].load(std::memory_order_relaxed);
  }
  std::uint64_t actuations() const noexcept {
    std::uint64_t n = 0;
    for (const auto& b : victims_) n += b.load(std::memory_order_relaxed);
    return n;
  }
  std::uint64_t disruptions_bucket(unit_kind preemptor, std::size_t b) const noexcept {
    return disruptions_[kind_index(preemptor)][b].load(std::memory_order_relaxed);
  }
  std::uint64_t pdb_violations(unit_kind preemptor) const noexcept {
    return pdb_violations_[kind_index(preemptor)].load(std::memory_order_relaxed);
  }
  std::uint64_t executions(unit_kind preemptor, bool success) const noexcept {
    return executions_[kind_index(preemptor)][success ? 0 : 1].load(std::memory_order_relaxed);
  }

  // The bucket of a count: <=1, <=2, <=4, ..., <=1024, +Inf.
  static constexpr std::size_t count_bucket(std::size_t n) noexcept {
    std::size_t bucket = 0;
    for (std::size_t bound = 1; bucket + 1 < count_buckets && n > bound; bound *= 2) ++bucket;
    return bucket;
  }
  static constexpr std::size_t duration_bucket(std::chrono::nanoseconds elapsed) noexcept {
    const double seconds = std::chrono::duration<double>(elapsed).count();
    std::size_t bucket = 0;
    for (double bound = 0.001; bucket + 1 < duration_buckets && seconds > bound; bound *= 2)
      ++bucket;
    return bucket;
  }

 private:
  static constexpr std::size_t code_index(status_code c) noexcept {
    return static_cast<std::size_t>(c) & 3u;
  }
  static constexpr std::size_t kind_index(unit_kind k) noexcept {
    return k == unit_kind::composite_pod_group ? 1 : 0;
  }

  std::array<detail::metric_counter, 4> attempts_{};
  std::array<std::array<detail::metric_counter, duration_buckets>, 4> evaluations_{};
  std::array<detail::metric_counter, count_buckets> victims_{};
  std::array<std::array<detail::metric_counter, count_buckets>, 2> disruptions_{};
  std::array<detail::metric_counter, 2> pdb_violations_{};
  std::array<std::array<detail::metric_counter, 2>, 2> executions_{};
};

// Dispatcher hooks that record a pod group's asynchronous execution (derive to add reactivate).
struct workload_metrics_hooks {
  workload_metrics* sink = nullptr;
  unit_kind preemptor_kind = unit_kind::pod_group;

  template <class P, class Duration>
  void on_async_finished(const P&, bool success, Duration elapsed) const noexcept {
    sink->record_execution(preemptor_kind, success,
                           std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed));
  }
};

}  // namespace workload
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_WORKLOAD_GROUP_METRICS_HPP
