// The evaluator on seeded random clusters (tests/support/random_cluster.hpp):
//   * every executor and every parallelism gives the sequential decision exactly: manual contexts
//     drained fifo / lifo / shuffled (late, or not at all before the next attempt), a manual
//     context drained from inside execute (helpers run on the evaluating thread), a manual context
//     drained by a background thread, and a thread pool; parallelism 2, 3, 4 and chunk 1, 2, 5;
//   * the sequential decision agrees with a model of the dry run written from upstream's
//     findCandidates, DryRunPreemption and FitError on top of select_victims: nodes tried, their
//     order and outcomes, the two bounded candidate lists, the stop rule, the messages;
//   * the sampling rule (DryRunPreemption's bounded lists and stop rule), stated directly: each
//     bounded list holds at most `wanted` candidates; the dry run stops at the first node after
//     which it holds a candidate without violations and `wanted` candidates in all, and not
//     before; so it goes on past `wanted` violating candidates until one without violations turns
//     up (or the nodes run out).
// Filter statuses mix Unschedulable, UnschedulableAndUnresolvable, absent nodes (with either
// absent code) and other codes; sampling arguments and offsets are random; some pods are
// nominated to nodes; a few preemptors have preemptionPolicy Never or a nominated node.
// PREEMPT_TEST_SEED=<n> adds one seed (see random_cluster.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/executors.hpp"
#include "support/random_cluster.hpp"
#include "support/sanitizers.hpp"

namespace evaluator_random_test {

namespace {

using preempt::decision_kind;
using preempt::status_code;
using pod = preempt::model::resource_pod;
using order = preempt::manual_context::order;

// Fewer under the sanitizers, where a cluster costs several times more (1,200 took a minute under
// ASan), yet enough to reach every path of the comparison (the coverage checks below): 400 with
// libstdc++ (tsan); the asan preset's libc++ draws other clusters from the same seeds, and its
// first 400 drop no candidate (its first 800 drop 5).
constexpr std::size_t seed_count = PREEMPT_TEST_UNDER_TSAN   ? 400
                                   : PREEMPT_TEST_UNDER_ASAN ? 800
                                                             : 1200;

struct nominations {
  std::vector<std::vector<const pod*>> by_node;
  const std::vector<const pod*>& nominated_to(std::size_t i) const { return by_node[i]; }
};
static_assert(preempt::nominations_of<nominations, pod>);

std::int64_t pick(std::mt19937_64& g, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(g);
}

// One random attempt. Immovable: the nominations point into the world.
struct scenario {
  static rnd::shape shape() {
    rnd::shape s;
    s.max_nodes = 24;
    s.max_pods = 8;
    s.max_budgets = 3;
    s.max_nominated = 3;
    return s;
  }

  explicit scenario(std::uint64_t seed)
      : w(rnd::make_world(seed, shape())), preemptor(w.preemptor) {
    std::mt19937_64 g(seed ^ 0x5DEECE66Dull);
    const std::size_t n = w.cluster.size();
    // Filter statuses: the first k nodes set, the rest absent.
    statuses = preempt::filter_statuses(0, pick(g, 0, 3) == 0
                                               ? status_code::unschedulable
                                               : status_code::unschedulable_and_unresolvable);
    const auto k = static_cast<std::size_t>(pick(g, 0, static_cast<std::int64_t>(n)));
    for (std::size_t i = 0; i < k; ++i) {
      const auto r = pick(g, 0, 19);
      statuses.set(i, r < 12   ? status_code::unschedulable
                      : r < 17 ? status_code::unschedulable_and_unresolvable
                      : r < 18 ? status_code::success
                      : r < 19 ? status_code::error
                               : status_code::unschedulable);
    }
    // Nominated pods: most of them to some node.
    noms.by_node.resize(n);
    for (const pod& p : w.nominated)
      if (pick(g, 0, 2) != 0)
        noms.by_node[static_cast<std::size_t>(pick(g, 0, static_cast<std::int64_t>(n) - 1))]
            .push_back(&p);
    // A strict budget (no disruption allowed) over most pods, now and then: many candidates
    // with violations, so that the violating list fills up and overflows.
    if (pick(g, 0, 2) == 0) {
      const auto ns = static_cast<std::uint32_t>(pick(g, 0, 1));
      const std::size_t b = w.budgets.add_budget(ns, 0);
      for (const auto& node : w.cluster.nodes())
        for (const pod& p : node.pods())
          if (pick(g, 0, 3) != 0) w.budgets.add_member(b, p.uid());
    }
    // Sampling: often a round percentage, small absolute minimums; never both zero.
    constexpr std::array<std::int32_t, 5> round{0, 10, 40, 50, 100};
    const auto kind = pick(g, 0, 5);
    args.min_candidate_nodes_percentage = kind < 2 ? round[static_cast<std::size_t>(pick(g, 0, 4))]
                                          : kind == 2 ? 0
                                                      : static_cast<std::int32_t>(pick(g, 0, 100));
    args.min_candidate_nodes_absolute =
        static_cast<std::int32_t>(kind == 2 ? pick(g, 1, 2) : pick(g, 0, 6));
    if (args.min_candidate_nodes_percentage == 0 && args.min_candidate_nodes_absolute == 0)
      args.min_candidate_nodes_absolute = 1;
    // The offset, beyond n sometimes (taken modulo the potential nodes).
    at.offset = static_cast<std::size_t>(pick(g, 0, 3 * static_cast<std::int64_t>(n) + 2));
    if (pick(g, 0, 5) == 0)
      at.nominated_node = static_cast<std::size_t>(pick(g, 0, static_cast<std::int64_t>(n)));
    if (pick(g, 0, 24) == 0) {
      preempt::model::pod_spec spec = w.preemptor.spec();
      spec.preemption_policy = preempt::preemption_policy::never;
      preemptor = pod(spec);
    }
  }
  scenario(const scenario&) = delete;
  scenario& operator=(const scenario&) = delete;

  rnd::world w;
  pod preemptor;
  preempt::filter_statuses statuses;
  nominations noms;
  preempt::sampling_args args;
  preempt::attempt at;
};

// Everything a decision says, as one comparable string.
template <class D>
std::string describe(const D& d) {
  std::string s = "kind=";
  s += preempt::to_string(d.kind);
  s += " node=" + std::to_string(d.node_index) + ":" + std::string(d.node_name) + " victims=[";
  for (const pod* v : d.victims) s += std::to_string(v->uid()) + ",";
  s += "] violations=" + std::to_string(d.pdb_violations);
  s += " clear=" + std::to_string(d.clear_nomination);
  s += " message='" + std::string(d.message) + "'";
  s += " potential=" + std::to_string(d.potential_nodes) + " offset=" + std::to_string(d.offset) +
       " wanted=" + std::to_string(d.candidates_wanted);
  s += " choice=" + std::to_string(d.choice.index) + "/" + std::to_string(d.choice.deciding_score);
  s += "\n diagnosis=";
  for (const auto& n : d.diagnosis) {
    s += std::to_string(n.node_index) + ":" + std::string(preempt::to_string(n.outcome.code()));
    for (auto r : n.outcome.reasons()) s += "|" + std::string(r);
    s += " ";
  }
  s += "\n candidates=";
  for (const auto& k : d.candidates) {
    s += std::to_string(k.node_index) + ":" + std::string(k.node_name) + "{";
    for (const pod* v : k.victims) s += std::to_string(v->uid()) + ",";
    s += "}/" + std::to_string(k.pdb_violations) + " ";
  }
  return s;
}

// ---- A model of the dry run, from upstream's behaviour ----------------------------------------

struct model_node {
  std::size_t index;
  preempt::status outcome;
  std::vector<preempt::model::pod_id> victims;
  std::int64_t violations;
};

struct model_result {
  decision_kind kind = decision_kind::error;
  std::size_t potential = 0;
  std::size_t wanted = 0;
  std::size_t offset = 0;
  std::vector<model_node> diagnosis;
  std::vector<model_node> candidates;  // without violations first
  std::size_t successes = 0;           // candidates found, kept or not
  bool stopped_early = false;
  bool went_past_wanted = false;  // held `wanted` violating candidates and went on
  std::string message;
};

std::size_t wanted_of(const preempt::sampling_args& a, std::size_t n) {
  // GetOffsetAndNumCandidates: floor(n * pct / 100), raised to at least abs, capped at n.
  const std::size_t by_pct = n * static_cast<std::size_t>(a.min_candidate_nodes_percentage) / 100;
  return std::min(n, std::max(by_pct, static_cast<std::size_t>(a.min_candidate_nodes_absolute)));
}

model_result model_dry_run(const scenario& s, preempt::timestamp now) {
  model_result m;
  const auto& c = s.w.cluster;
  if (s.preemptor.preemption_policy() == preempt::preemption_policy::never) {
    m.kind = decision_kind::not_eligible;
    m.message = "preemption: not eligible due to preemptionPolicy=Never.";
    return m;  // (no pod terminates by preemption in these clusters)
  }
  std::vector<std::size_t> potential;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (s.statuses.code_of(i) == status_code::unschedulable) potential.push_back(i);
  const std::size_t n = potential.size();
  m.potential = n;
  if (n > 0) {
    m.wanted = wanted_of(s.args, n);
    m.offset = *s.at.offset % n;
    std::vector<model_node> without, with;
    preempt::victim_scratch<pod> scratch;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t node = potential[(m.offset + i) % n];
      preempt::model::resource_fit_state state;
      c.prepare_state(node, state);
      const auto r =
          preempt::select_victims(s.preemptor, c[node], state, s.w.budgets, s.noms.by_node[node],
                                  scratch, preempt::default_policy{now});
      model_node mn{node, r.outcome, {}, r.pdb_violations};
      for (const pod* v : r.victims) mn.victims.push_back(v->uid());
      if (r.outcome.is_success() && r.victims.empty())
        mn.outcome = preempt::status::error("expected at least one victim pod on node");
      m.diagnosis.push_back(mn);
      if (mn.outcome.is_success()) {
        ++m.successes;
        auto& list = mn.violations == 0 ? without : with;
        if (list.size() < m.wanted) list.push_back(mn);
      }
      if (!without.empty() && without.size() + with.size() >= m.wanted) {
        m.stopped_early = i + 1 < n;
        break;
      }
      if (without.empty() && with.size() >= m.wanted && i + 1 < n) m.went_past_wanted = true;
    }
    m.candidates = without;
    m.candidates.insert(m.candidates.end(), with.begin(), with.end());
  }
  if (!m.candidates.empty()) {
    m.kind = decision_kind::nominated;
    return m;
  }
  // Errors without a candidate: the aggregate of the distinct messages, in evaluation order.
  std::vector<std::string> errors;
  for (const model_node& mn : m.diagnosis) {
    if (mn.outcome.code() != status_code::error) continue;
    std::string e(mn.outcome.reason());
    if (e == "expected at least one victim pod on node")
      e += " \"" + std::string(c[mn.index].name()) + "\"";
    if (std::find(errors.begin(), errors.end(), e) == errors.end()) errors.push_back(e);
  }
  if (!errors.empty()) {
    m.kind = decision_kind::error;
    m.message = "preemption: ";
    if (errors.size() > 1) m.message += "[";
    for (std::size_t i = 0; i < errors.size(); ++i) m.message += (i ? ", " : "") + errors[i];
    if (errors.size() > 1) m.message += "]";
    return m;
  }
  // FitError: "count reason" per reason over the nodes tried, the others "not helpful", sorted.
  std::vector<std::pair<std::string, std::size_t>> histogram;
  const auto count = [&](const std::string& reason, std::size_t k) {
    for (auto& [r, n2] : histogram)
      if (r == reason) {
        n2 += k;
        return;
      }
    histogram.emplace_back(reason, k);
  };
  // Upstream records only failed nodes in the status map; every other node (not tried, or tried
  // successfully but dropped because `wanted` is 0) is absent from it, i.e. "not helpful".
  std::size_t failed = 0;
  for (const model_node& mn : m.diagnosis) {
    if (mn.outcome.is_success()) continue;
    ++failed;
    for (auto r : mn.outcome.reasons()) count(std::string(r), 1);
  }
  if (c.size() > failed) count("Preemption is not helpful for scheduling", c.size() - failed);
  std::vector<std::string> lines;
  for (const auto& [r, k] : histogram) lines.push_back(std::to_string(k) + " " + r);
  std::sort(lines.begin(), lines.end());
  m.kind = decision_kind::unschedulable;
  m.message = "preemption: 0/" + std::to_string(c.size()) + " nodes are available: ";
  for (std::size_t i = 0; i < lines.size(); ++i) m.message += (i ? ", " : "") + lines[i];
  m.message += ".";
  return m;
}

template <class D>
void check_against_model(const D& d, const model_result& m, const scenario& s) {
  CHECK(d.kind == m.kind);
  CHECK(d.potential_nodes == m.potential);
  CHECK(d.candidates_wanted == m.wanted);
  CHECK(d.offset == m.offset);
  if (m.kind != decision_kind::nominated) CHECK(d.message == m.message);
  CHECK(d.clear_nomination == (m.kind == decision_kind::unschedulable));
  CHECK(d.diagnosis.size() == m.diagnosis.size());
  if (d.diagnosis.size() != m.diagnosis.size()) return;
  for (std::size_t i = 0; i < m.diagnosis.size(); ++i) {
    CHECK(d.diagnosis[i].node_index == m.diagnosis[i].index);
    CHECK(d.diagnosis[i].outcome.code() == m.diagnosis[i].outcome.code());
    if (m.diagnosis[i].outcome.code() != status_code::error)
      CHECK(d.diagnosis[i].outcome == m.diagnosis[i].outcome);
  }
  CHECK(d.candidates.size() == m.candidates.size());
  if (d.candidates.size() != m.candidates.size()) return;
  for (std::size_t i = 0; i < m.candidates.size(); ++i) {
    const auto& k = d.candidates[i];
    CHECK(k.node_index == m.candidates[i].index);
    CHECK(k.node_name == s.w.cluster[k.node_index].name());
    CHECK(k.pdb_violations == m.candidates[i].violations);
    std::vector<preempt::model::pod_id> victims;
    for (const pod* v : k.victims) victims.push_back(v->uid());
    CHECK(victims == m.candidates[i].victims);
  }
  if (d.kind == decision_kind::nominated) {
    CHECK(d.choice.index < d.candidates.size());
    if (d.choice.index >= d.candidates.size()) return;
    const auto& best = d.candidates[d.choice.index];
    CHECK(d.node_index == best.node_index);
    CHECK(d.node_name == best.node_name);
    CHECK(d.pdb_violations == best.pdb_violations);
    CHECK(d.victims.data() == best.victims.data());
    CHECK(d.victims.size() == best.victims.size());
    CHECK(d.message.empty());
  }
}

// DryRunPreemption's sampling rule, checked on the decision itself.
template <class D>
void check_sampling_rule(const D& d, const model_result& m) {
  if (d.kind == decision_kind::not_eligible || d.potential_nodes == 0) {
    CHECK(d.diagnosis.empty());
    return;
  }
  if (d.diagnosis.size() != m.diagnosis.size()) return;  // reported by check_against_model
  const std::size_t wanted = d.candidates_wanted;
  // wanted may be 0 (abs 0 and n * pct < 100): then nothing is kept and the search never stops.
  CHECK(wanted <= d.potential_nodes);
  const auto without =
      static_cast<std::size_t>(std::count_if(d.candidates.begin(), d.candidates.end(),
                                             [](const auto& k) { return k.pdb_violations == 0; }));
  const std::size_t with = d.candidates.size() - without;
  // Candidates without violations come first.
  for (std::size_t i = 0; i < d.candidates.size(); ++i)
    CHECK((d.candidates[i].pdb_violations == 0) == (i < without));
  // Each bounded list holds at most `wanted`.
  CHECK(without <= wanted);
  CHECK(with <= wanted);
  // Per prefix of the nodes kept: the stop condition holds after the last one and no earlier.
  std::size_t w0 = 0, w1 = 0, found_without = 0, found_with = 0;
  for (std::size_t i = 0; i < d.diagnosis.size(); ++i) {
    const model_node& mn = m.diagnosis[i];
    CAPTURE(i);
    if (mn.outcome.is_success()) {
      if (mn.violations == 0) {
        ++found_without;
        w0 = std::min(w0 + 1, wanted);
      } else {
        ++found_with;
        w1 = std::min(w1 + 1, wanted);
      }
    }
    const bool stop = w0 > 0 && w0 + w1 >= wanted;
    if (i + 1 < d.diagnosis.size())
      CHECK_FALSE(stop);
    else if (d.diagnosis.size() < d.potential_nodes)
      CHECK(stop);
  }
  // The kept candidates are the first `wanted` of each kind.
  CHECK(without == std::min(found_without, wanted));
  CHECK(with == std::min(found_with, wanted));
  CHECK(d.candidates.size() >= std::min(wanted, found_without + found_with));
  if (d.diagnosis.size() < d.potential_nodes) {
    // Stopped early: at least `wanted` candidates, one of them without violations, and the last
    // node evaluated is the candidate that completed the lists.
    CHECK(d.candidates.size() >= wanted);
    CHECK(without >= 1);
    CHECK(d.diagnosis.back().outcome.is_success());
  } else {
    // Went through every node: either no candidate without violations or fewer than wanted, or
    // the last node completed the lists.
    const bool complete = without >= 1 && d.candidates.size() >= wanted;
    if (complete) CHECK(d.diagnosis.back().outcome.is_success());
  }
  // Gone past `wanted` violating candidates: only while none without violations was found.
  if (m.went_past_wanted) {
    CHECK(d.diagnosis.size() > wanted);
    CHECK((without == 0 || d.candidates[0].node_index == d.diagnosis.back().node_index));
  }
}

// Runs helpers inside execute: queues the task in a manual context and drains it (in `how`
// order) once `threshold` tasks are pending, so helpers take items on the evaluating thread.
struct draining_executor {
  preempt::manual_context* ctx;
  order how;
  std::size_t threshold;
  void execute(preempt::task_ref t) const {
    ctx->get_executor().execute(t);
    if (ctx->pending() >= threshold) ctx->drain(how);
  }
};
static_assert(preempt::executor<draining_executor>);
static_assert(!preempt::is_always_inline_v<draining_executor>);

// A manual context drained by its own thread while the evaluation runs.
struct background_drainer {
  background_drainer()
      : thread([this] {
          while (!stop.load(std::memory_order_acquire))
            if (!ctx.run_one(order::shuffled)) std::this_thread::yield();
          ctx.drain();
        }) {}
  background_drainer(const background_drainer&) = delete;
  background_drainer& operator=(const background_drainer&) = delete;
  ~background_drainer() {
    stop.store(true, std::memory_order_release);
    thread.join();
  }
  preempt::manual_context ctx;
  std::atomic<bool> stop{false};
  std::thread thread;
};

using evaluator = preempt::evaluator<preempt::model::resource_cluster>;

constexpr std::array<std::size_t, 3> parallelisms{2, 3, 4};
constexpr std::array<std::size_t, 3> chunks{1, 2, 5};
constexpr std::array<order, 3> orders{order::fifo, order::lifo, order::shuffled};

preempt::evaluator_config config(std::size_t parallelism, std::size_t chunk,
                                 preempt::sampling_args a) {
  preempt::evaluator_config cfg;
  cfg.sampling = a;
  cfg.parallelism = parallelism;
  cfg.min_parallel_nodes = 0;           // the helpers take any dry run
  cfg.workers_within_hardware = false;  // every worker, whatever the machine
  cfg.chunk = chunk;
  return cfg;
}

struct coverage {
  std::size_t nominated = 0, unschedulable = 0, error = 0, not_eligible = 0, no_potential = 0;
  std::size_t stopped_early = 0, went_past_wanted = 0, dropped = 0, multi_batch = 0,
              wanted_zero = 0;
};

}  // namespace

TEST_CASE("every executor and parallelism gives the sequential decision on random clusters") {
  const preempt::timestamp now = rnd::world{}.now;
  const preempt::default_policy policy{now};
  // The evaluator takes its sampling arguments at construction, and they vary per scenario: one
  // set of evaluators per seed.
  coverage cov;
  for (const std::uint64_t seed : rnd::seeds(seed_count)) {
    CAPTURE(seed);
    const scenario s(seed);
    CHECK(s.w.now == now);
    const model_result m = model_dry_run(s, now);

    evaluator sequential(config(1, 8, s.args), policy);
    const auto& ds = sequential.evaluate(s.preemptor, s.w.cluster, s.statuses, s.w.budgets, s.noms,
                                         preempt::inline_executor{}, s.at);
    const std::string want = describe(ds);
    CAPTURE(want);
    check_against_model(ds, m, s);
    check_sampling_rule(ds, m);

    // Coverage of the interesting paths (checked at the end).
    switch (ds.kind) {
      case decision_kind::nominated: ++cov.nominated; break;
      case decision_kind::unschedulable: ++cov.unschedulable; break;
      case decision_kind::error: ++cov.error; break;
      case decision_kind::not_eligible: ++cov.not_eligible; break;
    }
    cov.no_potential += ds.kind != decision_kind::not_eligible && ds.potential_nodes == 0;
    cov.stopped_early += m.stopped_early;
    cov.went_past_wanted += m.went_past_wanted;
    cov.dropped += ds.candidates_wanted > 0 && m.successes > ds.candidates.size();
    cov.multi_batch += ds.diagnosis.size() > 2 * 5;
    cov.wanted_zero += ds.potential_nodes > 0 && ds.candidates_wanted == 0;

    // An always-inline executor takes the sequential path whatever the parallelism.
    {
      evaluator ev(config(3, 2, s.args), policy);
      CHECK(describe(ev.evaluate(s.preemptor, s.w.cluster, s.statuses, s.w.budgets, s.noms,
                                 preempt::inline_executor{}, s.at)) == want);
    }

    // Evaluators first; then the contexts and executors they lend helpers to, whose guards drain
    // and join before the evaluators are destroyed (an evaluator waits for its queued helpers).
    std::vector<std::unique_ptr<evaluator>> evs;
    for (std::size_t p : parallelisms)
      for (std::size_t ch : chunks)
        evs.push_back(std::make_unique<evaluator>(config(p, ch, s.args), policy));
    std::vector<std::unique_ptr<evaluator>> pool_evs;
    for (std::size_t p : parallelisms)
      for (std::size_t ch : chunks)
        pool_evs.push_back(std::make_unique<evaluator>(config(p, ch, s.args), policy));
    evaluator reentrant_ev(config(3, 2, s.args), policy);
    evaluator background_ev(config(4, 1, s.args), policy);
    std::array<preempt::manual_context, 3> contexts;
    struct drain_all {
      std::array<preempt::manual_context, 3>& ctxs;
      ~drain_all() {
        for (std::size_t i = 0; i < ctxs.size(); ++i) ctxs[i].drain(orders[i]);
      }
    } guard{contexts};
    for (std::size_t i = 0; i < contexts.size(); ++i) contexts[i].seed(seed + i);
    exf::pool_fixture pool;
    background_drainer background;

    for (std::size_t e = 0; e < evs.size(); ++e) {
      CAPTURE(e);
      for (std::size_t o = 0; o < orders.size(); ++o) {
        CAPTURE(exf::to_string(orders[o]));
        const auto& d = evs[e]->evaluate(s.preemptor, s.w.cluster, s.statuses, s.w.budgets, s.noms,
                                         contexts[o].get_executor(), s.at);
        CHECK(describe(d) == want);
        // Drain late, or leave the helpers queued into the next attempt (they are then not lent
        // again, and run, with nothing left to do, whenever the context is drained).
        if ((seed + e + o) % 3 != 0) contexts[o].drain(orders[o]);
      }
      const auto& dp = pool_evs[e]->evaluate(s.preemptor, s.w.cluster, s.statuses, s.w.budgets,
                                             s.noms, pool.executor(), s.at);
      CHECK(describe(dp) == want);
    }
    for (std::size_t threshold : {1u, 2u}) {
      for (order o : orders) {
        CAPTURE(threshold);
        CAPTURE(exf::to_string(o));
        const draining_executor ex{&contexts[0], o, threshold};
        contexts[0].drain();
        CHECK(describe(reentrant_ev.evaluate(s.preemptor, s.w.cluster, s.statuses, s.w.budgets,
                                             s.noms, ex, s.at)) == want);
      }
    }
    CHECK(describe(background_ev.evaluate(s.preemptor, s.w.cluster, s.statuses, s.w.budgets, s.noms,
                                          background.ctx.get_executor(), s.at)) == want);
  }
  MESSAGE("decisions: " << cov.nominated << " nominated, " << cov.unschedulable
                        << " unschedulable, " << cov.error << " error, " << cov.not_eligible
                        << " not eligible; stopped early " << cov.stopped_early
                        << ", went past wanted " << cov.went_past_wanted << ", dropped "
                        << cov.dropped << ", wanted 0: " << cov.wanted_zero);
  CHECK(cov.nominated > 0);
  CHECK(cov.unschedulable > 0);
  CHECK(cov.error > 0);
  CHECK(cov.not_eligible > 0);
  CHECK(cov.no_potential > 0);
  CHECK(cov.stopped_early > 0);
  CHECK(cov.went_past_wanted > 0);
  CHECK(cov.dropped > 0);
  CHECK(cov.multi_batch > 0);
}

TEST_CASE("a seeded offset draw is the same on every executor") {
  // Without attempt::offset the start comes from the evaluator's generator (config.seed): two
  // evaluators with one seed draw the same offsets whatever their executor and parallelism.
  const preempt::timestamp now = rnd::world{}.now;
  for (const std::uint64_t seed : rnd::seeds(PREEMPT_TEST_UNDER_TSAN ? 10 : 40)) {
    CAPTURE(seed);
    const scenario s(seed);
    preempt::attempt a = s.at;
    a.offset.reset();
    auto c1 = config(1, 8, s.args);
    c1.seed = seed;
    auto c2 = config(3, 1, s.args);
    c2.seed = seed;
    evaluator sequential(c1, preempt::default_policy{now});
    evaluator parallel(c2, preempt::default_policy{now});
    exf::pool_fixture pool;
    for (int k = 0; k < 3; ++k) {
      const std::string want =
          describe(sequential.evaluate(s.preemptor, s.w.cluster, s.statuses, s.w.budgets, s.noms,
                                       preempt::inline_executor{}, a));
      const auto& d = parallel.evaluate(s.preemptor, s.w.cluster, s.statuses, s.w.budgets, s.noms,
                                        pool.executor(), a);
      CHECK(describe(d) == want);
      if (d.potential_nodes > 0) CHECK(d.offset < d.potential_nodes);
    }
  }
}

TEST_CASE(
    "large clusters: parallel batches capped at a thousand nodes give the sequential decision") {
  // Batches hold every node a sequential run reads anyway, capped (max_batch 1024 here):
  // clusters of more nodes than a batch holds, sampled (the stop falls inside a batch) and full,
  // every node unschedulable; helpers on a pool, run inside execute on the evaluating thread, or
  // by a background thread.
  const preempt::default_policy policy{rnd::world{}.now};
  std::size_t above_cap = 0;
  for (const std::uint64_t seed : rnd::seeds(PREEMPT_TEST_UNDER_TSAN ? 4 : 12, 0x1a29e)) {
    CAPTURE(seed);
    const rnd::world w = rnd::make_world(
        seed, rnd::shape{.max_nodes = 3000, .max_pods = 6, .max_budgets = 40, .max_nominated = 0});
    above_cap += w.cluster.size() > 1024;
    const preempt::filter_statuses statuses(w.cluster.size(), status_code::unschedulable);
    for (const std::int32_t percentage : {10, 100}) {
      CAPTURE(percentage);
      const preempt::sampling_args args{.min_candidate_nodes_percentage = percentage,
                                        .min_candidate_nodes_absolute = 100};
      const preempt::attempt at{.offset = seed % w.cluster.size(), .nominated_node = {}};
      evaluator sequential(config(1, 8, args), policy);
      const std::string want =
          describe(sequential.evaluate(w.preemptor, w.cluster, statuses, w.budgets,
                                       preempt::no_nominations{}, preempt::inline_executor{}, at));
      const auto capped = [&](std::size_t parallelism, std::size_t chunk) {
        preempt::evaluator_config c = config(parallelism, chunk, args);
        c.max_batch = 1024;
        return c;
      };
      for (const std::size_t parallelism : {std::size_t{2}, std::size_t{3}}) {
        CAPTURE(parallelism);
        evaluator parallel(capped(parallelism, 8), policy);
        evaluator reentrant(capped(parallelism, 1), policy);
        evaluator background_ev(capped(parallelism, 8), policy);
        preempt::manual_context ctx;
        struct drain_guard {
          preempt::manual_context& c;
          ~drain_guard() { c.drain(); }
        } guard{ctx};
        exf::pool_fixture pool;
        background_drainer background;
        for (int round = 0; round < 2; ++round) {  // the second reuses the grown buffers
          CHECK(describe(parallel.evaluate(w.preemptor, w.cluster, statuses, w.budgets,
                                           preempt::no_nominations{}, pool.executor(), at)) ==
                want);
          CHECK(describe(reentrant.evaluate(w.preemptor, w.cluster, statuses, w.budgets,
                                            preempt::no_nominations{},
                                            draining_executor{&ctx, order::lifo, 1}, at)) == want);
          CHECK(describe(background_ev.evaluate(w.preemptor, w.cluster, statuses, w.budgets,
                                                preempt::no_nominations{},
                                                background.ctx.get_executor(), at)) == want);
        }
      }
    }
  }
  CHECK(above_cap >= 1);
}

}  // namespace evaluator_random_test
