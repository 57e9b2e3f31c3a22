// Throttles on preemption's evictions (preempt/eviction_throttle.hpp): per node, per namespace and
// cluster-wide counts over a sliding window, the moment a refused batch could start, batches
// larger than a limit, the grace period after a nomination, and no limit at all changing nothing.
#include <doctest/doctest.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <vector>

#include "preempt/dispatcher.hpp"
#include "preempt/eviction_throttle.hpp"
#include "preempt/metrics.hpp"
#include "preempt/model/resource_pod.hpp"
#include "preempt/throttled_dispatch.hpp"

namespace eviction_throttle_test {

namespace {

using pod = preempt::model::resource_pod;
using clock_type = std::chrono::steady_clock;
using throttle = preempt::eviction_throttle<pod, clock_type>;
using namespace std::chrono_literals;

pod make(preempt::model::pod_id uid, std::uint32_t ns = 0) {
  return pod(
      {.uid = uid, .priority = 0, .requests = {100, 0}, .start_time = 0, .namespace_id = ns});
}

clock_type::time_point at(std::chrono::seconds s) { return clock_type::time_point{} + s; }

struct batch {
  std::vector<pod> pods;
  std::vector<const pod*> pointers;
  explicit batch(std::vector<pod> p) : pods(std::move(p)) {
    for (const pod& q : pods) pointers.push_back(&q);
  }
  std::span<const pod* const> victims() const { return pointers; }
};

const pod preemptor = make(1000);
const pod other_preemptor = make(1001);

}  // namespace

TEST_CASE("eviction throttle: per node within a sliding window") {
  throttle t({.window = 10s, .per_node = 2});
  const batch two({make(1), make(2)}), one({make(3)});
  CHECK(t.admit(preemptor, 0, two.victims(), at(0s)).admitted);
  const auto refused = t.admit(other_preemptor, 0, one.victims(), at(1s));
  CHECK_FALSE(refused.admitted);
  CHECK(refused.retry_at == at(10s));                                  // the first two leave then
  CHECK(t.admit(other_preemptor, 1, one.victims(), at(1s)).admitted);  // another node
  CHECK_FALSE(t.admit(other_preemptor, 0, one.victims(), at(9s)).admitted);
  CHECK(t.admit(other_preemptor, 0, one.victims(), at(10s)).admitted);
}

TEST_CASE("eviction throttle: cluster-wide and per namespace") {
  throttle t({.window = 60s, .per_namespace = 1, .cluster = 3});
  const batch a({make(1, 0)}), b({make(2, 1)}), c({make(3, 2)}), d({make(4, 3)}), a2({make(5, 0)});
  CHECK(t.admit(preemptor, 0, a.victims(), at(0s)).admitted);
  const auto same_ns = t.admit(preemptor, 1, a2.victims(), at(5s));
  CHECK_FALSE(same_ns.admitted);
  CHECK(same_ns.retry_at == at(60s));
  CHECK(t.admit(preemptor, 1, b.victims(), at(10s)).admitted);
  CHECK(t.admit(preemptor, 2, c.victims(), at(20s)).admitted);
  const auto full = t.admit(preemptor, 3, d.victims(), at(30s));
  CHECK_FALSE(full.admitted);
  CHECK(full.retry_at == at(60s));  // the cluster's oldest eviction leaves
  CHECK(t.admit(preemptor, 3, d.victims(), at(60s)).admitted);
  CHECK(t.recorded() == 3);
}

TEST_CASE("eviction throttle: a batch larger than a limit is never admitted") {
  throttle t({.window = 10s, .per_node = 1});
  const batch two({make(1), make(2)});
  const auto v = t.admit(preemptor, 0, two.victims(), at(0s));
  CHECK_FALSE(v.admitted);
  CHECK(v.retry_at == clock_type::time_point::max());
}

TEST_CASE("eviction throttle: grace period between nomination and eviction") {
  throttle t({.grace = 5s});
  const batch one({make(1)});
  const auto first = t.admit(preemptor, 0, one.victims(), at(100s));
  CHECK_FALSE(first.admitted);
  CHECK(first.retry_at == at(105s));
  CHECK_FALSE(t.admit(preemptor, 0, one.victims(), at(104s)).admitted);
  SUBCASE("over: admitted") { CHECK(t.admit(preemptor, 0, one.victims(), at(105s)).admitted); }
  SUBCASE("nominated elsewhere: the period starts again") {
    const auto moved = t.admit(preemptor, 1, one.victims(), at(104s));
    CHECK_FALSE(moved.admitted);
    CHECK(moved.retry_at == at(109s));
  }
  SUBCASE("forgotten: a new period") {
    t.forget(preemptor.uid());
    CHECK(t.admit(preemptor, 0, one.victims(), at(104s)).retry_at == at(109s));
  }
}

TEST_CASE("eviction throttle: without limits every batch is admitted at once") {
  throttle t;
  const batch many({make(1), make(2), make(3), make(4)});
  for (int i = 0; i < 10; ++i)
    CHECK(t.admit(preemptor, 0, many.victims(), at(std::chrono::seconds(i))).admitted);
  CHECK(t.recorded() == 0);
}

namespace {

struct recording_client {
  std::vector<preempt::model::pod_id> evicted;
  preempt::eviction_result evict(const pod& victim, const pod&) {
    evicted.push_back(victim.uid());
    return preempt::eviction_result::evicted();
  }
};

struct wake_up_hooks : preempt::metrics_hooks {
  std::vector<clock_type::time_point>* wakes;
  void reactivate_at(const pod&, clock_type::time_point t) { wakes->push_back(t); }
};

}  // namespace

TEST_CASE("throttled_apply: held back, nominated, woken when the window opens, then evicted") {
  preempt::nomination_ledger<pod> ledger(2);
  preempt::in_flight_table<pod> in_flight;
  recording_client client;
  std::vector<clock_type::time_point> wakes;
  preempt::metrics m;
  preempt::dispatcher<pod, preempt::inline_executor, recording_client, wake_up_hooks> dispatch(
      ledger, in_flight, client, preempt::inline_executor{}, wake_up_hooks{{&m}, &wakes});
  throttle t({.window = 10s, .per_node = 1});
  const batch first({make(1)}), second({make(2)});
  preempt::decision<pod> d;
  d.kind = preempt::decision_kind::nominated;
  d.node_index = 0;
  d.node_name = "n0";

  d.victims = first.victims();
  const auto a = preempt::throttled_apply(dispatch, t, preemptor, d, at(0s));
  CHECK_FALSE(a.held_back);
  CHECK(client.evicted == std::vector<preempt::model::pod_id>{1});

  d.victims = second.victims();
  const auto b = preempt::throttled_apply(dispatch, t, other_preemptor, d, at(3s));
  CHECK(b.held_back);
  CHECK(b.retry_at == at(10s));
  CHECK(wakes == std::vector<clock_type::time_point>{at(10s)});
  CHECK(client.evicted.size() == 1);                                              // nothing evicted
  CHECK(ledger.node_of(other_preemptor.uid()) == std::optional<std::size_t>(0));  // nominated
  CHECK(m.throttle_holds() == 1);

  const auto c = preempt::throttled_apply(dispatch, t, other_preemptor, d, at(10s));
  CHECK_FALSE(c.held_back);
  CHECK(client.evicted == std::vector<preempt::model::pod_id>{1, 2});
  CHECK(m.throttle_holds() == 1);
  CHECK(m.preemptions() == 2);

  SUBCASE("not a nomination: applied as it is") {
    preempt::decision<pod> none;
    none.kind = preempt::decision_kind::unschedulable;
    none.clear_nomination = true;
    const auto e = preempt::throttled_apply(dispatch, t, other_preemptor, none, at(11s));
    CHECK_FALSE(e.held_back);
    CHECK_FALSE(ledger.node_of(other_preemptor.uid()).has_value());
  }
}

}  // namespace eviction_throttle_test
