// preempt/dispatcher.hpp - carrying out a preemption decision: nominations, evictions inline or
// in the background (KEP-4832 asynchronous preemption: upstream's prepareCandidate and
// prepareCandidateAsync).
//
// dispatcher::apply(preemptor, decision) acts on an evaluator decision:
//   - nominated: the evictions run, inline or async depending on the executor;
//   - unschedulable with clear_nomination: the preemptor's nomination is removed;
//   - not eligible, error, or unschedulable without clear_nomination: nothing (the nomination is
//     kept, as upstream's nil result).
// An always-inline executor evicts the victims one by one before apply returns (prepareCandidate);
// any other executor nominates the preemptor, marks it in flight and evicts in the background
// (prepareCandidateAsync), and re-activates the preemptor whenever no deletion event is left to
// wake it. preempt_cluster_wide(group, victims) does the same for a pod group's victims
// (actuatePodGroupPreemption), with no node. The hooks (reactivate, nominations_cleared,
// metrics) are optional but for reactivate in async mode. The rules in detail, the hooks, the
// checks and the lifetime rules are at the class below.
//
// Allocation: none per preemption once reserve(preemptions, victims) covers the load (jobs are
// pooled); a failure message is copied into a reused buffer. Exceptions: none of its own; if the
// executor throws, the bookkeeping is rolled back and apply reports an error. Thread-safety: apply
// from one thread at a time; the queries, wait_idle and report calls from any thread. The ledger
// and the in-flight table must outlive the dispatcher, which must outlive its background work.
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
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/decision.hpp"
#include "preempt/detail/hook_check.hpp"
#include "preempt/detail/lock.hpp"
#include "preempt/detail/requirements.hpp"
#include "preempt/detail/users.hpp"
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
#if PREEMPT_HAS_STOP_TOKEN
#include <stop_token>
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

// Messages of the dispatcher's own refusals and failures.
inline constexpr std::string_view dispatch_node_out_of_range =
    "preemption: the node is not one of the nomination ledger's nodes";
inline constexpr std::string_view dispatch_preemptor_is_victim =
    "preemption: the preemptor is among its own victims (a running pod has its uid)";
inline constexpr std::string_view dispatch_preemptor_being_evicted =
    "preemption: the preemptor is a victim whose eviction is in flight; it cannot preempt";
inline constexpr std::string_view dispatch_stopped =
    "preemption: the dispatcher was stopped before the eviction started";
inline constexpr std::string_view dispatch_refused =
    "preemption: the executor refused the eviction work";

namespace detail {
PREEMPT_DETAIL_MEMBER_NAMED(on_budget_refusal)

// Waits for idleness without blocking: the sender form of wait_idle (preempt/execution.hpp).
struct idle_waiter {
  void (*on_idle)(idle_waiter*) noexcept = nullptr;
  idle_waiter* next = nullptr;
};
}  // namespace detail

template <class P, class E, class Client, class Hooks = no_dispatch_hooks,
          class Mutex = detail::default_shared_mutex, class Clock = std::chrono::steady_clock>
class dispatcher;

// Arguments that do not model the concepts: the reasons, each once (detail/requirements.hpp).
template <class P, class E, class Client, class Hooks, class Mutex, class Clock>
  requires(!pod<P> || !executor<E>)
class dispatcher<P, E, Client, Hooks, Mutex, Clock> {
  using requirements_checked = detail::checked<detail::explain_pod<P>()>;
  static_assert(executor<E>,
                "dispatcher: the executor needs a const member execute(preempt::task_ref), and "
                "must be copyable and nothrow-movable (preempt/executor.hpp)");

 public:
  template <class... A>
  explicit dispatcher(A&&...) noexcept {}
  template <class... A>
  dispatch_result apply(A&&...) noexcept {
    return {};
  }
  template <class... A>
  bool is_preemption_running(A&&...) const noexcept {
    return false;
  }
};

// The dispatcher in detail.
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
// The hooks object may have (each optional, except reactivate for async executors; a member of one
// of these names that cannot be called so is a compile-time error naming the signature):
//   reactivate(const P& preemptor)               move the preemptor back to the active queue
//   nominations_cleared(std::size_t node, std::span<const uid_type> uids)
//                                                these pods lost their nomination: patch them
//                                                (uid copies, never pointers)
//   on_preemption_dispatched(const P& preemptor, std::size_t victims)  metric
//   on_async_finished(const P& preemptor, bool success, Clock::duration)  metric
//   on_eviction_failed(const P& preemptor, const uid_type& victim, std::string_view message)
//                                                an eviction failed (the client's message, valid
//                                                during the call)
//   on_budget_refusal(const P& preemptor, const uid_type& victim)
//                                                that failure was a PodDisruptionBudget's refusal
//                                                (eviction_outcome::refused_by_budget; called
//                                                before on_eviction_failed)
// Hooks and the eviction client (blocking or completion-based, preempt/eviction.hpp) are called
// from executor threads, or the thread that completes an eviction, in async mode.
// set_eviction_mode(eviction_mode::evict_respecting_budgets) (beyond upstream) has the client evict
// through the Eviction API, which enforces PodDisruptionBudgets, instead of deleting: it needs a
// client that takes an eviction_request (preempt/eviction.hpp), and holds for the preemptions
// applied after it. The default, delete_pod, is upstream's.
//
// Checks: apply refuses, with an error status and no change, a node beyond the ledger's nodes, a
// preemptor among its own victims (a running pod with the preemptor's uid), a preemptor that is
// itself a victim whose eviction is in flight, and any work once the dispatcher's stop token is
// requested (PREEMPT_HAS_STOP_TOKEN). The stop token ends outstanding work too: an eviction not
// yet started fails at once (the client is not called), so the preemptor is re-activated.
// Lifetime: the dispatcher copies the preemptor and victims it needs (P must be copyable), and its
// background work names the node by the ledger's node_key, so the caller's cluster may change,
// even lose or renumber nodes (nomination_ledger::remove_node), while evictions run. It must
// outlive its background work (a completion-based client's calls included, until they return):
// the destructor waits for it; with a manual executor, destroying it with work still queued is a
// contract failure (it would wait forever). It attaches to its ledger and in-flight table, which
// must outlive it (declare them first: detail/users.hpp).
template <class P, class E, class Client, class Hooks, class Mutex, class Clock>
  requires(pod<P> && executor<E>)
class dispatcher<P, E, Client, Hooks, Mutex, Clock> {
 public:
  using uid_type = pod_uid_t<P>;
  using ledger_type = nomination_ledger<P, Mutex>;
  using table_type = in_flight_table<P>;
  static constexpr bool is_async = !is_always_inline_v<E>;
  static constexpr bool completes_later = async_eviction_client<Client, P>;

  static_assert(
      any_eviction_client<Client, P>,
      "dispatcher: the client needs evict(const P& victim, const P& preemptor) -> "
      "preempt::eviction_result, or start_eviction(const P& victim, const P& preemptor, "
      "preempt::eviction_completion done), either with a const preempt::eviction_request& "
      "before `done` if it takes one (preempt/eviction.hpp)");
  static_assert(std::copy_constructible<P>, "the dispatcher keeps copies of the pods it evicts");
  static_assert(
      !is_async || requires(Hooks& h, const P& p) { h.reactivate(p); },
      "async dispatch needs hooks with reactivate(const P& preemptor): a failed or finished "
      "preemption must be able to wake its preemptor");
  // An optional hook that exists must be callable as the dispatcher calls it.
  static_assert(
      !detail::has_member_named_reactivate<Hooks> ||
          requires(Hooks& h, const P& p) { h.reactivate(p); },
      "dispatcher hooks: reactivate exists but cannot be called as reactivate(const P& preemptor)");
  static_assert(
      !detail::has_member_named_nominations_cleared<Hooks> ||
          requires(Hooks& h, std::size_t node, std::span<const uid_type> uids) {
            h.nominations_cleared(node, uids);
          },
      "dispatcher hooks: nominations_cleared exists but cannot be called as "
      "nominations_cleared(std::size_t node, std::span<const uid_type> uids) (it receives uid "
      "copies, not pod pointers)");
  static_assert(
      !detail::has_member_named_on_preemption_dispatched<Hooks> ||
          requires(Hooks& h, const P& p, std::size_t n) { h.on_preemption_dispatched(p, n); },
      "dispatcher hooks: on_preemption_dispatched exists but cannot be called as "
      "on_preemption_dispatched(const P& preemptor, std::size_t victims)");
  static_assert(
      !detail::has_member_named_on_async_finished<Hooks> ||
          requires(Hooks& h, const P& p, typename Clock::duration d) {
            h.on_async_finished(p, true, d);
          },
      "dispatcher hooks: on_async_finished exists but cannot be called as "
      "on_async_finished(const P& preemptor, bool success, Clock::duration duration)");
  static_assert(
      !detail::has_member_named_on_eviction_failed<Hooks> ||
          requires(Hooks& h, const P& p, const uid_type& v, std::string_view m) {
            h.on_eviction_failed(p, v, m);
          },
      "dispatcher hooks: on_eviction_failed exists but cannot be called as "
      "on_eviction_failed(const P& preemptor, const uid_type& victim, std::string_view message)");
  static_assert(
      !detail::has_member_named_on_budget_refusal<Hooks> ||
          requires(Hooks& h, const P& p, const uid_type& v) { h.on_budget_refusal(p, v); },
      "dispatcher hooks: on_budget_refusal exists but cannot be called as "
      "on_budget_refusal(const P& preemptor, const uid_type& victim)");
  static_assert(
      !detail::has_member_named_start_eviction<Client> || async_eviction_client<Client, P>,
      "dispatcher client: start_eviction exists but cannot be called as start_eviction(const P& "
      "victim, const P& preemptor, preempt::eviction_completion done) nor as "
      "start_eviction(const P& victim, const P& preemptor, const preempt::eviction_request& "
      "request, preempt::eviction_completion done)");
#if defined(PREEMPT_NO_THREADS)
  static_assert(!is_async,
                "PREEMPT_NO_THREADS: the dispatcher dispatches inline only (give it an "
                "executor with `static constexpr bool always_inline = true`)");
#endif

  dispatcher(ledger_type& ledger, table_type& table, Client& client, E ex, Hooks hooks = {})
      : ledger_(ledger),
        table_(table),
        client_(&client),
        ex_(std::move(ex)),
        hooks_(std::move(hooks)) {}
#if PREEMPT_HAS_STOP_TOKEN
  // With a stop token for the outstanding work: once stop is requested, apply refuses new work
  // and an eviction not yet started fails at once (see the class comment).
  dispatcher(ledger_type& ledger, table_type& table, Client& client, E ex, Hooks hooks,
             std::stop_token stop)
      : ledger_(ledger),
        table_(table),
        client_(&client),
        ex_(std::move(ex)),
        hooks_(std::move(hooks)),
        stop_(std::move(stop)) {}
#endif
  dispatcher(const dispatcher&) = delete;
  dispatcher& operator=(const dispatcher&) = delete;
  ~dispatcher() {
    if constexpr (is_drained_by_owner_v<E>)
      PREEMPT_ASSERT(jobs_running() == 0,
                     "dispatcher: destroyed with background work queued on an executor its owner "
                     "drains (a manual_context); drain it first, or waiting would never end");
    wait_idle();
  }

  // Pools `preemptions` background jobs of up to `victims` victims each, and room for an inline
  // failure's message.
  void reserve(std::size_t preemptions, std::size_t victims) {
    detail::exclusive_guard lock(pool_mutex_);
    while (jobs_.size() < preemptions) {
      jobs_.push_back(std::make_unique<job>());
      free_.push_back(jobs_.back().get());
    }
    free_.reserve(jobs_.size());
    for (auto& j : jobs_) j->reserve(victims);

    inline_cleared_.reserve(victims);
    inline_failure_.reserve(message_room);
  }

  // Characters of an inline failure message copied without allocating once reserve() ran (a
  // longer one grows the buffer once).
  static constexpr std::size_t message_room = 256;

  // How the client removes victims, for the preemptions applied from now on (see the header
  // comment): delete_pod (the default, upstream's DELETE) or evict_respecting_budgets (the
  // Eviction API: the API server refuses an eviction a PodDisruptionBudget forbids). Called from
  // the thread that calls apply.
  void set_eviction_mode(eviction_mode mode) noexcept {
    static_assert(
        takes_eviction_request<Client, P>,
        "dispatcher::set_eviction_mode: the client cannot be told how to remove victims; "
        "give it evict(const P& victim, const P& preemptor, const "
        "preempt::eviction_request& request) or start_eviction(const P& victim, const P& "
        "preemptor, const preempt::eviction_request& request, preempt::eviction_completion "
        "done) (preempt/eviction.hpp). A client without it only deletes "
        "(eviction_mode::delete_pod)");
    request_.mode = mode;
  }
  eviction_mode current_eviction_mode() const noexcept { return request_.mode; }

  Hooks& hooks() noexcept { return hooks_; }
  table_type& table() noexcept { return *table_; }
  ledger_type& ledger() noexcept { return *ledger_; }

  // Acts on an evaluator decision for `preemptor` (see the class comment).
  dispatch_result apply(const P& preemptor, const decision<P>& d) {
    if (d.kind == decision_kind::unschedulable && d.clear_nomination) {
      ledger_->remove(::preempt::uid_of(preemptor));
      return {};
    }
    if (d.kind != decision_kind::nominated) return {};
    return preempt_on(preemptor, d.node_index, d.victims);
  }

  // Evicts `victims` from `node` for `preemptor` and records the nomination. The failure message
  // of an inline dispatch is the dispatcher's copy: valid until its next apply.
  dispatch_result preempt_on(const P& preemptor, std::size_t node,
                             std::span<const P* const> victims) {
    ledger_.attach();  // from now on the ledger and the table must outlive this dispatcher
    table_.attach();
    if (const std::string_view refused = refusal(preemptor, node, victims); !refused.empty())
      return {status::error(refused), false, 0, 0, false};
    if constexpr (is_async)
      return start_async(preemptor, node, victims);
    else
      return run_inline(preemptor, node, victims);
  }

  // The node argument of a pod group's preemption: the whole cluster, no nomination.
  static constexpr std::size_t cluster_wide = static_cast<std::size_t>(-1);

  // Evicts a pod group's victims, gated by `group`'s uid (see the class comment).
  dispatch_result preempt_cluster_wide(const P& group, std::span<const P* const> victims) {
    return preempt_on(group, cluster_wide, victims);
  }

  // The gate: is this pod's preemption still running? (in_flight_table::is_preemption_running)
  bool is_preemption_running(const uid_type& preemptor) const {
    return table_->is_preemption_running(preemptor);
  }

  // Background work not yet finished: jobs, followers, and calls of a completion-based client
  // still in progress (an eviction may complete before its start_eviction call returns).
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

#if PREEMPT_HAS_STOP_TOKEN
  // Blocks until no background job or follower is left, or until `stop` is requested; whether
  // the dispatcher is idle. (Stopping the wait stops no work: the dispatcher's own token does.)
  bool wait_idle(std::stop_token stop) const {
    std::unique_lock lock(idle_mutex_);
    return idle_.wait(lock, stop, [&] { return running_ == 0; });
  }

  // Whether the dispatcher's stop token was requested.
  bool stop_requested() const noexcept { return stop_.stop_requested(); }
  const std::stop_token& stop_token() const noexcept { return stop_; }
#endif

  // The sender form of wait_idle (preempt/execution.hpp): `w` is called once the dispatcher is
  // idle, on the thread that finished the last work, without the dispatcher's lock held; false
  // (and `w` is not kept) when it is idle already.
  bool add_idle_waiter(detail::idle_waiter& w) {
    detail::exclusive_guard lock(idle_mutex_);
    if (running_ == 0) return false;
    w.next = waiters_;
    waiters_ = &w;
    return true;
  }
  // Takes `w` back before it was called; false when it is being called (or was).
  bool remove_idle_waiter(detail::idle_waiter& w) {
    detail::exclusive_guard lock(idle_mutex_);
    for (detail::idle_waiter** at = &waiters_; *at != nullptr; at = &(*at)->next)
      if (*at == &w) {
        *at = w.next;
        return true;
      }
    return false;
  }

 private:
  struct job;

  struct eviction_task {
    job* owner = nullptr;
    std::size_t index = 0;
    void run() noexcept { owner->self->start_eviction(*owner, index); }
  };

  struct job {
    dispatcher* self = nullptr;
    std::optional<P> preemptor;
    node_key node;  // the node, whatever renumbering does to its index (none: cluster-wide)
    bool cluster_wide = false;
    std::vector<P> victims;
    std::vector<eviction_task> tasks;
    std::vector<uid_type> cleared;
    std::atomic<std::size_t> outstanding{0};
    std::atomic<bool> failed{false};
    bool last_deleted = false;
    eviction_request request;  // the dispatcher's when the job started
    // A follower job starts no eviction: it follows other work's evictions of its victims.
    typename table_type::follower follow;
    typename Clock::time_point started{};

    void reserve(std::size_t n) {
      victims.reserve(n);
      tasks.reserve(n);
      cleared.reserve(n);
      follow.awaited.reserve(n);
    }
    void run() noexcept { self->begin(*this); }
  };

  // --- checks -------------------------------------------------------------------------------

  bool stopping() const noexcept {
#if PREEMPT_HAS_STOP_TOKEN
    return stop_.stop_requested();
#else
    return false;
#endif
  }

  // Why this preemption must not start (empty: it may).
  std::string_view refusal(const P& preemptor, std::size_t node,
                           std::span<const P* const> victims) const {
    if (stopping()) return dispatch_stopped;
    if (node != cluster_wide && node >= ledger_->node_count()) return dispatch_node_out_of_range;
    const uid_type& own = ::preempt::uid_of(preemptor);
    for (const P* v : victims)
      if (::preempt::uid_of(*v) == own) return dispatch_preemptor_is_victim;
    if (table_->claim_of(own).has_value()) return dispatch_preemptor_being_evicted;
    return {};
  }

  // --- inline -------------------------------------------------------------------------------

  dispatch_result run_inline(const P& preemptor, std::size_t node,
                             std::span<const P* const> victims) {
    dispatch_result result;
    if (node != cluster_wide) notify_dispatched(preemptor, victims.size());
    for (const P* v : victims) {
      const uid_type& uid = ::preempt::uid_of(*v);
      if (::preempt::is_terminating(*v) || !table_->claim_victim(uid)) {
        ++result.skipped;
        continue;
      }
      const eviction_outcome outcome = evict_inline(*v, preemptor);
      ++result.evictions;
      // Inline dispatch keeps no claim once the eviction returned: the table holds nothing of
      // it after apply. (An evicted victim the caller's cache still shows may be chosen and
      // evicted again, as upstream's prepareCandidate would: its eviction then finds it gone.)
      table_->end_victim(uid, outcome == eviction_outcome::evicted);
      if (::preempt::is_failure(outcome)) {
        notify_failed(preemptor, uid, outcome, inline_failure_);
        result.outcome = status::error(inline_failure_);
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

  // One eviction of an inline dispatch, waited for; a failure's message in inline_failure_.
  eviction_outcome evict_inline(const P& victim, const P& preemptor) {
    if (stopping()) {
      inline_failure_ = dispatch_stopped;
      return eviction_outcome::failed;
    }
    if constexpr (completes_later) {
      inline_completion done;
      done.self = this;
      call_client(victim, preemptor, request_, done.handle());
      return done.wait();
    } else {
      const eviction_result r = call_client(victim, preemptor, request_);
      if (::preempt::is_failure(r.outcome)) inline_failure_ = r.message;
      return r.outcome;
    }
  }

  // The client's call, with the request when it takes one.
  eviction_result call_client(const P& victim, const P& preemptor, const eviction_request& r) {
    if constexpr (eviction_client_with_request<Client, P>)
      return client_->evict(victim, preemptor, r);
    else
      return client_->evict(victim, preemptor);
  }
  void call_client(const P& victim, const P& preemptor, const eviction_request& r,
                   eviction_completion done) {
    if constexpr (async_eviction_client_with_request<Client, P>)
      client_->start_eviction(victim, preemptor, r, std::move(done));
    else
      client_->start_eviction(victim, preemptor, std::move(done));
  }

  // An inline eviction's completion, which the client may call from another thread. The
  // completing thread notifies under the lock, so the waiting thread (which then destroys this
  // object) cannot return before that thread is done with it.
  struct inline_completion {
    dispatcher* self = nullptr;
    eviction_outcome outcome = eviction_outcome::failed;
    bool done = false;
#if !defined(PREEMPT_NO_THREADS)
    std::mutex mutex;
    std::condition_variable cv;
#endif

    eviction_completion handle() noexcept {
#if PREEMPT_HAS_STOP_TOKEN
      return {this, 0, &completed, self->stop_};
#else
      return {this, 0, &completed};
#endif
    }
    static void completed(void* target, std::size_t, eviction_outcome o,
                          std::string_view message) noexcept {
      auto& c = *static_cast<inline_completion*>(target);
#if !defined(PREEMPT_NO_THREADS)
      std::lock_guard lock(c.mutex);
#endif
      if (::preempt::is_failure(o)) c.self->inline_failure_ = message;
      c.outcome = o;
      c.done = true;
#if !defined(PREEMPT_NO_THREADS)
      c.cv.notify_one();
#endif
    }
    eviction_outcome wait() {
#if defined(PREEMPT_NO_THREADS)
      PREEMPT_ASSERT(done,
                     "dispatcher: without threads, complete an inline eviction before "
                     "start_eviction returns");
#else
      std::unique_lock lock(mutex);
      cv.wait(lock, [&] { return done; });
#endif
      return outcome;
    }
  };

  // --- async --------------------------------------------------------------------------------

  dispatch_result start_async(const P& preemptor, std::size_t node,
                              std::span<const P* const> victims) {
    dispatch_result result;
    job* j = acquire_job();
    j->victims.clear();
    j->follow.awaited.clear();
    for (const P* v : victims) {
      if (::preempt::is_terminating(*v)) {
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
    j->cluster_wide = node == cluster_wide;
    j->node = j->cluster_wide ? node_key{} : ledger_->key_of(node);
    j->failed.store(false, std::memory_order_relaxed);
    j->last_deleted = false;
    j->request = request_;
    j->started = Clock::now();
    const std::optional<std::size_t> previous =
        j->cluster_wide ? std::nullopt : ledger_->node_of(::preempt::uid_of(preemptor));
    if (!j->cluster_wide) ledger_->nominate(preemptor, node);
    table_->start(::preempt::uid_of(preemptor));
    job_started();
    result.started = true;
    result.evictions = j->victims.size();
    if (!submit(task_ref::to_member_run(*j))) {  // the executor refused: roll back
      for (const P& v : j->victims) victim_done(::preempt::uid_of(v), eviction_outcome::failed);
      table_->finish(::preempt::uid_of(preemptor));
      if (previous)  // as upstream's error result: the earlier nomination stands
        ledger_->nominate(preemptor, *previous);
      else if (!j->cluster_wide)
        ledger_->remove(::preempt::uid_of(preemptor));
      done_with(j);
      return {status::error(dispatch_refused), false, 0, result.skipped, false};
    }
    if (node != cluster_wide) notify_dispatched(preemptor, victims.size());
    return result;
  }

  // Background, step 1: clear lower-priority nominations on the node (wherever renumbering moved
  // it; none when it was removed), then start the evictions: all but the last in parallel.
  void begin(job& j) noexcept {
    if (!j.cluster_wide) {
      j.cleared.clear();
      if (const std::optional<std::size_t> node =
              ledger_->clear_lower_priority(j.node, priority_of(*j.preemptor), j.cleared))
        notify_cleared(*node, j.cleared);
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

  // Background: starts eviction i of job j through the client (or fails it at once when the
  // dispatcher stops); eviction_ended runs when it is over.
  void start_eviction(job& j, std::size_t i) noexcept {
    if (stopping()) {
      eviction_ended(j, i, eviction_outcome::failed, dispatch_stopped);
      return;
    }
    if constexpr (completes_later) {
#if PREEMPT_HAS_STOP_TOKEN
      const eviction_completion done(&j, i, &eviction_completed, stop_);
#else
      const eviction_completion done(&j, i, &eviction_completed);
#endif
      // The call counts as background work until it returns, even when the eviction completed
      // (and its job ended) first: wait_idle, and so the destructor, wait for it.
      job_started();
      call_client(j.victims[i], *j.preemptor, j.request, done);
      work_ended();
    } else {
      const eviction_result r = call_client(j.victims[i], *j.preemptor, j.request);
      eviction_ended(j, i, r.outcome, r.message);
    }
  }

  static void eviction_completed(void* target, std::size_t i, eviction_outcome outcome,
                                 std::string_view message) noexcept {
    job& j = *static_cast<job*>(target);
    j.self->eviction_ended(j, i, outcome, message);
  }

  // Background: eviction i of job j is over. The first n-1 count down; the last one of them
  // either starts the last victim's eviction or, after a failure, skips it.
  void eviction_ended(job& j, std::size_t i, eviction_outcome outcome,
                      std::string_view message) noexcept {
    const P& victim = j.victims[i];
    if (::preempt::is_failure(outcome)) {
      j.failed.store(true, std::memory_order_release);
      notify_failed(*j.preemptor, ::preempt::uid_of(victim), outcome, message);
    }
    if (i + 1 == j.victims.size()) {  // the last victim
      j.last_deleted = outcome == eviction_outcome::evicted;
      victim_done(::preempt::uid_of(victim), outcome);
      complete(j);
      return;
    }
    victim_done(::preempt::uid_of(victim), outcome);
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

  // Background: the last victim, recorded as pending while its eviction runs.
  void evict_last(job& j) noexcept {
    const uid_type& last = ::preempt::uid_of(j.victims.back());
    // A victim the caller already reported terminating or gone has left the victim ledger: its
    // report must still open the gate.
    const bool reported = !table_->claim_of(last).has_value();
    table_->set_last_victim(::preempt::uid_of(*j.preemptor), last);
    if (reported) table_->report_victim(last, victim_state::terminating);
    start_eviction(j, j.victims.size() - 1);
  }

  // Background, the end: leave the in-flight set, wake the preemptor unless a deletion will.
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
    work_ended();
  }

  // One piece of background work (a job, a follower, a client call) ended.
  void work_ended() noexcept {
    detail::idle_waiter* waiters = nullptr;
    {
      // Notified under the lock: wait_idle (and so the destructor) cannot return before this
      // thread is done with the dispatcher.
      detail::exclusive_guard lock(idle_mutex_);
      if (--running_ == 0) {
        waiters = waiters_;
        waiters_ = nullptr;
#if !defined(PREEMPT_NO_THREADS)
        idle_.notify_all();
#endif
      }
    }
    // The dispatcher is not touched again: it may be gone by now.
    while (waiters != nullptr) {
      detail::idle_waiter* w = waiters;
      waiters = w->next;
      w->on_idle(w);
    }
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

  void notify_failed(const P& preemptor, const uid_type& victim, eviction_outcome outcome,
                     std::string_view message) {
    if constexpr (requires { hooks_.on_budget_refusal(preemptor, victim); })
      if (outcome == eviction_outcome::refused_by_budget)
        hooks_.on_budget_refusal(preemptor, victim);
    if constexpr (requires { hooks_.on_eviction_failed(preemptor, victim, message); })
      hooks_.on_eviction_failed(preemptor, victim, message);
  }

  // The hook receives the uids (copies): the pods themselves may be freed by their owner as
  // soon as the ledger no longer holds them, before or while the hook runs.
  void notify_cleared(std::size_t node, const std::vector<uid_type>& uids) {
    if constexpr (requires { hooks_.nominations_cleared(node, std::span<const uid_type>(uids)); })
      if (!uids.empty()) hooks_.nominations_cleared(node, std::span<const uid_type>(uids));
  }

  detail::user_of<ledger_type> ledger_;
  detail::user_of<table_type> table_;
  Client* client_;
  E ex_;
  Hooks hooks_;
#if PREEMPT_HAS_STOP_TOKEN
  std::stop_token stop_;
#endif
  detail::default_mutex pool_mutex_;
  std::vector<std::unique_ptr<job>> jobs_;
  std::vector<job*> free_;
  std::vector<uid_type> inline_cleared_;
  std::string inline_failure_;  // an inline dispatch's failure message, until the next apply
  eviction_request request_;    // how victims are removed (set_eviction_mode)
  mutable detail::default_mutex idle_mutex_;
#if PREEMPT_HAS_STOP_TOKEN
  mutable std::condition_variable_any idle_;
#elif !defined(PREEMPT_NO_THREADS)
  mutable std::condition_variable idle_;
#endif
  std::size_t running_ = 0;
  detail::idle_waiter* waiters_ = nullptr;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DISPATCHER_HPP
