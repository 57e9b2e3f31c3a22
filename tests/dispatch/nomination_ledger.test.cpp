// nomination_ledger (nomination_ledger.hpp; upstream's nominator). Override and noop modes,
// update keeping the in-memory nomination, remove, node_of, clearing strictly lower priorities,
// nomination order, the reader view as the evaluator's nominations (two-pass fit,
// RunFilterPluginsWithNominatedPods), and no allocation after reserve().
//
// The reader holds the ledger's shared lock: no test calls a writer while a reader is alive.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/eviction_fakes.hpp"
#include "support/fixtures.hpp"

namespace nomination_ledger_test {

namespace {

using evf::pod;
using evf::uid;
using fx::high;
using fx::low;
using fx::mid;
using fx::very_high;

using ledger_type = preempt::nomination_ledger<pod>;

std::vector<uid> ids(std::span<const pod* const> pods) {
  std::vector<uid> out;
  for (const pod* p : pods) out.push_back(p->uid());
  return out;
}

std::vector<uid> nominated_ids(const ledger_type& l, std::size_t node) {
  const auto r = l.reader();
  return ids(r.nominated_to(node));
}

static_assert(preempt::nominations_of<ledger_type::reader_view, pod>);

}  // namespace

TEST_CASE("ledger: nominate (override) records, replaces, and keeps nomination order") {
  evf::scene s;
  const pod& a = s.add("a", low);
  const pod& b = s.add("b", mid);
  const pod& c = s.add("c", high);
  ledger_type l(3);
  CHECK(l.size() == 0);
  CHECK(l.node_of(a.uid()) == std::nullopt);

  l.nominate(a, 0);
  l.nominate(b, 0);
  l.nominate(c, 1);
  CHECK(l.size() == 3);
  CHECK(l.node_of(a.uid()) == std::optional<std::size_t>(0));
  CHECK(l.node_of(c.uid()) == std::optional<std::size_t>(1));
  CHECK(nominated_ids(l, 0) == std::vector<uid>{a.uid(), b.uid()});
  CHECK(nominated_ids(l, 1) == std::vector<uid>{c.uid()});

  // Override: a moves to node 1, leaving node 0; it is last on node 1.
  l.nominate(a, 1);
  CHECK(l.size() == 3);
  CHECK(l.node_of(a.uid()) == std::optional<std::size_t>(1));
  CHECK(nominated_ids(l, 0) == std::vector<uid>{b.uid()});
  CHECK(nominated_ids(l, 1) == std::vector<uid>{c.uid(), a.uid()});

  // Nominating again to the same node does not duplicate (upstream dedupes by uid).
  l.nominate(c, 1);
  CHECK(nominated_ids(l, 1) == std::vector<uid>{a.uid(), c.uid()});
  CHECK(l.size() == 3);
}

TEST_CASE("ledger: nodes are added explicitly, unknown nodes are empty") {
  evf::scene s;
  const pod& a = s.add("a", low);
  ledger_type l;  // no nodes
  CHECK(l.node_count() == 0);
  CHECK(l.reader().nominated_to(5).empty());
  l.resize_nodes(6);  // nominating to node 5 before this is a contract failure
  l.nominate(a, 5);
  CHECK(l.node_of(a.uid()) == std::optional<std::size_t>(5));
  CHECK(nominated_ids(l, 5) == std::vector<uid>{a.uid()});
  CHECK(l.reader().nominated_to(99).empty());
  std::vector<const pod*> out;
  CHECK(l.clear_lower_priority(99, very_high, out) == 0);
  CHECK(out.empty());
}

TEST_CASE("ledger: add_from_object (noop) follows the pod object's nominated node") {
  evf::scene s;
  const pod& a = s.add("a", low);
  const pod& b = s.add("b", low);
  ledger_type l(2);

  l.add_from_object(a, 1);  // the object carries node 1
  CHECK(l.node_of(a.uid()) == std::optional<std::size_t>(1));
  l.add_from_object(a, 0);  // the object now says node 0
  CHECK(l.node_of(a.uid()) == std::optional<std::size_t>(0));
  CHECK(nominated_ids(l, 1).empty());

  // Without a node on the object the nomination is cleared, even one made in memory.
  l.nominate(b, 1);
  l.add_from_object(b, std::nullopt);
  CHECK(l.node_of(b.uid()) == std::nullopt);
  CHECK(nominated_ids(l, 1).empty());
  l.add_from_object(a, std::nullopt);
  CHECK(l.size() == 0);
}

TEST_CASE("ledger: update keeps the in-memory nomination when neither object carries one") {
  evf::scene s;
  const pod& a = s.add("a", low);
  const pod& other = s.add("other", low);
  preempt::model::pod_spec spec = a.spec();
  spec.priority = very_high;
  const pod updated(spec);  // a's object after a change (same uid); outlives its nomination
  ledger_type l(3);

  SUBCASE("neither old nor new carries a node: the held nomination stays") {
    l.nominate(a, 2);
    l.update(a, std::nullopt, std::nullopt);
    CHECK(l.node_of(a.uid()) == std::optional<std::size_t>(2));
    CHECK(nominated_ids(l, 2) == std::vector<uid>{a.uid()});
  }
  SUBCASE("neither carries one and none is held: nothing") {
    l.update(a, std::nullopt, std::nullopt);
    CHECK(l.node_of(a.uid()) == std::nullopt);
    CHECK(l.size() == 0);
  }
  SUBCASE("the new object carries a node: it wins over the held one") {
    l.nominate(a, 2);
    l.update(a, std::nullopt, 1);
    CHECK(l.node_of(a.uid()) == std::optional<std::size_t>(1));
    CHECK(nominated_ids(l, 2).empty());
  }
  SUBCASE("the old object carried one and the new does not: cleared") {
    l.nominate(a, 2);
    l.update(a, 2, std::nullopt);
    CHECK(l.node_of(a.uid()) == std::nullopt);
    CHECK(nominated_ids(l, 2).empty());
  }
  SUBCASE("old and new carry nodes: the new one") {
    l.nominate(a, 0);
    l.update(a, 0, 2);
    CHECK(l.node_of(a.uid()) == std::optional<std::size_t>(2));
  }
  SUBCASE("the kept nomination is a copy of the new pod object") {
    // The object changed (same uid): the ledger's copy follows it.
    l.nominate(a, 1);
    l.update(updated, std::nullopt, std::nullopt);
    const auto r = l.reader();
    REQUIRE(r.nominated_to(1).size() == 1);
    CHECK(r.nominated_to(1)[0]->uid() == a.uid());
    CHECK(r.nominated_to(1)[0]->priority() == very_high);
    CHECK(r.nominated_to(1)[0] != &updated);  // the ledger's own copy
  }
  // Other pods are never touched.
  l.nominate(other, 0);
  l.update(a, std::nullopt, std::nullopt);
  CHECK(l.node_of(other.uid()) == std::optional<std::size_t>(0));
}

TEST_CASE("ledger: remove forgets a nomination and reports whether there was one") {
  evf::scene s;
  const pod& a = s.add("a", low);
  const pod& b = s.add("b", low);
  ledger_type l(1);
  l.nominate(a, 0);
  l.nominate(b, 0);
  CHECK(l.remove(a.uid()));
  CHECK_FALSE(l.remove(a.uid()));
  CHECK(l.node_of(a.uid()) == std::nullopt);
  CHECK(nominated_ids(l, 0) == std::vector<uid>{b.uid()});
  CHECK(l.size() == 1);
  CHECK_FALSE(l.remove(12345));
}

TEST_CASE("ledger: clear_lower_priority drops only strictly lower priorities on that node") {
  evf::scene s;
  const pod& l1 = s.add("l1", low);
  const pod& m1 = s.add("m1", mid);
  const pod& h1 = s.add("h1", high);  // equal to the preemptor: kept
  const pod& v1 = s.add("v1", very_high);
  const pod& l2 = s.add("l2", low);  // lower, but another node
  const pod& m3 = s.add("m3", mid);
  ledger_type l(2);
  l.nominate(m1, 0);
  l.nominate(h1, 0);
  l.nominate(l1, 0);
  l.nominate(v1, 0);
  l.nominate(l2, 1);
  l.nominate(m3, 0);

  std::vector<const pod*> out{&v1};  // appended to, not overwritten
  CHECK(l.clear_lower_priority(0, high, out) == 3);
  CHECK(ids(out) == std::vector<uid>{v1.uid(), m1.uid(), l1.uid(), m3.uid()});  // nomination order
  CHECK(nominated_ids(l, 0) == std::vector<uid>{h1.uid(), v1.uid()});
  CHECK(nominated_ids(l, 1) == std::vector<uid>{l2.uid()});
  CHECK(l.node_of(m1.uid()) == std::nullopt);
  CHECK(l.node_of(l1.uid()) == std::nullopt);
  CHECK(l.node_of(m3.uid()) == std::nullopt);
  CHECK(l.node_of(h1.uid()) == std::optional<std::size_t>(0));
  CHECK(l.node_of(l2.uid()) == std::optional<std::size_t>(1));
  CHECK(l.size() == 3);

  out.clear();
  CHECK(l.clear_lower_priority(0, high, out) == 0);  // nothing left below high
  CHECK(out.empty());
  // Negative priorities compare as numbers.
  const pod& n1 = s.add("n1", fx::neg);
  l.nominate(n1, 1);
  CHECK(l.clear_lower_priority(1, low, out) == 1);
  CHECK(ids(out) == std::vector<uid>{n1.uid()});
}

TEST_CASE("ledger: a cleared pod can be nominated again") {
  evf::scene s;
  const pod& a = s.add("a", low);
  ledger_type l(1);
  l.nominate(a, 0);
  std::vector<const pod*> out;
  l.clear_lower_priority(0, high, out);
  l.nominate(a, 0);
  CHECK(l.node_of(a.uid()) == std::optional<std::size_t>(0));
  CHECK(nominated_ids(l, 0) == std::vector<uid>{a.uid()});
}

TEST_CASE("ledger: the null_mutex variant behaves the same") {
  evf::scene s;
  const pod& a = s.add("a", low);
  const pod& b = s.add("b", high);
  preempt::nomination_ledger<pod, preempt::null_mutex> l(2);
  l.nominate(a, 1);
  l.nominate(b, 1);
  std::vector<const pod*> out;
  CHECK(l.clear_lower_priority(1, mid, out) == 1);
  CHECK(l.nominated_to_unlocked(1).size() == 1);
  CHECK(l.nominated_to_unlocked(1)[0]->uid() == b.uid());
  CHECK(l.reader().nominated_to(1).size() == 1);
}

TEST_CASE("ledger: no allocation after reserve(pods, nodes, per_node)") {
  evf::scene s;
  std::vector<const pod*> pods;
  for (int i = 0; i < 8; ++i)
    pods.push_back(&s.add("p" + std::to_string(i), i % 2 == 0 ? low : high));
  std::size_t allocations = 0;
  using alloc = evf::counting_allocator<const pod*>;
  preempt::nomination_ledger<pod, preempt::null_mutex, alloc> l(0, alloc(&allocations));
  l.reserve(8, 4, 8);
  std::vector<const pod*> out;
  out.reserve(8);
  const std::size_t before = allocations;
  for (int round = 0; round < 50; ++round) {
    for (std::size_t i = 0; i < pods.size(); ++i)
      l.nominate(*pods[i], (i + static_cast<std::size_t>(round)) % 4);
    l.update(*pods[0], std::nullopt, std::nullopt);
    l.add_from_object(*pods[1], 3);
    out.clear();
    l.clear_lower_priority(static_cast<std::size_t>(round) % 4, high, out);
    for (const pod* p : pods) l.remove(p->uid());
  }
  CHECK(allocations == before);
  // Without reserve the same work allocates (the check above can fail).
  std::size_t fresh_allocations = 0;
  preempt::nomination_ledger<pod, preempt::null_mutex, alloc> fresh(4, alloc(&fresh_allocations));
  const std::size_t fresh_before = fresh_allocations;
  for (std::size_t i = 0; i < pods.size(); ++i) fresh.nominate(*pods[i], i % 4);
  CHECK(fresh_allocations > fresh_before);
}

// ---- the reader as the evaluator's nominations (two-pass fit) ----------------------------------

namespace {

struct two_pass_world {
  fx::named_cluster c;
  std::size_t node1 = 0, node2 = 0;
  preempt::filter_statuses statuses{2};
  ledger_type ledger{2};

  two_pass_world() {
    node1 = c.node("node1", fx::capacity(500, 500));
    node2 = c.node("node2", fx::capacity(100, 100));  // no pods: never a candidate
    c.add(node1, "v1", low, fx::res(300, 10));
    statuses.set_all(preempt::status_code::unschedulable);
  }

  const preempt::decision<pod>& evaluate(preempt::evaluator<preempt::model::resource_cluster>& ev,
                                         const pod& p) {
    preempt::attempt a;
    a.offset = 0;
    return ev.evaluate(p, c.cluster, statuses, c.budgets, ledger.reader(),
                       preempt::inline_executor{}, a);
  }
};

}  // namespace

TEST_CASE(
    "ledger reader: a nominee of higher or equal priority reserves room, a lower one does not") {
  two_pass_world w;
  preempt::evaluator<preempt::model::resource_cluster> ev;
  const pod p = w.c.make("p", high, fx::res(400, 10));

  SUBCASE("no nominee: v1 is the victim") {
    const auto& d = w.evaluate(ev, p);
    REQUIRE(d.kind == preempt::decision_kind::nominated);
    CHECK(w.c.names(d.victims) == fx::name_list{"v1"});
  }
  SUBCASE("an equal-priority nominee reserves 200m: 400m no longer fits even without v1") {
    const pod n = w.c.make("n", high, fx::res(200, 10));
    w.ledger.nominate(n, w.node1);
    const auto& d = w.evaluate(ev, p);
    CHECK(d.kind == preempt::decision_kind::unschedulable);
    CHECK(d.message ==
          "preemption: 0/2 nodes are available: 1 Insufficient cpu, 1 No preemption victims found "
          "for incoming pod.");
  }
  SUBCASE("a higher-priority nominee reserves room too") {
    const pod n = w.c.make("n", very_high, fx::res(200, 10));
    w.ledger.nominate(n, w.node1);
    CHECK(w.evaluate(ev, p).kind == preempt::decision_kind::unschedulable);
  }
  SUBCASE("a lower-priority nominee does not: its room can be taken") {
    const pod n = w.c.make("n", mid, fx::res(200, 10));
    w.ledger.nominate(n, w.node1);
    const auto& d = w.evaluate(ev, p);
    REQUIRE(d.kind == preempt::decision_kind::nominated);
    CHECK(w.c.names(d.victims) == fx::name_list{"v1"});
  }
  SUBCASE("the preemptor's own nomination is not counted against it") {
    w.ledger.nominate(p, w.node1);
    const auto& d = w.evaluate(ev, p);
    REQUIRE(d.kind == preempt::decision_kind::nominated);
    CHECK(d.node_index == w.node1);
  }
  SUBCASE("a nominee on another node does not matter") {
    const pod n = w.c.make("n", very_high, fx::res(200, 10));
    w.ledger.nominate(n, w.node2);
    CHECK(w.evaluate(ev, p).kind == preempt::decision_kind::nominated);
  }
  SUBCASE("both passes: an equal nominee that still leaves room is fine") {
    const pod n = w.c.make("n", high, fx::res(100, 10));
    w.ledger.nominate(n, w.node1);
    const auto& d = w.evaluate(ev, p);
    REQUIRE(d.kind == preempt::decision_kind::nominated);
    CHECK(w.c.names(d.victims) == fx::name_list{"v1"});
  }
  SUBCASE("removing the nominee frees the room again") {
    const pod n = w.c.make("n", high, fx::res(200, 10));
    w.ledger.nominate(n, w.node1);
    CHECK(w.evaluate(ev, p).kind == preempt::decision_kind::unschedulable);
    CHECK(w.ledger.remove(n.uid()));
    CHECK(w.evaluate(ev, p).kind == preempt::decision_kind::nominated);
  }
  SUBCASE("clearing lower priorities: a mid nominee cleared by a high preemptor stops reserving") {
    const pod n = w.c.make("n", mid, fx::res(200, 10));
    const pod q = w.c.make("q", mid, fx::res(400, 10));  // mid: yields to the mid nominee
    w.ledger.nominate(n, w.node1);
    CHECK(w.evaluate(ev, q).kind == preempt::decision_kind::unschedulable);
    std::vector<const pod*> out;
    CHECK(w.ledger.clear_lower_priority(w.node1, high, out) == 1);
    CHECK(w.evaluate(ev, q).kind == preempt::decision_kind::nominated);
  }
}

}  // namespace nomination_ledger_test
