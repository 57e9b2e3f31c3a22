// Properties of the opt-in preemption policies (preempt/preemption_policies.hpp) on seeded random
// clusters (tests/support/random_cluster.hpp: up to 8 nodes, 10 pods each, budgets, nominated
// pods; PREEMPT_TEST_SEED replays one). With so few nodes every potential node is evaluated
// (sampling wants them all), so the default and each policy compare the same candidate nodes.
//   valid          a nomination's victims are on its node, of lower priority than the
//                  preemptor (and old enough under min_runtime), and the preemptor fits with
//                  them gone and the nominated pods respected
//   never worse    min-cost: total cost at most the default's; hard-budgets: no victim takes a
//                  budget below zero, and a node is nominated whenever a default candidate takes
//                  none below zero; spare-reschedulable: on every node, no more pinned victims
//                  than the default's answer there; min-cost's answer on a node is the least cost
//                  of every victim set that makes room (exhaustive check)
//   same           each policy with nothing to decide (no budgets; every pod reschedulable; one
//                  potential victim per node and unit costs; every option off) decides exactly
//                  as the default: node, victims, violations, message
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "preempt/preempt.hpp"
#include "preempt/preemption_policies.hpp"
#include "support/random_cluster.hpp"

namespace policy_properties_test {

namespace {

using pod = preempt::model::resource_pod;
using preempt::model::resource_cluster;

// A cost of 1..5 by uid, and reschedulability by uid (every third pod pinned).
struct uid_cost {
  bool unit = false;
  std::int64_t operator()(const pod& p) const {
    return unit ? 1 : static_cast<std::int64_t>(1 + (p.uid() * 7) % 5);
  }
};
struct uid_reschedulable {
  bool all = false;
  bool operator()(const pod& p) const { return all || p.uid() % 3 != 0; }
};
using policies = preempt::preemption_policies<uid_cost, uid_reschedulable>;

struct scene {
  rnd::world w;
  preempt::filter_statuses statuses;
  preempt::nomination_ledger<pod> ledger;

  explicit scene(std::uint64_t seed, const rnd::shape& s = {})
      : w(rnd::make_world(seed, s)), ledger(w.cluster.size()) {
    const std::size_t n = w.cluster.size();
    for (std::size_t k = 0; k < w.nominated.size(); ++k)
      ledger.nominate(w.nominated[k], (w.nominated[k].uid() * 31) % n);
    statuses = preempt::filter_statuses(n);
    auto state = w.cluster.make_state();
    for (std::size_t i = 0; i < n; ++i) {
      w.cluster.prepare_state(i, state);
      const bool fits =
          preempt::fits_with_nominated(state, w.preemptor, ledger.reader().nominated_to(i))
              .is_success();
      statuses.set(i, fits ? preempt::status_code::success : preempt::status_code::unschedulable);
    }
  }

  template <class Policy>
  const preempt::decision<pod>& decide(preempt::evaluator<resource_cluster, Policy>& ev) {
    return ev.evaluate(w.preemptor, w.cluster, statuses, w.budgets, ledger.reader(),
                       preempt::inline_executor{},
                       preempt::attempt{.offset = 0, .nominated_node = std::nullopt});
  }

  // The nomination's victims are on its node, of lower priority, and leave room.
  void check_valid(const preempt::decision<pod>& d, std::optional<preempt::timestamp> min_run) {
    if (d.kind != preempt::decision_kind::nominated) return;
    REQUIRE(d.node_index < w.cluster.size());
    std::set<const pod*> on_node;
    for (const pod& p : w.cluster[d.node_index].pods()) on_node.insert(&p);
    auto state = w.cluster.make_state();
    w.cluster.prepare_state(d.node_index, state);
    for (const pod* v : d.victims) {
      CHECK(on_node.contains(v));
      CHECK(v->priority() < w.preemptor.priority());
      if (min_run) {
        REQUIRE(v->start_time().has_value());
        CHECK(w.now - *v->start_time() >= *min_run);
      }
      REQUIRE(state.remove_pod(*v).is_success());
    }
    CHECK(
        preempt::fits_with_nominated(state, w.preemptor, ledger.reader().nominated_to(d.node_index))
            .is_success());
  }
};

std::int64_t total(std::span<const pod* const> victims, const uid_cost& cost) {
  std::int64_t sum = 0;
  for (const pod* v : victims) sum += cost(*v);
  return sum;
}

std::set<std::uint64_t> uids(std::span<const pod* const> victims) {
  std::set<std::uint64_t> out;
  for (const pod* v : victims) out.insert(v->uid());
  return out;
}

void check_same(const preempt::decision<pod>& a, const preempt::decision<pod>& b) {
  CHECK(a.kind == b.kind);
  CHECK(a.node_index == b.node_index);
  CHECK(uids(a.victims) == uids(b.victims));
  CHECK(a.pdb_violations == b.pdb_violations);
  CHECK(a.message == b.message);
}

}  // namespace

TEST_CASE("policies on random clusters: valid, never worse than the default by their measure") {
  std::size_t compared = 0, cheaper = 0, hard_differs = 0;
  for (std::uint64_t seed : rnd::seeds(400, 17)) {
    CAPTURE(seed);
    scene s(seed);
    preempt::evaluator<resource_cluster> up_ev({}, preempt::default_policy{s.w.now});
    const auto& up = s.decide(up_ev);
    const uid_cost cost{};

    policies min_cost;
    min_cost.now = s.w.now;
    min_cost.options.min_cost = true;
    preempt::evaluator<resource_cluster, policies> mc_ev({}, min_cost);
    const auto& mc = s.decide(mc_ev);
    s.check_valid(mc, std::nullopt);
    CHECK((mc.kind == preempt::decision_kind::nominated) ==
          (up.kind == preempt::decision_kind::nominated));
    if (mc.kind == preempt::decision_kind::nominated && up.kind == mc.kind) {
      ++compared;
      CHECK(total(mc.victims, cost) <= total(up.victims, cost));
      cheaper +=
          total(mc.victims, cost) < total(up.victims, cost) ? std::size_t{1} : std::size_t{0};
    }

    policies hard;
    hard.now = s.w.now;
    hard.options.hard_budgets = true;
    preempt::evaluator<resource_cluster, policies> hb_ev({}, hard);
    const auto& hb = s.decide(hb_ev);
    s.check_valid(hb, std::nullopt);
    if (hb.kind == preempt::decision_kind::nominated) {
      CHECK(preempt::count_budget_violations(hb.victims, s.w.budgets) == 0);
      CHECK(hb.pdb_violations == 0);
    }
    bool some_default_candidate_clean = false;
    for (const auto& c : up.candidates)
      some_default_candidate_clean = some_default_candidate_clean ||
                                     preempt::count_budget_violations(c.victims, s.w.budgets) == 0;
    if (some_default_candidate_clean) CHECK(hb.kind == preempt::decision_kind::nominated);
    hard_differs += hb.kind != up.kind || hb.node_index != up.node_index ? 1 : 0;

    policies young;
    young.now = s.w.now;
    young.options.min_runtime = 700;
    preempt::evaluator<resource_cluster, policies> mr_ev({}, young);
    s.check_valid(s.decide(mr_ev), 700);

    policies all;
    all.now = s.w.now;
    all.options.spare_reschedulable = all.options.min_cost = all.options.hard_budgets = true;
    all.options.min_runtime = 200;
    preempt::evaluator<resource_cluster, policies> all_ev({}, all);
    const auto& every = s.decide(all_ev);
    s.check_valid(every, 200);
    if (every.kind == preempt::decision_kind::nominated)
      CHECK(preempt::count_budget_violations(every.victims, s.w.budgets) == 0);
  }
  // The properties are not vacuous: the policies decide otherwise often enough.
  CHECK(compared > 100);
  CHECK(cheaper > 10);
  CHECK(hard_differs > 5);
}

TEST_CASE("policies on random nodes: min-cost is the exhaustive minimum, spare never more pinned") {
  std::size_t nodes = 0, spare_better = 0;
  for (std::uint64_t seed : rnd::seeds(300, 29)) {
    CAPTURE(seed);
    scene s(seed);
    const uid_cost cost{};
    const uid_reschedulable resched{};
    policies mc;
    mc.now = s.w.now;
    mc.options.min_cost = true;
    policies spare;
    spare.now = s.w.now;
    spare.options.spare_reschedulable = true;
    preempt::victim_scratch<pod> scratch;
    for (std::size_t i = 0; i < s.w.cluster.size(); ++i) {
      CAPTURE(i);
      const auto nominated = s.ledger.reader().nominated_to(i);
      auto state = s.w.cluster.make_state();
      s.w.cluster.prepare_state(i, state);
      const auto up = preempt::select_victims(s.w.preemptor, s.w.cluster[i], state, s.w.budgets,
                                              nominated, scratch, preempt::default_policy{s.w.now});
      if (!up.is_candidate()) continue;
      ++nodes;
      const std::set<std::uint64_t> up_victims = uids(up.victims);
      std::size_t up_pinned = 0;
      for (const pod* v : up.victims) up_pinned += resched(*v) ? std::size_t{0} : std::size_t{1};

      // Exhaustive: every subset of the lower-priority pods that makes room, least cost.
      std::vector<const pod*> lower;
      for (const pod& p : s.w.cluster[i].pods())
        if (p.priority() < s.w.preemptor.priority()) lower.push_back(&p);
      REQUIRE(lower.size() <= 16);
      std::int64_t best = -1;
      for (std::uint32_t mask = 0; mask < (1u << lower.size()); ++mask) {
        auto st = s.w.cluster.make_state();
        s.w.cluster.prepare_state(i, st);
        std::int64_t c = 0;
        for (std::size_t k = 0; k < lower.size(); ++k)
          if (mask & (1u << k)) {
            REQUIRE(st.remove_pod(*lower[k]).is_success());
            c += cost(*lower[k]);
          }
        if ((best < 0 || c < best) &&
            preempt::fits_with_nominated(st, s.w.preemptor, nominated).is_success())
          best = c;
      }
      state = s.w.cluster.make_state();
      s.w.cluster.prepare_state(i, state);
      const auto r = preempt::select_victims(s.w.preemptor, s.w.cluster[i], state, s.w.budgets,
                                             nominated, scratch, mc);
      REQUIRE(r.is_candidate());
      CHECK(total(r.victims, cost) == best);

      state = s.w.cluster.make_state();
      s.w.cluster.prepare_state(i, state);
      const auto sp = preempt::select_victims(s.w.preemptor, s.w.cluster[i], state, s.w.budgets,
                                              nominated, scratch, spare);
      REQUIRE(sp.is_candidate());
      std::size_t pinned = 0;
      for (const pod* v : sp.victims) pinned += resched(*v) ? std::size_t{0} : std::size_t{1};
      CHECK(pinned <= up_pinned);
      spare_better += pinned < up_pinned ? 1 : 0;
      (void)up_victims;
    }
  }
  CHECK(nodes > 200);
  CHECK(spare_better > 0);
}

TEST_CASE("policies on random clusters: nothing to decide, the default's decision") {
  for (std::uint64_t seed : rnd::seeds(300, 41)) {
    CAPTURE(seed);
    {
      // Every option off.
      scene s(seed);
      preempt::evaluator<resource_cluster> up_ev({}, preempt::default_policy{s.w.now});
      const auto& up = s.decide(up_ev);
      policies off;
      off.now = s.w.now;
      preempt::evaluator<resource_cluster, policies> ev({}, off);
      check_same(s.decide(ev), up);
      // Spare-reschedulable with every pod reschedulable.
      policies spare;
      spare.now = s.w.now;
      spare.options.spare_reschedulable = true;
      spare.reschedulable.all = true;
      preempt::evaluator<resource_cluster, policies> sp_ev({}, spare);
      check_same(s.decide(sp_ev), up);
    }
    {
      // Hard budgets without budgets.
      scene s(seed, rnd::shape{.max_budgets = 0});
      preempt::evaluator<resource_cluster> up_ev({}, preempt::default_policy{s.w.now});
      const auto& up = s.decide(up_ev);
      policies hard;
      hard.now = s.w.now;
      hard.options.hard_budgets = true;
      preempt::evaluator<resource_cluster, policies> ev({}, hard);
      check_same(s.decide(ev), up);
    }
    {
      // Min-cost with unit costs where every node has one pod to evict at most.
      scene s(seed, rnd::shape{.max_pods = 1});
      preempt::evaluator<resource_cluster> up_ev({}, preempt::default_policy{s.w.now});
      const auto& up = s.decide(up_ev);
      policies mc;
      mc.now = s.w.now;
      mc.options.min_cost = true;
      mc.cost.unit = true;
      preempt::evaluator<resource_cluster, policies> ev({}, mc);
      const auto& d = s.decide(ev);
      CHECK(d.kind == up.kind);
      CHECK(d.node_index == up.node_index);
      CHECK(uids(d.victims) == uids(up.victims));
    }
  }
}

}  // namespace policy_properties_test
