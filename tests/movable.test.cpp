// The evaluator, the nomination ledger and the in-flight table move (executors and schedulers
// keep them in containers and members); a moved-from ledger or table is empty and usable, and a
// task_ref is default-constructible (executors keep arrays of them).
#include <doctest/doctest.h>

#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/tiny_cluster.hpp"

namespace movable_test {

namespace {

using P = tiny::pod<>;

static_assert(std::is_nothrow_default_constructible_v<preempt::task_ref>);
static_assert(std::is_nothrow_move_constructible_v<preempt::nomination_ledger<P>>);
static_assert(std::is_nothrow_move_assignable_v<preempt::nomination_ledger<P>>);
static_assert(!std::is_copy_constructible_v<preempt::nomination_ledger<P>>);
static_assert(std::is_nothrow_move_constructible_v<preempt::in_flight_table<P>>);
static_assert(std::is_nothrow_move_assignable_v<preempt::in_flight_table<P>>);
static_assert(std::is_move_constructible_v<preempt::evaluator<tiny::cluster<>>>);
static_assert(std::is_move_assignable_v<preempt::evaluator<tiny::cluster<>>>);

}  // namespace

TEST_CASE("movable: a task_ref array starts empty") {
  preempt::task_ref queue[4];
  for (const preempt::task_ref& t : queue) CHECK_FALSE(t);
  CHECK(queue[0] == preempt::task_ref{});
}

TEST_CASE("movable: the nomination ledger moves its nominations, the moved-from one is empty") {
  const P a{1, 5, 0}, b{2, 7, 0};
  preempt::nomination_ledger<P> from(2);
  from.nominate(a, 1);
  from.nominate(b, 0);

  preempt::nomination_ledger<P> to(std::move(from));
  CHECK(to.size() == 2);
  CHECK(to.node_of(1u) == 1u);
  REQUIRE(to.reader().nominated_to(0).size() == 1);
  CHECK(to.reader().nominated_to(0)[0]->uid() == b.uid());  // the ledger's copy, moved with it
  CHECK(from.size() == 0);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  CHECK(from.node_count() == 0);
  CHECK(from.reader().nominated_to(1).empty());
  from.resize_nodes(4);  // usable: nodes again, then nominations
  from.nominate(a, 3);
  CHECK(from.node_of(1u) == 3u);

  preempt::nomination_ledger<P> assigned;
  assigned = std::move(to);
  CHECK(assigned.size() == 2);
  CHECK(to.size() == 0);  // NOLINT(bugprone-use-after-move)
  CHECK_FALSE(to.node_of(2u).has_value());
}

TEST_CASE("movable: the in-flight table moves its preemptors and victims") {
  preempt::in_flight_table<P> from;
  from.start(9u);
  CHECK(from.claim_victim(1u));
  preempt::in_flight_table<P> to(std::move(from));
  CHECK(to.in_flight(9u));
  CHECK(to.victim_in_flight(1u));
  CHECK_FALSE(to.claim_victim(1u));         // still claimed
  CHECK(from.preemptors_in_flight() == 0);  // NOLINT(bugprone-use-after-move)
  CHECK(from.victims_in_flight() == 0);
  CHECK(from.claim_victim(1u));  // usable, and knows nothing of the moved claims

  preempt::in_flight_table<P> assigned;
  assigned = std::move(to);
  CHECK(assigned.in_flight(9u));
  CHECK_FALSE(to.in_flight(9u));  // NOLINT(bugprone-use-after-move)
}

TEST_CASE("movable: a moved evaluator decides as before") {
  const P pods[] = {{1, 1, 0}, {2, 3, 0}};
  const tiny::node<> nodes[] = {{"n0", std::span<const P>(pods, 2), 2}};
  const tiny::cluster<> c{nodes};
  const P preemptor{9, 100, 0};
  const auto decide = [&](preempt::evaluator<tiny::cluster<>>& ev) {
    const auto& d = ev.evaluate(preemptor, c, tiny::all_unschedulable{}, preempt::no_budgets{},
                                preempt::no_nominations{}, preempt::inline_executor{});
    REQUIRE(d.kind == preempt::decision_kind::nominated);
    REQUIRE(d.victims.size() == 1);
    return (*d.victims[0]).id;
  };
  preempt::evaluator_config config;
  config.parallelism = 2;                  // with a helper crew
  config.min_parallel_nodes = 0;           // the helpers take any dry run
  config.workers_within_hardware = false;  // every worker, whatever the machine
  preempt::evaluator<tiny::cluster<>> first(config);
  CHECK(decide(first) == 1u);
  preempt::evaluator<tiny::cluster<>> second(std::move(first));
  CHECK(decide(second) == 1u);
  std::vector<preempt::evaluator<tiny::cluster<>>> kept;
  kept.push_back(std::move(second));
  kept.emplace_back();
  kept[1] = std::move(kept[0]);
  CHECK(decide(kept[1]) == 1u);
}

}  // namespace movable_test
