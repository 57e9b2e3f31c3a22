// preempt::status: every reason kept, in order, however many (kube-scheduler's NodeResourcesFit
// lists each resource the node lacks); long lists interned once.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "preempt/status.hpp"

namespace status_test {

namespace {

std::vector<std::string_view> reasons_of(const preempt::status& s) {
  return {s.reasons().begin(), s.reasons().end()};
}

}  // namespace

TEST_CASE("status: a value, reasons in the order added") {
  static_assert(std::is_trivially_copyable_v<preempt::status>);
  preempt::status s = preempt::status::unschedulable("Too many pods");
  s.add_reason("Insufficient cpu");
  CHECK(s.code() == preempt::status_code::unschedulable);
  CHECK(s.reason() == "Too many pods");
  CHECK(reasons_of(s) == std::vector<std::string_view>{"Too many pods", "Insufficient cpu"});
  CHECK(reasons_of(preempt::status::ok()).empty());
  CHECK(preempt::status::ok().reason().empty());
}

TEST_CASE("status: more reasons than fit inline are all kept") {
  const std::vector<std::string_view> all{"Too many pods",
                                          "Insufficient cpu",
                                          "Insufficient memory",
                                          "Insufficient ephemeral-storage",
                                          "Insufficient example.com/fpga",
                                          "Insufficient example.com/gpu"};
  preempt::status s(preempt::status_code::unschedulable_and_unresolvable);
  for (std::string_view r : all) s.add_reason(r);
  CHECK(reasons_of(s) == all);
  CHECK(s.reason() == "Too many pods");
  const preempt::status copy = s;
  CHECK(copy == s);
  CHECK(reasons_of(copy) == all);

  preempt::status shorter(preempt::status_code::unschedulable_and_unresolvable);
  for (std::size_t i = 0; i + 1 < all.size(); ++i) shorter.add_reason(all[i]);
  CHECK_FALSE(shorter == s);
  CHECK(reasons_of(shorter) == std::vector<std::string_view>(all.begin(), all.end() - 1));
}

TEST_CASE("status: an interned list owns its texts and is shared by equal lists") {
  std::string fifth = "Insufficient example.com/fpga";
  preempt::status a(preempt::status_code::unschedulable);
  for (std::string_view r : {"a", "b", "c", "d"}) a.add_reason(r);
  a.add_reason(fifth);
  preempt::status b(preempt::status_code::unschedulable);
  for (std::string_view r : {"a", "b", "c", "d"}) b.add_reason(r);
  b.add_reason(fifth);
  CHECK(a.reasons().data() == b.reasons().data());  // one interned list
  fifth.assign("something else entirely, and long enough to move");
  CHECK(a.reasons()[4] == "Insufficient example.com/fpga");
}

}  // namespace status_test
