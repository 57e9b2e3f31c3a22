// End to end: evaluator + nomination ledger + dispatcher (upstream TestPreempt), over every
// executor fixture (inline = sync path; manual fifo/lifo/shuffled and thread pool = async path).
//
//   PR1  n1: p1.1, p1.2 low small; n2: p2.1 high large; n3: p3.1 mid medium; preemptor high
//        veryLarge => node1, {p1.1, p1.2}, each deleted pod first got the DisruptionTarget patch
//   PR7  preemptionPolicy Never => nothing
//   PR8  preemptionPolicy unset (= PreemptLowerPriority) => as PR1
// After each, the follow-up of TestPreempt: with the victims terminating because of preemption and
// the nomination set, a second attempt must not preempt more (not eligible; no new evictions).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/eviction_fakes.hpp"
#include "support/fixtures.hpp"

namespace preempt_flow_test {

namespace {

using evf::pod;
using evf::uid;
using fx::high;
using fx::low;
using fx::mid;

enum class policy_case { never, lower_priority, unset };

// The PR1 cluster; pods named in `terminating` carry a deletion timestamp and the
// DisruptionTarget condition. The preemptor is made last (same uid in every rebuild).
struct pr_world {
  fx::named_cluster c;
  std::size_t n1 = 0, n2 = 0, n3 = 0;
  preempt::filter_statuses statuses{3};
  std::optional<pod> preemptor;

  pr_world(const std::set<std::string>& terminating, policy_case policy) {
    n1 = c.node("node1");
    n2 = c.node("node2");
    n3 = c.node("node3");
    add(n1, "p1.1", low, fx::small(), terminating);
    add(n1, "p1.2", low, fx::small(), terminating);
    add(n2, "p2.1", high, fx::large(), terminating);
    add(n3, "p3.1", mid, fx::medium(), terminating);
    preempt::model::pod_spec spec = c.make("preemptor", high, fx::very_large()).spec();
    spec.start_time = std::nullopt;
    if (policy == policy_case::never) spec.preemption_policy = preempt::preemption_policy::never;
    if (policy == policy_case::lower_priority)
      spec.preemption_policy = preempt::preemption_policy::preempt_lower_priority;
    preemptor.emplace(spec);
    statuses.set_all(preempt::status_code::unschedulable);
  }

  void add(std::size_t node, const std::string& name, std::int32_t prio, fx::resource_vector req,
           const std::set<std::string>& terminating) {
    preempt::model::pod_spec spec = c.make(name, prio, std::move(req)).spec();
    if (terminating.count(name) != 0) spec.terminating = spec.terminating_by_preemption = true;
    c.cluster.add_pod(node, pod(spec));
  }
};

template <class X>
preempt::evaluator_config config_for() {
  preempt::evaluator_config cfg;
  cfg.parallelism = X::async ? 3 : 1;
  cfg.min_parallel_nodes = 0;           // the helpers take any dry run
  cfg.workers_within_hardware = false;  // every worker, whatever the machine
  cfg.chunk = 1;
  cfg.seed = 4;
  return cfg;
}

template <class X>
void run_pr(policy_case policy, bool expect_preemption) {
  pr_world w({}, policy);
  const pod& p = *w.preemptor;
  preempt::evaluator<preempt::model::resource_cluster> ev(
      config_for<X>());  // outlives the rig's executor
  evf::rig<X> r(&w.c.pod_names, 3);

  const auto& d =
      ev.evaluate(p, w.c.cluster, w.statuses, w.c.budgets, r.ledger.reader(), r.x.executor());
  if (expect_preemption) {
    REQUIRE(d.kind == preempt::decision_kind::nominated);
    CHECK(d.node_name == "node1");
    CHECK(w.c.names(d.victims) == fx::name_list{"p1.1", "p1.2"});
  } else {
    CHECK(d.kind == preempt::decision_kind::not_eligible);
    CHECK(d.message == "preemption: not eligible due to preemptionPolicy=Never.");
  }
  const auto res = r.disp.apply(p, d);
  CHECK(res.outcome.is_success());
  r.settle();

  // NNN and the evicted set.
  std::vector<std::string> evicted;
  for (const evf::call& c : r.client.calls()) {
    evicted.push_back(w.c.pod_names.at(c.victim));
    CHECK(c.patched);  // the DisruptionTarget patch came first...
    CHECK(c.deleted);  // ...then the delete
    CHECK(c.preemptor == p.uid());
  }
  std::sort(evicted.begin(), evicted.end());
  if (expect_preemption) {
    CHECK(r.ledger.node_of(p.uid()) == std::optional<std::size_t>(w.n1));
    CHECK(evicted == fx::name_list{"p1.1", "p1.2"});
  } else {
    CHECK(r.ledger.node_of(p.uid()) == std::nullopt);
    CHECK(evicted.empty());
  }
  CHECK(r.rec.reactivated().empty());
  CHECK(r.table.preemptors_in_flight() == 0);
  const std::size_t calls_before = r.client.call_count();

  // Follow-up: the informer now shows the victims terminating because of preemption; the
  // preemptor retries with its nomination.
  std::set<std::string> terminating(evicted.begin(), evicted.end());
  for (const std::string& v : evicted)
    r.table.report_victim(w.c.pod_ids.at(v), preempt::victim_state::terminating);
  CHECK(r.table.victims_in_flight() == 0);
  pr_world w2(terminating, policy);
  CHECK(w2.preemptor->uid() == p.uid());
  preempt::attempt again;
  again.nominated_node = r.ledger.node_of(p.uid());
  const auto& d2 = ev.evaluate(p, w2.c.cluster, w2.statuses, w2.c.budgets, r.ledger.reader(),
                               r.x.executor(), again);
  CHECK(d2.kind == preempt::decision_kind::not_eligible);
  if (expect_preemption)
    CHECK(d2.message == "preemption: not eligible due to a terminating pod on the nominated node.");
  const auto res2 = r.disp.apply(p, d2);
  CHECK(res2.evictions == 0);
  CHECK_FALSE(res2.started);
  r.settle();
  CHECK(r.client.call_count() == calls_before);
  CHECK(r.ledger.node_of(p.uid()) ==
        (expect_preemption ? std::optional<std::size_t>(w.n1) : std::nullopt));

  if (expect_preemption) {
    // Even past the eligibility check, the terminating victims are not evicted again.
    preempt::attempt bypass;
    bypass.offset = 0;
    const auto& d3 = ev.evaluate(p, w2.c.cluster, w2.statuses, w2.c.budgets, r.ledger.reader(),
                                 r.x.executor(), bypass);
    REQUIRE(d3.kind == preempt::decision_kind::nominated);
    CHECK(w2.c.names(d3.victims) == fx::name_list{"p1.1", "p1.2"});
    const auto res3 = r.disp.apply(p, d3);
    CHECK(res3.skipped == 2);
    CHECK(res3.evictions == 0);
    CHECK_FALSE(res3.started);
    r.settle();
    CHECK(r.client.call_count() == calls_before);
    CHECK_FALSE(r.disp.is_preemption_running(p.uid()));
  }
}

}  // namespace

TEST_CASE_TEMPLATE(
    "PR1 [TestPreempt/\"basic preemption logic\"]: preempt the two low pods on node1, then not "
    "again",
    X, EVF_EXECUTORS) {
  run_pr<X>(policy_case::lower_priority, true);
}

TEST_CASE_TEMPLATE(
    "PR7 [TestPreempt/\"no preempting in pod\"]: preemptionPolicy Never preempts nothing", X,
    EVF_EXECUTORS) {
  run_pr<X>(policy_case::never, false);
}

TEST_CASE_TEMPLATE(
    "PR8 [TestPreempt/\"PreemptionPolicy is nil\"]: preemptionPolicy unset is PreemptLowerPriority",
    X, EVF_EXECUTORS) {
  // Same as PR1 with the policy left at its default (model::pod_spec's default value).
  pr_world w({}, policy_case::unset);
  CHECK(w.preemptor->preemption_policy() == preempt::preemption_policy::preempt_lower_priority);
  run_pr<X>(policy_case::unset, true);
}

TEST_CASE_TEMPLATE("flow: a failing eviction keeps (sync) or re-activates (async) the preemptor", X,
                   EVF_EXECUTORS) {
  pr_world w({}, policy_case::unset);
  const pod& p = *w.preemptor;
  preempt::evaluator<preempt::model::resource_cluster> ev(config_for<X>());
  evf::rig<X> r(&w.c.pod_names, 3);
  r.ledger.nominate(p, w.n3);  // an earlier nomination
  r.client.set(w.c.pod_ids.at("p1.1"), evf::api::delete_fails);
  const auto& d =
      ev.evaluate(p, w.c.cluster, w.statuses, w.c.budgets, r.ledger.reader(), r.x.executor());
  REQUIRE(d.kind == preempt::decision_kind::nominated);
  const auto res = r.disp.apply(p, d);
  r.settle();
  if constexpr (X::async) {
    CHECK(res.outcome.is_success());  // PostFilter succeeded; the background work failed
    CHECK(r.ledger.node_of(p.uid()) == std::optional<std::size_t>(w.n1));
    CHECK(r.rec.reactivations(p.uid()) == 1);
    CHECK(r.client.accepted().empty());  // p1.2 (the last) skipped after the failure
  } else {
    CHECK(res.outcome.code() == preempt::status_code::error);
    CHECK(res.outcome.reason() == evf::delete_failed);
    CHECK(r.ledger.node_of(p.uid()) ==
          std::optional<std::size_t>(w.n3));  // kept, as upstream's nil
    CHECK(r.rec.reactivated().empty());
  }
}

}  // namespace preempt_flow_test
