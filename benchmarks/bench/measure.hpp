// benchmarks/bench/measure.hpp - timing and the counters every benchmark reports.
//
//   ns_per_pod     time of one decision / pods the decision read (the nodes it evaluated)
//   x_plain_scan   that time / the time of plain_scan over the same pods (fixtures.hpp), measured
//                  in the same binary right before the benchmark: how far from the physical limit
//   x_reference    the naive reference's time on the same fixture / the library's: the speed-up
//                  (the reference is timed once per fixture and cached; slow fixtures get as few as
//                  one timed run)
//   allocs_per_op  global operator new calls per decision in the timed loop, after a warm-up
//
// Includes the counting operator new (tests/support/counting_new.hpp): include this header from
// exactly one translation unit per executable, which every benchmarks/*.bench.cpp is.
//
// Times are the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID) for single-threaded work: on a
// shared machine it is much steadier than wall time (another process's load inflates wall time,
// not our CPU time). Multi-threaded runs (thread-pool executors) must use wall time, since the
// helpers' work is on other threads: they pass timer::wall and are sensitive to the load. Prefer
// the ratios, which are measured side by side.
#ifndef PREEMPT_BENCHMARKS_BENCH_MEASURE_HPP
#define PREEMPT_BENCHMARKS_BENCH_MEASURE_HPP

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include <time.h>

#include "support/counting_new.hpp"

namespace bench {

// Brief runs measure the side quantities briefly and skip the reference where it would take long;
// their numbers mean nothing. A run is brief in unoptimized builds (no NDEBUG) and in the smoke
// runs of ctest (every benchmark once with --benchmark_min_time=0.01, PREEMPT_BENCH_SMOKE=1 in the
// environment: see benchmarks/CMakeLists.txt).
#ifdef NDEBUG
inline constexpr bool optimized_build = true;
#else
inline constexpr bool optimized_build = false;
#endif
inline bool brief_run() {
  static const bool brief = !optimized_build || std::getenv("PREEMPT_BENCH_SMOKE") != nullptr;
  return brief;
}
inline double side_time_scale() { return brief_run() ? 0.1 : 1.0; }
// Above this many elementary steps (fixture-specific estimate), a brief run does not run the
// reference (x_reference is then NaN).
inline constexpr double brief_reference_limit = 5e6;

enum class timer { thread_cpu, wall };

// Now, in nanoseconds, on the given timer.
inline double now_ns(timer t) {
  if (t == timer::wall)
    return std::chrono::duration<double, std::nano>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// Nanoseconds per call of `f`, calling it until `min_seconds` have passed (at most `max_calls`
// times). Calls come in doubling batches between two clock reads: reading the thread CPU clock is
// a system call (~0.3-1 us), which must not be charged to a call of a few nanoseconds. Median of
// three such rounds when each round is short.
template <class F>
double time_ns(F&& f, double min_seconds = 0.05, timer t = timer::thread_cpu,
               std::size_t max_calls = 100'000'000) {
  min_seconds *= side_time_scale();
  const auto round = [&] {
    std::size_t calls = 0, batch = 1;
    const double start = now_ns(t);
    double ns = 0;
    for (;;) {
      for (std::size_t i = 0; i < batch; ++i) f();
      calls += batch;
      ns = now_ns(t) - start;
      if (ns >= min_seconds * 1e9 || calls >= max_calls) break;
      batch = std::min(batch * 2, max_calls - calls);
    }
    return ns / static_cast<double>(calls);
  };
  const double first = round();
  if (first * 3 > min_seconds * 1e9) return first;  // slow: one round is enough
  double r[3] = {first, round(), round()};
  std::sort(r, r + 3);
  return r[1];
}

// Plain-scan time per pod for `scan()` reading `pods` pods.
template <class Scan>
double plain_scan_ns_per_pod(Scan&& scan, std::size_t pods) {
  // DoNotOptimize on a local only: with benchmark 1.7.1 and g++ 12, DoNotOptimize on a variable
  // captured by reference can lose the write (seen in victim_selection.bench.cpp).
  const double ns = time_ns([&] {
    std::int64_t sum = scan();
    benchmark::DoNotOptimize(sum);
    benchmark::ClobberMemory();
  });
  return ns / static_cast<double>(std::max<std::size_t>(pods, 1));
}

// The reference's ns per decision, measured once per `key` for the whole run. `work` estimates
// the reference's elementary steps (see brief_reference_limit).
template <class F>
double reference_ns(const std::string& key, F&& f, double work = 0) {
  static std::map<std::string, double> cache;
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const double ns = brief_run() && work > brief_reference_limit
                        ? std::numeric_limits<double>::quiet_NaN()
                        : time_ns(std::forward<F>(f), 0.2);
  cache.emplace(key, ns);
  return ns;
}

// Runs the timed loop of `state` over `body`; returns ns per iteration (on timer `t`) and sets
// allocs_per_op (operator new calls per iteration).
template <class Body>
double timed_loop(benchmark::State& state, Body&& body, timer t = timer::thread_cpu) {
  const std::size_t allocs_before = counting::count();
  const double start = now_ns(t);
  for (auto _ : state) body();
  const double ns = now_ns(t) - start;
  const auto iterations =
      static_cast<double>(std::max<benchmark::IterationCount>(state.iterations(), 1));
  state.counters["allocs_per_op"] =
      static_cast<double>(counting::count() - allocs_before) / iterations;
  return ns / iterations;
}

// The common counters.
inline void report(benchmark::State& state, double ns_per_op, std::size_t pods_read,
                   double scan_ns_per_pod, double ref_ns_per_op) {
  const double per_pod = ns_per_op / static_cast<double>(std::max<std::size_t>(pods_read, 1));
  state.counters["ns_per_pod"] = per_pod;
  state.counters["x_plain_scan"] = per_pod / scan_ns_per_pod;
  state.counters["x_reference"] = ref_ns_per_op / ns_per_op;
  state.counters["us_per_op"] = ns_per_op / 1e3;
  state.counters["ref_us_per_op"] = ref_ns_per_op / 1e3;
  state.counters["pods_read"] = static_cast<double>(pods_read);
}

}  // namespace bench

#endif  // PREEMPT_BENCHMARKS_BENCH_MEASURE_HPP
