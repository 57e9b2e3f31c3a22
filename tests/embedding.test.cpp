// Integrating the library into another scheduler: its own types and names must not change what
// the library does (argument-dependent lookup), identities must be owned, hooks get copies, the
// bookkeeping of inline dispatch stays bounded, and the seeded offsets are the same everywhere.
#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/tiny_cluster.hpp"
#include "support/tiny_scenario.hpp"

namespace embedding_test {

namespace hostile {

// The caller's namespace, associated with its pod type through the tag: it declares functions
// with the library's names that are better matches for its types than the library's own.
struct tag {};
using hpod = tiny::pod<tag>;
using hnode = tiny::node<tag>;
using hstate = tiny::state<tag>;
using hcluster = tiny::cluster<tag>;

inline int calls = 0;

inline std::int32_t priority_of(const hpod&) {
  ++calls;
  return 1'000'000;
}
inline std::int64_t start_time_or(const hpod&, std::int64_t) {
  ++calls;
  return 0;
}
inline preempt::preemption_policy preemption_policy_of(const hpod&) {
  ++calls;
  return preempt::preemption_policy::never;
}
inline preempt::status check_eligibility(const hpod&, const hnode*, preempt::status_code,
                                         const preempt::default_policy&) {
  ++calls;
  return preempt::status::unschedulable("hijacked eligibility");
}
inline preempt::victim_selection<hpod> select_victims(const hpod&, const hnode&, hstate&,
                                                      const preempt::no_budgets&,
                                                      const std::span<const hpod* const>&,
                                                      preempt::victim_scratch<hpod>&,
                                                      const preempt::default_policy&) {
  ++calls;
  return {preempt::status::unresolvable("hijacked selection"), {}, 0};
}
inline bool more_important_pod(const hpod&, const hpod&, std::int64_t) {
  ++calls;
  return false;
}

}  // namespace hostile

TEST_CASE("embedding: same-named functions in the caller's namespace never replace the library's") {
  using namespace hostile;
  const hpod preemptor{100, 100, 0};
  const hpod node_pods[] = {{1, 10, 5}, {2, 20, 6}};
  const hnode nodes[] = {{"n0", node_pods, 2}, {"n1", node_pods, 2}};
  const hcluster c{nodes};
  calls = 0;

  SUBCASE("victim selection") {
    hstate st;
    c.prepare_state(0, st);
    preempt::victim_scratch<hpod> scratch;
    const auto r = preempt::select_victims(preemptor, nodes[0], st, preempt::no_budgets{}, scratch);
    REQUIRE(r.is_candidate());
    REQUIRE(r.victims.size() == 1);
    CHECK(r.victims[0]->uid() == 1u);
  }
  SUBCASE("eligibility") {
    CHECK(preempt::check_eligibility<hnode>(preemptor, nullptr, preempt::status_code::unschedulable)
              .is_success());
  }
  SUBCASE("best candidate") {
    const hpod* low[] = {&node_pods[0]};   // priority 10
    const hpod* high[] = {&node_pods[1]};  // priority 20
    const preempt::candidate<hpod> cands[] = {{0, "n0", high, 0}, {1, "n1", low, 0}};
    const auto best =
        preempt::pick_best_candidate<hpod>(std::span<const preempt::candidate<hpod>>(cands));
    CHECK(best.index == 1);
    CHECK(best.deciding_score == 1);
  }
  SUBCASE("best candidate, decided by the victims' start times") {
    const hpod early{11, 7, 5};
    const hpod late{12, 7, 6};
    const hpod* first[] = {&early};
    const hpod* second[] = {&late};
    const preempt::candidate<hpod> cands[] = {{0, "n0", first, 0}, {1, "n1", second, 0}};
    const auto best =
        preempt::pick_best_candidate<hpod>(std::span<const preempt::candidate<hpod>>(cands));
    CHECK(best.index == 1);  // the latest start wins
    CHECK(best.deciding_score == 4);
  }
  SUBCASE("the evaluator, with the preemptor nominated (eligibility on a node)") {
    preempt::evaluator<hcluster> ev;
    const auto& d = ev.evaluate(preemptor, c, tiny::all_unschedulable{}, preempt::no_budgets{},
                                preempt::no_nominations{}, preempt::inline_executor{},
                                preempt::attempt{.offset = 0, .nominated_node = 1});
    CHECK(d.kind == preempt::decision_kind::nominated);
    CHECK(d.message == "");
    CHECK(d.node_index == 0);
    REQUIRE(d.victims.size() == 1);
    CHECK(d.victims[0]->uid() == 1u);
  }
  CHECK(calls == 0);
}

namespace uid_kinds {  // named, not anonymous: clang would flag the unused operator==

struct view_uid_pod {
  std::string name;
  std::string_view uid() const noexcept { return name; }
  std::int32_t priority() const noexcept { return 0; }
  std::optional<std::int64_t> start_time() const noexcept { return 0; }
  bool terminating_by_preemption() const noexcept { return false; }
};
struct string_uid_pod : view_uid_pod {
  std::string uid() const { return name; }
};
struct unhashable {
  int v = 0;
  friend bool operator==(const unhashable&, const unhashable&) = default;
};
struct unhashable_uid_pod : view_uid_pod {
  unhashable uid() const noexcept { return {}; }
};

}  // namespace uid_kinds

TEST_CASE("embedding: a pod's uid must be owned and hashable") {
  using namespace uid_kinds;
  CHECK(preempt::owning_uid<std::string>);
  CHECK(preempt::owning_uid<std::uint64_t>);
  CHECK_FALSE(preempt::owning_uid<std::string_view>);  // a view into the caller's pod
  CHECK_FALSE(preempt::owning_uid<const char*>);
  CHECK_FALSE(preempt::owning_uid<std::span<const char>>);
  CHECK_FALSE(preempt::owning_uid<unhashable>);
  CHECK(preempt::pod<string_uid_pod>);
  CHECK_FALSE(preempt::pod<view_uid_pod>);
  CHECK_FALSE(preempt::pod<unhashable_uid_pod>);
}

TEST_CASE("embedding: the seeded offsets are fixed values, the same with every standard library") {
  preempt::offset_sequence zero(0);  // splitmix64's published outputs for seed 0
  CHECK(zero.next_raw() == 0xE220A8397B1DCDAFull);
  CHECK(zero.next_raw() == 0x6E789E6AA1B965F4ull);
  CHECK(zero.next_raw() == 0x06C45D188009454Full);
  preempt::offset_sequence s42(42);
  CHECK(s42.next(1000) == 413);
  CHECK(s42.next(1000) == 291);
  CHECK(s42.next(1000) == 858);
  preempt::offset_sequence s7(7);
  std::vector<std::size_t> small;
  for (int i = 0; i < 8; ++i) small.push_back(s7.next(3));
  CHECK(small == std::vector<std::size_t>{0, 0, 0, 0, 1, 0, 1, 0});

  // The evaluator draws its offsets from that sequence, seeded by config.seed.
  using P = tiny::pod<>;
  std::vector<P> pods;
  std::vector<tiny::node<>> nodes;
  pods.reserve(1000);
  for (std::uint32_t i = 0; i < 1000; ++i) pods.push_back({i + 1, 1, 0});
  for (std::uint32_t i = 0; i < 1000; ++i)
    nodes.push_back({"n", std::span<const P>(&pods[i], 1), 1});
  const tiny::cluster<> c{nodes};
  preempt::evaluator_config config;
  config.seed = 42;
  preempt::evaluator<tiny::cluster<>> ev(config);
  const P preemptor{5000, 100, 0};
  for (std::size_t want : {413u, 291u, 858u}) {
    const auto& d = ev.evaluate(preemptor, c, tiny::all_unschedulable{}, preempt::no_budgets{},
                                preempt::no_nominations{}, preempt::inline_executor{});
    CHECK(d.offset == want);
  }
}

TEST_CASE("embedding: the tiny scenario gives the answer the bare-metal build checks") {
  const tiny::scenario_result r = tiny::run_scenario();
  CHECK(r.kind == tiny::expected_kind);
  CHECK(r.node_index == tiny::expected_node);
  CHECK(r.victim == tiny::expected_victim);
  CHECK(r.evictions == 1);
  CHECK(r.evicted == tiny::expected_victim);
  CHECK(r.nominated_node == tiny::expected_node);
  CHECK(r.claims_left == 0);
  CHECK(tiny::scenario_ok(r));
}

namespace {

using P = tiny::pod<>;

struct clearing_hooks {
  std::vector<std::uint32_t>* cleared;
  void nominations_cleared(std::size_t, std::span<const std::uint32_t> uids) const {
    cleared->insert(cleared->end(), uids.begin(), uids.end());
  }
};

}  // namespace

TEST_CASE("embedding: nominations_cleared receives uid copies, not pointers to the caller's pods") {
  const P victim{1, 1, 0};
  const P preemptor{100, 100, 0};
  preempt::nomination_ledger<P> ledger(1);
  preempt::in_flight_table<P> table;
  tiny::recording_client<> client;
  std::vector<std::uint32_t> cleared;
  preempt::dispatcher<P, preempt::inline_executor, tiny::recording_client<>, clearing_hooks> d(
      ledger, table, client, preempt::inline_executor{}, clearing_hooks{&cleared});
  {
    // A nominated pod the caller frees once the ledger no longer holds it.
    auto nominee = std::make_unique<P>(P{7, 50, 0});
    ledger.nominate(*nominee, 0);
    const P* victims[] = {&victim};
    const auto r = d.preempt_on(preemptor, 0, victims);
    CHECK(r.outcome.is_success());
    CHECK(!ledger.node_of(7).has_value());
  }
  CHECK(cleared == std::vector<std::uint32_t>{7});
}

TEST_CASE("embedding: inline dispatch leaves no claim in the in-flight table") {
  const P preemptor{100'000, 100, 0};  // no victim's uid (the dispatcher refuses its own)
  preempt::nomination_ledger<P> ledger(1);
  preempt::in_flight_table<P> table;
  tiny::recording_client<> client;
  preempt::dispatcher<P, preempt::inline_executor, tiny::recording_client<>> d(
      ledger, table, client, preempt::inline_executor{});
  for (std::uint32_t i = 0; i < 1000; ++i) {
    const P victim{i + 1, 1, 0};
    const P* victims[] = {&victim};
    CHECK(d.preempt_on(preemptor, 0, victims).evictions == 1);
  }
  CHECK(table.victims_in_flight() == 0);
  // A victim that reappears (the cache still shows it) is evicted again, not skipped.
  const P again{1, 1, 0};
  const P* victims[] = {&again};
  const auto r = d.preempt_on(preemptor, 0, victims);
  CHECK(r.evictions == 1);
  CHECK(r.skipped == 0);
  CHECK(client.count == 1001);
}

namespace {
struct follow_record {
  int calls = 0;
  bool failed = false;
};
}  // namespace

TEST_CASE("embedding: accept_victim and release_victim tell the followers") {
  preempt::in_flight_table<P> table;
  follow_record rec;
  preempt::in_flight_table<P>::follower f;
  f.context = &rec;
  f.on_done = [](void* c, bool failed) noexcept {
    auto& r = *static_cast<follow_record*>(c);
    ++r.calls;
    r.failed = failed;
  };
  REQUIRE(table.claim_victim(1));
  REQUIRE(table.claim_victim(2));
  f.awaited = {1, 2};
  REQUIRE(table.follow(f));
  table.accept_victim(1);
  CHECK(rec.calls == 0);  // still waiting for 2
  CHECK(table.claim_of(1) == preempt::victim_claim::accepted);
  table.release_victim(2);
  CHECK(rec.calls == 1);
  CHECK(rec.failed);  // 2's eviction did not end in an accepted deletion
  CHECK(table.followers() == 0);
  CHECK(!table.victim_in_flight(2));
}

TEST_CASE("embedding: task_ref can be default-constructed, so executors can keep arrays of them") {
  preempt::task_ref queue[4];
  CHECK_FALSE(queue[0]);
  int runs = 0;
  struct work {
    int* runs;
    void run() noexcept { ++*runs; }
  } w{&runs};
  queue[1] = preempt::task_ref::to_member_run(w);
  CHECK(static_cast<bool>(queue[1]));
  for (const preempt::task_ref& t : queue)
    if (t) t();
  CHECK(runs == 1);
}

}  // namespace embedding_test
