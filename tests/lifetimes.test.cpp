// Lifetimes the caller cannot get wrong silently (dispatcher.hpp, nomination_ledger.hpp,
// decision.hpp, model/resource_cluster.hpp):
//   - a decision is not copyable (compile_fail/decision_copy.cpp): bound by reference, it is the
//     evaluator's own and follows its next evaluation, however much that one grows the buffers;
//   - the nomination ledger keeps its own copy of a nominated pod: the caller may free or replace
//     the object it nominated (an informer update) and later evaluations read the copy (under
//     AddressSanitizer this was a heap use after free); update() refreshes the copy;
//   - the dispatcher attaches to its ledger and in-flight table once it starts work, and detaches
//     when it is destroyed (destroying the table first is a contract failure:
//     tests/standalone/contracts.cpp).
#include <doctest/doctest.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/eviction_fakes.hpp"
#include "support/fixtures.hpp"

namespace lifetimes_test {

namespace {

using evf::pod;
using fx::capacity;
using fx::res;
using preempt::model::resource_cluster;

static_assert(!std::is_copy_constructible_v<preempt::decision<pod>>);
static_assert(!std::is_copy_assignable_v<preempt::decision<pod>>);
static_assert(std::is_nothrow_move_constructible_v<preempt::decision<pod>>);

pod make(preempt::model::pod_id uid, std::int32_t priority, std::int64_t cpu) {
  return pod({.uid = uid, .priority = priority, .requests = res(cpu, 1), .start_time = 0});
}

struct quick_client {
  preempt::eviction_result evict(const pod&, const pod&) {
    return preempt::eviction_result::evicted();
  }
};

}  // namespace

TEST_CASE("lifetimes: a decision bound by reference follows the evaluator's next evaluation") {
  resource_cluster c;
  const std::size_t n = c.add_node("n", capacity(1000, 1000));
  c.add_pod(n, make(1, 0, 900));
  preempt::evaluator<resource_cluster> ev({}, preempt::default_policy{0});
  const preempt::filter_statuses statuses(c.size(), preempt::status_code::unschedulable);
  const auto& d = ev.evaluate(make(2, 100, 500), c, statuses, preempt::no_budgets{},
                              preempt::no_nominations{}, preempt::inline_executor{});
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  // A second cluster, many times larger: the evaluator's buffers grow (and move); the reference
  // is the evaluator's own decision, which now describes the second evaluation.
  resource_cluster big;
  for (int i = 0; i < 200; ++i) {
    const std::size_t k = big.add_node("m", capacity(1000, 1000));
    for (int j = 0; j < 5; ++j)
      big.add_pod(k, make(static_cast<preempt::model::pod_id>(100 + 5 * i + j), 0, 200));
  }
  const preempt::filter_statuses all(big.size(), preempt::status_code::unschedulable);
  const auto& again = ev.evaluate(make(3, 100, 1000), big, all, preempt::no_budgets{},
                                  preempt::no_nominations{}, preempt::inline_executor{});
  CHECK(&again == &d);
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  CHECK(d.victims.size() == 5);
  CHECK(d.diagnosis.size() >= 1);
}

TEST_CASE("lifetimes: the ledger keeps its own copy, the caller may replace its pod object") {
  resource_cluster c;
  const std::size_t n = c.add_node("n", capacity(1000, 1000));
  c.add_pod(n, make(1, 0, 600));  // the only victim
  const preempt::filter_statuses statuses(c.size(), preempt::status_code::unschedulable);

  preempt::nomination_ledger<pod> ledger(c.size());
  preempt::in_flight_table<pod> table;
  quick_client client;
  preempt::dispatcher<pod, preempt::inline_executor, quick_client> dispatch(
      ledger, table, client, preempt::inline_executor{});
  preempt::evaluator<resource_cluster> ev({}, preempt::default_policy{0});

  // The informer's object for the preemptor, 500m: nominated to n by an inline dispatch.
  auto object = std::make_unique<pod>(make(2, 500, 500));
  {
    const auto& d = ev.evaluate(*object, c, statuses, preempt::no_budgets{}, ledger.reader(),
                                preempt::inline_executor{});
    REQUIRE(d.kind == preempt::decision_kind::nominated);
    REQUIRE(dispatch.apply(*object, d).outcome.is_success());
  }
  REQUIRE(ledger.node_of(2) == std::optional<std::size_t>(n));
  // The informer replaces the object (an update), freeing the old one.
  object = std::make_unique<pod>(make(2, 500, 500));
  std::vector<pod> churn(64, make(77, 0, 1));  // reuse the freed memory
  // A lower-priority pod of 600m: the nominated 500m pod (priority 500 >= 400) is counted on n,
  // so n has no room even once its victim is gone, and nothing is nominated. The evaluation reads
  // the nominated pod: the ledger's copy, never the freed object.
  const pod other = make(3, 400, 600);
  {
    const auto reader = ledger.reader();
    REQUIRE(reader.nominated_to(n).size() == 1);
    CHECK(reader.nominated_to(n)[0]->uid() == 2);
    CHECK(reader.nominated_to(n)[0] != object.get());
  }
  const auto& d = ev.evaluate(other, c, statuses, preempt::no_budgets{}, ledger.reader(),
                              preempt::inline_executor{});
  CHECK(d.kind == preempt::decision_kind::unschedulable);

  // The pod object changes: update() refreshes the ledger's copy (priority now 100 < 400, so the
  // other pod no longer counts it and may nominate n).
  pod demoted = make(2, 100, 500);
  ledger.update(demoted, std::nullopt, std::nullopt);
  {
    const auto reader = ledger.reader();
    REQUIRE(reader.nominated_to(n).size() == 1);
    CHECK(reader.nominated_to(n)[0]->priority() == 100);
  }
  demoted = make(2, 900, 500);  // the caller's object, not the ledger's copy
  const auto& d2 = ev.evaluate(other, c, statuses, preempt::no_budgets{}, ledger.reader(),
                               preempt::inline_executor{});
  CHECK(d2.kind == preempt::decision_kind::nominated);
}

TEST_CASE("lifetimes: the dispatcher attaches to its ledger and table only once it works") {
  preempt::nomination_ledger<pod> ledger(1);
  preempt::in_flight_table<pod> table;
  quick_client client;
  const pod victim = make(1, 0, 100);
  const pod preemptor = make(2, 100, 100);
  const pod* const victims[] = {&victim};
  {
    // Never used: nothing attached (declaring it before the table would be harmless).
    preempt::dispatcher<pod, preempt::inline_executor, quick_client> idle(
        ledger, table, client, preempt::inline_executor{});
  }
  {
    preempt::dispatcher<pod, preempt::inline_executor, quick_client> d(ledger, table, client,
                                                                       preempt::inline_executor{});
    CHECK(d.preempt_on(preemptor, 0, victims).outcome.is_success());
  }
  // Detached again: the ledger and the table may move and be destroyed.
  preempt::nomination_ledger<pod> moved_ledger(std::move(ledger));
  preempt::in_flight_table<pod> moved_table(std::move(table));
  CHECK(moved_ledger.node_of(2) == std::optional<std::size_t>(0));
}

}  // namespace lifetimes_test
