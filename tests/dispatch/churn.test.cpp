// Identities and churn (nomination_ledger.hpp, dispatcher.hpp, evaluator.hpp, filter_statuses.hpp):
//   - nodes removed or renumbered: the ledger drops and reports the nominations of a removed node,
//     moves the others with their nodes, and its node keys follow renumbering; a dispatcher whose
//     background work is queued when its node goes clears nothing on the node that took its index,
//     and its victims, gone with the node, end the work as upstream's NotFound does;
//   - caller bugs upstream never meets, rejected with a clear status: a preemptor among its own
//     victims (a running pod with its uid), a preemptor that is itself a victim in flight, a node
//     index beyond the ledger's, filter statuses that do not cover the cluster.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/eviction_fakes.hpp"
#include "support/fixtures.hpp"

namespace churn_test {

namespace {

using evf::api;
using evf::pod;
using evf::uid;
using fx::high;
using fx::low;
using fx::mid;
using fx::res;
using preempt::model::resource_cluster;

using ledger_type = preempt::nomination_ledger<pod>;

std::vector<uid> nominated_ids(const ledger_type& l, std::size_t node) {
  std::vector<uid> out;
  const auto r = l.reader();
  for (const pod* p : r.nominated_to(node)) out.push_back(p->uid());
  return out;
}

}  // namespace

TEST_CASE("churn: remove_node drops and reports its nominations, later nodes move down") {
  evf::scene s;
  const pod& a = s.add("a", low);
  const pod& b = s.add("b", mid);
  const pod& c = s.add("c", high);
  ledger_type l(4);
  l.nominate(a, 1);
  l.nominate(b, 2);
  l.nominate(c, 3);
  const preempt::node_key key2 = l.key_of(2), key1 = l.key_of(1);

  std::vector<uid> cleared;
  CHECK(l.remove_node(1, cleared) == 1);
  CHECK(cleared == std::vector<uid>{a.uid()});
  CHECK(l.node_count() == 3);
  CHECK(l.node_of(a.uid()) == std::nullopt);
  CHECK(l.node_of(b.uid()) == std::optional<std::size_t>(1));
  CHECK(l.node_of(c.uid()) == std::optional<std::size_t>(2));
  CHECK(nominated_ids(l, 1) == std::vector<uid>{b.uid()});
  CHECK(nominated_ids(l, 2) == std::vector<uid>{c.uid()});
  // Keys follow their nodes; a removed node's key finds nothing.
  CHECK(l.index_of(key2) == std::optional<std::size_t>(1));
  CHECK(l.index_of(key1) == std::nullopt);
  CHECK(l.size() == 2);
}

TEST_CASE("churn: renumber_nodes moves nominations and keys, drops removed nodes, adds new ones") {
  evf::scene s;
  const pod& a = s.add("a", low);
  const pod& b = s.add("b", mid);
  const pod& c = s.add("c", high);
  ledger_type l(3);
  l.nominate(a, 0);
  l.nominate(b, 1);
  l.nominate(c, 2);
  const preempt::node_key key0 = l.key_of(0), key2 = l.key_of(2);
  // Node 0 becomes 2, node 1 is removed, node 2 becomes 0; node 1 is new, and so is node 3.
  const std::size_t map[] = {2, ledger_type::removed, 0};
  std::vector<uid> cleared;
  CHECK(l.renumber_nodes(map, 4, cleared) == 1);
  CHECK(cleared == std::vector<uid>{b.uid()});
  CHECK(l.node_count() == 4);
  CHECK(nominated_ids(l, 2) == std::vector<uid>{a.uid()});
  CHECK(nominated_ids(l, 0) == std::vector<uid>{c.uid()});
  CHECK(nominated_ids(l, 1).empty());
  CHECK(l.node_of(a.uid()) == std::optional<std::size_t>(2));
  CHECK(l.index_of(key0) == std::optional<std::size_t>(2));
  CHECK(l.index_of(key2) == std::optional<std::size_t>(0));
  CHECK(l.key_of(1) != key0);
  // The new nodes take nominations.
  l.nominate(b, 3);
  CHECK(l.node_of(b.uid()) == std::optional<std::size_t>(3));
}

TEST_CASE("churn: add_node and resize_nodes grow the ledger, indices beyond it are refused") {
  evf::scene s;
  const pod& a = s.add("a", low);
  ledger_type l(1);
  CHECK(l.add_node() == 1);
  l.resize_nodes(5);
  CHECK(l.node_count() == 5);
  l.nominate(a, 4);
  CHECK(l.node_of(a.uid()) == std::optional<std::size_t>(4));
  // Unknown nodes read as empty and clear nothing (the nominating calls are contracts:
  // tests/standalone/contracts.cpp).
  CHECK(l.reader().nominated_to(99).empty());
  std::vector<uid> out;
  CHECK(l.clear_lower_priority(99, high, out) == 0);
}

TEST_CASE_TEMPLATE("churn: a node deleted while a preemptor is nominated to it, victims in flight",
                   X, evf::manual_fifo, evf::manual_lifo) {
  evf::scene s;
  evf::rig<X> r(&s.names, 3);
  const pod& p = s.add("p", high);
  const pod& v1 = s.add("v1", low);
  const pod& v2 = s.add("v2", low);
  const pod& nominee = s.add("nominee", low);  // nominated to node 2
  r.client.set(v1.uid(), api::gone);           // the pods went with their node
  r.client.set(v2.uid(), api::gone);
  r.ledger.nominate(nominee, 2);
  const std::vector<const pod*> victims{&v1, &v2};
  const preempt::dispatch_result res = r.disp.preempt_on(p, 1, victims);
  REQUIRE(res.started);
  CHECK(r.ledger.node_of(p.uid()) == std::optional<std::size_t>(1));
  CHECK(r.table.in_flight(p.uid()));

  // Node 1 is deleted before the background work runs: node 2 becomes node 1.
  std::vector<uid> cleared;
  r.ledger.remove_node(1, cleared);
  CHECK(cleared == std::vector<uid>{p.uid()});
  CHECK(r.ledger.node_of(nominee.uid()) == std::optional<std::size_t>(1));
  r.settle();

  // The background work cleared nothing: its node is gone, and index 1 is another node now.
  CHECK(r.rec.cleared().empty());
  CHECK(r.ledger.node_of(nominee.uid()) == std::optional<std::size_t>(1));
  // Both victims were already gone (NotFound: success); no deletion is to come, so the
  // preemptor is woken, and it is gated no more.
  CHECK(r.client.count(v1.uid()) == 1);
  CHECK(r.client.count(v2.uid()) == 1);
  CHECK(r.rec.reactivations(p.uid()) == 1);
  CHECK_FALSE(r.table.in_flight(p.uid()));
  CHECK_FALSE(r.disp.is_preemption_running(p.uid()));
  CHECK(r.table.victims_in_flight() == 0);
}

TEST_CASE("churn: nodes renumbered while victims are in flight: the work follows its node") {
  evf::scene s;
  evf::rig<evf::manual_fifo> r(&s.names, 3);
  const pod& p = s.add("p", high);
  const pod& v = s.add("v", low);
  const pod& below = s.add("below", low);  // nominated to the preemptor's node: cleared
  const pod& elsewhere = s.add("elsewhere", low);
  r.ledger.nominate(below, 2);
  r.ledger.nominate(elsewhere, 0);
  const std::vector<const pod*> victims{&v};
  REQUIRE(r.disp.preempt_on(p, 2, victims).started);
  // The cluster renumbers: node 2 becomes node 0, node 0 becomes node 2.
  const std::size_t map[] = {2, 1, 0};
  std::vector<uid> none;
  r.ledger.renumber_nodes(map, 3, none);
  r.settle();
  REQUIRE(r.rec.cleared().size() == 1);
  CHECK(r.rec.cleared()[0].first == 0);  // the preemptor's node, by its index now
  CHECK(r.rec.cleared()[0].second == std::vector<uid>{below.uid()});
  CHECK(r.ledger.node_of(elsewhere.uid()) == std::optional<std::size_t>(2));
  CHECK(r.ledger.node_of(p.uid()) == std::optional<std::size_t>(0));
}

TEST_CASE_TEMPLATE("churn: a preemptor among its own victims is refused", X, evf::inline_x,
                   evf::manual_fifo) {
  evf::scene s;
  evf::rig<X> r(&s.names, 2);
  const pod& p = s.add("p", high);
  const pod& v = s.add("v", low);
  const pod running_self = fx::make_pod(p.uid(), low);  // a running pod with the preemptor's uid
  const std::vector<const pod*> victims{&v, &running_self};
  const preempt::dispatch_result res = r.disp.preempt_on(p, 0, victims);
  CHECK(res.outcome.code() == preempt::status_code::error);
  CHECK(res.outcome.reason() == preempt::dispatch_preemptor_is_victim);
  CHECK_FALSE(res.started);
  CHECK(r.client.call_count() == 0);
  CHECK(r.ledger.node_of(p.uid()) == std::nullopt);
  CHECK(r.table.victims_in_flight() == 0);
}

TEST_CASE("churn: a pod whose eviction is in flight cannot start a preemption of its own") {
  evf::scene s;
  evf::rig<evf::manual_fifo> r(&s.names, 2);
  const pod& p = s.add("p", high);
  const pod& v = s.add("v", mid);
  const pod& w = s.add("w", low);
  const std::vector<const pod*> first{&v};
  REQUIRE(r.disp.preempt_on(p, 0, first).started);  // v's eviction is queued
  const std::vector<const pod*> second{&w};
  const preempt::dispatch_result res = r.disp.preempt_on(v, 1, second);
  CHECK(res.outcome.reason() == preempt::dispatch_preemptor_being_evicted);
  CHECK_FALSE(res.started);
  CHECK(r.ledger.node_of(v.uid()) == std::nullopt);
  r.settle();
  CHECK(r.client.count(w.uid()) == 0);
  // Once its eviction is over (the claim released when reported gone), nothing is left to refuse.
  r.table.report_victim(v.uid(), preempt::victim_state::gone);
  CHECK(r.disp.preempt_on(v, 1, second).outcome.is_success());
}

TEST_CASE_TEMPLATE("churn: a node beyond the ledger's nodes is refused with a status", X,
                   evf::inline_x, evf::manual_fifo) {
  evf::scene s;
  evf::rig<X> r(&s.names, 4);
  const pod& p = s.add("p", high);
  const pod& v = s.add("v", low);
  const std::vector<const pod*> victims{&v};
  const preempt::dispatch_result res = r.disp.preempt_on(p, 12345, victims);
  CHECK(res.outcome.reason() == preempt::dispatch_node_out_of_range);
  CHECK(r.client.call_count() == 0);
  CHECK(r.table.victims_in_flight() == 0);
}

TEST_CASE("churn: the evaluator reports a running pod with the preemptor's uid among the victims") {
  resource_cluster c;
  const std::size_t n = c.add_node("n", fx::capacity(1000, 1000));
  c.add_pod(n, pod({.uid = 7, .priority = 0, .requests = res(900, 1), .start_time = 0}));
  const pod preemptor({.uid = 7, .priority = 100, .requests = res(500, 1), .start_time = {}});
  const preempt::filter_statuses statuses(c.size(), preempt::status_code::unschedulable);
  preempt::evaluator<resource_cluster> ev({}, preempt::default_policy{0});
  const auto& d = ev.evaluate(preemptor, c, statuses, preempt::no_budgets{},
                              preempt::no_nominations{}, preempt::inline_executor{});
  CHECK(d.kind == preempt::decision_kind::error);
  CHECK(d.message == preempt::preemptor_among_victims_message);
}

TEST_CASE("churn: filter statuses shorter than the cluster are an error, not a read past them") {
  resource_cluster c;
  for (int i = 0; i < 4; ++i) {
    const std::size_t n = c.add_node("n" + std::to_string(i), fx::capacity(1000, 1000));
    c.add_pod(n, pod({.uid = static_cast<preempt::model::pod_id>(10 + i),
                      .priority = 0,
                      .requests = res(900, 1),
                      .start_time = 0}));
  }
  const pod preemptor({.uid = 1, .priority = 100, .requests = res(500, 1), .start_time = {}});
  preempt::evaluator<resource_cluster> ev({}, preempt::default_policy{0});
  // A plain vector of codes is a node_statuses; one entry short of the cluster is refused.
  const std::vector<preempt::status_code> short_codes(3, preempt::status_code::unschedulable);
  const auto& d = ev.evaluate(preemptor, c, short_codes, preempt::no_budgets{},
                              preempt::no_nominations{}, preempt::inline_executor{});
  CHECK(d.kind == preempt::decision_kind::error);
  CHECK(d.message == preempt::statuses_too_short_message);
  // The same statuses covering every node decide as filter_statuses does.
  const std::vector<preempt::status_code> codes(4, preempt::status_code::unschedulable);
  const auto& ok =
      ev.evaluate(preemptor, c, codes, preempt::no_budgets{}, preempt::no_nominations{},
                  preempt::inline_executor{}, {.offset = 0, .nominated_node = std::nullopt});
  REQUIRE(ok.kind == preempt::decision_kind::nominated);
  CHECK(ok.node_index == 0);
  // A map with an absent code answers for every node, however few it holds.
  const preempt::filter_statuses few(1, preempt::status_code::unschedulable);
  const auto& mapped = ev.evaluate(preemptor, c, few, preempt::no_budgets{},
                                   preempt::no_nominations{}, preempt::inline_executor{});
  CHECK(mapped.kind == preempt::decision_kind::nominated);
}

}  // namespace churn_test
