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
//   - node accessors that hand out a temporary holding what the library keeps pointers to (a name
//     as a std::string by value, the pods in a container by value) do not compile
//     (compile_fail/node_name_by_value.cpp, node_pods_by_value.cpp); a cluster that returns copies
//     of nodes holding their pods is a contract failure (tests/standalone/contracts.cpp), while
//     nodes returned by value as proxies of the caller's nodes are read as they are.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
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

// The caller's machines, each holding its pods; the clusters below hand out nodes by value.
struct machine {
  std::string hostname;
  std::vector<pod> running;
  std::string_view name() const { return hostname; }
  const std::vector<pod>& pods() const { return running; }
};

// The preemptor fits on an empty node only.
struct empty_node_state {
  std::size_t present = 0;
  preempt::status remove_pod(const pod&) {
    --present;
    return preempt::status::ok();
  }
  preempt::status add_pod(const pod&) {
    ++present;
    return preempt::status::ok();
  }
  preempt::status fits(const pod&) const {
    return present == 0 ? preempt::status::ok()
                        : preempt::status(preempt::status_code::unschedulable, "not empty");
  }
};

template <class Node>
struct fleet_of {
  using state_type = empty_node_state;
  const std::vector<machine>* machines;
  std::size_t size() const noexcept { return machines->size(); }
  Node operator[](std::size_t i) const { return Node{&(*machines)[i]}; }
  empty_node_state make_state() const { return {}; }
  void prepare_state(std::size_t i, empty_node_state& s) const {
    s.present = (*machines)[i].running.size();
  }
};

// A proxy returned by value whose pods() refers to the machine's container.
struct machine_ref {
  const machine* m;
  std::string_view name() const { return m->hostname; }
  const std::vector<pod>& pods() const { return m->running; }
};

// A proxy returned by value that holds a span (a view, not the pods) and hands it out by reference.
struct span_node {
  explicit span_node(const machine* m) : name_(m->hostname), pods_(m->running) {}
  std::string_view name() const { return name_; }
  const std::span<const pod>& pods() const { return pods_; }

 private:
  std::string_view name_;
  std::span<const pod> pods_;
};

// A copy of the machine: its pods live in the temporary.
struct machine_copy {
  explicit machine_copy(const machine* m) : copy(*m) {}
  machine copy;
  std::string_view name() const { return copy.hostname; }
  const std::vector<pod>& pods() const { return copy.running; }
};

// A node that keeps a few pods inline and hands out a span over them: the span is a view, but of
// the temporary.
struct inline_node {
  explicit inline_node(const machine* m) : name_(m->hostname) {
    for (std::size_t i = 0; i < m->running.size() && i < pods_.size(); ++i)
      pods_[i] = m->running[i];
    count_ = std::min(m->running.size(), pods_.size());
  }
  std::string_view name() const { return name_; }
  std::span<const pod> pods() const { return {pods_.data(), count_}; }

 private:
  std::string_view name_;
  std::array<pod, 2> pods_{make(0, 0, 0), make(0, 0, 0)};
  std::size_t count_ = 0;
};

}  // namespace

TEST_CASE("lifetimes: nodes returned by value are proxies unless they hold their pods") {
  const std::vector<machine> machines = {{"a", {make(1, 0, 500), make(2, 0, 500)}},
                                         {"b", {make(3, 0, 500)}}};
  CHECK_FALSE(preempt::detail::nodes_copied_with_their_pods(fleet_of<machine_ref>{&machines}));
  CHECK_FALSE(preempt::detail::nodes_copied_with_their_pods(fleet_of<span_node>{&machines}));
  CHECK(preempt::detail::nodes_copied_with_their_pods(fleet_of<machine_copy>{&machines}));
  CHECK(preempt::detail::nodes_copied_with_their_pods(fleet_of<inline_node>{&machines}));
  const std::vector<machine> none;
  CHECK_FALSE(preempt::detail::nodes_copied_with_their_pods(fleet_of<machine_copy>{&none}));

  // The proxies evaluate, and the decision's victims are the machines' own pods.
  const preempt::filter_statuses statuses(machines.size(), preempt::status_code::unschedulable);
  const pod preemptor = make(9, 100, 100);
  preempt::evaluator<fleet_of<machine_ref>> by_ref({}, preempt::default_policy{0});
  const auto& d =
      by_ref.evaluate(preemptor, fleet_of<machine_ref>{&machines}, statuses, preempt::no_budgets{},
                      preempt::no_nominations{}, preempt::inline_executor{});
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  CHECK(d.node_name == "b");  // the fewest victims
  REQUIRE(d.victims.size() == 1);
  CHECK(d.victims[0] == &machines[1].running[0]);
  preempt::evaluator<fleet_of<span_node>> by_span({}, preempt::default_policy{0});
  const auto& e =
      by_span.evaluate(preemptor, fleet_of<span_node>{&machines}, statuses, preempt::no_budgets{},
                       preempt::no_nominations{}, preempt::inline_executor{});
  REQUIRE(e.kind == preempt::decision_kind::nominated);
  REQUIRE(e.victims.size() == 1);
  CHECK(e.victims[0] == &machines[1].running[0]);
}

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
