// preempt::diagnosis_view (a decision's diagnosis: an entry per node naming one of the distinct
// outcomes, each counted) and failure_message's FitError and aggregate texts read from it.
#include <doctest/doctest.h>

#include <concepts>
#include <cstddef>
#include <iterator>
#include <ranges>
#include <string>
#include <string_view>
#include <vector>

#include "preempt/decision.hpp"
#include "preempt/failure_message.hpp"
#include "preempt/status.hpp"

namespace diagnosis_view_test {

namespace {

using preempt::diagnosis_view;
using preempt::status;

struct named {
  std::string name_;
  std::string_view name() const { return name_; }
};

}  // namespace

TEST_CASE("diagnosis_view: element i is node i's index and outcome, in order") {
  const std::vector<status> outcomes{status::unschedulable("Insufficient cpu"), status::ok()};
  const std::vector<std::size_t> counts{2, 1};
  const std::vector<diagnosis_view::entry> entries{{7, 0}, {3, 1}, {5, 0}};
  const diagnosis_view d(entries, outcomes, counts);
  REQUIRE(d.size() == 3);
  CHECK(!d.empty());
  CHECK(d[1].node_index == 3);
  CHECK(d[1].outcome.is_success());
  CHECK(d.front().node_index == 7);
  CHECK(d.back().node_index == 5);
  CHECK(d.back().outcome.reason() == "Insufficient cpu");
  std::vector<std::size_t> nodes;
  for (const preempt::node_diagnosis& n : d) nodes.push_back(n.node_index);
  CHECK(nodes == std::vector<std::size_t>{7, 3, 5});
  CHECK(d.end() - d.begin() == 3);  // random access (libc++ 14 has no ranges::distance)
  CHECK((*(d.begin() + 2)).node_index == 5);
  CHECK(d.begin()[1].node_index == 3);
  CHECK(diagnosis_view{}.empty());
}

// A member-pointer projection over the view's elements would read a temporary (the elements are
// made on access): the elements are references, so such a projection does not compile, and a
// lambda's result refers into the view's storage.
template <class Reference>
concept member_projectable =
    std::invocable<decltype(&preempt::node_diagnosis::outcome), Reference> ||
    std::invocable<decltype(&preempt::node_diagnosis::node_index), Reference>;
static_assert(!member_projectable<std::ranges::range_reference_t<diagnosis_view>>);
static_assert(member_projectable<preempt::node_diagnosis>);  // the check can fire
static_assert(
    std::convertible_to<std::ranges::range_reference_t<diagnosis_view>, preempt::node_diagnosis>);

TEST_CASE("diagnosis_view: elements refer into the storage and convert to node_diagnosis") {
  const std::vector<status> outcomes{status::unschedulable("Insufficient cpu"), status::ok()};
  const std::vector<std::size_t> counts{1, 1};
  const std::vector<diagnosis_view::entry> entries{{7, 0}, {3, 1}};
  const diagnosis_view d(entries, outcomes, counts);
  const auto first = d[0];
  CHECK(&first.outcome == &outcomes[0]);
  CHECK(&first.node_index == &entries[0].node_index);
  const status& projected = [](auto n) -> const status& { return n.outcome; }(*d.begin());
  CHECK(&projected == &outcomes[0]);
  const preempt::node_diagnosis copy = d[1];
  CHECK(copy.node_index == 3);
  CHECK(copy.outcome.is_success());
  std::vector<preempt::node_diagnosis> all(d.begin(), d.end());
  REQUIRE(all.size() == 2);
  CHECK(all[0].outcome.reason() == "Insufficient cpu");
}

TEST_CASE("failure_message: FitError counts each distinct outcome's nodes, duplicates merged") {
  status both = status::unschedulable("Insufficient cpu");
  both.add_reason("Insufficient memory");
  // The same outcome twice among the distinct ones (interned against recent outcomes only).
  const std::vector<status> outcomes{status::unschedulable("Insufficient cpu"), both,
                                     status::unschedulable("Insufficient cpu"), status::ok(),
                                     status::unresolvable("No preemption victims found")};
  const std::vector<std::size_t> counts{2, 1, 3, 1, 2};
  std::vector<diagnosis_view::entry> entries;
  for (std::size_t k = 0; k < outcomes.size(); ++k)
    for (std::size_t i = 0; i < counts[k]; ++i) entries.push_back({entries.size(), k});
  preempt::failure_message m;
  CHECK(m.fit_error(diagnosis_view(entries, outcomes, counts), 12) ==
        "preemption: 0/12 nodes are available: 1 Insufficient memory, 2 No preemption victims "
        "found, 4 Preemption is not helpful for scheduling, 6 Insufficient cpu.");
  CHECK(m.fit_error(diagnosis_view{}, 2) ==
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
}

TEST_CASE("failure_message: the aggregate of errors in node order, the zero-victims one named") {
  const std::vector<status> outcomes{status::error("boom"), status::ok(),
                                     status::error(preempt::zero_victims_reason)};
  const std::vector<std::size_t> counts{2, 1, 1};
  const std::vector<diagnosis_view::entry> entries{{2, 2}, {0, 0}, {1, 1}, {3, 0}};
  const std::vector<named> nodes{{"a"}, {"b"}, {"c"}, {"d"}};
  preempt::failure_message m;
  CHECK(m.aggregate_error(diagnosis_view(entries, outcomes, counts), nodes) ==
        "preemption: [expected at least one victim pod on node \"c\", boom]");
}

}  // namespace diagnosis_view_test
