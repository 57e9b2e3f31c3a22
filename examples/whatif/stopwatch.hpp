// examples/whatif/stopwatch.hpp - wall-clock and processor time since construction, for
// preempt-whatif's --timings and its benchmarks.
//
// Processor time (std::clock) is insensitive to other load on the machine; both are cheap to
// read. No allocation, no exceptions; not synchronized.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_STOPWATCH_HPP
#define PREEMPT_WHATIF_STOPWATCH_HPP

#include <algorithm>
#include <chrono>
#include <ctime>

namespace whatif {

struct stopwatch {
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  std::clock_t cpu = std::clock();

  double wall_seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
  }
  double cpu_seconds() const { return static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC; }
};

// The best (smallest) of several runs, in processor and wall time.
struct best_time {
  double cpu = 1e100;
  double wall = 1e100;

  // Runs `run` `repeat` times; `check` keeps its last result (so the work is not optimized away).
  template <class F, class R>
  static best_time of(int repeat, F&& run, R& check) {
    best_time best;
    for (int i = 0; i < repeat; ++i) {
      const stopwatch clock;
      check = run();
      best.cpu = std::min(best.cpu, clock.cpu_seconds());
      best.wall = std::min(best.wall, clock.wall_seconds());
    }
    return best;
  }
};

}  // namespace whatif

#endif  // PREEMPT_WHATIF_STOPWATCH_HPP
