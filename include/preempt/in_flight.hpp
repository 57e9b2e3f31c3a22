// preempt/in_flight.hpp - the bookkeeping of preemptions whose evictions are still running
// (upstream's `preempting` set and lastVictimsPendingPreemption, which prepareCandidateAsync
// fills and IsPodRunningPreemption reads), plus the in-flight victim ledger that goes beyond
// upstream.
//
// `in_flight_table<P>` holds, under one mutex, the preemptors whose background evictions have not
// finished, their last victims, every victim whose eviction was dispatched and not yet reported
// gone (upstream #134249), and the preemptions following victims that other work evicts. The gate
// query is_preemption_running(uid) has the meaning of upstream's newest IsPodRunningPreemption.
// Everything is keyed by pod uid, never by node. A dispatcher using the table must be destroyed
// before it. The details are at the class.
//
// Complexity: O(1) expected for the preemptor operations and for claim_victim, claim_of and the
// victim queries, except: report_victim is O(p) for the p preemptors in flight (it looks for the
// victim among their last victims); finish_victim, end_victim, accept_victim and release_victim
// are O(f · a) for f followers awaiting up to a victims each, plus one call per follower left
// with nothing to wait for; follow is O(a). Allocation: none after reserve(). Thread-safe (under
// PREEMPT_NO_THREADS: single-threaded, no lock); followers are called without the table's lock
// held.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_IN_FLIGHT_HPP
#define PREEMPT_IN_FLIGHT_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/detail/flat_map.hpp"
#include "preempt/detail/lock.hpp"
#include "preempt/detail/requirements.hpp"
#include "preempt/detail/users.hpp"
#include "preempt/pod.hpp"

PREEMPT_NAMESPACE_BEGIN

// What the caller's cache says about a victim.
enum class victim_state : std::uint8_t { present, terminating, gone };

// Where a claimed victim's eviction stands: running, or accepted by the API (its deletion is to
// come, and the caller will report it).
enum class victim_claim : std::uint8_t { running, accepted };

template <class P, class Mutex = detail::default_mutex>
class in_flight_table;

// A pod type that does not model preempt::pod: the reasons, each once (detail/requirements.hpp).
template <class P, class Mutex>
  requires(!pod<P>)
class in_flight_table<P, Mutex> {
  using requirements_checked = detail::checked<detail::explain_pod<P>()>;

 public:
  template <class... A>
  bool is_preemption_running(A&&...) const noexcept {
    return false;
  }
  template <class... A>
  void report_victim(A&&...) noexcept {}
};

// `in_flight_table<P>` holds, under one mutex:
//   - the preemptors whose background evictions have not finished (upstream `preempting`);
//   - for each, the last victim once its eviction has started (`lastVictimsPendingPreemption`),
//     with what the caller last reported about that victim;
//   - every victim whose eviction has been dispatched and not yet reported gone, terminating or
//     failed, so that no later preemption dispatches it again (upstream #134249); each is
//     `running` until the API accepts its deletion, then `accepted`.
// The gate query is_preemption_running(uid) has the meaning of upstream's newest
// IsPodRunningPreemption, which its PreEnqueue gate asks: false when the pod is not in flight;
// true when it is and no last victim is recorded; with a recorded last victim, true until the
// caller reports that victim gone or terminating (report_victim), or, in the overload with a
// lookup, until the lookup says so.
//
// It also keeps the followers: preemptions waiting for victims that other work is evicting (see
// follow and finish_victim), so that every dispatcher sharing the table learns when they end.
// Everything is keyed by pod uid, never by node: a node removed or renumbered while its victims
// are in flight changes nothing here (their pods go with the node: report them gone). A dispatcher
// using the table must be destroyed before it (destroying it first is a contract failure).
template <class P, class Mutex>
  requires pod<P>
class in_flight_table<P, Mutex> {
 public:
  using uid_type = pod_uid_t<P>;

  in_flight_table() = default;
  // Movable. Moving a table while another thread uses it, or while a preemption it tracks is in
  // flight (a follower points at it), is the caller's bug; moving one a dispatcher uses is a
  // contract failure. The moved-to table has a fresh lock; the moved-from one is empty and usable.
  in_flight_table(in_flight_table&& other) noexcept
      : preempting_(std::move(other.preempting_)),
        victims_(std::move(other.victims_)),
        followers_(std::move(other.followers_)) {
    PREEMPT_ASSERT(other.users_.none(), "in_flight_table: moved while a dispatcher uses it");
    other.clear_moved();
  }
  in_flight_table& operator=(in_flight_table&& other) noexcept {
    PREEMPT_ASSERT(users_.none() && other.users_.none(),
                   "in_flight_table: moved while a dispatcher uses it");
    if (this != &other) {
      preempting_ = std::move(other.preempting_);
      victims_ = std::move(other.victims_);
      followers_ = std::move(other.followers_);
      other.clear_moved();
    }
    return *this;
  }
  in_flight_table(const in_flight_table&) = delete;
  in_flight_table& operator=(const in_flight_table&) = delete;
  // A dispatcher's background work reads the table until the dispatcher is destroyed.
  ~in_flight_table() {
    PREEMPT_ASSERT(users_.none(),
                   "in_flight_table: destroyed while a dispatcher still uses it; declare the table "
                   "before the dispatcher, so that the dispatcher is destroyed first");
  }

  void reserve(std::size_t preemptors, std::size_t victims) {
    detail::exclusive_guard lock(mutex_);
    preempting_.reserve(preemptors);
    victims_.reserve(victims);
    followers_.reserve(preemptors);
  }

  // --- preemptors -------------------------------------------------------------------------

  void start(const uid_type& preemptor) {
    detail::exclusive_guard lock(mutex_);
    preempting_.insert_or_assign(preemptor, last_victim{});
  }

  // Records the victim whose eviction is the final step of the preemptor's work (present until
  // the caller reports otherwise).
  void set_last_victim(const uid_type& preemptor, const uid_type& victim) {
    detail::exclusive_guard lock(mutex_);
    if (last_victim* lv = preempting_.find(preemptor))
      *lv = last_victim{victim, victim_state::present};
  }

  // The preemptor's work is over: it leaves the in-flight set and the last-victim record.
  void finish(const uid_type& preemptor) {
    detail::exclusive_guard lock(mutex_);
    preempting_.erase(preemptor);
  }

  bool in_flight(const uid_type& preemptor) const {
    detail::exclusive_guard lock(mutex_);
    return preempting_.contains(preemptor);
  }

  std::size_t preemptors_in_flight() const {
    detail::exclusive_guard lock(mutex_);
    return preempting_.size();
  }

  // The last victim recorded for a preemptor in flight, if any.
  std::optional<uid_type> last_victim_of(const uid_type& preemptor) const {
    detail::exclusive_guard lock(mutex_);
    const last_victim* lv = preempting_.find(preemptor);
    return lv ? lv->victim : std::nullopt;
  }

  // The gate (upstream IsPodRunningPreemption), from what the caller has reported.
  bool is_preemption_running(const uid_type& preemptor) const {
    detail::exclusive_guard lock(mutex_);
    const last_victim* lv = preempting_.find(preemptor);
    if (lv == nullptr) return false;
    if (!lv->victim) return true;
    return lv->state == victim_state::present;
  }

  // The gate, asking `lookup(victim_uid) -> victim_state` about the recorded last victim (as
  // upstream consults its informer cache).
  template <class Lookup>
  bool is_preemption_running(const uid_type& preemptor, const Lookup& lookup) const {
    std::optional<uid_type> victim;
    {
      detail::exclusive_guard lock(mutex_);
      const last_victim* lv = preempting_.find(preemptor);
      if (lv == nullptr) return false;
      if (!lv->victim) return true;
      victim = lv->victim;
    }
    return lookup(*victim) == victim_state::present;
  }

  // --- victims ----------------------------------------------------------------------------

  // Claims a victim for eviction; false if its eviction was already dispatched.
  bool claim_victim(const uid_type& victim) {
    detail::exclusive_guard lock(mutex_);
    if (victims_.contains(victim)) return false;
    victims_.insert_or_assign(victim, victim_claim::running);
    return true;
  }

  // The eviction of a claimed victim was accepted: it stays claimed until the caller reports it.
  // Followers learn of it, as from finish_victim(victim, true).
  void accept_victim(const uid_type& victim) { finish_victim(victim, true); }

  // The claim on a victim, if any.
  std::optional<victim_claim> claim_of(const uid_type& victim) const {
    detail::exclusive_guard lock(mutex_);
    const victim_claim* c = victims_.find(victim);
    return c ? std::optional<victim_claim>(*c) : std::nullopt;
  }

  // The victim's eviction failed: a later preemption may dispatch it again. Followers learn of
  // it, as from finish_victim(victim, false).
  void release_victim(const uid_type& victim) { finish_victim(victim, false); }

  // --- followers ----------------------------------------------------------------------------
  //
  // A preemption that skipped victims because other work is evicting them follows those
  // evictions. Whoever finishes a victim's eviction (finish_victim) tells its followers, so
  // several dispatchers may share one table. A follower is notified once, when nothing it waits
  // for is still running: `failed` says whether some eviction it followed did not end in an
  // accepted deletion (so no deletion event will wake its preemptor).

  struct follower {
    void* context = nullptr;
    void (*on_done)(void* context, bool failed) noexcept = nullptr;
    std::vector<uid_type> awaited;  // the caller fills it before follow()
    bool failed = false;
  };

  // Starts following `f.awaited`. Victims no longer running are settled at once (accepted: fine;
  // gone from the ledger: counted as failed). Returns false, without registering, when nothing is
  // left to wait for; the caller then acts on f.failed itself.
  bool follow(follower& f) {
    detail::exclusive_guard lock(mutex_);
    std::erase_if(f.awaited, [&](const uid_type& v) {
      const victim_claim* c = victims_.find(v);
      if (c != nullptr && *c == victim_claim::running) return false;
      if (c == nullptr) f.failed = true;
      return true;
    });
    if (f.awaited.empty()) return false;
    followers_.push_back(&f);
    return true;
  }

  // A claimed victim's eviction is over. An accepted deletion keeps the claim until the caller
  // reports the victim; any other outcome releases it. Followers learn of it, and those left with
  // nothing to wait for are called (outside the lock).
  void finish_victim(const uid_type& victim, bool accepted) { settle(victim, accepted, accepted); }

  // A claimed victim's eviction is over and its claim ends whatever the outcome (inline dispatch:
  // nothing stays in the table). Followers learn of it as from finish_victim.
  void end_victim(const uid_type& victim, bool accepted) { settle(victim, accepted, false); }

 private:
  void settle(const uid_type& victim, bool accepted, bool keep_claim) {
    {
      detail::exclusive_guard lock(mutex_);
      if (keep_claim) {
        if (victim_claim* c = victims_.find(victim)) *c = victim_claim::accepted;
      } else {
        victims_.erase(victim);
      }
      for (follower* f : followers_) {
        const auto it = std::find(f->awaited.begin(), f->awaited.end(), victim);
        if (it == f->awaited.end()) continue;
        f->awaited.erase(it);
        if (!accepted) f->failed = true;
      }
    }
    while (follower* f = take_ready_follower()) f->on_done(f->context, f->failed);
  }

 public:
  std::size_t followers() const {
    detail::exclusive_guard lock(mutex_);
    return followers_.size();
  }

  bool victim_in_flight(const uid_type& victim) const {
    detail::exclusive_guard lock(mutex_);
    return victims_.contains(victim);
  }

  std::size_t victims_in_flight() const {
    detail::exclusive_guard lock(mutex_);
    return victims_.size();
  }

  // Appends every victim in flight to `out` (a container of uid_type).
  template <class Out>
  void victims_snapshot(Out& out) const {
    detail::exclusive_guard lock(mutex_);
    victims_.for_each([&](const uid_type& uid, victim_claim) { out.push_back(uid); });
  }

  // The caller's cache saw a victim terminating or gone: it leaves the victim ledger, and a
  // preemptor waiting on it as its last victim is no longer gated.
  void report_victim(const uid_type& victim, victim_state state) {
    detail::exclusive_guard lock(mutex_);
    if (state != victim_state::present) victims_.erase(victim);
    preempting_.for_each_mut([&](const uid_type&, last_victim& lv) {
      if (lv.victim && *lv.victim == victim) lv.state = state;
    });
  }

 private:
  follower* take_ready_follower() {
    detail::exclusive_guard lock(mutex_);
    const auto it = std::find_if(followers_.begin(), followers_.end(),
                                 [](const follower* f) { return f->awaited.empty(); });
    if (it == followers_.end()) return nullptr;
    follower* f = *it;
    followers_.erase(it);
    return f;
  }

  struct last_victim {
    std::optional<uid_type> victim;
    victim_state state = victim_state::present;
  };

  void clear_moved() noexcept {
    preempting_.clear();
    victims_.clear();
    followers_.clear();
  }

  template <class>
  friend class detail::user_of;

  mutable Mutex mutex_;
  detail::users users_;
  detail::flat_map<uid_type, last_victim> preempting_;
  detail::flat_map<uid_type, victim_claim> victims_;
  std::vector<follower*> followers_;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_IN_FLIGHT_HPP
