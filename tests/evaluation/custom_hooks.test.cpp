// Custom victim policies (upstream's IsEligiblePod and MoreImportantPod hooks, which
// SelectVictimsOnNode uses to pick and order the potential victims; upstream TestCustomSelection
// and TestCustomOrdering). Policies derive from preempt::default_policy and hide the member
// they replace.
//
//   CSn  is_eligible_victim hooks: the candidate map node -> victims over all nodes.
//   COn  more_important hooks: the order of the victims on one node.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/fixtures.hpp"

namespace custom_hooks_test {

namespace {

using namespace fx;
using victim_map = std::map<std::string, name_list>;

// ---- Eligibility hooks ----

// Victims must carry the label preemptible=yes (the label lives in a side set of uids).
struct preemptible_label_policy : preempt::default_policy {
  explicit preemptible_label_policy(const std::set<pod_id>& yes) : preemptible(&yes) {}
  template <class Node>
  bool is_eligible_victim(const Node&, const pod& victim, const pod&) const {
    return preemptible->count(victim.uid()) > 0;
  }
  const std::set<pod_id>* preemptible;
};

// Only pods on node1 may be victims.
struct node1_only_policy : preempt::default_policy {
  template <class Node>
  bool is_eligible_victim(const Node& node, const pod&, const pod&) const {
    return node.name() == "node1";
  }
};

// Only preemptors of priority >= high may preempt.
struct high_preemptor_policy : preempt::default_policy {
  template <class Node>
  bool is_eligible_victim(const Node&, const pod&, const pod& preemptor) const {
    return preemptor.priority() >= high;
  }
};

// Only victims of priority <= mid may be evicted.
struct mid_victim_policy : preempt::default_policy {
  template <class Node>
  bool is_eligible_victim(const Node&, const pod& victim, const pod&) const {
    return victim.priority() <= mid;
  }
};

static_assert(preempt::victim_policy<preemptible_label_policy, preempt::model::resource_node, pod>);
static_assert(preempt::victim_policy<node1_only_policy, preempt::model::resource_node, pod>);

template <class Policy = preempt::default_policy>
victim_map candidates(const named_cluster& c, const pod& preemptor, const Policy& policy = {}) {
  return victims_by_node(select_on_each_node(c, preemptor, policy));
}

// CS1-CS3: node1 v1 mid "no"; node2 v2 mid "yes"; node3 v3 low "yes"; node4 v4 low unlabeled.
struct label_setup {
  named_cluster c;
  std::set<pod_id> yes;
  label_setup() {
    const auto n1 = c.node("node1"), n2 = c.node("node2"), n3 = c.node("node3"),
               n4 = c.node("node4");
    c.add(n1, "v1", mid, large());
    c.add(n2, "v2", mid, large());
    c.add(n3, "v3", low, large());
    c.add(n4, "v4", low, large());
    yes = {c.pod_ids.at("v2"), c.pod_ids.at("v3")};
  }
};

// CS7-CS9: node1 v1 high, node2 v2 mid, node3 v3 low, all large.
named_cluster one_per_node() {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2"), n3 = c.node("node3");
  c.add(n1, "v1", high, large());
  c.add(n2, "v2", mid, large());
  c.add(n3, "v3", low, large());
  return c;
}

}  // namespace

TEST_CASE(
    "CS1 [TestCustomSelection/\"filter for matching pod label: high priority\"]: preemptible=yes "
    "label, preemptor high") {
  label_setup s;
  const pod p = s.c.make("p", high, large());
  const preemptible_label_policy pol(s.yes);
  const auto results = select_on_each_node(s.c, p, pol);
  CHECK(victims_by_node(results) == victim_map{{"node2", {"v2"}}, {"node3", {"v3"}}});
  // Without the hook every node would be a candidate.
  CHECK(candidates(s.c, p).size() == 4);
  // The unlabeled pods are not potential victims at all: no victims, no fit check.
  CHECK(results[0].outcome.code() == preempt::status_code::unschedulable_and_unresolvable);
  CHECK(results[0].fit_checks == 0);
  // Selection among the candidates: node3's victim has the lower priority.
  const auto cands = candidates_of(results);
  const auto best = preempt::pick_best_candidate<pod>(cands);
  REQUIRE(best.index < cands.size());
  CHECK(cands[best.index].node_name == "node3");
}

TEST_CASE(
    "CS2 [TestCustomSelection/\"filter for matching pod label: mid priority\"]: preemptible=yes "
    "label, preemptor mid") {
  label_setup s;
  const pod p = s.c.make("p", mid, large());
  CHECK(candidates(s.c, p, preemptible_label_policy(s.yes)) == victim_map{{"node3", {"v3"}}});
}

TEST_CASE(
    "CS3 [TestCustomSelection/\"filter for matching pod label: low priority\"]: preemptible=yes "
    "label, preemptor low") {
  label_setup s;
  const pod p = s.c.make("p", low, large());
  CHECK(candidates(s.c, p, preemptible_label_policy(s.yes)).empty());
}

TEST_CASE(
    "CS4 [TestCustomSelection/\"filter for matching victim node: high priority\"]: victims on "
    "node1 only, preemptor high") {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2"), n3 = c.node("node3");
  c.add(n1, "v1", high, medium());
  c.add(n1, "v2", mid, small());
  c.add(n1, "v3", low, small());
  c.add(n2, "v4", mid, large());
  c.add(n3, "v5", low, large());
  const pod p = c.make("p", high, large());
  CHECK(candidates(c, p, node1_only_policy{}) == victim_map{{"node1", {"v2", "v3"}}});
  CHECK(candidates(c, p).size() == 3);
}

namespace {
named_cluster cs5_cluster() {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2"), n3 = c.node("node3");
  c.add(n1, "v1", high, small());
  c.add(n1, "v2", mid, small());
  c.add(n1, "v3", low, small());
  c.add(n2, "v4", mid, large());
  c.add(n3, "v5", low, large());
  return c;
}
}  // namespace

TEST_CASE(
    "CS5 [TestCustomSelection/\"filter for matching victim node: mid priority\"]: victims on node1 "
    "only, preemptor mid") {
  named_cluster c = cs5_cluster();
  const pod p = c.make("p", mid, large());
  CHECK(candidates(c, p, node1_only_policy{}) == victim_map{{"node1", {"v3"}}});
  CHECK(candidates(c, p) == victim_map{{"node1", {"v3"}}, {"node3", {"v5"}}});
}

TEST_CASE(
    "CS6 [TestCustomSelection/\"filter for matching victim node: low priority\"]: victims on node1 "
    "only, preemptor low") {
  named_cluster c = cs5_cluster();
  const pod p = c.make("p", low, large());
  CHECK(candidates(c, p, node1_only_policy{}).empty());
}

TEST_CASE(
    "CS7 [TestCustomSelection/\"only pods at or above specified priority can preempted: high "
    "priority\"]: preemptors of priority >= high only, preemptor high") {
  named_cluster c = one_per_node();
  const pod p = c.make("p", high, large());
  CHECK(candidates(c, p, high_preemptor_policy{}) ==
        victim_map{{"node2", {"v2"}}, {"node3", {"v3"}}});
}

TEST_CASE(
    "CS8 [TestCustomSelection/\"only pods at or above specified priority can preempted: mid "
    "priority\"]: preemptors of priority >= high only, preemptor mid") {
  named_cluster c = one_per_node();
  const pod p = c.make("p", mid, large());
  CHECK(candidates(c, p, high_preemptor_policy{}).empty());
  CHECK(candidates(c, p) == victim_map{{"node3", {"v3"}}});  // the hook made the difference
}

TEST_CASE(
    "CS9 [TestCustomSelection/\"only pods at or below specified priority can be preempted: high "
    "priority\"]: victims of priority <= mid only") {
  named_cluster c = one_per_node();
  SUBCASE("preemptor high") {
    const pod p = c.make("p", high, large());
    CHECK(candidates(c, p, mid_victim_policy{}) ==
          victim_map{{"node2", {"v2"}}, {"node3", {"v3"}}});
  }
  SUBCASE("preemptor very high: v1 (high) is lower but protected") {
    const pod p = c.make("p", very_high, large());
    CHECK(candidates(c, p, mid_victim_policy{}) ==
          victim_map{{"node2", {"v2"}}, {"node3", {"v3"}}});
    CHECK(candidates(c, p).size() == 3);
  }
}

// ---- Ordering hooks ----

namespace {

// The pod that started first is more important, whatever the priorities.
struct oldest_first_policy : preempt::default_policy {
  bool more_important(const pod& a, const pod& b) const {
    return preempt::start_time_or(a, current_time()) < preempt::start_time_or(b, current_time());
  }
};

// The alphabetically smaller name is more important.
struct alphabetical_policy : preempt::default_policy {
  explicit alphabetical_policy(const std::map<pod_id, std::string>& names) : pod_names(&names) {}
  bool more_important(const pod& a, const pod& b) const {
    return pod_names->at(a.uid()) < pod_names->at(b.uid());
  }
  const std::map<pod_id, std::string>* pod_names;
};

}  // namespace

TEST_CASE("CO1 [TestCustomOrdering/\"select newest pods\"]: oldest start is more important") {
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "v1", low, medium(), 2);
  c.add(n1, "v2", low, medium(), 0);
  c.add(n1, "v3", mid, medium(), 1);
  const pod p = c.make("p", high, large());
  // Order v2, v3, v1: v2 is reprieved, then neither fits.
  const auto r = select_on_each_node(c, p, oldest_first_policy{});
  CHECK(r[0].victims == name_list{"v3", "v1"});
  // The default order (v3, v2, v1) reprieves v3 instead.
  CHECK(select_on_each_node(c, p)[0].victims == name_list{"v2", "v1"});
}

TEST_CASE(
    "CO2 [TestCustomOrdering/\"select alphabetically-last pods\"]: alphabetical name is more "
    "important") {
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "foo", low, medium());
  c.add(n1, "bar", low, medium());
  c.add(n1, "baz", mid, medium());
  const pod p = c.make("p", high, large());
  // Order bar, baz, foo: bar is reprieved.
  const auto r = select_on_each_node(c, p, alphabetical_policy(c.pod_names));
  CHECK(r[0].victims == name_list{"baz", "foo"});
  CHECK(select_on_each_node(c, p)[0].victims == name_list{"foo", "bar"});
}

TEST_CASE("CO3 [ours]: with a custom order, victims come out in that order across budget groups") {
  // Alphabetical order; foo violates its budget and is reprieved first, but does not fit back.
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "foo", low, medium());
  c.add(n1, "bar", low, medium());
  c.add(n1, "baz", mid, medium());
  c.budget(0, {"foo"});
  const pod p = c.make("p", high, very_large());
  const auto r = select_on_each_node(c, p, alphabetical_policy(c.pod_names));
  CHECK(r[0].victims == name_list{"bar", "baz", "foo"});
  CHECK(r[0].violations == 1);
}

}  // namespace custom_hooks_test
