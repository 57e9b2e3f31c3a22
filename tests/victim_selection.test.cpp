// Victim selection on one node: upstream DryRunPreemption/SelectVictimsOnNode scenarios (spec 7.2)
// that involve one node at a time, run node by node.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/fixtures.hpp"

namespace {

using namespace fx;
using preempt::status_code;

struct node_result {
  preempt::status outcome;
  std::vector<std::string> victims;
  std::int64_t violations = 0;
};

// Runs select_victims on every node of the cluster with the default model.
std::vector<node_result> select_on_each_node(const named_cluster& c, const pod& preemptor) {
  std::vector<node_result> out;
  preempt::victim_scratch<pod> scratch;
  preempt::model::resource_fit_state state;
  for (std::size_t i = 0; i < c.cluster.size(); ++i) {
    c.cluster.state_of(i, state);
    const auto r = preempt::select_victims(preemptor, c.cluster[i], state, c.budgets, scratch);
    out.push_back({r.outcome, c.names(r.victims), r.pdb_violations});
  }
  return out;
}

}  // namespace

TEST_CASE("DR4: both nodes are candidates after preempting their mid pod") {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2");
  c.add(n1, "p1", mid, large());
  c.add(n2, "p2", mid, large());
  const pod p = c.make("p", high, large());
  const auto r = select_on_each_node(c, p);
  CHECK(r[0].victims == std::vector<std::string>{"p1"});
  CHECK(r[1].victims == std::vector<std::string>{"p2"});
  CHECK(r[0].violations == 0);
}

TEST_CASE("DR5: running pods of higher priority are never victims") {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2");
  c.add(n1, "p1", mid, large());
  c.add(n2, "p2", mid, large());
  const pod p = c.make("p", low, large());
  for (const auto& r : select_on_each_node(c, p)) {
    CHECK(r.outcome.code() == status_code::unschedulable_and_unresolvable);
    CHECK(r.outcome.reason() == "No preemption victims found for incoming pod");
  }
}

TEST_CASE("DR7: mixed priorities; the high pod stays, the small ones go in importance order") {
  named_cluster c;
  const auto n1 = c.node("node1"), n2 = c.node("node2");
  c.add(n1, "p1.1", mid, small());
  c.add(n1, "p1.2", low, small());
  c.add(n1, "p1.3", mid, medium());
  c.add(n1, "p1.4", high, small());
  c.add(n2, "p2", high, large());
  const pod p = c.make("p", high, large());
  const auto r = select_on_each_node(c, p);
  CHECK(r[0].outcome.is_success());
  CHECK(r[0].victims == std::vector<std::string>{"p1.3", "p1.2"});
  CHECK(r[1].outcome.code() == status_code::unschedulable_and_unresolvable);
}

TEST_CASE("DR12: two pods of one budget allowing one disruption: one violation") {
  named_cluster c;
  const auto n1 = c.node("node1");
  c.add(n1, "p1.1", mid, medium());
  c.add(n1, "p1.2", mid, medium());
  c.budget(1, {"p1.1", "p1.2"});
  const pod p = c.make("p", high, very_large());
  const auto r = select_on_each_node(c, p);
  CHECK(r[0].victims == std::vector<std::string>{"p1.1", "p1.2"});
  CHECK(r[0].violations == 1);
}
