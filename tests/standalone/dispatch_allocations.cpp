// Steady-state allocation check for dispatch: after dispatcher.reserve(...), ledger.reserve(...),
// table.reserve(...) (and the manual context's reserve), a preemption allocates nothing: the async
// path (nominate, claim, mark in flight, queue the job; in the background clear the lower
// nominations, evict all but the last in parallel, record and evict the last, finish, wake) and
// the inline path, and evictions through the Eviction API (refusals by budgets included). Its own
// executable, because it replaces the global operator new.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "preempt/dispatcher.hpp"
#include "preempt/in_flight.hpp"
#include "preempt/manual_executor.hpp"
#include "preempt/model/resource_pod.hpp"
#include "preempt/nomination_ledger.hpp"
#include "support/counting_new.hpp"
#include "support/pods.hpp"

namespace {

using pod = preempt::model::resource_pod;
using uid = preempt::model::pod_id;

constexpr std::size_t nodes = 4;
constexpr std::size_t victims_per_node = 3;

// Evicts without allocating: counts per victim in a fixed table; every 7th call fails.
struct quiet_client {
  std::array<std::uint32_t, 64> calls{};
  std::uint32_t total = 0;
  preempt::eviction_result evict(const pod& victim, const pod&) noexcept {
    ++calls[victim.uid() % calls.size()];
    if (++total % 7 == 0) return preempt::eviction_result::failed("delete pod failed");
    return preempt::eviction_result::evicted();
  }
};

// The same through the completion-based interface: the completions are parked in a fixed array and
// completed after the executor ran; every 7th fails with a message of the client's own.
struct parked_client {
  std::array<preempt::eviction_completion, 64> parked{};
  std::size_t count = 0;
  std::uint32_t total = 0;
  void start_eviction(const pod&, const pod&, preempt::eviction_completion done) noexcept {
    parked[count++] = done;
  }
  // Completes what is parked, including evictions started by those completions.
  void complete_all() noexcept {
    while (count > 0) {
      const preempt::eviction_completion done = parked[--count];
      if (++total % 7 == 0)
        done.failed("pods \"victim\" is forbidden: the disruption budget allows no eviction now");
      else
        done.evicted();
    }
  }
};

// Through the Eviction API (eviction_mode::evict_respecting_budgets): every 5th call is refused by
// a disruption budget (429), every 7th fails otherwise.
struct budget_client {
  std::uint32_t total = 0, evicting = 0;
  preempt::eviction_result evict(const pod&, const pod&,
                                 const preempt::eviction_request& request) noexcept {
    if (request.mode == preempt::eviction_mode::evict_respecting_budgets) ++evicting;
    if (++total % 5 == 0)
      return preempt::eviction_result::refused_by_budget(
          "Cannot evict pod as it would violate the pod's disruption budget.");
    if (total % 7 == 0) return preempt::eviction_result::failed("delete pod failed");
    return preempt::eviction_result::evicted();
  }
};

struct quiet_hooks {
  std::uint32_t* reactivated;
  std::uint32_t* cleared;
  void reactivate(const pod&) const noexcept { ++*reactivated; }
  void nominations_cleared(std::size_t,
                           std::span<const preempt::pod_uid_t<pod>> pods) const noexcept {
    *cleared += static_cast<std::uint32_t>(pods.size());
  }
  template <class D>
  void on_async_finished(const pod&, bool, D) const noexcept {}
  void on_preemption_dispatched(const pod&, std::size_t) const noexcept {}
};

pod make(uid id, std::int32_t priority) { return fx::make_pod(id, priority); }

struct world {
  std::vector<pod> preemptors, followers, victims, pending;
  std::vector<std::vector<const pod*>> victims_of;  // per node

  world() {
    preemptors.reserve(nodes);
    followers.reserve(nodes);
    victims.reserve(nodes * victims_per_node);
    pending.reserve(nodes);
    for (uid n = 0; n < nodes; ++n) {
      preemptors.push_back(make(100 + n, 1000));
      followers.push_back(make(300 + n, 1000));  // chooses the same victims: follows them
      pending.push_back(make(200 + n, 0));       // lower priority: cleared by every preemption
    }
    victims_of.resize(nodes);
    for (uid n = 0; n < nodes; ++n)
      for (uid k = 0; k < victims_per_node; ++k)
        victims.push_back(make(1 + n * victims_per_node + k, 0));
    for (std::size_t i = 0; i < victims.size(); ++i)
      victims_of[i / victims_per_node].push_back(&victims[i]);
  }
};

// One preemption round on node `n`: a pending pod is nominated there, the preemptor dispatches,
// a second preemptor chooses the same victims (in flight: it follows them), the work runs, the
// caller reports the victims gone and binds both preemptors.
template <class D>
bool round(world& w, D& d, preempt::nomination_ledger<pod>& ledger,
           preempt::in_flight_table<pod>& table, preempt::manual_context* ctx, std::size_t n) {
  ledger.nominate(w.pending[n], n);
  const preempt::dispatch_result r = d.preempt_on(w.preemptors[n], n, w.victims_of[n]);
  const preempt::dispatch_result f = d.preempt_on(w.followers[n], n, w.victims_of[n]);
  const bool following = d.jobs_running() == 2;
  if (ctx != nullptr) ctx->drain(preempt::manual_context::order::fifo);
  for (const pod* v : w.victims_of[n]) table.report_victim(v->uid(), preempt::victim_state::gone);
  ledger.remove(w.preemptors[n].uid());
  ledger.remove(w.followers[n].uid());
  return r.evictions == victims_per_node && f.skipped == victims_per_node && following &&
         d.jobs_running() == 0 && table.preemptors_in_flight() == 0 &&
         table.victims_in_flight() == 0;
}

}  // namespace

TEST_CASE("async dispatch allocates nothing per preemption in steady state") {
  world w;
  preempt::nomination_ledger<pod> ledger;
  preempt::in_flight_table<pod> table;
  quiet_client client;
  preempt::manual_context ctx;
  std::uint32_t reactivated = 0, cleared = 0;
  ledger.reserve(16, nodes, 8);
  table.reserve(8, 32);
  ctx.reserve(64);
  preempt::dispatcher<pod, preempt::manual_executor, quiet_client, quiet_hooks> d(
      ledger, table, client, ctx.get_executor(), quiet_hooks{&reactivated, &cleared});
  d.reserve(8, 8);

  bool ok = round(w, d, ledger, table, &ctx, 0);  // warm-up (first use of every structure)
  const std::size_t before = counting::count();
  for (std::size_t i = 0; i < 100; ++i) ok = round(w, d, ledger, table, &ctx, i % nodes) && ok;
  const std::size_t allocated = counting::count() - before;
  CHECK(allocated == 0);
  CHECK(ok);
  CHECK(client.total > 200);
  CHECK(reactivated > 20);  // failures happened: the wake-up paths (followers too) were measured
  CHECK(cleared == 101);    // every round cleared its pending nomination
}

TEST_CASE("evictions respecting budgets, refusals included, allocate nothing in steady state") {
  world w;
  preempt::nomination_ledger<pod> ledger;
  preempt::in_flight_table<pod> table;
  budget_client client;
  preempt::manual_context ctx;
  std::uint32_t reactivated = 0, cleared = 0;
  ledger.reserve(16, nodes, 8);
  table.reserve(8, 32);
  ctx.reserve(64);
  preempt::dispatcher<pod, preempt::manual_executor, budget_client, quiet_hooks> d(
      ledger, table, client, ctx.get_executor(), quiet_hooks{&reactivated, &cleared});
  d.reserve(8, 8);
  d.set_eviction_mode(preempt::eviction_mode::evict_respecting_budgets);

  bool ok = round(w, d, ledger, table, &ctx, 0);
  const std::size_t before = counting::count();
  for (std::size_t i = 0; i < 100; ++i) ok = round(w, d, ledger, table, &ctx, i % nodes) && ok;
  CHECK(counting::count() - before == 0);
  CHECK(ok);
  CHECK(client.evicting == client.total);
  CHECK(reactivated > 20);  // refusals and failures happened
}

TEST_CASE("several preemptions queued at once allocate nothing once reserved") {
  world w;
  preempt::nomination_ledger<pod> ledger;
  preempt::in_flight_table<pod> table;
  quiet_client client;
  preempt::manual_context ctx;
  std::uint32_t reactivated = 0, cleared = 0;
  ledger.reserve(16, nodes, 8);
  table.reserve(8, 32);
  ctx.reserve(64);
  preempt::dispatcher<pod, preempt::manual_executor, quiet_client, quiet_hooks> d(
      ledger, table, client, ctx.get_executor(), quiet_hooks{&reactivated, &cleared});
  d.reserve(nodes, 8);

  const auto burst = [&] {
    for (std::size_t n = 0; n < nodes; ++n) d.preempt_on(w.preemptors[n], n, w.victims_of[n]);
    const bool all_in_flight = table.preemptors_in_flight() == nodes;
    ctx.drain(preempt::manual_context::order::lifo);
    for (const pod& v : w.victims) table.report_victim(v.uid(), preempt::victim_state::gone);
    return all_in_flight && d.jobs_running() == 0;
  };
  bool ok = burst();
  const std::size_t before = counting::count();
  for (int i = 0; i < 50; ++i) ok = burst() && ok;
  CHECK(counting::count() - before == 0);
  CHECK(ok);
}

TEST_CASE("async dispatch with completion-based evictions allocates nothing in steady state") {
  world w;
  preempt::nomination_ledger<pod> ledger;
  preempt::in_flight_table<pod> table;
  parked_client client;
  preempt::manual_context ctx;
  std::uint32_t reactivated = 0, cleared = 0;
  ledger.reserve(16, nodes, 8);
  table.reserve(8, 32);
  ctx.reserve(64);
  preempt::dispatcher<pod, preempt::manual_executor, parked_client, quiet_hooks> d(
      ledger, table, client, ctx.get_executor(), quiet_hooks{&reactivated, &cleared});
  d.reserve(8, 8);
  const auto completed_round = [&](std::size_t n) {
    ledger.nominate(w.pending[n], n);
    const preempt::dispatch_result r = d.preempt_on(w.preemptors[n], n, w.victims_of[n]);
    for (int i = 0; i < 3 && d.jobs_running() > 0; ++i) {  // all but the last, then the last
      ctx.drain();
      client.complete_all();
    }
    for (const pod* v : w.victims_of[n]) table.report_victim(v->uid(), preempt::victim_state::gone);
    ledger.remove(w.preemptors[n].uid());
    return r.evictions == victims_per_node && d.jobs_running() == 0 &&
           table.victims_in_flight() == 0;
  };
  bool ok = completed_round(0);
  const std::size_t before = counting::count();
  for (std::size_t i = 0; i < 100; ++i) ok = completed_round(i % nodes) && ok;
  CHECK(counting::count() - before == 0);
  CHECK(ok);
  CHECK(reactivated > 10);  // failures happened: their messages were copied
}

TEST_CASE("inline dispatch allocates nothing per preemption in steady state") {
  world w;
  preempt::nomination_ledger<pod> ledger;
  preempt::in_flight_table<pod> table;
  quiet_client client;
  ledger.reserve(16, nodes, 8);
  table.reserve(8, 32);
  preempt::dispatcher<pod, preempt::inline_executor, quiet_client> d(ledger, table, client, {});
  d.reserve(1, 8);
  const auto inline_round = [&](std::size_t n) {
    ledger.nominate(w.pending[n], n);
    (void)d.preempt_on(w.preemptors[n], n, w.victims_of[n]);
    for (const pod* v : w.victims_of[n]) table.report_victim(v->uid(), preempt::victim_state::gone);
    ledger.remove(w.preemptors[n].uid());
    return table.victims_in_flight() == 0;
  };
  bool ok = inline_round(0);
  const std::size_t before = counting::count();
  for (std::size_t i = 0; i < 100; ++i) ok = inline_round(i % nodes) && ok;
  CHECK(counting::count() - before == 0);
  CHECK(ok);
}

TEST_CASE("the counter sees a dispatch that has to grow (the checks above can fail)") {
  world w;
  preempt::nomination_ledger<pod> ledger(nodes);  // its nodes, nothing reserved
  preempt::in_flight_table<pod> table;
  quiet_client client;
  preempt::manual_context ctx;
  std::uint32_t reactivated = 0, cleared = 0;
  preempt::dispatcher<pod, preempt::manual_executor, quiet_client, quiet_hooks> d(
      ledger, table, client, ctx.get_executor(), quiet_hooks{&reactivated, &cleared});
  const std::size_t before = counting::count();
  d.preempt_on(w.preemptors[0], 0, w.victims_of[0]);
  CHECK(counting::count() - before >= 1);
  ctx.drain();
}
