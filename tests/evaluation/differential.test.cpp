// Differential test: preempt::evaluator against the naive reference implementation
// (tests/reference/naive_preemption.hpp, upstream's structure written from its behaviour) on
// thousands of seeded random clusters. Both must make the same decision: kind, node, victims (in
// order), budget-violation count, whether the nomination is cleared, the message of a failed
// attempt, the number of potential nodes, the sample size and the nodes evaluated and candidates
// kept.
//
// The clusters mix: priorities with ties (and negative ones), start times with ties or missing,
// `now` before or after the start times (so nodes are not always kept in importance order), two
// namespaces, budgets with overlapping members, allowances 0..2 and disruptedPods, pods nominated
// to nodes with priorities above and below the preemptor's, an extended resource some nodes lack,
// filter statuses of every code, random sampling arguments and offsets (beyond n too), pods
// terminating by preemption on a nominated node, and preemptors with preemptionPolicy Never.
// A few larger clusters (up to 200 nodes x 30 pods, with budgets) run too.
//
// Budget: < 10 s in Debug; scaled down under AddressSanitizer and ThreadSanitizer.
// PREEMPT_TEST_SEED=<n> adds one seed (as the other random tests).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "reference/naive_preemption.hpp"
#include "support/random_cluster.hpp"
#include "support/sanitizers.hpp"

#define PREEMPT_DIFF_SANITIZED (PREEMPT_TEST_UNDER_ASAN || PREEMPT_TEST_UNDER_TSAN)

namespace differential_test {

namespace {

using preempt::decision_kind;
using preempt::status_code;
using pod = preempt::model::resource_pod;
using preempt::model::pod_id;
using preempt::model::pod_spec;
using preempt::model::resource_vector;

constexpr std::size_t small_count = PREEMPT_DIFF_SANITIZED ? 2000 : 4000;
constexpr std::size_t large_count = PREEMPT_DIFF_SANITIZED ? 16 : 40;

using rnd::pick;
using rnd::seeds;
std::size_t pick_index(std::mt19937_64& g, std::size_t n) {
  return static_cast<std::size_t>(pick(g, 0, static_cast<std::int64_t>(n) - 1));
}

struct shape {
  std::int64_t max_nodes;
  std::int64_t max_pods;
  std::int64_t max_budgets;
  std::int64_t max_nominated;
  std::int64_t size_unit;  // resource granularity: larger clusters have smaller pods
};

struct nominations {
  std::vector<std::vector<const pod*>> by_node;
  const std::vector<const pod*>& nominated_to(std::size_t i) const { return by_node[i]; }
};
static_assert(preempt::nominations_of<nominations, pod>);

// One random attempt: the same data in the library's and in the reference's form. Immovable (the
// nominations point into `pending`).
struct scenario {
  preempt::model::resource_cluster cluster;
  preempt::model::budget_table table;
  std::vector<naive_reference::budget> budgets;
  std::vector<pod> pending;  // nominated pods (not on any node)
  nominations noms;
  preempt::filter_statuses statuses;
  std::vector<status_code> codes;
  preempt::sampling_args args;
  preempt::attempt at;
  pod preemptor{pod_spec{}};
  preempt::timestamp now = 1000;

  scenario(std::uint64_t seed, const shape& s) {
    std::mt19937_64 g(seed);
    constexpr std::array<std::int32_t, 7> priorities{-100, 0, 0, 100, 100, 1000, 5};
    const auto priority = [&] { return priorities[pick_index(g, priorities.size())]; };
    const std::int64_t u = s.size_unit;
    pod_id uid = 1;
    now = pick(g, 0, 2) == 0 ? 250 : 1000;  // 250: pods without start time rank among the others

    const auto node_count = static_cast<std::size_t>(pick(g, 1, s.max_nodes));
    const bool extended = pick(g, 0, 3) == 0;  // an extended resource (dimension 4) in play
    const auto budget_count = static_cast<std::size_t>(pick(g, 0, s.max_budgets));
    budgets.resize(budget_count);
    for (std::size_t b = 0; b < budget_count; ++b) {
      budgets[b].namespace_id = static_cast<std::uint32_t>(pick(g, 0, 1));
      budgets[b].allowed = static_cast<std::int32_t>(pick(g, 0, 2));
      table.add_budget(budgets[b].namespace_id, budgets[b].allowed);
    }
    const auto requests = [&](std::int64_t max_units, bool allow_extended) {
      resource_vector r{pick(g, 0, max_units) * u, pick(g, 0, max_units) * u};
      if (allow_extended && extended && pick(g, 0, 2) == 0) r.set(4, pick(g, 1, 2));
      return r;
    };
    for (std::size_t n = 0; n < node_count; ++n) {
      resource_vector alloc{pick(g, 4, 12) * 100, pick(g, 4, 12) * 100, pick(g, 3, 12)};
      if (s.max_pods > 12)
        alloc = {pick(g, 30, 40) * 100, pick(g, 30, 40) * 100,
                 pick(g, s.max_pods / 2, s.max_pods + 2)};
      if (extended && pick(g, 0, 1) == 0) alloc.set(4, pick(g, 0, 3));
      const std::size_t i = cluster.add_node("node-" + std::to_string(n), alloc);
      const auto pods = pick(g, 0, s.max_pods);
      for (std::int64_t k = 0; k < pods; ++k) {
        std::optional<preempt::timestamp> start;
        if (pick(g, 0, 4) != 0) start = pick(g, 0, 5) * 100;
        const std::int32_t prio = priority();
        const resource_vector req = requests(4, true);
        const auto ns = static_cast<std::uint32_t>(pick(g, 0, 1));
        const bool terminating = pick(g, 0, 29) == 0;
        pod p({.uid = uid++,
               .priority = prio,
               .requests = req,
               .start_time = start,
               .namespace_id = ns,
               .terminating = terminating,
               .terminating_by_preemption = terminating});
        for (std::size_t b = 0; b < budget_count; ++b) {
          if (pick(g, 0, 2) == 0) {
            table.add_member(b, p.uid());
            budgets[b].members.push_back(p.uid());
          }
          if (pick(g, 0, 9) == 0) {
            table.add_disrupted(b, p.uid());
            budgets[b].disrupted.push_back(p.uid());
          }
        }
        cluster.add_pod(i, std::move(p));
      }
    }
    // Nominated pods, most of them to some node.
    const auto nominated_count = static_cast<std::size_t>(pick(g, 0, s.max_nominated));
    pending.reserve(nominated_count);
    noms.by_node.resize(node_count);
    for (std::size_t k = 0; k < nominated_count; ++k) {
      const std::int32_t prio = priority();
      const resource_vector req = requests(3, true);
      pending.emplace_back(
          pod_spec{.uid = uid++, .priority = prio, .requests = req, .start_time = {}});
      if (pick(g, 0, 3) != 0) noms.by_node[pick_index(g, node_count)].push_back(&pending.back());
    }
    // The preemptor.
    {
      const std::int32_t prio = priorities[static_cast<std::size_t>(pick(g, 1, 5))];
      resource_vector req{pick(g, 1, 6) * u, pick(g, 1, 6) * u};
      if (s.max_pods > 12) req = {pick(g, 10, 30) * 100, pick(g, 10, 30) * 100};
      if (extended && pick(g, 0, 2) == 0) req.set(4, 1);
      const bool never = pick(g, 0, 24) == 0;
      preemptor =
          pod({.uid = uid++,
               .priority = prio,
               .requests = req,
               .start_time = {},
               .namespace_id = 0,
               .terminating = false,
               .terminating_by_preemption = false,
               .preemption_policy = never ? preempt::preemption_policy::never
                                          : preempt::preemption_policy::preempt_lower_priority});
    }
    // Filter statuses: set for the first k nodes, the rest absent (either absent code).
    statuses = preempt::filter_statuses(0, pick(g, 0, 3) == 0
                                               ? status_code::unschedulable
                                               : status_code::unschedulable_and_unresolvable);
    const auto k = static_cast<std::size_t>(pick(g, 0, static_cast<std::int64_t>(node_count)));
    for (std::size_t i = 0; i < k; ++i) {
      const auto r = pick(g, 0, 19);
      statuses.set(i, r < 14   ? status_code::unschedulable
                      : r < 17 ? status_code::unschedulable_and_unresolvable
                      : r < 18 ? status_code::success
                               : status_code::error);
    }
    for (std::size_t i = 0; i < node_count; ++i) codes.push_back(statuses.code_of(i));
    // Sampling arguments: round percentages or any, small absolute minimums, never both zero.
    constexpr std::array<std::int32_t, 5> round{0, 10, 40, 50, 100};
    const auto kind = pick(g, 0, 5);
    args.min_candidate_nodes_percentage = kind < 2    ? round[pick_index(g, round.size())]
                                          : kind == 2 ? 0
                                                      : static_cast<std::int32_t>(pick(g, 0, 100));
    args.min_candidate_nodes_absolute =
        static_cast<std::int32_t>(kind == 2 ? pick(g, 1, 2) : pick(g, 0, 6));
    if (args.min_candidate_nodes_percentage == 0 && args.min_candidate_nodes_absolute == 0)
      args.min_candidate_nodes_absolute = 1;
    at.offset = static_cast<std::size_t>(pick(g, 0, 3 * static_cast<std::int64_t>(node_count) + 2));
    if (pick(g, 0, 5) == 0) at.nominated_node = pick_index(g, node_count + 1);
  }
  scenario(const scenario&) = delete;
  scenario& operator=(const scenario&) = delete;

  naive_reference::input reference_input() const {
    naive_reference::input in;
    in.cluster = &cluster;
    in.statuses = codes;
    in.budgets = &budgets;
    in.nominated = &noms.by_node;
    in.sampling = args;
    in.offset = *at.offset;
    in.nominated_node = at.nominated_node;
    in.now = now;
    return in;
  }
};

struct coverage {
  std::size_t nominated = 0, unschedulable = 0, error = 0, not_eligible = 0;
  std::size_t with_violations = 0, sorted = 0, nominees_counted = 0, stopped_early = 0,
              tie_break = 0;
};

template <class D>
void compare(const D& d, const naive_reference::decision& r, const scenario& s, coverage& cov) {
  CHECK(d.kind == r.kind);
  if (d.kind != r.kind) return;
  CHECK(d.clear_nomination == r.clear_nomination);
  if (r.kind != decision_kind::nominated) CHECK(std::string(d.message) == r.message);
  if (r.kind != decision_kind::not_eligible) {
    CHECK(d.potential_nodes == r.potential);
    CHECK(d.candidates_wanted == r.wanted);
    CHECK(d.diagnosis.size() == r.tried.size());
    CHECK(d.candidates.size() == r.candidates.size());
    if (d.diagnosis.size() == r.tried.size())
      for (std::size_t i = 0; i < r.tried.size(); ++i) {
        CAPTURE(i);
        CHECK(d.diagnosis[i].node_index == r.tried[i].node);
        CHECK(d.diagnosis[i].outcome.code() == r.tried[i].code);
      }
  }
  switch (d.kind) {
    case decision_kind::nominated: ++cov.nominated; break;
    case decision_kind::unschedulable: ++cov.unschedulable; break;
    case decision_kind::error: ++cov.error; break;
    case decision_kind::not_eligible: ++cov.not_eligible; break;
  }
  if (r.kind != decision_kind::nominated) return;
  CHECK(d.node_index == r.node_index);
  std::vector<pod_id> victims;
  for (const pod* v : d.victims) victims.push_back(v->uid());
  CHECK(victims == r.victims);
  CHECK(d.pdb_violations == r.violations);
  cov.with_violations += r.violations > 0;
  cov.stopped_early += r.tried.size() < r.potential;
  cov.tie_break +=
      d.choice.deciding_score != preempt::best_candidate::none && d.choice.deciding_score > 0;
  if (d.node_index < s.cluster.size()) {
    for (const pod* nominee : s.noms.by_node[d.node_index])
      cov.nominees_counted += nominee->priority() >= s.preemptor.priority();
    const auto pods = s.cluster[d.node_index].pods();
    cov.sorted += !std::is_sorted(pods.begin(), pods.end(), [&](const pod& a, const pod& b) {
      return preempt::more_important_pod(a, b, s.now);
    });
  }
}

void run(std::uint64_t seed, const shape& sh, coverage& cov) {
  CAPTURE(seed);
  const scenario s(seed, sh);
  preempt::evaluator_config cfg;
  cfg.sampling = s.args;
  preempt::evaluator<preempt::model::resource_cluster> ev(cfg, preempt::default_policy{s.now});
  const auto& d = ev.evaluate(s.preemptor, s.cluster, s.statuses, s.table, s.noms,
                              preempt::inline_executor{}, s.at);
  const naive_reference::decision r = naive_reference::preempt(s.preemptor, s.reference_input());
  compare(d, r, s, cov);
}

}  // namespace

TEST_CASE("the evaluator and the naive reference decide alike on small random clusters") {
  coverage cov;
  const shape sh{24, 10, 4, 4, 100};
  for (const std::uint64_t seed : seeds(small_count, 0)) run(seed, sh, cov);
  MESSAGE("decisions: " << cov.nominated << " nominated, " << cov.unschedulable
                        << " unschedulable, " << cov.error << " error, " << cov.not_eligible
                        << " not eligible; " << cov.with_violations << " with violations, "
                        << cov.sorted << " on nodes out of importance order, "
                        << cov.nominees_counted << " nominees counted, " << cov.stopped_early
                        << " stopped early, " << cov.tie_break << " settled past the first score");
  CHECK(cov.nominated > small_count / 4);
  CHECK(cov.unschedulable > 0);
  CHECK(cov.error > 0);
  CHECK(cov.not_eligible > 0);
  CHECK(cov.with_violations > 0);
  CHECK(cov.sorted > 0);
  CHECK(cov.nominees_counted > 0);
  CHECK(cov.stopped_early > 0);
  CHECK(cov.tie_break > 0);
}

TEST_CASE("the evaluator and the naive reference decide alike on larger random clusters") {
  coverage cov;
  const shape sh{200, 30, 12, 40, 25};
  for (const std::uint64_t seed : seeds(large_count, 1u << 20)) run(seed, sh, cov);
  MESSAGE("decisions: " << cov.nominated << " nominated, " << cov.unschedulable
                        << " unschedulable, " << cov.with_violations << " with violations");
  CHECK(cov.nominated > 0);
}

}  // namespace differential_test
