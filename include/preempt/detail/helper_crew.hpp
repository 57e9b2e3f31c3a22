// preempt/detail/helper_crew.hpp - lending helpers to an executor for one batch of work, safely.
//
// helper_crew(workers) owns `workers - 1` helpers. run(job, ex[, max_helpers]) processes every item
// of `job`:
// the calling thread is worker 0 and takes items itself; helper w (1 <= w < workers, and
// w < job.count) is handed to `ex` as a task_ref that, when it runs, takes items too as worker
// w. Items are claimed `job.grain` at a time through one atomic counter, so each runs exactly
// once, on whichever worker claims it first. run returns when every item is done and no helper
// still looks at the job.
//
// The protocol that keeps it safe with any executor:
//   - the calling thread never waits for a helper that has not started: a helper that runs late
//     (a manual queue drained afterwards) or never (a saturated pool) finds no job, or a job
//     whose items are all claimed, and only marks itself free again;
//   - a helper registers as active before it reads the current job, so after clearing the job
//     the owner waits only for helpers that may still touch it;
//   - a helper still queued from an earlier run is not queued again;
//   - an executor whose execute throws (it cannot take the work) leaves the items to the caller;
//   - the destructor waits until every queued helper has run: drain a manual executor before
//     destroying the crew. A helper marks itself free under the crew's lock, so the destructor,
//     which waits under the same lock, cannot free the crew while a helper still touches it.
//
// Complexity: O(items / grain) claims plus one execute per helper per run. Allocation: the helpers,
// once, in the constructor. Exceptions: none escape (run is noexcept). Thread-safety: one run at a
// time per crew; the job's `process` is called concurrently from the workers.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_HELPER_CREW_HPP
#define PREEMPT_DETAIL_HELPER_CREW_HPP

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>

#include "preempt/config.hpp"
#include "preempt/executor.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

// A batch of `count` items shared by the calling thread and the helpers: process(job, item,
// worker) is called once per item, `context` is the caller's.
struct crew_job {
  void (*process)(crew_job&, std::size_t item, std::size_t worker) noexcept = nullptr;
  void* context = nullptr;
  std::size_t count = 0;
  std::size_t grain = 1;  // items per claim (at least 1)
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};

  // Claims `grain` items at a time and processes them until none is left.
  void run_items(std::size_t worker) noexcept {
    const std::size_t step = grain == 0 ? 1 : grain;
    for (;;) {
      const std::size_t first = next.fetch_add(step, std::memory_order_relaxed);
      if (first >= count) return;
      const std::size_t last = first + step < count ? first + step : count;
      for (std::size_t i = first; i < last; ++i) process(*this, i, worker);
      const std::size_t claimed = last - first;
      if (done.fetch_add(claimed, std::memory_order_acq_rel) + claimed == count) done.notify_all();
    }
  }
};

class helper_crew {
 public:
  explicit helper_crew(std::size_t workers)
      : helpers_(std::make_unique<helper[]>(workers)), size_(workers) {
    for (std::size_t w = 0; w < workers; ++w) {
      helpers_[w].crew = this;
      helpers_[w].worker = w;
    }
  }
  helper_crew(const helper_crew&) = delete;
  helper_crew& operator=(const helper_crew&) = delete;
  ~helper_crew() {
    for (std::size_t w = 1; w < size_; ++w) {
      std::unique_lock lock(idle_mutex_);
      idle_.wait(lock, [&] { return !helpers_[w].queued.load(std::memory_order_acquire); });
    }
  }

  // Workers, the calling thread included.
  std::size_t size() const noexcept { return size_; }

  // Runs every item of `job` with the calling thread as worker 0 and helpers 1..size-1 on `ex`
  // (at most `max_helpers` of them).
  template <class E>
  void run(crew_job& job, const E& ex,
           std::size_t max_helpers = static_cast<std::size_t>(-1)) noexcept {
    job_.store(&job, std::memory_order_seq_cst);
    for (std::size_t w = 1; w < size_ && w < job.count && w <= max_helpers; ++w) lend(w, ex);
    job.run_items(0);
    for (std::size_t d = job.done.load(std::memory_order_acquire); d < job.count;
         d = job.done.load(std::memory_order_acquire))
      job.done.wait(d, std::memory_order_acquire);
    job_.store(nullptr, std::memory_order_seq_cst);
    for (std::size_t a = active_.load(std::memory_order_seq_cst); a != 0;
         a = active_.load(std::memory_order_seq_cst))
      active_.wait(a, std::memory_order_seq_cst);
  }

 private:
  struct helper {
    helper_crew* crew = nullptr;
    std::size_t worker = 0;
    std::atomic<bool> queued{false};

    void run() noexcept { crew->help(*this); }
  };

  template <class E>
  void lend(std::size_t w, const E& ex) noexcept {
    if (helpers_[w].queued.exchange(true, std::memory_order_acq_rel)) return;  // still queued
#if PREEMPT_HAS_EXCEPTIONS
    try {
      ex.execute(task_ref::to_member_run(helpers_[w]));
    } catch (...) {  // the executor refused: the calling thread does the work
      release(helpers_[w]);
    }
#else
    ex.execute(task_ref::to_member_run(helpers_[w]));
#endif
  }

  void help(helper& h) noexcept {
    active_.fetch_add(1, std::memory_order_seq_cst);
    if (crew_job* job = job_.load(std::memory_order_seq_cst)) job->run_items(h.worker);
    if (active_.fetch_sub(1, std::memory_order_seq_cst) == 1) active_.notify_all();
    release(h);  // last touch of the crew
  }

  // Marks a helper free again. Notified under the lock: the destructor, which waits under the
  // same lock, cannot free the crew while this thread still touches it.
  void release(helper& h) noexcept {
    std::lock_guard lock(idle_mutex_);
    h.queued.store(false, std::memory_order_release);
    idle_.notify_all();
  }

  std::unique_ptr<helper[]> helpers_;
  std::size_t size_ = 0;
  std::atomic<crew_job*> job_{nullptr};
  std::atomic<std::size_t> active_{0};
  std::mutex idle_mutex_;
  std::condition_variable idle_;
};

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_HELPER_CREW_HPP
