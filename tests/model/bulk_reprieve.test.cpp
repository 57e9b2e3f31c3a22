// The one-pass reprieve (model::resource_fit_state::reprieve_removed_pods, taken by select_victims
// without budgets or nominated pods under default_policy) against the pod-by-pod reprieve on the
// same nodes: the same outcome, victims in the same order, the same state afterwards.
//
//   BRn  random nodes: ties in priority and start time, equal and missing start times, `now`
//        before, among and after the start times, extended resources (up to past the fast path's
//        dimension limit), negative requests, few pod slots.
//   BUn  when the one-pass reprieve applies and when it declines (BU3: the rejection it explains,
//        a preemptor asking for an extended dimension the node lacks included).
//   BR3  with budgets; BR4 a budget set's prefetch_budgets_of: called before every lookup, it
//        changes neither the selection nor the lookups.
//   BR5  the state's reprieve with budget flags called directly (violating pods at random): the
//        victims, their order, each flag and the state as the pod-by-pod path leaves them.
//   BR6  with budgets on nodes of 65 to 200 pods.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/random_cluster.hpp"

namespace bulk_reprieve_test {

namespace {

using pod = preempt::model::resource_pod;
using preempt::model::resource_fit_state;
using preempt::model::resource_vector;

// resource_fit_state without reprieve_removed_pods: select_victims takes its pod-by-pod path
// (with remove_lower_priority_pods and can_fit as before).
struct pod_by_pod {
  resource_fit_state* s;
  preempt::status remove_pod(const pod& p) { return s->remove_pod(p); }
  preempt::status add_pod(const pod& p) { return s->add_pod(p); }
  preempt::status fits(const pod& p) const { return s->fits(p); }
  bool can_fit(const pod& p) const { return s->can_fit(p); }
  std::optional<std::size_t> remove_lower_priority_pods(std::int32_t q) {
    return s->remove_lower_priority_pods(q);
  }
};
static_assert(!preempt::reprieves_removed_pods<pod_by_pod, pod>);

struct random_node {
  preempt::model::resource_cluster cluster;
  pod preemptor{preempt::model::pod_spec{}};
  preempt::timestamp now = 0;
};

std::int64_t pick(std::mt19937_64& g, std::int64_t lo, std::int64_t hi) {
  return rnd::pick(g, lo, hi);
}

// Requests over `dims` dimensions (cpu, memory, pods, ephemeral storage, extended ...), each
// zero, small, or (rarely) negative.
resource_vector random_requests(std::mt19937_64& g, std::size_t dims, std::int64_t scale) {
  resource_vector r;
  r.resize(dims);
  for (std::size_t d = 0; d < dims; ++d) {
    if (d == preempt::model::resource::pods) continue;  // one slot (the pod's constructor)
    const std::int64_t kind = pick(g, 0, 19);
    const std::int64_t amount = kind == 0 ? -pick(g, 1, 2) * scale : pick(g, 0, 4) * scale;
    r.set(d, amount);
  }
  return r;
}

random_node make_node(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  random_node w;
  // Up to ten dimensions: past resource_fit_state::max_fast_dimensions now and then.
  const auto node_dims = static_cast<std::size_t>(pick(g, 2, 10));
  resource_vector allocatable;
  allocatable.resize(std::max<std::size_t>(node_dims, 3));
  for (std::size_t d = 0; d < allocatable.size(); ++d) allocatable.set(d, pick(g, 3, 14) * 100);
  allocatable.set(preempt::model::resource::pods, pick(g, 2, 20));
  const auto n = w.cluster.add_node("node", allocatable);
  const std::int32_t priorities[] = {-5, 0, 0, 7, 7, 7, 100};
  const auto pods = pick(g, 0, 24);
  const std::int64_t start_spread = pick(g, 0, 1) == 0 ? 3 : 1000;  // many equal starts, or few
  for (std::int64_t k = 0; k < pods; ++k) {
    std::optional<preempt::timestamp> start;
    if (pick(g, 0, 5) != 0) start = pick(g, 0, start_spread) * 10;
    const auto pod_dims =
        static_cast<std::size_t>(pick(g, 2, static_cast<std::int64_t>(node_dims)));
    const auto priority = priorities[pick(g, 0, 6)];
    w.cluster.add_pod(n, pod({.uid = static_cast<std::uint64_t>(k + 1),
                              .priority = priority,
                              .requests = random_requests(g, pod_dims, 100),
                              .start_time = start}));
  }
  const auto preemptor_priority = priorities[pick(g, 3, 6)];
  resource_vector want = random_requests(g, node_dims, 100);
  for (std::size_t d = preempt::model::resource::first_extended; d < want.size(); ++d)
    if (pick(g, 0, 1) == 0) want.set(d, 0);
  // Now and then the preemptor asks for an extended dimension the node does not have.
  if (pick(g, 0, 7) == 0) {
    const std::size_t past = std::max(want.size(), preempt::model::resource::first_extended);
    want.resize(past + static_cast<std::size_t>(pick(g, 1, 2)));
    want.set(want.size() - 1, pick(g, 1, 3) * 100);
  }
  w.preemptor =
      pod({.uid = 1000, .priority = preemptor_priority, .requests = want, .start_time = {}});
  w.now = pick(g, -1, start_spread + 1) * 10 + pick(g, 0, 1) * 5;
  return w;
}

std::vector<std::uint64_t> uids(std::span<const pod* const> victims) {
  std::vector<std::uint64_t> out;
  for (const pod* p : victims) out.push_back(p->uid());
  return out;
}

// How the two paths compared over a run of random nodes.
struct path_counts {
  std::size_t candidates = 0, one_pass = 0, with_violations = 0;
  std::size_t one_pass_strict = 0;  // on nodes whose pods are strictly ordered: no order check
};

// Selects on the node through the one-pass path (when select_victims takes it) and through the
// pod-by-pod path, checks that both give the same selection and leave the same state, and counts.
template <class Budgets>
void compare_paths(const random_node& w, const Budgets& budgets, path_counts& counts) {
  preempt::victim_scratch<pod> fast_scratch, slow_scratch;
  const preempt::default_policy policy{w.now};
  resource_fit_state fast = w.cluster.make_state(), slow = w.cluster.make_state();
  w.cluster.prepare_state(0, fast);
  w.cluster.prepare_state(0, slow);
  pod_by_pod slow_view{&slow};
  const auto a =
      preempt::select_victims(w.preemptor, w.cluster[0], fast, budgets, fast_scratch, policy);
  const auto b =
      preempt::select_victims(w.preemptor, w.cluster[0], slow_view, budgets, slow_scratch, policy);
  CHECK(a.outcome == b.outcome);
  CHECK(uids(a.victims) == uids(b.victims));
  CHECK(a.pdb_violations == b.pdb_violations);
  CHECK(fast.requested() == slow.requested());
  if (a.is_candidate()) {
    ++counts.candidates;
    counts.with_violations += a.pdb_violations > 0;
    // The pod-by-pod path lists the potential victims; the one-pass path does not.
    if (fast_scratch.entries().empty()) {
      ++counts.one_pass;
      if (w.cluster[0].strictly_ordered()) ++counts.one_pass_strict;
    }
  }
}

}  // namespace

TEST_CASE("BR1 [ours]: the one-pass reprieve selects what the pod-by-pod reprieve selects") {
  const preempt::no_budgets budgets;
  path_counts counts;
  const auto seeds = rnd::seeds(4000, 12);
  for (const std::uint64_t seed : seeds) {
    CAPTURE(seed);
    compare_paths(make_node(seed), budgets, counts);
  }
  MESSAGE(counts.candidates << " candidates of " << seeds.size() << " nodes, " << counts.one_pass
                            << " through the one-pass reprieve, " << counts.one_pass_strict
                            << " of them on strictly ordered nodes");
  // Both paths must have been exercised, and the one-pass walk with and without its order check.
  CHECK(counts.candidates > seeds.size() / 5);
  CHECK(counts.one_pass > counts.candidates / 4);
  CHECK(counts.one_pass < counts.candidates);
  CHECK(counts.one_pass_strict > counts.one_pass / 10);
  CHECK(counts.one_pass_strict < counts.one_pass);
}

TEST_CASE("BU1 [ours]: reprieve_removed_pods needs remove_lower_priority_pods as the last change") {
  preempt::model::resource_cluster c;
  const auto n = c.add_node("n", {1000, 1000, 10});
  for (std::uint64_t k = 1; k <= 3; ++k)
    c.add_pod(n, pod({.uid = k,
                      .priority = 0,
                      .requests = {300, 100},
                      .start_time = static_cast<preempt::timestamp>(k)}));
  const pod preemptor({.uid = 9, .priority = 5, .requests = {500, 100}, .start_time = {}});
  std::vector<const pod*> room(3);
  resource_fit_state s = c.make_state();

  SUBCASE("right after the removal: the earliest started pod comes back, the others are victims") {
    c.prepare_state(n, s);
    REQUIRE(s.remove_lower_priority_pods(5) == std::optional<std::size_t>(3));
    const auto victims = s.reprieve_removed_pods(preemptor, 0, room);
    REQUIRE(victims == std::optional<std::size_t>(2));
    CHECK(room[0]->uid() == 2);
    CHECK(room[1]->uid() == 3);
    CHECK(s.requested() == resource_vector{300, 100, 1, 0});
    // Used once: a second call declines.
    CHECK_FALSE(s.reprieve_removed_pods(preemptor, 0, room).has_value());
  }
  SUBCASE("not after another change, nor without room for every removed pod") {
    c.prepare_state(n, s);
    REQUIRE(s.remove_lower_priority_pods(5).has_value());
    std::vector<const pod*> small(2);
    CHECK_FALSE(s.reprieve_removed_pods(preemptor, 0, small).has_value());
    c.prepare_state(n, s);
    REQUIRE(s.remove_lower_priority_pods(5).has_value());
    CHECK(s.add_pod(c[n].pods()[0]));
    CHECK_FALSE(s.reprieve_removed_pods(preemptor, 0, room).has_value());
    c.prepare_state(n, s);
    CHECK_FALSE(s.reprieve_removed_pods(preemptor, 0, room).has_value());
  }
  SUBCASE("not when the preemptor does not fit even without the pods") {
    c.prepare_state(n, s);
    REQUIRE(s.remove_lower_priority_pods(5).has_value());
    const pod huge({.uid = 10, .priority = 5, .requests = {1500, 100}, .start_time = {}});
    CHECK_FALSE(s.reprieve_removed_pods(huge, 0, room).has_value());
    CHECK(s.requested() == resource_vector{0, 0, 0, 0});
  }
}

TEST_CASE(
    "BU2 [ours]: reprieve_removed_pods declines pods that are not strictly in importance order") {
  preempt::model::resource_cluster c;
  const auto n = c.add_node("n", {1000, 1000, 10});
  const pod preemptor({.uid = 9, .priority = 5, .requests = {500, 100}, .start_time = {}});
  std::vector<const pod*> room(3);
  resource_fit_state s = c.make_state();

  SUBCASE("two pods started at the same time") {
    c.add_pod(n, pod({.uid = 1, .priority = 0, .requests = {300}, .start_time = 10}));
    c.add_pod(n, pod({.uid = 2, .priority = 0, .requests = {300}, .start_time = 10}));
    c.prepare_state(n, s);
    REQUIRE(s.remove_lower_priority_pods(5).has_value());
    CHECK_FALSE(s.reprieve_removed_pods(preemptor, 0, room).has_value());
  }
  SUBCASE("a missing start time counts as now") {
    c.add_pod(n, pod({.uid = 1, .priority = 0, .requests = {300}, .start_time = 10}));
    c.add_pod(n, pod({.uid = 2, .priority = 0, .requests = {300}, .start_time = {}}));
    // now after the start time: the pod without one is kept last and is the least important.
    c.prepare_state(n, s);
    REQUIRE(s.remove_lower_priority_pods(5).has_value());
    CHECK(s.reprieve_removed_pods(preemptor, 20, room) == std::optional<std::size_t>(1));
    CHECK(room[0]->uid() == 2);
    // now at or before it: the kept order is not the importance order.
    for (const preempt::timestamp now : {10, 5}) {
      c.prepare_state(n, s);
      REQUIRE(s.remove_lower_priority_pods(5).has_value());
      CHECK_FALSE(s.reprieve_removed_pods(preemptor, now, room).has_value());
    }
  }
}

TEST_CASE("BU3 [ours]: a reprieve declined for want of room explains the rejection as fits does") {
  // Random nodes: after the removal, the reprieve with a rejection either selects (the rejection
  // untouched), or declines; declining where the preemptor does not fit, it must give exactly
  // fits' status (code and reasons), whatever the shortage: one dimension or several, the pod
  // slots, a request beyond the allocatable amount, extended dimensions.
  std::size_t selected = 0, explained = 0, several_reasons = 0, unresolvable = 0, pod_slots = 0;
  std::size_t missing_dimension = 0;  // the preemptor asks for a dimension the node lacks
  const auto seeds = rnd::seeds(4000, 12);
  for (const std::uint64_t seed : seeds) {
    CAPTURE(seed);
    const random_node w = make_node(seed);
    resource_fit_state s = w.cluster.make_state(), twin = w.cluster.make_state();
    w.cluster.prepare_state(0, s);
    w.cluster.prepare_state(0, twin);
    const std::int32_t q = w.preemptor.priority();
    REQUIRE(s.remove_lower_priority_pods(q) == twin.remove_lower_priority_pods(q));
    std::vector<const pod*> room(w.cluster[0].pods().size());
    preempt::status rejection;
    const auto chosen = s.reprieve_removed_pods(w.preemptor, w.now, room, rejection);
    const preempt::status expected = twin.fits(w.preemptor);
    if (chosen) {
      ++selected;
      CHECK(expected.is_success());
      CHECK(rejection.is_success());
    } else if (!rejection.is_success()) {
      ++explained;
      CHECK(rejection == expected);
      const auto got = rejection.reasons(), want = expected.reasons();
      CHECK(std::equal(got.begin(), got.end(), want.begin(), want.end()));
      several_reasons += rejection.reasons().size() > 1;
      unresolvable += rejection.code() == preempt::status_code::unschedulable_and_unresolvable;
      pod_slots += rejection.reason() == "Too many pods";
      missing_dimension +=
          w.preemptor.requests().size() > w.cluster[0].allocatable().size() ? 1u : 0u;
    } else {
      // Declined for another reason (order, dimensions): the preemptor fits, or the state has
      // more dimensions than the one-pass reprieve handles.
      CHECK((expected.is_success() ||
             s.requested().size() > resource_fit_state::max_fast_dimensions));
    }
    if (!chosen) CHECK(s.requested() == twin.requested());  // declining changes nothing
  }
  MESSAGE(selected << " selected, " << explained << " rejections explained (" << several_reasons
                   << " with several reasons, " << unresolvable << " unresolvable, " << pod_slots
                   << " for pod slots, " << missing_dimension
                   << " for a dimension the node lacks)");
  CHECK(selected > seeds.size() / 10);
  CHECK(explained > seeds.size() / 10);
  CHECK(several_reasons > 0);
  CHECK(unresolvable > 0);
  CHECK(pod_slots > 0);
  CHECK(missing_dimension > 0);
}

TEST_CASE(
    "BR3 [ours]: with budgets, the one-pass reprieve selects what the pod-by-pod reprieve "
    "selects") {
  path_counts counts;
  const auto seeds = rnd::seeds(4000, 13);
  for (const std::uint64_t seed : seeds) {
    CAPTURE(seed);
    const random_node w = make_node(seed);
    // Budgets over the node's pods: overlapping members, 0 to 2 allowed disruptions, some pods
    // already disrupted.
    std::mt19937_64 g(seed ^ 0xb0d6e7);
    preempt::model::budget_table budgets;
    const auto pods = static_cast<std::int64_t>(w.cluster[0].pods().size());
    const auto budget_count = pick(g, 1, 4);
    for (std::int64_t b = 0; b < budget_count; ++b) {
      const auto allowed = static_cast<std::int32_t>(pick(g, 0, 2));
      const std::size_t i = budgets.add_budget(0, allowed);
      for (std::int64_t k = 1; k <= pods; ++k) {
        const auto draw = pick(g, 0, 9);
        if (draw < 4) budgets.add_member(i, static_cast<std::uint64_t>(k));
        if (draw == 9) budgets.add_disrupted(i, static_cast<std::uint64_t>(k));
      }
    }
    compare_paths(w, budgets, counts);
  }
  MESSAGE(counts.candidates << " candidates of " << seeds.size() << " nodes, " << counts.one_pass
                            << " through the one-pass reprieve, " << counts.with_violations
                            << " with violations");
  CHECK(counts.candidates > seeds.size() / 5);
  CHECK(counts.one_pass > counts.candidates / 4);
  CHECK(counts.one_pass < counts.candidates);
  CHECK(counts.with_violations > counts.candidates / 10);
}

namespace {

// A budget_table seen through a set that logs its lookups and, with Prefetch, its prefetches:
// +uid for prefetch_budgets_of, -uid for for_each_budget_of.
template <bool Prefetch>
struct logged_budgets {
  const preempt::model::budget_table* table;
  std::vector<std::int64_t>* log;
  std::size_t budget_count() const { return table->budget_count(); }
  std::int32_t disruptions_allowed(std::size_t i) const { return table->disruptions_allowed(i); }
  template <class Visit>
  void for_each_budget_of(const pod& p, Visit&& visit) const {
    log->push_back(-static_cast<std::int64_t>(p.uid()));
    table->for_each_budget_of(p, visit);
  }
  void prefetch_budgets_of(const pod& p) const
    requires Prefetch
  {
    log->push_back(static_cast<std::int64_t>(p.uid()));
    table->prefetch_budgets_of(p);
  }
};
static_assert(preempt::prefetches_budgets<preempt::model::budget_table, pod>);
static_assert(preempt::prefetches_budgets<logged_budgets<true>, pod>);
static_assert(!preempt::prefetches_budgets<logged_budgets<false>, pod>);
static_assert(!preempt::prefetches_budgets<preempt::no_budgets, pod>);

// Every lookup comes after a prefetch of the same pod not used by an earlier lookup, and every
// prefetch is used.
bool every_lookup_prefetched(const std::vector<std::int64_t>& log) {
  std::vector<std::int64_t> pending;
  for (const std::int64_t e : log) {
    if (e > 0) {
      pending.push_back(e);
      continue;
    }
    const auto at = std::find(pending.begin(), pending.end(), -e);
    if (at == pending.end()) return false;
    pending.erase(at);
  }
  return pending.empty();
}

}  // namespace

TEST_CASE("BR4 [ours]: prefetch_budgets_of comes before every lookup and changes no selection") {
  std::size_t lookups = 0;
  for (const std::uint64_t seed : rnd::seeds(600, 29)) {
    CAPTURE(seed);
    const random_node w = make_node(seed);
    std::mt19937_64 g(seed ^ 0x9e3779);
    preempt::model::budget_table table;
    const auto pods = static_cast<std::int64_t>(w.cluster[0].pods().size());
    for (std::int64_t b = 0, n = pick(g, 1, 4); b < n; ++b) {
      const std::size_t i = table.add_budget(0, static_cast<std::int32_t>(pick(g, -1, 2)));
      for (std::int64_t k = 1; k <= pods; ++k) {
        const auto draw = pick(g, 0, 9);
        if (draw < 5) table.add_member(i, static_cast<std::uint64_t>(k));
        if (draw == 9) table.add_disrupted(i, static_cast<std::uint64_t>(k));
      }
    }
    const preempt::default_policy policy{w.now};
    // Both victim selection paths: the state's one-pass reprieve and the pod-by-pod one.
    for (const bool one_pass : {true, false}) {
      CAPTURE(one_pass);
      std::vector<std::int64_t> with_log, without_log;
      const logged_budgets<true> with{&table, &with_log};
      const logged_budgets<false> without{&table, &without_log};
      preempt::victim_scratch<pod> s1, s2;
      resource_fit_state a = w.cluster.make_state(), b = w.cluster.make_state();
      w.cluster.prepare_state(0, a);
      w.cluster.prepare_state(0, b);
      pod_by_pod va{&a}, vb{&b};
      const auto x = one_pass
                         ? preempt::select_victims(w.preemptor, w.cluster[0], a, with, s1, policy)
                         : preempt::select_victims(w.preemptor, w.cluster[0], va, with, s1, policy);
      const auto y =
          one_pass ? preempt::select_victims(w.preemptor, w.cluster[0], b, without, s2, policy)
                   : preempt::select_victims(w.preemptor, w.cluster[0], vb, without, s2, policy);
      CHECK(x.outcome == y.outcome);
      CHECK(uids(x.victims) == uids(y.victims));
      CHECK(x.pdb_violations == y.pdb_violations);
      CHECK(every_lookup_prefetched(with_log));
      // The same lookups in the same order.
      std::vector<std::int64_t> lookups_with;
      for (const std::int64_t e : with_log)
        if (e < 0) lookups_with.push_back(e);
      CHECK(lookups_with == without_log);
      lookups += without_log.size();
    }
  }
  CHECK(lookups > 1000);
}

TEST_CASE(
    "BR5 [ours]: the flagged one-pass reprieve against the pod-by-pod reprieve, flag by flag") {
  // Each node's removed pods flagged violating at random (none, some, most or all of them): one
  // budget allowing no disruption, whose members are exactly the flagged pods, makes the
  // pod-by-pod path see the same classification.
  std::size_t one_pass = 0, strict = 0, loose = 0, wide = 0, mixed = 0, all_violating = 0;
  for (const std::uint64_t seed : rnd::seeds(8000, 31)) {
    CAPTURE(seed);
    const random_node w = make_node(seed);
    std::mt19937_64 g(seed ^ 0xf1a65);
    const preempt::default_policy policy{w.now};
    resource_fit_state fast = w.cluster.make_state();
    w.cluster.prepare_state(0, fast);
    const auto removed_count = fast.remove_lower_priority_pods(w.preemptor.priority());
    if (!removed_count || *removed_count == 0) continue;
    const std::span<const pod> removed = fast.removed_pods();
    REQUIRE(removed.size() == *removed_count);
    const std::int64_t share =
        std::array<std::int64_t, 5>{0, 3, 6, 9, 10}[static_cast<std::size_t>(pick(g, 0, 4))];
    std::vector<std::uint8_t> flags(removed.size());
    preempt::model::budget_table budgets;
    const std::size_t budget = budgets.add_budget(0, 0);
    std::size_t flagged = 0;
    for (std::size_t i = 0; i < removed.size(); ++i)
      if (pick(g, 1, 10) <= share) {
        flags[i] = 1;
        ++flagged;
        budgets.add_member(budget, removed[i].uid());
      }
    const std::vector<std::uint8_t> given = flags;
    std::vector<const pod*> room(removed.size());
    const std::optional<std::size_t> chosen =
        fast.reprieve_removed_pods(w.preemptor, w.now, room, flags);
    if (!chosen) continue;
    ++one_pass;
    ++(w.cluster[0].strictly_ordered() ? strict : loose);
    if (fast.requested().size() > preempt::model::resource::first_extended) ++wide;
    if (flagged > 0 && flagged < removed.size()) ++mixed;
    if (flagged == removed.size()) ++all_violating;

    resource_fit_state slow = w.cluster.make_state();
    w.cluster.prepare_state(0, slow);
    pod_by_pod slow_view{&slow};
    preempt::victim_scratch<pod> scratch;
    const auto b =
        preempt::select_victims(w.preemptor, w.cluster[0], slow_view, budgets, scratch, policy);
    REQUIRE(b.is_candidate());
    const std::span<const pod* const> victims(room.data(), *chosen);
    CHECK(uids(victims) == uids(b.victims));
    std::int64_t violations = 0;
    for (std::size_t i = 0; i < removed.size(); ++i) {
      CAPTURE(i);
      const bool victim = std::find(victims.begin(), victims.end(), &removed[i]) != victims.end();
      CHECK((flags[i] & 1) == given[i]);
      CHECK(((flags[i] & 2) != 0) == victim);
      violations += victim && given[i] != 0 ? 1 : 0;
    }
    CHECK(violations == b.pdb_violations);
    CHECK(fast.requested() == slow.requested());
  }
  MESSAGE(one_pass << " one-pass reprieves: " << strict << " on strictly ordered nodes, " << loose
                   << " checking the order, " << wide << " past the standard dimensions, " << mixed
                   << " with violating and other pods, " << all_violating
                   << " with every pod violating");
  CHECK(strict > 100);
  CHECK(loose > 100);
  CHECK(wide > 100);
  CHECK(mixed > 100);
  CHECK(all_violating > 100);
  CHECK(one_pass - mixed - all_violating > 100);  // no violating pod
}

TEST_CASE(
    "BR6 [ours]: with budgets on nodes of more than 64 pods, the one-pass reprieve selects the "
    "same") {
  // Violations are charged 64 pods at a time: nodes of 65 to 200 pods cross those boundaries.
  path_counts counts;
  for (const std::uint64_t seed : rnd::seeds(300, 37)) {
    CAPTURE(seed);
    std::mt19937_64 g(seed);
    random_node w;
    const auto pods = pick(g, 65, 200);
    const auto n = w.cluster.add_node("node", {pods * 100, pods * 100, pods + 1});
    for (std::int64_t k = 0; k < pods; ++k)
      w.cluster.add_pod(n, pod({.uid = static_cast<std::uint64_t>(k + 1),
                                .priority = static_cast<std::int32_t>(pick(g, 0, 3)),
                                .requests = {pick(g, 50, 150), pick(g, 50, 150)},
                                .start_time = k}));
    w.preemptor = pod({.uid = 1000,
                       .priority = 10,
                       .requests = {pick(g, 1, pods / 2) * 100, pick(g, 1, 10) * 100},
                       .start_time = {}});
    w.now = pods;
    preempt::model::budget_table budgets;
    for (std::int64_t b = 0, count = pick(g, 1, 6); b < count; ++b) {
      const std::size_t i = budgets.add_budget(0, static_cast<std::int32_t>(pick(g, 0, 3)));
      for (std::int64_t k = 1; k <= pods; ++k) {
        const auto draw = pick(g, 0, 9);
        if (draw < 3) budgets.add_member(i, static_cast<std::uint64_t>(k));
        if (draw == 9) budgets.add_disrupted(i, static_cast<std::uint64_t>(k));
      }
    }
    compare_paths(w, budgets, counts);
  }
  MESSAGE(counts.candidates << " candidates, " << counts.one_pass
                            << " through the one-pass reprieve, " << counts.with_violations
                            << " with violations");
  CHECK(counts.one_pass > 200);
  CHECK(counts.with_violations > 40);
}

}  // namespace bulk_reprieve_test
