// Evictions through the Eviction API (eviction.hpp: eviction_mode, eviction_request,
// refused_by_budget; dispatcher.hpp: set_eviction_mode, on_budget_refusal):
//   - the concepts: a client may take the request in either form; takes_eviction_request looks at
//     the member the dispatcher uses;
//   - by default nothing changes: a client without the request is called as before, one with it
//     receives delete_pod;
//   - evict_respecting_budgets reaches a blocking and a completion-based client, inline and async;
//     an async job keeps the mode it started with;
//   - a budget's refusal (429) goes down the failure path: the preemptor is re-activated, the last
//     victim skipped, the in-flight victims released, the client's message kept, nothing
//     nominated inline; on_budget_refusal counts it apart, other failures do not reach it.
#include <doctest/doctest.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/eviction_fakes.hpp"
#include "support/fixtures.hpp"

namespace eviction_api_test {

namespace {

using evf::pod;
using evf::uid;
using fx::high;
using fx::low;
using preempt::eviction_mode;
using preempt::eviction_outcome;

inline constexpr std::string_view budget_message =
    "Cannot evict pod as it would violate the pod's disruption budget.";

// A blocking client that takes the request: records the mode of every call; refuses the victims
// in `refuse` as the API server does when a budget allows no disruption (in budget mode only: a
// DELETE does not look at budgets), and fails those in `fail` with an ordinary error.
struct budget_client {
  std::mutex mutex;
  std::vector<eviction_mode> modes;
  std::vector<uid> refuse, fail;

  preempt::eviction_result evict(const pod& victim, const pod&,
                                 const preempt::eviction_request& request) {
    std::lock_guard lock(mutex);
    modes.push_back(request.mode);
    for (uid u : fail)
      if (u == victim.uid())
        return preempt::eviction_result::failed("the API server is unavailable");
    if (request.mode == eviction_mode::evict_respecting_budgets)
      for (uid u : refuse)
        if (u == victim.uid()) return preempt::eviction_result::refused_by_budget(budget_message);
    return preempt::eviction_result::evicted();
  }
  std::vector<eviction_mode> seen() {
    std::lock_guard lock(mutex);
    return modes;
  }
};

// A completion-based client that takes the request: parks its completions.
struct parked_budget_client {
  struct pending {
    uid victim;
    eviction_mode mode;
    preempt::eviction_completion done;
  };
  std::mutex mutex;
  std::vector<pending> parked;

  void start_eviction(const pod& victim, const pod&, const preempt::eviction_request& request,
                      preempt::eviction_completion done) {
    std::lock_guard lock(mutex);
    parked.push_back({victim.uid(), request.mode, done});
  }
  std::vector<pending> take() {
    std::lock_guard lock(mutex);
    return std::exchange(parked, {});
  }
};

// Clients of the other shapes, for the concepts.
struct plain_client {
  preempt::eviction_result evict(const pod&, const pod&) {
    return preempt::eviction_result::evicted();
  }
};
struct both_forms_client {  // used through start_eviction, which does not take the request
  preempt::eviction_result evict(const pod&, const pod&, const preempt::eviction_request&) {
    return preempt::eviction_result::evicted();
  }
  void start_eviction(const pod&, const pod&, preempt::eviction_completion done) { done.evicted(); }
};

static_assert(preempt::eviction_client<budget_client, pod>);
static_assert(preempt::takes_eviction_request<budget_client, pod>);
static_assert(preempt::async_eviction_client<parked_budget_client, pod>);
static_assert(!preempt::eviction_client<parked_budget_client, pod>);
static_assert(preempt::takes_eviction_request<parked_budget_client, pod>);
static_assert(preempt::eviction_client<plain_client, pod>);
static_assert(!preempt::takes_eviction_request<plain_client, pod>);
static_assert(!preempt::takes_eviction_request<evf::fake_client, pod>);
static_assert(preempt::async_eviction_client<both_forms_client, pod>);
static_assert(!preempt::takes_eviction_request<both_forms_client, pod>);

static_assert(!preempt::eviction_result::refused_by_budget("429").ok());
static_assert(preempt::is_failure(eviction_outcome::refused_by_budget));
static_assert(preempt::is_failure(eviction_outcome::failed));
static_assert(!preempt::is_failure(eviction_outcome::not_found));
static_assert(preempt::eviction_request{}.mode == eviction_mode::delete_pod);

// What the hooks saw.
struct seen {
  std::mutex mutex;
  std::vector<uid> reactivated;
  std::vector<std::string> failures;  // the messages of on_eviction_failed
  std::vector<uid> refused;           // the victims of on_budget_refusal
  std::optional<bool> finished_ok;
};

struct hooks {
  seen* s = nullptr;
  void reactivate(const pod& p) const {
    std::lock_guard lock(s->mutex);
    s->reactivated.push_back(p.uid());
  }
  void on_eviction_failed(const pod&, const uid&, std::string_view message) const {
    std::lock_guard lock(s->mutex);
    s->failures.emplace_back(message);
  }
  void on_budget_refusal(const pod&, const uid& victim) const {
    std::lock_guard lock(s->mutex);
    s->refused.push_back(victim);
  }
  template <class D>
  void on_async_finished(const pod&, bool success, D) const {
    std::lock_guard lock(s->mutex);
    s->finished_ok = success;
  }
};

}  // namespace

TEST_CASE("eviction api: by default the mode is delete_pod, and a client without it still works") {
  evf::scene s;
  preempt::nomination_ledger<pod> ledger(1);
  preempt::in_flight_table<pod> table;
  const pod& p = s.add("p", high);
  const pod& v1 = s.add("v1", low);
  const pod& v2 = s.add("v2", low);
  const std::vector<const pod*> victims{&v1, &v2};

  SUBCASE("a client that takes the request receives delete_pod") {
    budget_client client;
    client.refuse = {v1.uid()};  // refused only by an eviction: deleting goes through
    preempt::dispatcher<pod, preempt::inline_executor, budget_client> d(ledger, table, client, {});
    CHECK(d.current_eviction_mode() == eviction_mode::delete_pod);
    const preempt::dispatch_result r = d.preempt_on(p, 0, victims);
    CHECK(r.outcome.ok());
    CHECK(client.seen() ==
          std::vector<eviction_mode>{eviction_mode::delete_pod, eviction_mode::delete_pod});
    CHECK(ledger.node_of(p.uid()) == std::optional<std::size_t>(0));
  }
  SUBCASE("a client without the request is called as before") {
    evf::fake_client client;
    preempt::dispatcher<pod, preempt::inline_executor, evf::fake_client> d(ledger, table, client,
                                                                           {});
    CHECK(d.current_eviction_mode() == eviction_mode::delete_pod);
    CHECK(d.preempt_on(p, 0, victims).outcome.ok());
    CHECK(client.call_count() == 2);
  }
}

TEST_CASE_TEMPLATE("eviction api: budget mode reaches a blocking client", X, EVF_EXECUTORS) {
  evf::scene s;
  preempt::nomination_ledger<pod> ledger(1);
  preempt::in_flight_table<pod> table;
  seen saw;
  budget_client client;
  X x;
  const pod& p = s.add("p", high);
  const pod& v1 = s.add("v1", low);
  const pod& v2 = s.add("v2", low);
  const pod& v3 = s.add("v3", low);
  const std::vector<const pod*> victims{&v1, &v2, &v3};
  {
    preempt::dispatcher<pod, typename X::executor_type, budget_client, hooks> d(
        ledger, table, client, x.executor(), hooks{&saw});
    d.set_eviction_mode(eviction_mode::evict_respecting_budgets);
    CHECK(d.current_eviction_mode() == eviction_mode::evict_respecting_budgets);
    const preempt::dispatch_result r = d.preempt_on(p, 0, victims);
    CHECK(r.outcome.ok());
    CHECK(r.evictions == 3);
    x.finish();
    d.wait_idle();
  }
  CHECK(client.seen() == std::vector<eviction_mode>(3, eviction_mode::evict_respecting_budgets));
  CHECK(saw.failures.empty());
  CHECK(saw.refused.empty());
  CHECK(saw.reactivated.empty());  // the last victim's deletion will wake the preemptor
  // Accepted async evictions stay claimed until the caller reports their victims; inline ones not.
  CHECK(table.victims_in_flight() == (X::async ? 3u : 0u));
}

TEST_CASE("eviction api: budget mode reaches a completion-based client, async and inline") {
  evf::scene s;
  preempt::nomination_ledger<pod> ledger(1);
  preempt::in_flight_table<pod> table;
  seen saw;
  const pod& p = s.add("p", high);
  const pod& v1 = s.add("v1", low);
  const pod& v2 = s.add("v2", low);
  const std::vector<const pod*> victims{&v1, &v2};

  SUBCASE("async") {
    parked_budget_client client;
    preempt::manual_context ctx;
    preempt::dispatcher<pod, preempt::manual_executor, parked_budget_client, hooks> d(
        ledger, table, client, ctx.get_executor(), hooks{&saw});
    // Without a mode set the client receives delete_pod.
    REQUIRE(d.preempt_on(p, 0, victims).started);
    ctx.drain();
    std::vector<parked_budget_client::pending> first = client.take();
    REQUIRE(first.size() == 1);
    CHECK(first[0].mode == eviction_mode::delete_pod);
    // Set while the job runs: its last victim keeps the mode the job started with.
    d.set_eviction_mode(eviction_mode::evict_respecting_budgets);
    first[0].done.evicted();
    ctx.drain();
    std::vector<parked_budget_client::pending> last = client.take();
    REQUIRE(last.size() == 1);
    CHECK(last[0].victim == v2.uid());
    CHECK(last[0].mode == eviction_mode::delete_pod);
    last[0].done.evicted();
    CHECK(d.jobs_running() == 0);
    // The next preemption asks for evictions.
    table.report_victim(v1.uid(), preempt::victim_state::gone);
    table.report_victim(v2.uid(), preempt::victim_state::gone);
    const pod& q = s.add("q", high);
    const pod& w = s.add("w", low);
    const std::vector<const pod*> next{&w};
    REQUIRE(d.preempt_on(q, 0, next).started);
    ctx.drain();
    std::vector<parked_budget_client::pending> again = client.take();
    REQUIRE(again.size() == 1);
    CHECK(again[0].mode == eviction_mode::evict_respecting_budgets);
    again[0].done.evicted();
    CHECK(d.jobs_running() == 0);
    CHECK(saw.failures.empty());
  }
  SUBCASE("inline") {
    struct at_once_client {
      std::vector<eviction_mode> modes;
      void start_eviction(const pod&, const pod&, const preempt::eviction_request& request,
                          preempt::eviction_completion done) {
        modes.push_back(request.mode);
        done.evicted();
      }
    } client;
    preempt::dispatcher<pod, preempt::inline_executor, at_once_client> d(ledger, table, client, {});
    d.set_eviction_mode(eviction_mode::evict_respecting_budgets);
    CHECK(d.preempt_on(p, 0, victims).outcome.ok());
    CHECK(client.modes == std::vector<eviction_mode>(2, eviction_mode::evict_respecting_budgets));
  }
}

TEST_CASE_TEMPLATE("eviction api: a budget's refusal goes down the failure path", X,
                   EVF_EXECUTORS) {
  evf::scene s;
  preempt::nomination_ledger<pod> ledger(1);
  preempt::in_flight_table<pod> table;
  seen saw;
  budget_client client;
  X x;
  const pod& p = s.add("p", high);
  const pod& v1 = s.add("v1", low);
  const pod& v2 = s.add("v2", low);
  const pod& v3 = s.add("v3", low);
  client.refuse = {v1.uid()};
  const std::vector<const pod*> victims{&v1, &v2, &v3};
  preempt::dispatch_result r;
  {
    preempt::dispatcher<pod, typename X::executor_type, budget_client, hooks> d(
        ledger, table, client, x.executor(), hooks{&saw});
    d.set_eviction_mode(eviction_mode::evict_respecting_budgets);
    r = d.preempt_on(p, 0, victims);
    if constexpr (!X::async) {
      // Inline: the first failure stops the rest, and the attempt fails with its message.
      CHECK(r.outcome.code() == preempt::status_code::error);
      CHECK(r.outcome.reason() == budget_message);
      CHECK(r.evictions == 1);
    }
    x.finish();
    d.wait_idle();
    CHECK_FALSE(d.is_preemption_running(p.uid()));
  }
  // The refused victim's claim is released (and the skipped last one's); an accepted one stays
  // claimed until the caller reports it.
  CHECK_FALSE(table.victim_in_flight(v1.uid()));
  CHECK_FALSE(table.victim_in_flight(v3.uid()));
  CHECK(table.victim_in_flight(v2.uid()) == X::async);
  CHECK(table.preemptors_in_flight() == 0);
  REQUIRE(saw.refused.size() == 1);
  CHECK(saw.refused[0] == v1.uid());
  REQUIRE(saw.failures.size() == 1);
  CHECK(saw.failures[0] == budget_message);
  if constexpr (X::async) {
    CHECK(r.started);
    CHECK(saw.reactivated == std::vector<uid>{p.uid()});
    CHECK(saw.finished_ok == std::optional<bool>(false));
    // All but the last ran in parallel; the last was skipped after the refusal.
    CHECK(client.seen().size() == 2);
  } else {
    CHECK(client.seen().size() == 1);
    CHECK(ledger.node_of(p.uid()) == std::nullopt);  // a failed inline attempt nominates nothing
  }
}

TEST_CASE(
    "eviction api: a completion's refusal keeps the client's message, other failures are "
    "not budget refusals") {
  evf::scene s;
  preempt::nomination_ledger<pod> ledger(1);
  preempt::in_flight_table<pod> table;
  seen saw;
  parked_budget_client client;
  preempt::manual_context ctx;
  const pod& p = s.add("p", high);
  const pod& v1 = s.add("v1", low);
  const pod& v2 = s.add("v2", low);
  const std::vector<const pod*> victims{&v1, &v2};
  preempt::dispatcher<pod, preempt::manual_executor, parked_budget_client, hooks> d(
      ledger, table, client, ctx.get_executor(), hooks{&saw});
  d.set_eviction_mode(eviction_mode::evict_respecting_budgets);

  SUBCASE("refused by a budget") {
    REQUIRE(d.preempt_on(p, 0, victims).started);
    ctx.drain();
    std::vector<parked_budget_client::pending> first = client.take();
    REQUIRE(first.size() == 1);
    auto text = std::make_unique<std::string>(budget_message);
    first[0].done.refused_by_budget(*text);
    text.reset();  // the client's buffer is gone once refused_by_budget() returned
    ctx.drain();
    CHECK(client.take().empty());  // the last victim is skipped
    CHECK(saw.refused == std::vector<uid>{v1.uid()});
    REQUIRE(saw.failures.size() == 1);
    CHECK(saw.failures[0] == budget_message);
  }
  SUBCASE("an ordinary failure") {
    REQUIRE(d.preempt_on(p, 0, victims).started);
    ctx.drain();
    std::vector<parked_budget_client::pending> first = client.take();
    REQUIRE(first.size() == 1);
    first[0].done.failed("the API server is unavailable");
    ctx.drain();
    CHECK(client.take().empty());
    CHECK(saw.refused.empty());
    REQUIRE(saw.failures.size() == 1);
    CHECK(saw.failures[0] == "the API server is unavailable");
  }
  CHECK(d.jobs_running() == 0);
  CHECK(saw.reactivated == std::vector<uid>{p.uid()});
  CHECK_FALSE(d.is_preemption_running(p.uid()));
  CHECK(table.victims_in_flight() == 0);
}

}  // namespace eviction_api_test
