// preempt/detail/parallel_dry_run.hpp - the evaluator's parallel dry run: nodes evaluated ahead
// in batches by the calling thread and helpers lent to the executor, merged in candidate order.
//
// parallel_dry_run<P>::run(n, host, ex) evaluates the n potential nodes in batches. A batch's
// nodes are claimed by the workers (the calling thread is worker 0; helpers come from a
// detail::helper_crew, so an executor that runs them late or never cannot stall the evaluation);
// each result goes to the item's slot, its victims to the evaluating worker's arena (the merge
// records where they are: the calling thread copies no victim). Only the prefix a sequential
// evaluation would have reached is kept, so every executor and parallelism gives the same
// decision, node statuses included.
//
// The host (the evaluator) provides, for the evaluation's `inputs`:
//   host.next_batch_size(previous)    nodes in the next batch
//   host.begin_batch()                before a batch's nodes are evaluated (the bound's snapshot)
//   host.evaluate_item(k, worker, result, inputs)  evaluates the k-th potential node into `result`
//   host.merge_item(k, result) -> bool  folds the k-th node into the candidate lists (true: stop)
// Merge while evaluating (MergesWhileEvaluating, without an observer of every node): the calling
// thread merges the results that are ready from the cursor on at the end of each of its claims,
// and the rest after the batch. A helper only publishes its result (one release store per item):
// the workers share no flag they both write per node, and the cursor, written per merged item, is
// on a line of its own. With an observer of every node, the batch is merged after it is evaluated,
// so that the observer runs on the calling thread.
//
// Complexity: O(items / grain) claims per batch plus the nodes' own cost. Allocation: the slots
// and ready flags grow to the largest batch seen. No exceptions. Thread-safety: one run at a time.
// Not available under PREEMPT_NO_THREADS (the evaluator then runs inline only).
//
// worth_handing_out(...) is the evaluator's rule for calling the helpers at all.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_PARALLEL_DRY_RUN_HPP
#define PREEMPT_DETAIL_PARALLEL_DRY_RUN_HPP

#include "preempt/config.hpp"

#if !defined(PREEMPT_NO_THREADS)

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <ranges>
#include <thread>
#include <vector>

#include "preempt/candidate_choice.hpp"
#include "preempt/detail/cache_line.hpp"
#include "preempt/detail/candidate_lists.hpp"
#include "preempt/detail/helper_crew.hpp"
#include "preempt/node.hpp"
#include "preempt/status.hpp"
#include "preempt/victim_selection.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

// One node's result in a parallel batch. The selection is constructed in place (its status
// written once, where it is read); its victims are in the arena of the worker that evaluated it
// (`victims`; the selection's own span is stale once that worker moved on).
template <class P>
struct item_result {
  victim_selection<P> selection;
  victims_at victims{};
  default_scores::vector scores{};
  bool bounded = false;  // a candidate whose victims were not selected (branch and bound)

  const status& outcome() const noexcept { return selection.outcome; }
  std::int64_t violations() const noexcept { return selection.pdb_violations; }
};

// Nodes in the next parallel batch. The dry run stops only once the two lists hold `wanted`
// candidates, and each node adds at most one, so the next (wanted - held) nodes are all read by a
// sequential evaluation as well: a batch of that many wastes nothing, however large. Beyond that
// (or when the lists are full but hold no candidate without violations) a batch is workers * chunk
// nodes, the evaluation ahead of the sequential stop that `chunk` allows. Branch and bound
// (`bounding`) bounds a batch against the batches before it, so its batches start at
// workers * chunk and double. `max_batch` caps the results a batch holds at once.
constexpr std::size_t next_batch_size(std::size_t previous, std::size_t workers, std::size_t chunk,
                                      std::size_t max_batch, std::size_t held, std::size_t wanted,
                                      bool bounding) noexcept {
  const std::size_t ahead = workers * chunk;
  const std::size_t safe = held < wanted ? wanted - held : 0;
  std::size_t size = std::max(ahead, std::min(safe, max_batch));
  if (bounding) size = std::min(size, std::max(ahead, 2 * previous));
  return size;
}

// Pods on a node, counted by the range's size where it knows it.
template <class R>
std::size_t pod_count(R&& pods) {
  if constexpr (std::ranges::sized_range<R>) {
    return static_cast<std::size_t>(std::ranges::size(pods));
  } else {  // counted (libc++ 14 has no std::ranges::distance)
    std::size_t n = 0;
    for (auto it = std::ranges::begin(pods); it != std::ranges::end(pods); ++it) ++n;
    return n;
  }
}

// The pods on `nodes` potential nodes, estimated from the first ones in candidate order (at most
// pod_sample_nodes of them): the work a dry run over them does is mostly one look at each pod.
inline constexpr std::size_t pod_sample_nodes = 16;
template <class View>
std::size_t estimated_pods(const View& cluster, const potential_nodes& potential,
                           std::size_t nodes) {
  const std::size_t sample = std::min({potential.size(), nodes, pod_sample_nodes});
  if (sample == 0) return 0;
  std::size_t pods = 0;
  for (std::size_t k = 0; k < sample; ++k)
    pods += ::preempt::detail::pod_count(::preempt::pods_of(cluster[potential[k]]));
  return pods / sample * nodes + pods % sample * nodes / sample;
}

// Whether a dry run goes to the helpers: not under the branch and bound (a node it rules out costs
// less than handing it out), and only with enough to select on: the nodes the rejection index
// leaves open (`indexed`, when the dry run goes through it), or every potential node, at most the
// candidates wanted when sampling stops; at least `min_parallel_nodes` of them, or nodes carrying
// at least `min_parallel_pods` pods (`pods_on(nodes)`: estimated, asked only then).
template <class Runs, class PodsOn>
bool worth_handing_out(const Runs* indexed, const potential_nodes& potential, std::size_t wanted,
                       std::size_t min_parallel_nodes, std::size_t min_parallel_pods, bool bounding,
                       const PodsOn& pods_on) {
  if (bounding && min_parallel_nodes > 0) return false;
  std::size_t work = std::min(potential.size(), wanted);
  if (indexed != nullptr) work = std::min(work, indexed->open_nodes(potential, min_parallel_nodes));
  if (work >= min_parallel_nodes) return true;
  return min_parallel_pods > 0 && work > 0 && pods_on(work) >= min_parallel_pods;
}

// The helpers a parallel batch lends at most: within the hardware, one fewer than the threads the
// machine runs at once (the calling thread works too; more threads than that only wait for each
// other, and a batch waits for the slowest); otherwise, or when the machine does not say, no limit.
inline std::size_t hardware_helpers(bool within_hardware) {
  const unsigned threads = within_hardware ? std::thread::hardware_concurrency() : 0;
  return threads == 0 ? static_cast<std::size_t>(-1) : threads - 1;
}

template <class P>
class parallel_dry_run {
 public:
  using result = item_result<P>;

  // `max_helpers`: the helpers a batch lends at most (see hardware_helpers).
  parallel_dry_run(std::size_t workers, std::size_t max_helpers)
      : crew_(std::make_unique<helper_crew>(workers)),
        gate_(std::make_unique<merge_gate>()),
        max_helpers_(max_helpers) {}

  // How many claims of a batch's nodes each worker makes (fewer, larger claims touch the shared
  // counter less; more, smaller ones balance uneven nodes better).
  static constexpr std::size_t claims_per_worker = 16;

  template <bool MergesWhileEvaluating, class Host, class Inputs, class E>
  void run(std::size_t n, Host& host, const Inputs& inputs, const E& ex) {
    const std::size_t workers = crew_->size();
    std::size_t previous = 0;
    for (std::size_t base = 0; base < n;) {
      const std::size_t count = std::min(host.next_batch_size(previous), n - base);
      if (results_.size() < count) results_.resize(count);
      previous = count;
      host.begin_batch();
      const std::size_t grain = std::max<std::size_t>(1, count / (workers * claims_per_worker));
      if constexpr (MergesWhileEvaluating) gate_->start(count, grain);
      batch<MergesWhileEvaluating, Host, Inputs> b{this, &host, &inputs, base};
      if (count == 1) {
        b.evaluate_item(0, 0);
      } else {
        crew_job job;
        job.context = &b;
        job.count = count;
        job.grain = grain;
        job.process = [](crew_job& j, std::size_t item, std::size_t w) noexcept {
          static_cast<batch<MergesWhileEvaluating, Host, Inputs>*>(j.context)->evaluate_item(item,
                                                                                             w);
        };
        crew_->run(job, ex, max_helpers_);
      }
      const bool stop = b.finish(count);
      base += count;
      if (stop) break;
    }
  }

 private:
  // The merge of a parallel batch while it is evaluated: the calling thread (worker 0) merges the
  // items from `cursor` on whose results are ready, in order; helpers publish theirs in `ready`.
  // `cursor` is read and written by the calling thread only, `stopped` written by it only; the
  // cursor, written per merged item, is on a line of its own, away from what helpers read per item.
  struct merge_gate {
    std::unique_ptr<std::atomic<bool>[]> ready;  // per item: its result is in its slot
    std::size_t capacity = 0;
    std::atomic<bool> stopped{false};  // the dry run may stop: later items are not merged
    alignas(cache_line) std::size_t cursor = 0;
    std::size_t count = 0;
    std::size_t grain = 1;  // items per claim (claims start at multiples of it)

    void start(std::size_t items, std::size_t items_per_claim) {
      if (items > capacity) {  // once per largest batch
        ready = std::make_unique<std::atomic<bool>[]>(items);
        capacity = items;
      }
      for (std::size_t i = 0; i < items; ++i) ready[i].store(false, std::memory_order_relaxed);
      stopped.store(false, std::memory_order_relaxed);
      cursor = 0;
      count = items;
      grain = items_per_claim;
    }
    // Whether `item` is the last of its claim: the calling thread merges what is ready then, not
    // after every item (each look at a helper's flags while the helper writes the same cache line
    // takes the line away from it).
    bool ends_claim(std::size_t item) const noexcept {
      return (item + 1) % grain == 0 || item + 1 == count;
    }
  };

  // One batch: the items [base, base + count) of the potential nodes.
  template <bool MergesWhileEvaluating, class Host, class Inputs>
  struct batch {
    parallel_dry_run* self;
    Host* host;
    const Inputs* inputs;
    std::size_t base;

    // Evaluates item `item` on worker `w`. With MergesWhileEvaluating, on the calling thread
    // (worker 0) a result that is next in candidate order is merged right away, and at the end of
    // each of its claims whatever the helpers made ready after it; a helper's result is marked
    // ready for the calling thread to merge, during the batch or after it.
    void evaluate_item(std::size_t item, std::size_t w) {
      result& out = self->results_[item];
      merge_gate& g = *self->gate_;
      if constexpr (MergesWhileEvaluating)
        if (g.stopped.load(std::memory_order_relaxed)) return;  // past the stop: discarded
      host->evaluate_item(base + item, w, out, *inputs);
      if constexpr (MergesWhileEvaluating) {
        if (w == 0 && g.cursor == item && !g.stopped.load(std::memory_order_relaxed)) {
          if (host->merge_item(base + g.cursor, out))
            g.stopped.store(true, std::memory_order_relaxed);
          ++g.cursor;
          if (g.ends_claim(item)) merge_ready_items();
          return;
        }
        g.ready[item].store(true, std::memory_order_release);
        if (w == 0 && g.ends_claim(item)) merge_ready_items();
      }
    }

    // Merges the batch's items from the cursor on, in order, while their results are in their
    // slots. Called on the calling thread only (worker 0, during the batch or after it).
    void merge_ready_items() {
      merge_gate& g = *self->gate_;
      while (g.cursor < g.count && !g.stopped.load(std::memory_order_relaxed) &&
             g.ready[g.cursor].load(std::memory_order_acquire)) {
        if (host->merge_item(base + g.cursor, self->results_[g.cursor]))
          g.stopped.store(true, std::memory_order_relaxed);
        ++g.cursor;
      }
    }

    // Merges what the workers left of the batch; true when the dry run may stop.
    bool finish(std::size_t count) {
      if constexpr (MergesWhileEvaluating) {
        merge_ready_items();  // every worker is done: the rest is ready
        return self->gate_->stopped.load(std::memory_order_relaxed);
      } else {
        for (std::size_t i = 0; i < count; ++i)
          if (host->merge_item(base + i, self->results_[i])) return true;
        return false;
      }
    }
  };

  std::unique_ptr<helper_crew> crew_;  // its helpers point at it: it never moves
  std::unique_ptr<merge_gate> gate_;
  std::size_t max_helpers_;
  std::vector<result> results_;
};

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // !PREEMPT_NO_THREADS
#endif  // PREEMPT_DETAIL_PARALLEL_DRY_RUN_HPP
