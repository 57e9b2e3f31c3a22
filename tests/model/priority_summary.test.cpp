// model::priority_summary as resource_cluster keeps it (add_pod, add_pods, remove_pod) against
// sums over the node's pods, and resource_fit_state::remove_lower_priority_pods against removing
// the same pods one by one; select_victims answers the same with and without the summary.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "preempt/preempt.hpp"

namespace priority_summary_test {

namespace {

using preempt::model::resource_cluster;
using preempt::model::resource_fit_state;
using preempt::model::resource_pod;
using preempt::model::resource_vector;
namespace resource = preempt::model::resource;

resource_pod random_pod(std::mt19937_64& g, preempt::model::pod_id uid) {
  preempt::model::pod_spec s;
  s.uid = uid;
  s.priority = static_cast<std::int32_t>(g() % 5) * 100 - 100;
  s.requests = {static_cast<std::int64_t>(g() % 1000), static_cast<std::int64_t>(g() % 5000)};
  if (g() % 3 == 0) s.requests.set(resource::first_extended, 1);  // beyond the node's dimensions
  s.start_time = static_cast<preempt::timestamp>(g() % 50);
  return resource_pod(std::move(s));
}

// The summary's answer for every priority around the pods' against a sum over the pods.
void check_summary(const resource_cluster& c, std::size_t i) {
  const auto& node = c[i];
  for (std::int32_t q = -300; q <= 500; q += 50) {
    std::size_t count = 0;
    resource_vector sum;
    sum.resize(node.requested().size());
    for (const resource_pod& p : node.pods())
      if (p.priority() < q) {
        ++count;
        sum.add(p.requests());
      }
    const auto below = node.priorities().below(q);
    CHECK(below.pods == count);
    if (count == 0)
      CHECK(below.requests == nullptr);
    else {
      REQUIRE(below.requests != nullptr);
      CHECK(*below.requests == sum);
    }
  }
}

}  // namespace

TEST_CASE("priority_summary follows a node's pods as they come and go") {
  std::mt19937_64 g(7);
  for (int round = 0; round < 20; ++round) {
    resource_cluster c;
    c.add_node("n", {4000, 16000, 110});
    preempt::model::pod_id uid = 1;
    std::vector<preempt::model::pod_id> uids;
    for (int k = 0; k < 30; ++k) {
      uids.push_back(uid);
      c.add_pod(0, random_pod(g, uid++));
    }
    check_summary(c, 0);
    std::vector<resource_pod> more;
    for (int k = 0; k < 20; ++k) {
      uids.push_back(uid);
      more.push_back(random_pod(g, uid++));
    }
    c.add_pods(0, more);
    check_summary(c, 0);
    for (int k = 0; k < 35; ++k) {
      const std::size_t at = g() % uids.size();
      REQUIRE(c.remove_pod(0, uids[at]));
      uids.erase(uids.begin() + static_cast<std::ptrdiff_t>(at));
      if (k % 5 == 0) check_summary(c, 0);
    }
    check_summary(c, 0);
    while (!uids.empty()) {
      REQUIRE(c.remove_pod(0, uids.back()));
      uids.pop_back();
    }
    CHECK(c[0].priorities().levels().empty());
    check_summary(c, 0);
  }
}

TEST_CASE("remove_lower_priority_pods equals removing the lower-priority pods one by one") {
  std::mt19937_64 g(11);
  resource_cluster c;
  c.add_node("n", {4000, 16000, 110});
  for (preempt::model::pod_id uid = 1; uid <= 40; ++uid) c.add_pod(0, random_pod(g, uid));
  for (std::int32_t q = -200; q <= 400; q += 100) {
    resource_fit_state fast = c.make_state(), slow = c.make_state();
    c.prepare_state(0, fast);
    c.prepare_state(0, slow);
    std::size_t count = 0;
    for (const resource_pod& p : c[0].pods())
      if (p.priority() < q) {
        (void)slow.remove_pod(p);
        ++count;
      }
    const std::optional<std::size_t> removed = fast.remove_lower_priority_pods(q);
    REQUIRE(removed.has_value());
    CHECK(*removed == count);
    CHECK(fast.requested() == slow.requested());
    // Once only: the state has changed since it was prepared.
    CHECK_FALSE(fast.remove_lower_priority_pods(q).has_value());
  }
  // No summary (a state reset by hand), or a change first (a view hiding a pod): nullopt, and
  // the state is left as it was.
  resource_fit_state bare(c[0].allocatable(), c[0].requested());
  CHECK_FALSE(bare.remove_lower_priority_pods(1000).has_value());
  CHECK(bare.requested() == c[0].requested());
  resource_fit_state changed = c.make_state();
  c.prepare_state(0, changed);
  (void)changed.remove_pod(c[0].pods()[0]);
  const resource_vector before = changed.requested();
  CHECK_FALSE(changed.remove_lower_priority_pods(1000).has_value());
  CHECK(changed.requested() == before);
}

namespace {
struct picky_policy : preempt::default_policy {
  template <class Node, preempt::pod P>
  bool is_eligible_victim(const Node&, const P& victim, const P&) const noexcept {
    return victim.uid() % 2 == 0;
  }
};
struct oldest_first : preempt::default_policy {
  template <preempt::pod P>
  bool more_important(const P& a, const P& b) const {
    return a.start_time() > b.start_time();
  }
};
using node_t = preempt::model::resource_node;
}  // namespace

TEST_CASE("the one-step removal applies only to policies that keep default eligibility") {
  static_assert(preempt::detail::every_lower_priority_pod_eligible<preempt::default_policy, node_t,
                                                                   resource_pod>());
  static_assert(
      preempt::detail::every_lower_priority_pod_eligible<oldest_first, node_t, resource_pod>());
  static_assert(
      !preempt::detail::every_lower_priority_pod_eligible<picky_policy, node_t, resource_pod>());
  static_assert(preempt::removes_lower_priority_pods<resource_fit_state>);

  // select_victims with the summary and without it (a state reset by hand) agree, node by node,
  // for both policies, on random nodes where the preemptor sometimes fits and sometimes not.
  std::mt19937_64 g(3);
  preempt::victim_scratch<resource_pod> s1, s2;
  const auto same = [](const auto& a, const auto& b) {
    CHECK(a.outcome.code() == b.outcome.code());
    CHECK(a.outcome.reasons().size() == b.outcome.reasons().size());
    REQUIRE(a.victims.size() == b.victims.size());
    for (std::size_t k = 0; k < a.victims.size(); ++k) CHECK(a.victims[k] == b.victims[k]);
    CHECK(a.pdb_violations == b.pdb_violations);
  };
  for (int round = 0; round < 200; ++round) {
    resource_cluster c;
    c.add_node("n", {4000, 16000, 110});
    const int pods = static_cast<int>(g() % 12);
    for (int k = 0; k < pods; ++k)
      c.add_pod(0, random_pod(g, static_cast<preempt::model::pod_id>(k + 1)));
    preempt::model::pod_spec ps;
    ps.uid = 1000;
    ps.priority = static_cast<std::int32_t>(g() % 5) * 100 - 50;
    ps.requests = {static_cast<std::int64_t>(g() % 5000), static_cast<std::int64_t>(g() % 9000)};
    const resource_pod preemptor(ps);
    resource_fit_state summarized = c.make_state();
    c.prepare_state(0, summarized);
    resource_fit_state bare(c[0].allocatable(), c[0].requested());
    same(preempt::select_victims(preemptor, c[0], summarized, preempt::no_budgets{}, s1),
         preempt::select_victims(preemptor, c[0], bare, preempt::no_budgets{}, s2));
    c.prepare_state(0, summarized);
    resource_fit_state bare2(c[0].allocatable(), c[0].requested());
    same(
        preempt::select_victims(preemptor, c[0], summarized, preempt::no_budgets{}, s1,
                                picky_policy{}),
        preempt::select_victims(preemptor, c[0], bare2, preempt::no_budgets{}, s2, picky_policy{}));
  }
}

}  // namespace priority_summary_test
