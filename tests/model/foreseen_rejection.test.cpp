// resource_fit_state::foreseen_rejection (node_state's optional member) and the evaluator's use
// of it:
//   * on random nodes (three and four standard amounts, an extended dimension on some nodes and
//     some preemptors, requests beyond the allocatable amount, full pod slots, negative-free
//     small requests), whenever it answers, select_victims rejects the node with exactly that
//     status (code and message), and it answers for each kind of rejection it knows: no victims,
//     one short dimension within and beyond the allocatable amount;
//   * it does not answer for two short dimensions, a full pod slot, an extended dimension, a
//     preemptor that fits once the lower-priority pods are gone, or a changed state;
//   * the evaluator's decision and diagnosis are those of a node state without the member.
// PREEMPT_TEST_SEED=<n> adds one seed (as the other random tests).
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/random_cluster.hpp"
#include "support/sanitizers.hpp"

namespace foreseen_rejection_test {

namespace {

using preempt::status_code;
using pod = preempt::model::resource_pod;
using preempt::model::pod_id;
using preempt::model::resource_vector;
using rnd::pick;
using rnd::seeds;

constexpr std::size_t cluster_count =
    PREEMPT_TEST_UNDER_ASAN || PREEMPT_TEST_UNDER_TSAN ? 600 : 2000;

// A random cluster whose nodes are often rejected: tight nodes, large preemptors, few
// priorities.
struct scenario {
  preempt::model::resource_cluster cluster;
  pod preemptor{preempt::model::pod_spec{}};
  preempt::filter_statuses statuses{0, status_code::unschedulable};

  explicit scenario(std::uint64_t seed) {
    std::mt19937_64 g(seed);
    const bool extended = pick(g, 0, 4) == 0;
    const std::size_t gpu = preempt::model::resource::first_extended;
    const auto nodes = static_cast<std::size_t>(pick(g, 1, 12));
    pod_id uid = 1;
    for (std::size_t n = 0; n < nodes; ++n) {
      resource_vector allocatable{pick(g, 2, 8) * 100, pick(g, 2, 8) * 100, pick(g, 1, 6)};
      if (pick(g, 0, 1) == 0)
        allocatable.set(preempt::model::resource::ephemeral_storage, pick(g, 0, 4) * 100);
      if (extended && pick(g, 0, 1) == 0) allocatable.set(gpu, pick(g, 0, 2));
      const std::size_t i = cluster.add_node("node-" + std::to_string(n), allocatable);
      const auto count = pick(g, 0, 6);
      for (std::int64_t k = 0; k < count; ++k) {
        resource_vector req{pick(g, 0, 3) * 100, pick(g, 0, 3) * 100};
        if (pick(g, 0, 2) == 0)
          req.set(preempt::model::resource::ephemeral_storage, pick(g, 0, 2) * 100);
        if (extended && pick(g, 0, 2) == 0) req.set(gpu, pick(g, 0, 1));
        std::optional<preempt::timestamp> start;
        if (pick(g, 0, 3) != 0) start = pick(g, 0, 5) * 100;
        cluster.add_pod(i, pod({.uid = uid++,
                                .priority = static_cast<std::int32_t>(pick(g, 0, 2) * 5),
                                .requests = req,
                                .start_time = start}));
      }
    }
    resource_vector want{pick(g, 1, 10) * 100, pick(g, 0, 10) * 100};
    if (pick(g, 0, 2) == 0)
      want.set(preempt::model::resource::ephemeral_storage, pick(g, 0, 5) * 100);
    if (extended && pick(g, 0, 1) == 0) want.set(gpu, pick(g, 0, 2));
    preemptor = pod({.uid = uid++,
                     .priority = static_cast<std::int32_t>(pick(g, 0, 3) * 5),
                     .requests = want,
                     .start_time = {}});
    for (std::size_t i = 0; i < nodes; ++i)
      statuses.set(i, pick(g, 0, 9) == 0 ? status_code::unschedulable_and_unresolvable
                                         : status_code::unschedulable);
  }
};

// The model's node state without foreseen_rejection: the evaluator then selects the victims of
// every node.
struct unforeseeing_state : preempt::model::resource_fit_state {
  const preempt::status* foreseen_rejection(const pod&) const = delete;
};
static_assert(!preempt::foresees_rejections<unforeseeing_state, pod>);

struct unforeseeing_cluster {
  using state_type = unforeseeing_state;
  const preempt::model::resource_cluster* inner;

  std::size_t size() const noexcept { return inner->size(); }
  decltype(auto) operator[](std::size_t i) const noexcept { return (*inner)[i]; }
  state_type make_state() const { return {}; }
  void prepare_state(std::size_t i, state_type& s) const { inner->prepare_state(i, s); }
};

std::vector<pod_id> uids(std::span<const pod* const> victims) {
  std::vector<pod_id> out;
  for (const pod* v : victims) out.push_back(v->uid());
  return out;
}

}  // namespace

TEST_CASE("foreseen_rejection is select_victims' rejection whenever it answers") {
  std::size_t no_victims = 0, short_within = 0, short_beyond = 0, unanswered_rejections = 0;
  preempt::model::resource_fit_state state;
  preempt::victim_scratch<pod> scratch;
  const preempt::default_policy policy{1000};
  for (const std::uint64_t seed : seeds(cluster_count, 31)) {
    CAPTURE(seed);
    const scenario s(seed);
    for (std::size_t i = 0; i < s.cluster.size(); ++i) {
      CAPTURE(i);
      s.cluster.prepare_state(i, state);
      const preempt::status* foreseen = state.foreseen_rejection(s.preemptor);
      const auto r = preempt::select_victims(s.preemptor, s.cluster[i], state,
                                             preempt::no_budgets{}, scratch, policy);
      if (foreseen == nullptr) {
        unanswered_rejections += !r.outcome.is_success();
        continue;
      }
      REQUIRE(!r.outcome.is_success());
      CHECK(r.outcome.code() == foreseen->code());
      CHECK(std::string(r.outcome.reason()) == std::string(foreseen->reason()));
      CHECK(r.victims.empty());
      if (foreseen->reason() == preempt::no_victims_reason)
        ++no_victims;
      else if (foreseen->code() == status_code::unschedulable)
        ++short_within;
      else
        ++short_beyond;
    }
  }
  MESSAGE(no_victims << " without victims, " << short_within << " short, " << short_beyond
                     << " beyond allocatable; " << unanswered_rejections
                     << " rejections left to victim selection");
  CHECK(no_victims > cluster_count / 4);     // about 2.7 per cluster
  CHECK(short_within > cluster_count / 50);  // about 0.08 to 0.1
  CHECK(short_beyond > cluster_count / 4);   // about 0.9 to 1
  CHECK(unanswered_rejections > 0);
}

TEST_CASE("foreseen_rejection does not answer where it cannot tell") {
  preempt::model::resource_cluster c;
  const std::size_t gpu = preempt::model::resource::first_extended;
  c.add_node("n", {1000, 1000, 3});
  c.add_pod(0, pod({.uid = 1, .priority = 0, .requests = {600, 600}, .start_time = 5}));
  c.add_pod(0, pod({.uid = 2, .priority = 5, .requests = {300, 300}, .start_time = 7}));
  preempt::model::resource_fit_state state;
  c.prepare_state(0, state);
  const auto asking = [&](resource_vector want, std::int32_t priority = 10) {
    return pod({.uid = 9, .priority = priority, .requests = want, .start_time = {}});
  };
  // Fits once the pods of priority 0 and 5 are gone, or already fits.
  CHECK(state.foreseen_rejection(asking({1000, 1000})) == nullptr);
  CHECK(state.foreseen_rejection(asking({100, 100})) == nullptr);
  // No pod below priority 0.
  const preempt::status* none = state.foreseen_rejection(asking({100, 100}, 0));
  REQUIRE(none != nullptr);
  CHECK(none->code() == status_code::unschedulable_and_unresolvable);
  CHECK(none->reason() == preempt::no_victims_reason);
  // Short of cpu even with both pods gone (priority 10), or with the priority-0 pod gone only.
  const preempt::status* cpu = state.foreseen_rejection(asking({800, 100}, 5));
  REQUIRE(cpu != nullptr);
  CHECK(cpu->code() == status_code::unschedulable);
  CHECK(cpu->reason() == "Insufficient cpu");
  const preempt::status* beyond = state.foreseen_rejection(asking({1100, 100}));
  REQUIRE(beyond != nullptr);
  CHECK(beyond->code() == status_code::unschedulable_and_unresolvable);
  // Short of two dimensions: the message lists both (victim selection answers).
  CHECK(state.foreseen_rejection(asking({800, 800}, 5)) == nullptr);
  // An extended dimension the node does not have.
  resource_vector with_gpu{100, 100};
  with_gpu.set(gpu, 1);
  CHECK(state.foreseen_rejection(asking(with_gpu)) == nullptr);
  // Once the state has changed, it no longer knows.
  (void)state.remove_pod(c[0].pods()[0]);
  CHECK(state.foreseen_rejection(asking({100, 100}, 0)) == nullptr);
  CHECK(state.foreseen_rejection(asking({1100, 100})) == nullptr);
  // A full pod slot: the pod-slot message comes from victim selection.
  preempt::model::resource_cluster full;
  full.add_node("f", {1000, 1000, 2});
  full.add_pod(0, pod({.uid = 1, .priority = 5, .requests = {100, 100}, .start_time = 5}));
  full.add_pod(0, pod({.uid = 2, .priority = 5, .requests = {100, 100}, .start_time = 7}));
  full.prepare_state(0, state);
  CHECK(state.foreseen_rejection(asking({100, 100}, 10)) == nullptr);  // fits once gone
  full.prepare_state(0, state);
  const preempt::status* same = state.foreseen_rejection(asking({100, 100}, 5));
  REQUIRE(same != nullptr);  // no pod below 5
  CHECK(same->reason() == preempt::no_victims_reason);
}

TEST_CASE("the evaluator decides the same with and without foreseen_rejection") {
  std::size_t nominated = 0;
  for (const std::uint64_t seed : seeds(cluster_count, 37)) {
    CAPTURE(seed);
    const scenario s(seed);
    preempt::evaluator<preempt::model::resource_cluster> with(preempt::evaluator_config{},
                                                              preempt::default_policy{1000});
    preempt::evaluator<unforeseeing_cluster> without(preempt::evaluator_config{},
                                                     preempt::default_policy{1000});
    const unforeseeing_cluster plain{&s.cluster};
    const auto& a = with.evaluate(s.preemptor, s.cluster, s.statuses, preempt::no_budgets{},
                                  preempt::no_nominations{}, preempt::inline_executor{});
    const auto& b = without.evaluate(s.preemptor, plain, s.statuses, preempt::no_budgets{},
                                     preempt::no_nominations{}, preempt::inline_executor{});
    CHECK(a.kind == b.kind);
    CHECK(std::string(a.message) == std::string(b.message));
    REQUIRE(a.diagnosis.size() == b.diagnosis.size());
    for (std::size_t i = 0; i < a.diagnosis.size(); ++i) {
      CHECK(a.diagnosis[i].node_index == b.diagnosis[i].node_index);
      CHECK(a.diagnosis[i].outcome.code() == b.diagnosis[i].outcome.code());
      CHECK(std::string(a.diagnosis[i].outcome.reason()) ==
            std::string(b.diagnosis[i].outcome.reason()));
    }
    REQUIRE(a.candidates.size() == b.candidates.size());
    for (std::size_t i = 0; i < a.candidates.size(); ++i) {
      CHECK(a.candidates[i].node_index == b.candidates[i].node_index);
      CHECK(uids(a.candidates[i].victims) == uids(b.candidates[i].victims));
    }
    if (a.kind == preempt::decision_kind::nominated) {
      ++nominated;
      CHECK(a.node_index == b.node_index);
      CHECK(uids(a.victims) == uids(b.victims));
    }
  }
  MESSAGE(nominated << " of " << cluster_count << " preemptors nominated");
  CHECK(nominated > cluster_count / 10);
}

}  // namespace foreseen_rejection_test
