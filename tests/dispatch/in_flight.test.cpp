// in_flight_table (in_flight.hpp; upstream's `preempting` set, lastVictimsPendingPreemption and
// IsPodRunningPreemption): the preemptors whose evictions run, their
// last victims, the gate, and the in-flight victim ledger.
//
//   IR1-IR6  upstream TestIsPodRunningPreemption, each through the report-based gate
//            (report_victim) and through the overload that asks a lookup (the informer)
// plus claim/release of victims, reports, and victims_snapshot.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "preempt/in_flight.hpp"
#include "support/eviction_fakes.hpp"

namespace in_flight_test {

namespace {

using evf::pod;
using evf::uid;
using preempt::victim_state;
using table_type = preempt::in_flight_table<pod>;

constexpr uid preemptor = 1, other = 2, victim1 = 11, victim_deleted = 12;

// An informer: what the cache says about each victim; counts the questions.
struct informer {
  std::vector<std::pair<uid, victim_state>> pods;
  mutable int asked = 0;
  victim_state operator()(const uid& v) const {
    ++asked;
    for (const auto& [id, state] : pods)
      if (id == v) return state;
    return victim_state::gone;
  }
};

}  // namespace

TEST_CASE(
    "IR1 [TestIsPodRunningPreemption/\"preemptor not in preemptingSet\"]: nothing in flight, no "
    "last victim: not running") {
  table_type t;
  const informer inf{{{victim1, victim_state::present}}};
  CHECK_FALSE(t.is_preemption_running(preemptor));
  CHECK_FALSE(t.is_preemption_running(preemptor, inf));
  CHECK(inf.asked == 0);
  CHECK_FALSE(t.in_flight(preemptor));
  CHECK(t.preemptors_in_flight() == 0);
}

TEST_CASE(
    "IR2 [TestIsPodRunningPreemption/\"preemptor not in preemptingSet, lastVictimSet not empty\"]: "
    "a last victim recorded for a preemptor not in flight: not running") {
  table_type t;
  // The table keeps last victims inside the in-flight set: recording one for a preemptor that is
  // not in flight has no effect (and never makes it "running").
  t.set_last_victim(preemptor, victim1);
  const informer inf{{{victim1, victim_state::present}}};
  CHECK_FALSE(t.is_preemption_running(preemptor));
  CHECK_FALSE(t.is_preemption_running(preemptor, inf));
  CHECK(t.last_victim_of(preemptor) == std::nullopt);
  CHECK_FALSE(t.in_flight(preemptor));

  // Also after the preemptor's work finished (its entry is gone, last victim included).
  t.start(preemptor);
  t.set_last_victim(preemptor, victim1);
  t.finish(preemptor);
  CHECK_FALSE(t.is_preemption_running(preemptor));
  CHECK_FALSE(t.is_preemption_running(preemptor, inf));
  CHECK(t.last_victim_of(preemptor) == std::nullopt);
}

TEST_CASE(
    "IR3 [TestIsPodRunningPreemption/\"preemptor in preemptingSet, no lastVictim for preemptor\"]: "
    "in flight, and only another pod has a last victim: running") {
  table_type t;
  t.start(preemptor);
  const informer inf{{}};  // victim1 gone: irrelevant to `preemptor`
  SUBCASE("the other pod is in flight with its last victim") {
    t.start(other);
    t.set_last_victim(other, victim1);
    t.report_victim(victim1, victim_state::gone);
    CHECK_FALSE(t.is_preemption_running(other));
  }
  SUBCASE("the other pod is not in flight") { t.set_last_victim(other, victim1); }
  CHECK(t.is_preemption_running(preemptor));
  CHECK(t.is_preemption_running(preemptor, inf));
  CHECK(inf.asked == 0);  // no last victim of its own: no lookup
  CHECK(t.last_victim_of(preemptor) == std::nullopt);
}

TEST_CASE(
    "IR4 [TestIsPodRunningPreemption/\"preemptor in preemptingSet, victim in lastVictimSet, not in "
    "PodLister\"]: in flight, last victim absent from the cache: not running") {
  table_type t;
  t.start(preemptor);
  t.set_last_victim(preemptor, victim1);
  CHECK(t.last_victim_of(preemptor) == std::optional<uid>(victim1));
  const informer inf{{}};
  CHECK_FALSE(t.is_preemption_running(preemptor, inf));
  CHECK(inf.asked == 1);
  CHECK(t.is_preemption_running(preemptor));  // nothing reported yet
  t.report_victim(victim1, victim_state::gone);
  CHECK_FALSE(t.is_preemption_running(preemptor));
  CHECK(t.in_flight(preemptor));  // the gate opens; the work is not over
}

TEST_CASE(
    "IR5 [TestIsPodRunningPreemption/\"preemptor in preemptingSet, victim in lastVictimSet and in "
    "PodLister\"]: in flight, last victim still present: running") {
  table_type t;
  t.start(preemptor);
  t.set_last_victim(preemptor, victim1);
  const informer inf{{{victim1, victim_state::present}}};
  CHECK(t.is_preemption_running(preemptor, inf));
  CHECK(t.is_preemption_running(preemptor));
  t.report_victim(victim1, victim_state::present);
  CHECK(t.is_preemption_running(preemptor));
  t.report_victim(99, victim_state::gone);  // another victim: no effect
  CHECK(t.is_preemption_running(preemptor));
}

TEST_CASE(
    "IR6 [TestIsPodRunningPreemption/\"preemptor in preemptingSet, victim in lastVictimSet and in "
    "PodLister with deletion timestamp\"]: in flight, last victim present with a deletion "
    "timestamp: not running") {
  table_type t;
  t.start(preemptor);
  t.set_last_victim(preemptor, victim_deleted);
  const informer inf{{{victim_deleted, victim_state::terminating}}};
  CHECK_FALSE(t.is_preemption_running(preemptor, inf));
  CHECK(t.is_preemption_running(preemptor));
  t.report_victim(victim_deleted, victim_state::terminating);
  CHECK_FALSE(t.is_preemption_running(preemptor));
}

TEST_CASE("gate: recording the last victim again, or restarting, closes the gate") {
  table_type t;
  t.start(preemptor);
  t.set_last_victim(preemptor, victim1);
  t.report_victim(victim1, victim_state::gone);
  CHECK_FALSE(t.is_preemption_running(preemptor));
  t.set_last_victim(preemptor, victim_deleted);  // a new last victim: present until reported
  CHECK(t.is_preemption_running(preemptor));
  t.start(preemptor);  // a fresh start forgets the last victim
  CHECK(t.last_victim_of(preemptor) == std::nullopt);
  CHECK(t.is_preemption_running(preemptor));
  CHECK(t.preemptors_in_flight() == 1);
  t.finish(preemptor);
  t.finish(preemptor);  // idempotent
  CHECK(t.preemptors_in_flight() == 0);
}

TEST_CASE("gate: one victim reported opens the gate of every preemptor waiting on it") {
  table_type t;
  t.start(preemptor);
  t.start(other);
  t.set_last_victim(preemptor, victim1);
  t.set_last_victim(other, victim1);
  t.report_victim(victim1, victim_state::terminating);
  CHECK_FALSE(t.is_preemption_running(preemptor));
  CHECK_FALSE(t.is_preemption_running(other));
  t.report_victim(victim1, victim_state::present);  // the cache changed its mind
  CHECK(t.is_preemption_running(preemptor));
}

TEST_CASE("victims: claim once, release on failure, claim again") {
  table_type t;
  CHECK(t.victims_in_flight() == 0);
  CHECK(t.claim_victim(victim1));
  CHECK_FALSE(t.claim_victim(victim1));  // already dispatched
  CHECK(t.victim_in_flight(victim1));
  CHECK(t.claim_victim(victim_deleted));
  CHECK(t.victims_in_flight() == 2);
  t.release_victim(victim1);
  CHECK_FALSE(t.victim_in_flight(victim1));
  CHECK(t.victims_in_flight() == 1);
  CHECK(t.claim_victim(victim1));  // may be dispatched again
  t.release_victim(12345);         // unknown: no effect
  CHECK(t.victims_in_flight() == 2);
}

TEST_CASE("victims: a claim is running until the API accepts the deletion") {
  table_type t;
  CHECK(t.claim_of(victim1) == std::nullopt);
  CHECK(t.claim_victim(victim1));
  CHECK(t.claim_of(victim1) ==
        std::optional<preempt::victim_claim>(preempt::victim_claim::running));
  t.accept_victim(victim1);
  CHECK(t.claim_of(victim1) ==
        std::optional<preempt::victim_claim>(preempt::victim_claim::accepted));
  CHECK_FALSE(t.claim_victim(victim1));  // still claimed until reported
  CHECK(t.victim_in_flight(victim1));
  t.report_victim(victim1, victim_state::gone);
  CHECK(t.claim_of(victim1) == std::nullopt);
  t.accept_victim(victim_deleted);  // never claimed: no effect
  CHECK(t.claim_of(victim_deleted) == std::nullopt);
  CHECK(t.victims_in_flight() == 0);
  CHECK(t.claim_victim(victim_deleted));
  t.release_victim(victim_deleted);
  CHECK(t.claim_of(victim_deleted) == std::nullopt);
}

TEST_CASE("victims: reports of terminating or gone leave the ledger, present does not") {
  table_type t;
  for (uid v : {uid{1}, uid{2}, uid{3}}) CHECK(t.claim_victim(v));
  t.report_victim(1, victim_state::present);
  CHECK(t.victim_in_flight(1));
  t.report_victim(2, victim_state::terminating);
  CHECK_FALSE(t.victim_in_flight(2));
  t.report_victim(3, victim_state::gone);
  CHECK_FALSE(t.victim_in_flight(3));
  CHECK(t.victims_in_flight() == 1);
  t.report_victim(4, victim_state::gone);  // never claimed: no effect
  CHECK(t.victims_in_flight() == 1);
}

TEST_CASE("victims_snapshot appends every victim in flight") {
  table_type t;
  std::vector<uid> snap{999};  // appended to
  t.victims_snapshot(snap);
  CHECK(snap == std::vector<uid>{999});
  for (uid v = 100; v < 140; ++v) t.claim_victim(v);
  for (uid v = 100; v < 140; v += 4) t.release_victim(v);
  snap.clear();
  t.victims_snapshot(snap);
  std::sort(snap.begin(), snap.end());
  std::vector<uid> expected;
  for (uid v = 100; v < 140; ++v)
    if ((v - 100) % 4 != 0) expected.push_back(v);
  CHECK(snap == expected);
  CHECK(snap.size() == t.victims_in_flight());
}

TEST_CASE("preemptors and victims are independent tables") {
  table_type t;
  t.reserve(4, 16);
  t.start(victim1);                // the same uid as a preemptor...
  CHECK(t.claim_victim(victim1));  // ...and as a victim
  t.finish(victim1);
  CHECK(t.victim_in_flight(victim1));
  t.release_victim(victim1);
  t.start(victim1);
  CHECK(t.in_flight(victim1));
}

}  // namespace in_flight_test
