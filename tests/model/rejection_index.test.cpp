// The rejection index (preempt/rejection_index.hpp, model/resource_rejection_index.hpp): the
// evaluator decides exactly as without it (node, victims, message, every node's outcome in the
// diagnosis, every observer call) on random clusters built from few node and pod shapes, so that
// long runs of alike nodes form, with heterogeneous nodes between them; preemptors that fit, do
// not fit anywhere, ask beyond allocatable, or find the pod slots used up; pods nominated to some
// nodes; terminating pods; extended resources. The same evaluator then follows the cluster as pods
// and nodes come and go (the index rebuilds only the groups that changed). The index's runs are
// also checked directly against a node-by-node reading.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "preempt/manual_executor.hpp"
#include "preempt/preempt.hpp"

namespace rejection_index_test {

namespace {

using pod = preempt::model::resource_pod;
using cluster = preempt::model::resource_cluster;
using evaluator = preempt::evaluator<cluster, preempt::default_policy, struct recorder>;

std::int64_t pick(std::mt19937_64& g, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(g);
}

// Every observer call, as text.
struct recorder {
  std::string* log = nullptr;
  void on_node_evaluated(std::size_t node, const preempt::status& outcome,
                         std::span<const pod* const> victims, std::int64_t violations) {
    *log += std::to_string(node) + ":" + std::string(preempt::to_string(outcome.code())) + ":" +
            std::string(outcome.reason()) + ":" + std::to_string(victims.size()) + ":" +
            std::to_string(violations) + " ";
  }
};

struct nominations {
  std::vector<std::vector<const pod*>> by_node;
  const std::vector<const pod*>& nominated_to(std::size_t i) const { return by_node[i]; }
};

template <class D>
std::string describe(const D& d) {
  std::string s = std::string(preempt::to_string(d.kind)) +
                  " node=" + std::to_string(d.node_index) + " victims=";
  for (const pod* v : d.victims) s += std::to_string(v->uid()) + ",";
  s += " message='" + std::string(d.message) + "' clear=" + std::to_string(d.clear_nomination) +
       " potential=" + std::to_string(d.potential_nodes) + "\n diagnosis=";
  for (const auto& n : d.diagnosis) {
    s += std::to_string(n.node_index) + ":" + std::string(preempt::to_string(n.outcome.code()));
    for (auto r : n.outcome.reasons()) s += "|" + std::string(r);
    s += " ";
  }
  s += "\n candidates=";
  for (const auto& k : d.candidates) {
    s += std::to_string(k.node_index) + "{";
    for (const pod* v : k.victims) s += std::to_string(v->uid()) + ",";
    s += "} ";
  }
  return s;
}

struct world {
  cluster c;
  std::vector<pod> nominated;
  preempt::model::pod_id next_uid = 1;
};

const std::int32_t priorities[] = {-5, 0, 0, 10, 10, 100};

pod random_pod(std::mt19937_64& g, world& w) {
  const std::int64_t size = pick(g, 1, 3);
  preempt::model::pod_spec spec{
      .uid = w.next_uid++,
      .priority = priorities[pick(g, 0, 5)],
      .requests = {size * 500, size * 1000},
      .start_time = pick(g, 0, 3) == 0 ? std::optional<preempt::timestamp>{}
                                       : std::optional<preempt::timestamp>{pick(g, 0, 9)},
      .terminating = pick(g, 0, 15) == 0};
  if (pick(g, 0, 30) == 0) spec.requests.set(preempt::model::resource::ephemeral_storage, 100);
  if (pick(g, 0, 40) == 0) spec.requests.set(preempt::model::resource::first_extended, 1);
  return pod(std::move(spec));
}

void add_node(std::mt19937_64& g, world& w) {
  // Few shapes: runs of alike nodes; now and then an odd one.
  const std::int64_t shape = pick(g, 0, 9) == 0 ? pick(g, 2, 4) : pick(g, 0, 1);
  preempt::model::resource_vector allocatable{2000 * (shape + 1), 4000 * (shape + 1),
                                              shape == 3 ? 2 : 8};
  if (shape == 4) allocatable.set(preempt::model::resource::first_extended, 2);
  const std::size_t i = w.c.add_node("n" + std::to_string(w.c.size()), allocatable);
  const std::int64_t pods = pick(g, 0, 4) == 0 ? 0 : pick(g, 1, 6);
  for (std::int64_t k = 0; k < pods; ++k) w.c.add_pod(i, random_pod(g, w));
}

pod random_preemptor(std::mt19937_64& g, world& w) {
  const std::int64_t size = pick(g, 0, 6);
  preempt::model::pod_spec spec{.uid = w.next_uid++,
                                .priority = priorities[pick(g, 1, 5)],
                                .requests = {size * 1000, size * 1500},
                                .start_time = {}};
  if (pick(g, 0, 10) == 0) spec.requests.set(preempt::model::resource::first_extended, 1);
  if (pick(g, 0, 10) == 0) spec.requests.set(preempt::model::resource::ephemeral_storage, 1);
  return pod(std::move(spec));
}

// The decision with and without the index, observed, on the same inputs.
struct pair_of_evaluators {
  std::string with_log, without_log;
  evaluator with, without;
  explicit pair_of_evaluators(preempt::sampling_args args)
      : with(config(args, true), preempt::default_policy{1000}, recorder{&with_log}),
        without(config(args, false), preempt::default_policy{1000}, recorder{&without_log}) {}
  static preempt::evaluator_config config(preempt::sampling_args args, bool indexed) {
    preempt::evaluator_config cfg;
    cfg.sampling = args;
    cfg.rejection_index = indexed;
    return cfg;
  }
};

// resource_cluster, counting the nodes whose state is prepared (selected on).
struct counting_state_cluster {
  const cluster* base;
  mutable std::size_t prepared = 0;
  using state_type = preempt::model::resource_fit_state;
  using rejection_index_type = preempt::model::resource_rejection_index;
  static constexpr std::size_t stamp_group = cluster::stamp_group;
  std::size_t size() const noexcept { return base->size(); }
  const preempt::model::resource_node& operator[](std::size_t i) const noexcept {
    return (*base)[i];
  }
  state_type make_state() const { return base->make_state(); }
  void prepare_state(std::size_t i, state_type& s) const {
    ++prepared;
    base->prepare_state(i, s);
  }
  std::uint64_t stamp() const noexcept { return base->stamp(); }
  std::uint64_t group_stamp(std::size_t g) const noexcept { return base->group_stamp(g); }
  std::size_t groups() const noexcept { return base->groups(); }
};

}  // namespace

TEST_CASE("the evaluator decides the same with and without the rejection index") {
  std::size_t decisions = 0, unschedulable = 0, nominated = 0, mutated = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 g(seed);
    world w;
    const auto nodes = pick(g, 1, 200);
    for (std::int64_t k = 0; k < nodes; ++k) add_node(g, w);
    preempt::sampling_args args;
    args.min_candidate_nodes_percentage = static_cast<std::int32_t>(pick(g, 0, 1) * 100);
    args.min_candidate_nodes_absolute = static_cast<std::int32_t>(pick(g, 1, 20));
    pair_of_evaluators ev(args);
    for (int round = 0; round < 12; ++round) {
      CAPTURE(round);
      const std::size_t n = w.c.size();
      preempt::filter_statuses statuses(n, preempt::status_code::unschedulable);
      for (std::size_t i = 0; i < n; ++i)
        if (pick(g, 0, 12) == 0)
          statuses.set(i, preempt::status_code::unschedulable_and_unresolvable);
      nominations noms;
      noms.by_node.resize(n);
      w.nominated.clear();
      w.nominated.reserve(4);
      for (int k = 0; k < 3 && n > 0; ++k)
        if (pick(g, 0, 2) == 0) {
          w.nominated.push_back(random_pod(g, w));
          noms.by_node[static_cast<std::size_t>(pick(g, 0, static_cast<std::int64_t>(n) - 1))]
              .push_back(&w.nominated.back());
        }
      const pod preemptor = random_preemptor(g, w);
      preempt::attempt at;
      at.offset = static_cast<std::size_t>(pick(g, 0, 1000));
      ev.with_log.clear();
      ev.without_log.clear();
      const auto& a = ev.with.evaluate(preemptor, w.c, statuses, preempt::no_budgets{}, noms,
                                       preempt::inline_executor{}, at);
      const std::string with = describe(a);
      const auto& b = ev.without.evaluate(preemptor, w.c, statuses, preempt::no_budgets{}, noms,
                                          preempt::inline_executor{}, at);
      CHECK(with == describe(b));
      CHECK(ev.with_log == ev.without_log);
      ++decisions;
      unschedulable += b.kind == preempt::decision_kind::unschedulable;
      nominated += b.kind == preempt::decision_kind::nominated;
      // The cluster changes between decisions: pods come and go, a node now and then.
      const auto changes = pick(g, 0, 6);
      for (std::int64_t k = 0; k < changes && w.c.size() > 0; ++k) {
        ++mutated;
        const auto i =
            static_cast<std::size_t>(pick(g, 0, static_cast<std::int64_t>(w.c.size()) - 1));
        switch (pick(g, 0, 5)) {
          case 0: add_node(g, w); break;
          case 1:
            if (w.c.size() > 1) w.c.remove_node(i);
            break;
          case 2:
          case 3: w.c.add_pod(i, random_pod(g, w)); break;
          default:
            if (!w.c[i].pods().empty()) {
              const auto k2 = static_cast<std::size_t>(
                  pick(g, 0, static_cast<std::int64_t>(w.c[i].pods().size()) - 1));
              w.c.remove_pod(i, w.c[i].pods()[k2].uid());
            }
        }
      }
    }
  }
  MESSAGE(decisions << " decisions: " << nominated << " nominated, " << unschedulable
                    << " unschedulable; " << mutated << " changes");
  CHECK(nominated > decisions / 5);
  CHECK(unschedulable > decisions / 10);
}

TEST_CASE("the index finds one run where every node rejects the preemptor alike") {
  cluster c;
  for (int i = 0; i < 1000; ++i) {
    const std::size_t n = c.add_node("n" + std::to_string(i), {4000, 8000, 110});
    c.add_pod(n, pod({.uid = static_cast<preempt::model::pod_id>(2 * i + 1),
                      .priority = 10,
                      .requests = {1000, 1000},
                      .start_time = {}}));
    c.add_pod(n, pod({.uid = static_cast<preempt::model::pod_id>(2 * i + 2),
                      .priority = 0,
                      .requests = {1000, 1000},
                      .start_time = {}}));
  }
  preempt::model::resource_rejection_index index;
  // 3500m: with the priority-0 pod gone, 3000m are free on every node.
  const pod big({.uid = 9000, .priority = 10, .requests = {3500, 100}, .start_time = {}});
  REQUIRE(index.prepare(c, big));
  const preempt::node_run run = index.run_at(0);
  CHECK(run.end == 1000);
  CHECK(run.rejection == 2 + (1u << preempt::model::resource::cpu));
  CHECK(index.run_at(537).end == 1000);
  // 2500m fits everywhere once the priority-0 pod is gone: open.
  const pod fits({.uid = 9001, .priority = 10, .requests = {2500, 100}, .start_time = {}});
  REQUIRE(index.prepare(c, fits));
  CHECK(index.run_at(0).rejection == 0);
  CHECK(index.run_at(0).end == 1000);
  // Priority 0: no node holds a pod below it.
  const pod low({.uid = 9002, .priority = 0, .requests = {100, 100}, .start_time = {}});
  REQUIRE(index.prepare(c, low));
  CHECK(index.run_at(3).rejection == 1);
  CHECK(index.run_at(3).end == 1000);
  // Beyond allocatable: another key.
  const pod huge({.uid = 9003, .priority = 10, .requests = {5000, 100}, .start_time = {}});
  REQUIRE(index.prepare(c, huge));
  CHECK(index.run_at(0).rejection == 2 + (1u << preempt::model::resource::cpu) + 32);
  // An extended resource: no answer.
  preempt::model::pod_spec gpu{
      .uid = 9004, .priority = 10, .requests = {100, 100}, .start_time = {}};
  gpu.requests.set(preempt::model::resource::first_extended, 1);
  CHECK_FALSE(index.prepare(c, pod(gpu)));

  // One node changes: the big preemptor now fits there, and only there; the runs around it
  // still reach it.
  REQUIRE(c.remove_pod(700, 2 * 700 + 1));
  REQUIRE(index.prepare(c, big));
  CHECK(index.run_at(0).end <= 700);
  CHECK(index.run_at(0).rejection == 2 + (1u << preempt::model::resource::cpu));
  const preempt::node_run at = index.run_at(700);
  CHECK(at.rejection == 0);
  CHECK(at.end == 701);
  CHECK(index.run_at(701).rejection == 2 + (1u << preempt::model::resource::cpu));
  CHECK(index.run_at(701).end == 704);  // the rest of node 700's group, node by node
  // Then runs of whole subtrees: a few (O(log n)), all alike, up to the last node.
  std::size_t runs = 0;
  for (std::size_t i = 704; i < 1000; i = index.run_at(i).end) {
    CHECK(index.run_at(i).rejection == 2 + (1u << preempt::model::resource::cpu));
    ++runs;
  }
  CHECK(runs <= 2 * 7);
  CHECK(index.bytes() > 0);
}

namespace {
// `nodes` nodes of 4000m / 8000 / 110 pods, each with one priority-0 pod of `cpu` millicores.
cluster one_pod_per_node(int nodes, std::int64_t cpu) {
  cluster c;
  for (int i = 0; i < nodes; ++i) {
    const std::size_t n = c.add_node("n" + std::to_string(i), {4000, 8000, 110});
    c.add_pod(n, pod({.uid = static_cast<preempt::model::pod_id>(i + 1),
                      .priority = 0,
                      .requests = {cpu, 1000},
                      .start_time = {}}));
  }
  return c;
}
}  // namespace

TEST_CASE("a decision through the index visits one node per kind of rejection") {
  const cluster c = one_pod_per_node(4096, 1000);
  const pod big({.uid = 9000, .priority = 10, .requests = {4500, 100}, .start_time = {}});
  preempt::filter_statuses statuses(c.size(), preempt::status_code::unschedulable);
  const counting_state_cluster counted{&c};
  preempt::evaluator<counting_state_cluster> ev;
  const auto& d = ev.evaluate(big, counted, statuses, preempt::no_budgets{},
                              preempt::no_nominations{}, preempt::inline_executor{});
  CHECK(d.kind == preempt::decision_kind::unschedulable);
  CHECK(d.diagnosis.size() == 4096);
  CHECK(counted.prepared == 1);
  CHECK(std::string(d.message).find("4096 Insufficient cpu") != std::string::npos);
}

TEST_CASE("an evaluator with helpers keeps small or bounded dry runs on the calling thread") {
  const cluster c = one_pod_per_node(3000, 3000);
  const pod preemptor({.uid = 9000, .priority = 10, .requests = {2000, 100}, .start_time = {}});
  const preempt::filter_statuses statuses(c.size(), preempt::status_code::unschedulable);
  const auto decide = [&](preempt::evaluator_config cfg, preempt::manual_context& ctx) {
    cfg.parallelism = 3;
    preempt::evaluator<cluster> ev(cfg);
    const auto& d = ev.evaluate(preemptor, c, statuses, preempt::no_budgets{},
                                preempt::no_nominations{}, ctx.get_executor());
    const std::string s = describe(d);
    ctx.drain();
    return s;
  };
  preempt::manual_context ctx;
  preempt::evaluator<cluster> inline_ev;
  const std::string sampled_inline =
      describe(inline_ev.evaluate(preemptor, c, statuses, preempt::no_budgets{},
                                  preempt::no_nominations{}, preempt::inline_executor{}));
  // Sampled: 300 candidates wanted, fewer than min_parallel_nodes (1024): no helper is called.
  CHECK(decide({}, ctx) == sampled_inline);
  CHECK(ctx.ran() == 0);
  // Every node, 3000 to select on: the helpers take part.
  preempt::evaluator_config full;
  full.sampling.min_candidate_nodes_percentage = 100;
  preempt::evaluator<cluster> full_inline(full);
  const std::string full_decision =
      describe(full_inline.evaluate(preemptor, c, statuses, preempt::no_budgets{},
                                    preempt::no_nominations{}, preempt::inline_executor{}));
  CHECK(decide(full, ctx) == full_decision);
  CHECK(ctx.ran() > 0);
  // The same under the branch and bound: on the calling thread.
  const std::size_t ran = ctx.ran();
  preempt::evaluator_config bounded = full;
  bounded.report_only_chosen = true;
  (void)decide(bounded, ctx);
  CHECK(ctx.ran() == ran);
  // min_parallel_nodes 0: every dry run goes to the helpers, the sampled one too.
  preempt::evaluator_config always;
  always.min_parallel_nodes = 0;
  CHECK(decide(always, ctx) == sampled_inline);
  CHECK(ctx.ran() > ran);
}

TEST_CASE("an evaluator with helpers hands out a sampled dry run over nodes with many pods") {
  // 300 nodes, 100 candidates wanted (sampling's absolute minimum): few nodes, but with 110 pods
  // each there are 11,000 pods to look at, more than min_parallel_pods (10,000); with 40 pods each
  // 4,000, fewer.
  const auto build = [](int pods_per_node) {
    cluster c;
    preempt::model::pod_id uid = 1;
    for (int i = 0; i < 300; ++i) {
      const std::size_t n = c.add_node("n" + std::to_string(i), {4000, 8000, 120});
      for (int p = 0; p < pods_per_node; ++p)
        c.add_pod(n, pod({.uid = uid++,
                          .priority = p % 3,
                          .requests = {4000 / pods_per_node, 10},
                          .start_time = {}}));
    }
    return c;
  };
  const pod preemptor({.uid = 900000, .priority = 10, .requests = {500, 10}, .start_time = {}});
  const auto decide = [&](const cluster& c, preempt::evaluator_config cfg,
                          preempt::manual_context& ctx) {
    cfg.parallelism = 3;
    preempt::evaluator<cluster> ev(cfg);
    const preempt::filter_statuses statuses(c.size(), preempt::status_code::unschedulable);
    const std::string s = describe(ev.evaluate(preemptor, c, statuses, preempt::no_budgets{},
                                               preempt::no_nominations{}, ctx.get_executor()));
    ctx.drain();
    return s;
  };
  const auto decide_inline = [&](const cluster& c) {
    preempt::evaluator<cluster> ev;
    const preempt::filter_statuses statuses(c.size(), preempt::status_code::unschedulable);
    return describe(ev.evaluate(preemptor, c, statuses, preempt::no_budgets{},
                                preempt::no_nominations{}, preempt::inline_executor{}));
  };
  const cluster large = build(110);
  const cluster small = build(40);
  preempt::manual_context ctx;
  CHECK(decide(large, {}, ctx) == decide_inline(large));
  CHECK(ctx.ran() > 0);
  const std::size_t ran = ctx.ran();
  CHECK(decide(small, {}, ctx) == decide_inline(small));
  CHECK(ctx.ran() == ran);
  // The pod rule off: the node count alone decides (100 < 1024).
  preempt::evaluator_config nodes_only;
  nodes_only.min_parallel_pods = 0;
  CHECK(decide(large, nodes_only, ctx) == decide_inline(large));
  CHECK(ctx.ran() == ran);
  // Under the branch and bound: on the calling thread, however many pods.
  preempt::evaluator_config bounded;
  bounded.report_only_chosen = true;
  (void)decide(large, bounded, ctx);
  CHECK(ctx.ran() == ran);
}

TEST_CASE("an evaluator lends no more helpers than the machine runs threads at once") {
  const cluster c = one_pod_per_node(2000, 3000);
  const pod preemptor({.uid = 9000, .priority = 10, .requests = {2000, 100}, .start_time = {}});
  const preempt::filter_statuses statuses(c.size(), preempt::status_code::unschedulable);
  const std::size_t threads = std::thread::hardware_concurrency();
  // Helpers still queued on the manual executor after the evaluation: each is lent once.
  const auto lent = [&](bool within_hardware) {
    preempt::evaluator_config cfg;
    cfg.sampling.min_candidate_nodes_percentage = 100;
    cfg.parallelism = (threads == 0 ? 4 : threads) + 3;
    cfg.workers_within_hardware = within_hardware;
    preempt::evaluator<cluster> ev(cfg);
    preempt::manual_context ctx;
    const auto& d = ev.evaluate(preemptor, c, statuses, preempt::no_budgets{},
                                preempt::no_nominations{}, ctx.get_executor());
    CHECK(d.kind == preempt::decision_kind::nominated);
    const std::size_t queued = ctx.pending();
    ctx.drain();
    return std::pair{queued, cfg.parallelism - 1};
  };
  const auto every = lent(false);
  CHECK(every.first == every.second);
  const std::size_t within = lent(true).first;
  if (threads == 0)
    CHECK(within == every.second);  // the machine does not say: no limit
  else
    CHECK(within == threads - 1);
}

}  // namespace rejection_index_test
