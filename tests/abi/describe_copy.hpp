// tests/abi/describe_copy.hpp - what one copy of preempt says about itself, for the test that two
// copies of different minor versions link into one binary (this_version.cpp,
// other_minor_version.cpp). Each file includes this header with its own copy of the library
// (preempt/version.hpp decides which) and returns describe_this_copy() from its entry point.
//
// describe_this_copy() has internal linkage: each translation unit has its own, compiled against
// its own copy. Everything it reports is plain data or a type-erased function address, so the
// two files share no preempt type.
#ifndef PREEMPT_TESTS_ABI_DESCRIBE_COPY_HPP
#define PREEMPT_TESTS_ABI_DESCRIBE_COPY_HPP

#include <cstddef>
#include <string>

#include "preempt/preempt.hpp"

#define PREEMPT_TEST_STRINGIZE_(x) #x
#define PREEMPT_TEST_STRINGIZE(x) PREEMPT_TEST_STRINGIZE_(x)

namespace abi_test {

using any_function = void (*)();

struct copy_report {
  std::string abi_namespace;           // PREEMPT_ABI_NAMESPACE as text
  any_function to_string = nullptr;    // &preempt::to_string(decision_kind), an inline function
  any_function kept_before = nullptr;  // &preempt::model::kept_before, another one
  std::string nominated_node;          // the decision of a small preemption
  std::size_t victims = 0;
};

copy_report this_copy();   // this_version.cpp
copy_report other_copy();  // other_minor_version.cpp

namespace {

// Node a's pod is as important as the preemptor; node b's is less: preemption evicts it.
[[maybe_unused]] copy_report describe_this_copy() {
  using preempt::model::resource_pod;
  copy_report r;
  r.abi_namespace = PREEMPT_TEST_STRINGIZE(PREEMPT_ABI_NAMESPACE);
  std::string_view (*to_string)(preempt::decision_kind) noexcept = &preempt::to_string;
  r.to_string = reinterpret_cast<any_function>(to_string);
  r.kept_before = reinterpret_cast<any_function>(&preempt::model::kept_before);

  preempt::model::resource_cluster cluster;
  const auto a = cluster.add_node("node-a", {1000, 1000, 10});
  const auto b = cluster.add_node("node-b", {1000, 1000, 10});
  cluster.add_pod(
      a, resource_pod({.uid = 1, .priority = 10, .requests = {800, 100}, .start_time = 0}));
  cluster.add_pod(b,
                  resource_pod({.uid = 2, .priority = 0, .requests = {800, 100}, .start_time = 0}));
  const resource_pod preemptor(
      {.uid = 3, .priority = 10, .requests = {500, 100}, .start_time = {}});
  preempt::filter_statuses statuses(cluster.size(), preempt::status_code::unschedulable);
  preempt::evaluator<preempt::model::resource_cluster> evaluator;
  const auto& d = evaluator.evaluate(preemptor, cluster, statuses, preempt::no_budgets{},
                                     preempt::no_nominations{}, preempt::inline_executor{});
  r.nominated_node = std::string(d.node_name);
  r.victims = d.victims.size();
  return r;
}

}  // namespace
}  // namespace abi_test

#endif  // PREEMPT_TESTS_ABI_DESCRIBE_COPY_HPP
