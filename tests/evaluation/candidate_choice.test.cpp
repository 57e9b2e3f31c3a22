// Choosing the node to nominate (pickOneNodeForPreemption; upstream TestSelectBestCandidate /
// TestSelectCandidate). Candidates come from select_victims on every node; the test checks the
// chosen node and the score that decided (default scores: 0 violations, 1 highest victim priority,
// 2 shifted sum, 3 victim count, 4 latest start; default_scores::count when the candidate order
// decided).
//
//   SBn  TestSelectBestCandidate scenarios;  BCn  further cases of the tie-break chain.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/fixtures.hpp"

namespace candidate_choice_test {

namespace {

using namespace fx;
using preempt::best_candidate;
using preempt::candidate;
using preempt::default_scores;

struct choice {
  std::string node;  // "" when there is none
  std::size_t deciding = best_candidate::none;
};

choice chosen(const std::vector<candidate<pod>>& cands, const best_candidate& b) {
  return {b.index == best_candidate::none ? std::string() : std::string(cands[b.index].node_name),
          b.deciding_score};
}

// Selects victims on every node, then the best candidate with the default scores.
choice pick(const named_cluster& c, const pod& preemptor, preempt::timestamp now = 0) {
  const auto results = select_on_each_node(c, preemptor, preempt::default_policy{.now = now});
  const auto cands = candidates_of(results);
  // The scores computed in one pass (default_scores::all) equal the scores one by one, and the
  // choice from them is the same, deciding score included.
  const default_scores scores{now};
  std::vector<default_scores::vector> computed;
  for (const auto& cand : cands) {
    computed.push_back(scores.all(cand));
    for (std::size_t k = 0; k < default_scores::count; ++k)
      CHECK(computed.back()[k] == scores(k, cand));
  }
  const best_candidate plain = preempt::pick_best_candidate<pod>(cands, now);
  const best_candidate from_computed =
      preempt::pick_best_candidate<pod>(cands, std::span<const default_scores::vector>(computed));
  CHECK(from_computed.index == plain.index);
  CHECK(from_computed.deciding_score == plain.deciding_score);
  return chosen(cands, plain);
}

// Every node with pods of the given priorities and sizes, all started at t0 unless given.
struct victim_spec {
  std::int32_t priority;
  resource_vector size;
  std::optional<preempt::timestamp> start = 0;
};

named_cluster nodes_with(const std::vector<std::vector<victim_spec>>& nodes) {
  named_cluster c;
  int pod_no = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto n = c.node("node" + std::to_string(i + 1));
    for (const victim_spec& v : nodes[i])
      c.add(n, "p" + std::to_string(++pod_no), v.priority, v.size, v.start);
  }
  return c;
}

}  // namespace

TEST_CASE(
    "SB1 [TestSelectBestCandidate/\"a pod that fits on both nodes when lower priority pods are "
    "preempted\"]: identical candidates: the first in node order") {
  named_cluster c = nodes_with({{{mid, large()}}, {{mid, large()}}});
  const pod p = c.make("p", high, large());
  const choice ch = pick(c, p);
  CHECK(ch.node == "node1");
  CHECK(ch.deciding == default_scores::count);
}

TEST_CASE(
    "SB2 [TestSelectBestCandidate/\"node with min highest priority pod is picked\"]: the node "
    "whose most important victim has the lowest priority") {
  named_cluster c = nodes_with({{{mid, medium()}, {mid, large()}},
                                {{mid, medium()}, {low, medium()}},
                                {{low, medium()}, {low, medium()}}});
  const pod p = c.make("p", high, very_large());
  const choice ch = pick(c, p);
  CHECK(ch.node == "node3");
  CHECK(ch.deciding == 1);
}

TEST_CASE(
    "SB3 [TestSelectBestCandidate/\"when highest priorities are the same, minimum sum of "
    "priorities is picked\"]: the smallest sum of victim priorities") {
  named_cluster c = nodes_with({{{mid, medium()}, {mid, large()}},
                                {{mid, large()}, {low, medium()}},
                                {{mid, medium()}, {mid, medium()}}});
  const pod p = c.make("p", high, very_large());
  const choice ch = pick(c, p);
  CHECK(ch.node == "node2");
  CHECK(ch.deciding == 2);
}

TEST_CASE(
    "SB4 [TestSelectBestCandidate/\"when highest priority and sum are the same, minimum number of "
    "pods is picked\"]: fewer pods, but already decided by the shifted sum") {
  named_cluster c = nodes_with({{{mid, small()}, {neg, small()}, {mid, small()}, {neg, small()}},
                                {{mid, large()}, {neg, medium()}},
                                {{mid, medium()}, {neg, small()}, {low, small()}}});
  const pod p = c.make("p", high, very_large());
  const choice ch = pick(c, p);
  CHECK(ch.node == "node2");
  CHECK(ch.deciding == 2);
}

TEST_CASE(
    "SB5 [TestSelectBestCandidate/\"sum of adjusted priorities is considered\"]: the shifted sum "
    "keeps negative priorities from rewarding more victims") {
  named_cluster c = nodes_with({{{mid, small()}, {neg, small()}, {neg, small()}},
                                {{mid, large()}, {neg, medium()}},
                                {{mid, medium()}, {neg, small()}, {low, small()}}});
  const pod p = c.make("p", high, very_large());
  const choice ch = pick(c, p);
  CHECK(ch.node == "node2");
  CHECK(ch.deciding == 2);

  // A raw (unshifted) sum as the only score would pick node1 (-100 < 0); a custom list replaces
  // the defaults entirely.
  const auto results = select_on_each_node(c, p);
  const auto cands = candidates_of(results);
  const auto raw_sum = [](const candidate<pod>& k) {
    std::int64_t sum = 0;
    for (const pod* v : k.victims) sum += v->priority();
    return -sum;
  };
  const std::array<decltype(raw_sum), 1> scores{raw_sum};
  const choice custom = chosen(cands, preempt::pick_best_candidate<pod>(cands, scores));
  CHECK(custom.node == "node1");
  CHECK(custom.deciding == 0);
}

TEST_CASE(
    "SB7 [TestSelectBestCandidate/\"same priority, same number of victims, different start time "
    "for each node's pod\"]: the latest start time of the oldest highest-priority victim, per "
    "node") {
  named_cluster c = nodes_with({{{mid, medium(), 2}, {mid, medium(), 2}},
                                {{mid, medium(), 3}, {mid, medium(), 3}},
                                {{mid, medium(), 1}, {mid, medium(), 1}}});
  const pod p = c.make("p", high, very_large());
  const choice ch = pick(c, p);
  CHECK(ch.node == "node2");
  CHECK(ch.deciding == 4);
}

TEST_CASE(
    "SB8 [TestSelectBestCandidate/\"same priority, same number of victims, different start time "
    "for all pods\"]: the latest earliest start time over all victims of a node") {
  named_cluster c = nodes_with({{{mid, medium(), 4}, {mid, medium(), 2}},
                                {{mid, medium(), 5}, {mid, medium(), 1}},
                                {{mid, medium(), 3}, {mid, medium(), 6}}});
  const pod p = c.make("p", high, very_large());
  const choice ch = pick(c, p);
  CHECK(ch.node == "node3");
  CHECK(ch.deciding == 4);
}

TEST_CASE(
    "SB10 [TestSelectCandidate/\"pod has different number of containers on each node\"]: custom "
    "score functions: fewest containers among the victims") {
  named_cluster c = nodes_with({{{mid, large()}}, {{mid, large()}}, {{mid, large()}}});
  const std::map<pod_id, std::int64_t> containers{
      {c.pod_ids.at("p1"), 2}, {c.pod_ids.at("p2"), 1}, {c.pod_ids.at("p3"), 3}};
  const pod p = c.make("p", high, large());
  const auto results = select_on_each_node(c, p);
  const auto cands = candidates_of(results);
  REQUIRE(cands.size() == 3);

  const auto fewest_containers = [&](const candidate<pod>& k) {
    std::int64_t n = 0;
    for (const pod* v : k.victims) n += containers.at(v->uid());
    return -n;
  };
  SUBCASE("a std::array of one lambda") {
    const std::array<decltype(fewest_containers), 1> scores{fewest_containers};
    const choice ch = chosen(cands, preempt::pick_best_candidate<pod>(cands, scores));
    CHECK(ch.node == "node2");
    CHECK(ch.deciding == 0);
  }
  SUBCASE("a vector of std::function, after a score that ties") {
    const std::vector<std::function<std::int64_t(const candidate<pod>&)>> scores{
        [](const candidate<pod>&) { return std::int64_t{7}; }, fewest_containers};
    const choice ch = chosen(cands, preempt::pick_best_candidate<pod>(cands, scores));
    CHECK(ch.node == "node2");
    CHECK(ch.deciding == 1);
  }
}

TEST_CASE("BC1 [ours]: no candidates, one candidate") {
  const std::vector<candidate<pod>> none;
  const auto b0 = preempt::pick_best_candidate<pod>(none);
  CHECK(b0.index == best_candidate::none);
  CHECK(b0.deciding_score == best_candidate::none);

  named_cluster c = nodes_with({{{mid, large()}}});
  const pod p = c.make("p", high, large());
  const auto results = select_on_each_node(c, p);
  const auto cands = candidates_of(results);
  REQUIRE(cands.size() == 1);
  const auto b1 = preempt::pick_best_candidate<pod>(cands);
  CHECK(b1.index == 0);
  CHECK(b1.deciding_score == best_candidate::none);
}

TEST_CASE("BC2 [ours]: fewest budget violations comes before everything else") {
  named_cluster c = nodes_with({{{low, large()}}, {{high, large()}}});
  c.budget(0, {"p1"});
  const pod p = c.make("p", very_high, large());
  const choice ch = pick(c, p);
  CHECK(ch.node == "node2");  // a high victim, but no violation
  CHECK(ch.deciding == 0);
}

TEST_CASE("BC3 [ours]: fewest victims decides when the shifted sums tie") {
  // node1: one mid victim. node2: mid and INT32_MIN, whose shifted priority is 0, so the sums tie.
  named_cluster c = nodes_with(
      {{{mid, small()}}, {{mid, small()}, {std::numeric_limits<std::int32_t>::min(), small()}}});
  const pod p = c.make("p", high, very_large());
  const choice ch = pick(c, p);
  CHECK(ch.node == "node1");
  CHECK(ch.deciding == 3);
}

TEST_CASE("BC4 [ours]: an empty list of score functions means the defaults") {
  named_cluster c = nodes_with({{{mid, medium()}, {mid, large()}},
                                {{mid, medium()}, {low, medium()}},
                                {{low, medium()}, {low, medium()}}});
  const pod p = c.make("p", high, very_large());
  const auto results = select_on_each_node(c, p);
  const auto cands = candidates_of(results);
  const std::vector<std::function<std::int64_t(const candidate<pod>&)>> no_scores;
  const choice ch = chosen(cands, preempt::pick_best_candidate<pod>(cands, no_scores));
  CHECK(ch.node == "node3");
  CHECK(ch.deciding == 1);
}

TEST_CASE("BC5 [ours]: victims without start time count as `now`") {
  named_cluster c = nodes_with({{{mid, medium(), std::nullopt}, {mid, medium(), std::nullopt}},
                                {{mid, medium(), 5}, {mid, medium(), 5}}});
  const pod p = c.make("p", high, very_large());
  SUBCASE("now = 0: node1's victims look older") {
    const choice ch = pick(c, p, 0);
    CHECK(ch.node == "node2");
    CHECK(ch.deciding == 4);
  }
  SUBCASE("now = 10: node1's victims look newer") {
    const choice ch = pick(c, p, 10);
    CHECK(ch.node == "node1");
    CHECK(ch.deciding == 4);
  }
}

TEST_CASE("BC6 [ours]: on a full tie the order of the candidates decides") {
  named_cluster c = nodes_with({{{mid, large()}}, {{mid, large()}}});
  const pod p = c.make("p", high, large());
  const auto results = select_on_each_node(c, p);
  auto cands = candidates_of(results);
  REQUIRE(cands.size() == 2);
  std::swap(cands[0], cands[1]);
  const choice ch = chosen(cands, preempt::pick_best_candidate<pod>(cands));
  CHECK(ch.node == "node2");
  CHECK(ch.deciding == default_scores::count);
}

TEST_CASE("BC7 [ours]: the deciding score is the first one after which the winner stands alone") {
  // node1 and node2 tie on scores 0-2 and lose to nothing before score 3; node3 loses at score 1.
  constexpr std::int32_t lowest = std::numeric_limits<std::int32_t>::min();
  named_cluster c =
      nodes_with({{{mid, small()}}, {{mid, small()}, {lowest, small()}}, {{high, small()}}});
  const pod p = c.make("p", very_high, very_large());
  const choice ch = pick(c, p);
  CHECK(ch.node == "node1");
  CHECK(ch.deciding == 3);
}

TEST_CASE("BC8 [ours]: only the start times of the highest-priority victims count") {
  // node1: mid t5, low t1; node2: mid t3, low t9. Among the mid victims node1's started later.
  named_cluster c = nodes_with(
      {{{mid, medium(), 5}, {low, medium(), 1}}, {{mid, medium(), 3}, {low, medium(), 9}}});
  const pod p = c.make("p", high, very_large());
  const choice ch = pick(c, p);
  CHECK(ch.node == "node1");
  CHECK(ch.deciding == 4);
}

}  // namespace candidate_choice_test
