// Async dispatch under contention, for ThreadSanitizer (and AddressSanitizer's leak check).
//
// One thread dispatches many preemptions on a thread pool (2-4 workers) while a "gate" thread
// hammers the queries (is_preemption_running, both overloads; the victim ledger; the nomination
// ledger's reader) and an "informer" thread reports victims: the deletions the fake API accepted
// are reported terminating, then gone, except for every fifth victim (an informer that lags
// forever: its victim stays in the victim ledger). The fake client sleeps a seeded random few
// microseconds and fails or answers NotFound at random. Dispatches choose victims from what the
// cache shows (gone pods are not chosen; terminating pods are passed as terminating), under the
// cache's shared lock, as a scheduling cycle reads its snapshot.
//
// At quiescence (dispatcher.wait_idle()):
//   * no victim was evicted again after an eviction that did not fail;
//   * every preemptor is out of flight; a started one was re-activated exactly when its last
//     victim's deletion was not accepted (and at most once, after leaving the in-flight set); its
//     finished result is "success" exactly when none of its evictions failed; one that started
//     nothing (its victims in flight for others) was re-activated, or all its victims' deletions
//     were accepted;
//   * the in-flight table holds no preemptor, and the victim ledger exactly the victims whose
//     deletion was accepted and that were never reported;
//   * nothing leaks (ASan).
// Shorter eviction latencies under TSan (PREEMPT_TEST_UNDER_TSAN), where everything runs slower.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <shared_mutex>
#include <thread>
#include <vector>

#include "preempt/dispatcher.hpp"
#include "preempt/in_flight.hpp"
#include "preempt/nomination_ledger.hpp"
#include "preempt/thread_pool.hpp"
#include "support/eviction_fakes.hpp"
#include "support/pods.hpp"
#include "support/sanitizers.hpp"

namespace dispatch_stress_test {

namespace {

using evf::pod;
using evf::uid;
using preempt::eviction_outcome;
using preempt::victim_state;

#if PREEMPT_TEST_UNDER_TSAN
constexpr std::size_t preemptor_count = 1000;
constexpr int max_sleep_us = 20;
#else
constexpr std::size_t preemptor_count = 1000;
constexpr int max_sleep_us = 40;
#endif
constexpr std::size_t victim_count = 4 * preemptor_count + 64;
constexpr std::size_t window = 16;  // victims are chosen among the first `window` live pods
constexpr std::size_t node_count = 8;
constexpr uid first_preemptor = 10000;

std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct record {
  uid victim = 0, preemptor = 0;
  eviction_outcome outcome = eviction_outcome::evicted;
  bool is_last = false;  // the preemptor's recorded last victim when the call began
  bool in_flight = false;
};

// What the cache shows about each victim (index = uid). `lagging`: its deletion was accepted but
// the informer will never report it (the cache keeps showing it present).
enum : std::uint8_t { present = 0, terminating = 1, gone = 2, lagging = 3 };
constexpr bool lags(uid v) { return v % 5 == 0; }

struct shared_state {
  explicit shared_state(std::uint64_t s) : seed(s) {
    for (std::size_t i = 0; i <= victim_count; ++i) cache[i].store(present);
    for (std::size_t i = 0; i < preemptor_count; ++i) {
      reactivated[i].store(0);
      finished[i].store(0);
      succeeded[i].store(0);
    }
  }

  std::uint64_t seed;
  const preempt::in_flight_table<pod>* table = nullptr;

  // The fake API.
  std::atomic<std::uint64_t> calls_made{0};
  std::mutex records_mutex;
  std::vector<record> records;
  std::mutex queue_mutex;
  std::deque<uid> accepted;  // deletions for the informer to observe

  // The cache.
  std::shared_mutex cache_mutex;  // exclusive to change a state, shared while dispatching
  std::unique_ptr<std::atomic<std::uint8_t>[]> cache =
      std::make_unique<std::atomic<std::uint8_t>[]>(victim_count + 1);

  // The hooks.
  std::unique_ptr<std::atomic<int>[]> reactivated =
      std::make_unique<std::atomic<int>[]>(preemptor_count);
  std::unique_ptr<std::atomic<int>[]> finished =
      std::make_unique<std::atomic<int>[]>(preemptor_count);
  std::unique_ptr<std::atomic<int>[]> succeeded =
      std::make_unique<std::atomic<int>[]>(preemptor_count);
  std::atomic<int> reactivated_in_flight{0};
  std::atomic<int> cleared{0};
};

struct stress_client {
  shared_state* s;

  preempt::eviction_result evict(const pod& victim, const pod& preemptor) {
    record r;
    r.victim = victim.uid();
    r.preemptor = preemptor.uid();
    r.in_flight = s->table->in_flight(preemptor.uid());
    r.is_last = s->table->last_victim_of(preemptor.uid()) == std::optional<uid>(victim.uid());
    const std::uint64_t h =
        mix(s->seed ^ mix(victim.uid() * 1000003u + s->calls_made.fetch_add(1)));
    std::this_thread::sleep_for(
        std::chrono::microseconds(static_cast<int>(h % (max_sleep_us + 1))));
    const std::uint64_t roll = (h >> 24) % 100;
    preempt::eviction_result result = preempt::eviction_result::evicted();
    if (roll < 12)
      result = preempt::eviction_result::failed("delete pod failed");
    else if (roll < 18)
      result = preempt::eviction_result::not_found();
    r.outcome = result.outcome;
    {
      std::lock_guard lock(s->records_mutex);
      s->records.push_back(r);
    }
    if (result.ok()) {
      std::lock_guard lock(s->queue_mutex);
      s->accepted.push_back(victim.uid());
    }
    return result;
  }
};

struct stress_hooks {
  shared_state* s;

  void reactivate(const pod& p) const {
    if (s->table->in_flight(p.uid())) s->reactivated_in_flight.fetch_add(1);
    s->reactivated[p.uid() - first_preemptor].fetch_add(1);
  }
  void nominations_cleared(std::size_t, std::span<const preempt::pod_uid_t<pod>> pods) const {
    s->cleared.fetch_add(static_cast<int>(pods.size()));
  }
  template <class Duration>
  void on_async_finished(const pod& p, bool success, Duration) const {
    s->finished[p.uid() - first_preemptor].fetch_add(1);
    if (success) s->succeeded[p.uid() - first_preemptor].fetch_add(1);
  }
};

struct dispatched {
  std::vector<uid> chosen;
  preempt::dispatch_result result;
};

void run_stress(std::size_t threads, std::uint64_t seed) {
  CAPTURE(threads);
  CAPTURE(seed);
  shared_state st(seed);
  std::mt19937_64 g(seed);

  // Pods at stable addresses: each victim also as its terminating version (same uid).
  std::vector<pod> victims, terminating_victims, preemptors, pending;
  victims.reserve(victim_count + 1);
  terminating_victims.reserve(victim_count + 1);
  preemptors.reserve(preemptor_count);
  for (uid u = 0; u <= victim_count; ++u) {
    const auto priority = static_cast<std::int32_t>(g() % 3) * 10;
    victims.push_back(fx::make_pod(u, priority));
    terminating_victims.push_back(
        fx::make_pod(u, priority, {.terminating = true, .terminating_by_preemption = true}));
  }
  const std::int32_t priorities[] = {100, 1000, 10000};
  for (std::size_t i = 0; i < preemptor_count; ++i)
    preemptors.push_back(fx::make_pod(first_preemptor + i, priorities[g() % 3]));
  for (uid u = 0; u < 16; ++u)  // pending pods nominated here and there, to be cleared
    pending.push_back(fx::make_pod(50000 + u, static_cast<std::int32_t>(u % 4) * 50));

  preempt::nomination_ledger<pod> ledger(node_count);
  preempt::in_flight_table<pod> table;
  st.table = &table;
  stress_client client{&st};
  preempt::thread_pool pool(threads);
  std::vector<dispatched> log(preemptor_count);
  std::atomic<bool> stop_gate{false}, dispatching_done{false};
  std::atomic<std::uint64_t> gate_queries{0}, reports{0};

  {
    preempt::dispatcher<pod, preempt::pool_executor, stress_client, stress_hooks> disp(
        ledger, table, client, pool.get_executor(), stress_hooks{&st});

    std::thread gate([&] {
      std::mt19937_64 gg(seed + 1);
      const auto lookup = [&](const uid& v) {
        const std::uint8_t c = st.cache[v].load();
        return c == present || c == lagging ? victim_state::present
               : c == terminating           ? victim_state::terminating
                                            : victim_state::gone;
      };
      std::vector<uid> snap;
      while (!stop_gate.load()) {
        const uid p = first_preemptor + gg() % preemptor_count;
        (void)disp.is_preemption_running(p);
        (void)table.is_preemption_running(p, lookup);
        (void)table.victim_in_flight(gg() % (victim_count + 1));
        (void)disp.jobs_running();
        if (gg() % 16 == 0) {
          snap.clear();
          table.victims_snapshot(snap);
          (void)ledger.node_of(p);
          const auto reader = ledger.reader();
          (void)reader.nominated_to(gg() % node_count).size();
        }
        if (gate_queries.fetch_add(1) % 4 == 0)
          std::this_thread::yield();  // hammer, but let the informer at the table's lock
      }
    });

    std::thread informer([&] {
      std::mt19937_64 gi(seed + 2);
      for (;;) {
        std::optional<uid> v;
        {
          std::lock_guard lock(st.queue_mutex);
          if (!st.accepted.empty()) {
            v = st.accepted.front();
            st.accepted.pop_front();
          }
        }
        if (!v) {
          if (dispatching_done.load()) {
            std::lock_guard lock(st.queue_mutex);
            if (st.accepted.empty()) break;
            continue;
          }
          std::this_thread::sleep_for(std::chrono::microseconds(5));
          continue;
        }
        if (lags(*v)) {  // this informer never sees it go
          {
            std::unique_lock lock(st.cache_mutex);
            st.cache[*v].store(lagging);
          }
          table.report_victim(*v, victim_state::present);
        } else {
          {
            std::unique_lock lock(st.cache_mutex);
            st.cache[*v].store(terminating);
            table.report_victim(*v, victim_state::terminating);
          }
          std::this_thread::yield();
          {
            std::unique_lock lock(st.cache_mutex);
            st.cache[*v].store(gone);
            table.report_victim(*v, victim_state::gone);
          }
        }
        if (gi() % 4 == 0)
          table.report_victim(gi() % (victim_count + 1), victim_state::present);  // noise
        reports.fetch_add(1);
      }
    });

    for (std::size_t i = 0; i < preemptor_count; ++i) {
      if (i % 10 == 0) ledger.nominate(pending[i / 10 % pending.size()], g() % node_count);
      std::shared_lock lock(st.cache_mutex);
      // The first `window` live pods (lagging ones aside): victims in flight are chosen again
      // until reported; now and then a lagging one (still "present" in the cache) too.
      std::vector<uid> candidates, stale;
      for (uid u = 1; u <= victim_count && candidates.size() < window; ++u) {
        const std::uint8_t c = st.cache[u].load();
        if (c == present || c == terminating) candidates.push_back(u);
        if (c == lagging) stale.push_back(u);
      }
      std::shuffle(candidates.begin(), candidates.end(), g);
      candidates.resize(std::min<std::size_t>(candidates.size(), 1 + g() % 4));
      if (!stale.empty() && g() % 3 == 0) candidates.push_back(stale[g() % stale.size()]);
      std::vector<const pod*> vs;
      for (uid u : candidates)
        vs.push_back(st.cache[u].load() == terminating ? &terminating_victims[u] : &victims[u]);
      REQUIRE(!vs.empty());
      log[i].chosen = candidates;
      log[i].result = disp.preempt_on(preemptors[i], g() % node_count, vs);
      lock.unlock();
      // Let the evictions and the informer progress (a reader-preferring lock would starve it).
      std::this_thread::sleep_for(std::chrono::microseconds(g() % (2 * max_sleep_us)));
    }
    disp.wait_idle();
    CHECK(disp.jobs_running() == 0);
    dispatching_done.store(true);
    informer.join();
    stop_gate.store(true);
    gate.join();
  }

  // ---- invariants at quiescence ----
  const std::vector<record>& recs = st.records;
  // (1) No victim evicted again after its deletion was accepted (a failed or NotFound eviction
  //     releases the victim; it may be dispatched again).
  std::vector<bool> deleted(victim_count + 1, false);
  std::size_t reevicted = 0;
  for (const record& r : recs) {  // in completion order; evictions of one victim never overlap
    if (deleted[r.victim]) ++reevicted;
    if (r.outcome == eviction_outcome::evicted) deleted[r.victim] = true;
  }
  CHECK(reevicted == 0);

  // (2) Every preemptor out of flight; started ones woken exactly when their last victim's
  //     deletion was not accepted; results consistent.
  std::size_t started = 0, woken = 0, waiting_on_deletion = 0, not_started = 0, stranded = 0,
              followers_woken = 0;
  std::size_t wake_rule_broken = 0, bad_result = 0, bad_calls = 0;
  for (std::size_t i = 0; i < preemptor_count; ++i) {
    const uid p = first_preemptor + i;
    CHECK_FALSE(table.in_flight(p));
    bool last_accepted = false, any_failed = false;
    std::set<uid> called;
    std::size_t calls = 0;
    for (const record& r : recs) {
      if (r.preemptor != p) continue;
      ++calls;
      called.insert(r.victim);
      if (!r.in_flight) ++bad_calls;
      if (r.is_last && r.outcome == eviction_outcome::evicted) last_accepted = true;
      if (r.outcome == eviction_outcome::failed) any_failed = true;
    }
    if (called.size() != calls) ++bad_calls;  // no victim twice for one preemptor
    for (uid v : called)
      if (std::find(log[i].chosen.begin(), log[i].chosen.end(), v) == log[i].chosen.end())
        ++bad_calls;
    if (!log[i].result.started) {
      // Nothing of its own: woken (at most once), or every victim it chose had its deletion
      // accepted by whoever evicted it (those deletions will wake it).
      ++not_started;
      if (calls != 0 || st.finished[i].load() != 0 || st.reactivated[i].load() > 1) ++bad_calls;
      if (st.reactivated[i].load() == 1) {
        ++followers_woken;
      } else {
        // Each victim it chose brings an event: its accepted deletion, or the informer's report
        // that it is gone (a NotFound victim the informer saw go before this dispatch).
        for (uid v : log[i].chosen)
          if (!deleted[v] && st.cache[v].load() != gone) {
            ++stranded;
            break;
          }
      }
      continue;
    }
    ++started;
    const int react = st.reactivated[i].load();
    if (react > 1 || (react == 1) == last_accepted) ++wake_rule_broken;
    woken += react == 1 ? 1 : 0;
    waiting_on_deletion += last_accepted ? 1 : 0;
    if (st.finished[i].load() != 1 || (st.succeeded[i].load() == 1) == any_failed) ++bad_result;
    if (calls > log[i].result.evictions) ++bad_calls;
  }
  CHECK(wake_rule_broken == 0);
  CHECK(stranded == 0);
  CHECK(bad_result == 0);
  CHECK(bad_calls == 0);
  CHECK(st.reactivated_in_flight.load() == 0);
  CHECK(table.preemptors_in_flight() == 0);
  CHECK(started >
        0);  // how many start, and how many find their victims in flight, depends on timing

  // (3) The victim ledger: exactly the victims whose deletion was accepted and never reported.
  std::set<uid> expected;
  for (uid v = 0; v <= victim_count; ++v)
    if (deleted[v] && lags(v)) expected.insert(v);
  std::vector<uid> snap;
  table.victims_snapshot(snap);
  const std::set<uid> held(snap.begin(), snap.end());
  CHECK(held.size() == snap.size());
  CHECK(held == expected);
  CHECK(expected.size() > 0);

  MESSAGE("stress(" << threads << " threads): " << started << " started (" << woken << " woken, "
                    << waiting_on_deletion << " waiting on a deletion), " << not_started
                    << " dispatched nothing (" << followers_woken << " woken after following), "
                    << recs.size() << " evictions, " << gate_queries.load() << " gate queries, "
                    << reports.load() << " reports, " << st.cleared.load()
                    << " nominations cleared");
}

}  // namespace

TEST_CASE("stress: concurrent dispatch, gate queries and victim reports on a thread pool") {
  run_stress(2, 0xA11CE);
  run_stress(3, 0xB0B);
  run_stress(4, 0xC0DE);
}

}  // namespace dispatch_stress_test
