// preempt/dispatcher.hpp - carrying out a preemption decision: nominations, evictions inline or
// in the background (KEP-4832 asynchronous preemption: upstream's prepareCandidate and
// prepareCandidateAsync).
//
// dispatcher::apply(preemptor, decision) acts on an evaluator decision:
//   - nominated: the evictions run, inline or async depending on the executor (below);
//   - unschedulable with clear_nomination: the preemptor's nomination is removed;
//   - not eligible, error, or unschedulable without clear_nomination: nothing (the nomination is
//     kept, as upstream's nil result).
//
// Inline dispatch (an always-inline executor; upstream's prepareCandidate): victims already
// terminating, or being evicted by an async dispatcher sharing the in-flight table, are skipped,
// the others are evicted one by one, each claimed in the in-flight table only while its eviction
// runs (nothing of an inline dispatch stays in the table: its size is bounded by the async work
// in flight, not by the number of evictions ever made); the first failure stops the rest and
// the attempt fails with its message (the preemptor is not nominated). On success the nominations
// of strictly lower-priority pods on the node are cleared (hooks.nominations_cleared tells the
// caller which), and the preemptor is nominated to the node.
//
// Async dispatch (any other executor; prepareCandidateAsync, in upstream order). Before apply
// returns: victims already terminating, or whose eviction another preemption already dispatched
// (the in-flight victim ledger, beyond upstream), are skipped; if none is left nothing starts at
// all; otherwise the preemptor is nominated and marked in flight. Then in the background: clear the
// lower-priority nominations; evict all victims but the last in parallel through the executor; if
// any failed, skip the last; else record the last victim as pending and evict it; leave the
// in-flight set.
//
// The wake-up rule (beyond upstream #141694): when the background work completes, the preemptor
// is re-activated (hooks.reactivate) unless the API accepted the deletion of the last victim. In
// that case the victim's deletion is still to come; when the caller sees it, it reports it
// (in_flight_table::report_victim), the gate opens and the deletion event wakes the preemptor.
// Every other ending — a failure, a skipped last victim, a last victim already gone — has no
// event left to wait for, so the dispatcher wakes the preemptor itself. Hence no preemptor is ever
// gated without a future wake-up.
//
// The same holds for a preemptor that starts nothing because every victim it chose is already
// being evicted for another preemption (the in-flight victim ledger skipped them): it follows
// those evictions, and if any of them fails or finds its victim already gone, it is re-activated
// once they are all over; when they are all accepted, their deletions wake it.
//
// preempt_cluster_wide(group, victims) carries out a pod group's preemption (upstream's
// actuatePodGroupPreemption, candidate "cluster"): the same evictions, inline or async, with the
// in-flight gate keyed by `group` (a P standing for the PodGroup: its uid, the group's priority),
// but no node: nobody is nominated and no nomination is cleared (the group's members are
// nominated by the caller, preempt/workload/group_dispatch.hpp), and on_preemption_dispatched is
// not called (a group's victims are counted by the workload metrics instead, as upstream).
//
// The hooks object may have (each optional, except reactivate for async executors):
//   reactivate(preemptor)                        move the preemptor back to the active queue
//   nominations_cleared(node, uids)              these pods lost their nomination: patch them
//                                                (a span of uid copies, never pointers: the
//                                                caller may free a pod once it is not nominated)
//   on_preemption_dispatched(preemptor, victims) metric: victims chosen for one preemption
//   on_async_finished(preemptor, success, duration)  metric: background work and its result
// Hooks and the eviction client are called from executor threads in async mode.
//
// Lifetime: the dispatcher copies the preemptor and victims it needs (P must be copyable), so the
// caller's cluster may change while evictions run. It must outlive its background work: the
// destructor waits for it (drain a manual executor first).
// Allocation: none per preemption once reserve(preemptions, victims) covers the load (jobs are
// pooled). Exceptions: none of its own; if the executor throws, the bookkeeping is rolled back
// and apply reports an error. Thread-safety: apply from one thread at a time; the queries and
// report calls from any thread.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DISPATCHER_HPP
#define PREEMPT_DISPATCHER_HPP

#include <algorithm>
#include <atomic>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/decision.hpp"
#include "preempt/detail/lock.hpp"
#include "preempt/eviction.hpp"
#include "preempt/executor.hpp"
#include "preempt/in_flight.hpp"
#include "preempt/nomination_ledger.hpp"
#include "preempt/pod.hpp"
#include "preempt/status.hpp"

#if !defined(PREEMPT_NO_THREADS)
#include <condition_variable>
#include <mutex>
#endif

PREEMPT_NAMESPACE_BEGIN

struct no_dispatch_hooks {};

// What apply did.
struct dispatch_result {
  // ok, or the eviction failure of an inline dispatch.
  status outcome;
  // Whether background work was started (async dispatch only).
  bool started = false;
  // Evictions performed inline, or handed to the background.
  std::size_t evictions = 0;
  // Victims skipped: already terminating, or already being evicted for another preemption.
  std::size_t skipped = 0;
  // Nothing started, but the preemptor follows other preemptions' evictions of its victims and
  // will be re-activated if one of them does not end in an accepted deletion.
  bool following = false;
};

template <pod P, executor E, eviction_client<P> Client, class Hooks = no_dispatch_hooks,
          class Mutex = detail::default_shared_mutex, class Clock = std::chrono::steady_clock>
class dispatcher {
 public:
  using uid_type = pod_uid_t<P>;
  using ledger_type = nomination_ledger<P, Mutex>;
  static constexpr bool is_async = !is_always_inline_v<E>;

  static_assert(std::copy_constructible<P>, "the dispatcher keeps copies of the pods it evicts");
  static_assert(
      !is_async || requires(Hooks& h, const P& p) { h.reactivate(p); },
      "async dispatch needs hooks with reactivate(preemptor): a failed or finished "
      "preemption must be able to wake its preemptor");
#if defined(PREEMPT_NO_THREADS)
  static_assert(!is_async,
                "PREEMPT_NO_THREADS: the dispatcher dispatches inline only (give it an "
                "executor with `static constexpr bool always_inline = true`)");
#endif

  dispatcher(ledger_type& ledger, in_flight_table<P>& table, Client& client, E ex, Hooks hooks = {})
      : ledger_(&ledger),
        table_(&table),
        client_(&client),
        ex_(std::move(ex)),
        hooks_(std::move(hooks)) {}
  dispatcher(const dispatcher&) = delete;
  dispatcher& operator=(const dispatcher&) = delete;
  ~dispatcher() { wait_idle(); }

  // Pools `preemptions` background jobs of up to `victims` victims each.
  void reserve(std::size_t preemptions, std::size_t victims) {
    detail::exclusive_guard lock(pool_mutex_);
    while (jobs_.size() < preemptions) {
      jobs_.push_back(std::make_unique<job>());
      free_.push_back(jobs_.back().get());
    }
    free_.reserve(jobs_.size());
    for (auto& j : jobs_) j->reserve(victims);

    inline_cleared_.reserve(victims);
  }

  Hooks& hooks() noexcept { return hooks_; }
  in_flight_table<P>& table() noexcept { return *table_; }
  ledger_type& ledger() noexcept { return *ledger_; }

  // Acts on an evaluator decision for `preemptor` (see the header comment).
  dispatch_result apply(const P& preemptor, const decision<P>& d) {
    if (d.kind == decision_kind::unschedulable && d.clear_nomination) {
      ledger_->remove(::preempt::uid_of(preemptor));
      return {};
    }
    if (d.kind != decision_kind::nominated) return {};
    return preempt_on(preemptor, d.node_index, d.victims);
  }

  // Evicts `victims` from `node` for `preemptor` and records the nomination.
  dispatch_result preempt_on(const P& preemptor, std::size_t node,
                             std::span<const P* const> victims) {
    if constexpr (is_async)
      return start_async(preemptor, node, victims);
    else
      return run_inline(preemptor, node, victims);
  }

  // The node argument of a pod group's preemption: the whole cluster, no nomination.
  static constexpr std::size_t cluster_wide = static_cast<std::size_t>(-1);

  // Evicts a pod group's victims, gated by `group`'s uid (see the header comment).
  dispatch_result preempt_cluster_wide(const P& group, std::span<const P* const> victims) {
    return preempt_on(group, cluster_wide, victims);
  }

  // The gate: is this pod's preemption still running? (in_flight_table::is_preemption_running)
  bool is_preemption_running(const uid_type& preemptor) const {
    return table_->is_preemption_running(preemptor);
  }

  // Background jobs (and followers) not yet finished.
  std::size_t jobs_running() const {
    detail::exclusive_guard lock(idle_mutex_);
    return running_;
  }

  // Blocks until no background job or follower is left.
  void wait_idle() const {
#if defined(PREEMPT_NO_THREADS)
    PREEMPT_ASSERT(running_ == 0, "dispatcher: background work without threads");
#else
    std::unique_lock lock(idle_mutex_);
    idle_.wait(lock, [&] { return running_ == 0; });
#endif
  }

 private:
  struct job;

  struct eviction_task {
    job* owner = nullptr;
    std::size_t index = 0;
    void run() noexcept { owner->self->evict_one(*owner, index); }
  };

  struct job {
    dispatcher* self = nullptr;
    std::optional<P> preemptor;
    std::size_t node = 0;
    std::vector<P> victims;
    std::vector<eviction_task> tasks;
    std::vector<uid_type> cleared;
    std::atomic<std::size_t> outstanding{0};
    std::atomic<bool> failed{false};
    bool last_deleted = false;
    // A follower job starts no eviction: it follows other work's evictions of its victims.
    typename in_flight_table<P>::follower follow;
    typename Clock::time_point started{};

    void reserve(std::size_t n) {
      victims.reserve(n);
      tasks.reserve(n);
      cleared.reserve(n);
      follow.awaited.reserve(n);
    }
    void run() noexcept { self->begin(*this); }
  };

  // --- inline -------------------------------------------------------------------------------

  dispatch_result run_inline(const P& preemptor, std::size_t node,
                             std::span<const P* const> victims) {
    dispatch_result result;
    if (node != cluster_wide) notify_dispatched(preemptor, victims.size());
    for (const P* v : victims) {
      if (detail::is_terminating(*v) || !table_->claim_victim(::preempt::uid_of(*v))) {
        ++result.skipped;
        continue;
      }
      const eviction_result r = client_->evict(*v, preemptor);
      ++result.evictions;
      // Inline dispatch keeps no claim once the eviction returned: the table holds nothing of
      // it after apply. (An evicted victim the caller's cache still shows may be chosen and
      // evicted again, as upstream's prepareCandidate would: its eviction then finds it gone.)
      table_->end_victim(::preempt::uid_of(*v), r.outcome == eviction_outcome::evicted);
      if (!r.ok()) {
        result.outcome = status::error(r.message);
        return result;
      }
    }
    if (node == cluster_wide) return result;
    inline_cleared_.clear();
    ledger_->clear_lower_priority(node, priority_of(preemptor), inline_cleared_);
    notify_cleared(node, inline_cleared_);
    ledger_->nominate(preemptor, node);
    return result;
  }

  // --- async --------------------------------------------------------------------------------

  dispatch_result start_async(const P& preemptor, std::size_t node,
                              std::span<const P* const> victims) {
    dispatch_result result;
    job* j = acquire_job();
    j->victims.clear();
    j->follow.awaited.clear();
    for (const P* v : victims) {
      if (detail::is_terminating(*v)) {
        ++result.skipped;
      } else if (table_->claim_victim(::preempt::uid_of(*v))) {
        j->victims.push_back(*v);
      } else {  // another preemption is evicting it
        ++result.skipped;
        j->follow.awaited.push_back(::preempt::uid_of(*v));
      }
    }
    if (j->victims.empty()) {  // nothing to evict: nothing starts, as in prepareCandidateAsync
      if (node != cluster_wide) ledger_->nominate(preemptor, node);
      if (j->follow.awaited.empty()) {
        release_job(j);
        return result;
      }
      result.following = start_following(*j, preemptor);
      return result;
    }
    j->self = this;
    j->preemptor.emplace(preemptor);
    j->node = node;
    j->failed.store(false, std::memory_order_relaxed);
    j->last_deleted = false;
    j->started = Clock::now();
    const std::optional<std::size_t> previous =
        node == cluster_wide ? std::nullopt : ledger_->node_of(::preempt::uid_of(preemptor));
    if (node != cluster_wide) ledger_->nominate(preemptor, node);
    table_->start(::preempt::uid_of(preemptor));
    job_started();
    result.started = true;
    result.evictions = j->victims.size();
    if (!submit(task_ref::to_member_run(*j))) {  // the executor refused: roll back
      for (const P& v : j->victims) victim_done(::preempt::uid_of(v), eviction_outcome::failed);
      table_->finish(::preempt::uid_of(preemptor));
      if (previous)  // as upstream's error result: the earlier nomination stands
        ledger_->nominate(preemptor, *previous);
      else if (node != cluster_wide)
        ledger_->remove(::preempt::uid_of(preemptor));
      done_with(j);
      return {status::error("preemption: the executor refused the eviction work"), false, 0,
              result.skipped, false};
    }
    if (node != cluster_wide) notify_dispatched(preemptor, victims.size());
    return result;
  }

  // Background, step 1: clear lower-priority nominations, then start the evictions.
  void begin(job& j) noexcept {
    if (j.node != cluster_wide) {
      j.cleared.clear();
      ledger_->clear_lower_priority(j.node, priority_of(*j.preemptor), j.cleared);
      notify_cleared(j.node, j.cleared);
    }
    const std::size_t n = j.victims.size();
    if (n == 1) {
      evict_last(j);
      return;
    }
    j.tasks.resize(n - 1);
    j.outstanding.store(n - 1, std::memory_order_release);
    for (std::size_t i = 0; i + 1 < n; ++i) {
      j.tasks[i] = eviction_task{&j, i};
      if (!submit(task_ref::to_member_run(j.tasks[i]))) j.tasks[i].run();  // run it here
    }
  }

  // Background, step 2: one of the first n-1 evictions.
  void evict_one(job& j, std::size_t i) noexcept {
    const eviction_result r = client_->evict(j.victims[i], *j.preemptor);
    if (!r.ok()) j.failed.store(true, std::memory_order_release);
    victim_done(::preempt::uid_of(j.victims[i]), r.outcome);
    if (j.outstanding.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      if (j.failed.load(std::memory_order_acquire)) {
        victim_done(::preempt::uid_of(j.victims.back()),
                    eviction_outcome::failed);  // the last is skipped
        complete(j);
      } else {
        evict_last(j);
      }
    }
  }

  // Background, step 3: the last victim, recorded as pending while its eviction runs.
  void evict_last(job& j) noexcept {
    const P& last = j.victims.back();
    // A victim the caller already reported terminating or gone has left the victim ledger: its
    // report must still open the gate.
    const bool reported = !table_->claim_of(::preempt::uid_of(last)).has_value();
    table_->set_last_victim(::preempt::uid_of(*j.preemptor), ::preempt::uid_of(last));
    if (reported) table_->report_victim(::preempt::uid_of(last), victim_state::terminating);
    const eviction_result r = client_->evict(last, *j.preemptor);
    if (!r.ok()) j.failed.store(true, std::memory_order_release);
    j.last_deleted = r.outcome == eviction_outcome::evicted;
    victim_done(::preempt::uid_of(last), r.outcome);
    complete(j);
  }

  // Background, step 4: leave the in-flight set, wake the preemptor unless a deletion will.
  void complete(job& j) noexcept {
    const bool success = !j.failed.load(std::memory_order_acquire);
    table_->finish(::preempt::uid_of(*j.preemptor));
    if (!success || !j.last_deleted) hooks_.reactivate(*j.preemptor);
    if constexpr (requires {
                    hooks_.on_async_finished(*j.preemptor, success, Clock::now() - j.started);
                  })
      hooks_.on_async_finished(*j.preemptor, success, Clock::now() - j.started);
    done_with(&j);
  }

  // A claimed victim's eviction is over (the table tells the followers).
  void victim_done(const uid_type& victim, eviction_outcome outcome) {
    table_->finish_victim(victim, outcome == eviction_outcome::evicted);
  }

  // Makes `j` follow the evictions it skipped; false when they had all ended already.
  bool start_following(job& j, const P& preemptor) {
    j.self = this;
    j.preemptor.emplace(preemptor);
    j.follow.failed = false;
    j.follow.context = &j;
    j.follow.on_done = [](void* context, bool failed) noexcept {
      job& fj = *static_cast<job*>(context);
      fj.self->end_following(fj, failed);
    };
    job_started();
    if (table_->follow(j.follow)) return true;
    end_following(j, j.follow.failed);
    return false;
  }

  void end_following(job& j, bool failed) noexcept {
    if constexpr (requires { hooks_.reactivate(*j.preemptor); })  // followers are async only
      if (failed) hooks_.reactivate(*j.preemptor);
    done_with(&j);
  }

  void job_started() {
    detail::exclusive_guard lock(idle_mutex_);
    ++running_;
  }

  bool submit(task_ref t) noexcept {
#if PREEMPT_HAS_EXCEPTIONS
    try {
      ex_.execute(t);
    } catch (...) {
      return false;
    }
#else
    ex_.execute(t);
#endif
    return true;
  }

  void done_with(job* j) noexcept {
    j->preemptor.reset();
    release_job(j);
    // Notified under the lock: wait_idle (and so the destructor) cannot return before this
    // thread is done with the dispatcher.
    detail::exclusive_guard lock(idle_mutex_);
#if defined(PREEMPT_NO_THREADS)
    --running_;
#else
    if (--running_ == 0) idle_.notify_all();
#endif
  }

  job* acquire_job() {
    detail::exclusive_guard lock(pool_mutex_);
    if (free_.empty()) {
      jobs_.push_back(std::make_unique<job>());
      free_.reserve(jobs_.size());
      return jobs_.back().get();
    }
    job* j = free_.back();
    free_.pop_back();
    return j;
  }

  void release_job(job* j) noexcept {
    detail::exclusive_guard lock(pool_mutex_);
    free_.push_back(j);  // capacity reserved in acquire_job/reserve: never allocates
  }

  void notify_dispatched(const P& preemptor, std::size_t victims) {
    if constexpr (requires { hooks_.on_preemption_dispatched(preemptor, victims); })
      hooks_.on_preemption_dispatched(preemptor, victims);
  }

  // The hook receives the uids (copies): the pods themselves may be freed by their owner as
  // soon as the ledger no longer holds them, before or while the hook runs.
  void notify_cleared(std::size_t node, const std::vector<uid_type>& uids) {
    if constexpr (requires { hooks_.nominations_cleared(node, std::span<const uid_type>(uids)); })
      if (!uids.empty()) hooks_.nominations_cleared(node, std::span<const uid_type>(uids));
  }

  ledger_type* ledger_;
  in_flight_table<P>* table_;
  Client* client_;
  E ex_;
  Hooks hooks_;
  detail::default_mutex pool_mutex_;
  std::vector<std::unique_ptr<job>> jobs_;
  std::vector<job*> free_;
  std::vector<uid_type> inline_cleared_;
  mutable detail::default_mutex idle_mutex_;
#if !defined(PREEMPT_NO_THREADS)
  mutable std::condition_variable idle_;
#endif
  std::size_t running_ = 0;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DISPATCHER_HPP
