// model::resource_vector across its inline and heap storage (sizes crossing inline_dimensions
// both ways, copies and moves), and model::resource_pod's packed fields: what goes in through a
// pod_spec comes back out of the accessors and spec(), and the pod is one cache line.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "preempt/preempt.hpp"

namespace resource_layout_test {

namespace {

using preempt::model::pod_spec;
using preempt::model::resource_pod;
using preempt::model::resource_vector;
namespace resource = preempt::model::resource;

// Every amount through operator[] and data(): [0, n) as given, zero past it (data() up to at
// least inline_dimensions).
void check_amounts(const resource_vector& v, const std::vector<std::int64_t>& want) {
  REQUIRE(v.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(v[i] == want[i]);
    CHECK(v.data()[i] == want[i]);
  }
  for (std::size_t i = want.size(); i < resource_vector::inline_dimensions; ++i)
    CHECK(v.data()[i] == 0);
  CHECK(v[want.size() + 3] == 0);
}

}  // namespace

TEST_CASE("resource_vector keeps its amounts as it grows past four dimensions and shrinks back") {
  resource_vector v{1, 2, 3};
  check_amounts(v, {1, 2, 3});
  v.set(6, 7);  // onto the heap
  check_amounts(v, {1, 2, 3, 0, 0, 0, 7});
  v.resize(9);  // a bigger block
  v.set(8, 9);
  check_amounts(v, {1, 2, 3, 0, 0, 0, 7, 0, 9});
  v.resize(5);  // stays on the heap; dropped amounts read as zero when it grows again
  check_amounts(v, {1, 2, 3, 0, 0});
  v.resize(8);
  check_amounts(v, {1, 2, 3, 0, 0, 0, 0, 0});
  v.resize(2);  // back inline
  check_amounts(v, {1, 2});
  v.resize(4);
  check_amounts(v, {1, 2, 0, 0});
  v.resize(0);
  check_amounts(v, {});
}

TEST_CASE("resource_vector copies and moves either storage") {
  for (const std::size_t n : {std::size_t{3}, std::size_t{4}, std::size_t{5}, std::size_t{12}}) {
    CAPTURE(n);
    std::vector<std::int64_t> want(n);
    resource_vector v;
    for (std::size_t i = 0; i < n; ++i) {
      want[i] = static_cast<std::int64_t>(10 * i + 1);
      v.set(i, want[i]);
    }
    resource_vector copy(v);
    check_amounts(copy, want);
    check_amounts(v, want);
    CHECK(copy == v);

    resource_vector moved(std::move(copy));
    check_amounts(moved, want);
    check_amounts(copy, {});  // NOLINT(bugprone-use-after-move): moved-from is empty

    // Assignments between the two storages, in both directions.
    resource_vector small{5, 6};
    resource_vector big{1, 2, 3, 4, 5, 6};
    small = v;
    check_amounts(small, want);
    big = v;
    check_amounts(big, want);
    resource_vector into_small{5, 6}, into_big{1, 2, 3, 4, 5, 6};
    into_small = std::move(small);
    check_amounts(into_small, want);
    into_big = std::move(big);
    check_amounts(into_big, want);
    into_big = resource_vector{8};
    check_amounts(into_big, {8});
    into_small = resource_vector{1, 2, 3, 4, 5, 6, 7};
    check_amounts(into_small, {1, 2, 3, 4, 5, 6, 7});

    // Arithmetic over the shared dimensions only.
    resource_vector sum(v);
    sum.add(v);
    for (std::size_t i = 0; i < n; ++i) CHECK(sum[i] == 2 * want[i]);
    sum.subtract(v);
    CHECK(sum == v);
  }
}

TEST_CASE("resource_pod gives back every field of its spec") {
  using preempt::preemption_policy;
  for (const bool with_start : {false, true})
    for (const bool terminating : {false, true})
      for (const bool by_preemption : {false, true})
        for (const auto policy :
             {preemption_policy::preempt_lower_priority, preemption_policy::never}) {
          const pod_spec spec{.uid = 0xfedcba9876543210u,
                              .priority = -2'000'000'000,
                              .requests = {500, 1 << 20, 3, 0, 0, 2},
                              .start_time = with_start ? std::optional<std::int64_t>(-5)
                                                       : std::optional<std::int64_t>{},
                              .namespace_id = 0xffffffffu,
                              .terminating = terminating,
                              .terminating_by_preemption = by_preemption,
                              .preemption_policy = policy};
          const resource_pod p(spec);
          CHECK(p.uid() == spec.uid);
          CHECK(p.priority() == spec.priority);
          CHECK(p.start_time() == spec.start_time);
          CHECK(p.namespace_id() == spec.namespace_id);
          CHECK(p.terminating() == terminating);
          CHECK(p.terminating_by_preemption() == by_preemption);
          CHECK(p.preemption_policy() == policy);
          CHECK(p.requests() == spec.requests);
          const pod_spec back = p.spec();
          CHECK(back.uid == spec.uid);
          CHECK(back.priority == spec.priority);
          CHECK(back.requests == spec.requests);
          CHECK(back.start_time == spec.start_time);
          CHECK(back.namespace_id == spec.namespace_id);
          CHECK(back.terminating == terminating);
          CHECK(back.terminating_by_preemption == by_preemption);
          CHECK(back.preemption_policy == policy);
        }
  // A start time of zero is a start time; the pod slot is filled in when left at zero.
  const resource_pod zero({.uid = 1, .requests = {100}, .start_time = 0});
  CHECK(zero.start_time() == std::optional<std::int64_t>(0));
  CHECK(zero.requests()[resource::pods] == 1);
  CHECK(zero.spec().requests[resource::pods] == 1);
}

#if defined(__GNUC__)  // g++ and clang place the pod's flags in its requests' tail padding
TEST_CASE("resource_pod is one cache line") {
  CHECK(sizeof(resource_vector) == 40);
  CHECK(sizeof(resource_pod) == 64);
}
#endif

}  // namespace resource_layout_test
