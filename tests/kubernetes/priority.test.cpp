// Priority resolution (the Priority admission plugin): spec.priority, the named class, the global
// default class, else 0; the preemption policy from the pod, else from its class.
#include <doctest/doctest.h>

#include <vector>

#include "preempt/kubernetes/priority.hpp"

namespace priority_test {

namespace k8s = preempt::kubernetes;
using preempt::preemption_policy;

namespace {
const std::vector<k8s::priority_class> classes = {
    {"low", 10, false, preemption_policy::never},
    {"default-b", 500, true, std::nullopt},
    {"default-a", 300, true, preemption_policy::never},
    {"high", 1000, false, std::nullopt},
};
}  // namespace

TEST_CASE("kubernetes priority: spec.priority wins") {
  auto r = k8s::resolve_priority({.priority = 7, .priority_class_name = "high"}, classes);
  REQUIRE(r.ok());
  CHECK(r->priority == 7);
  CHECK(r->class_name.empty());
  CHECK(r->policy == preemption_policy::preempt_lower_priority);
}

TEST_CASE("kubernetes priority: the named class") {
  auto r = k8s::resolve_priority({.priority_class_name = "high"}, classes);
  REQUIRE(r.ok());
  CHECK(r->priority == 1000);
  CHECK(r->class_name == "high");
  CHECK(r->policy == preemption_policy::preempt_lower_priority);
  // The class's policy applies when the pod sets none; the pod's own wins.
  CHECK(k8s::resolve_priority({.priority_class_name = "low"}, classes)->policy ==
        preemption_policy::never);
  CHECK(k8s::resolve_priority(
            {.priority_class_name = "low", .policy = preemption_policy::preempt_lower_priority},
            classes)
            ->policy == preemption_policy::preempt_lower_priority);
}

TEST_CASE("kubernetes priority: the global default class, the lowest of several") {
  auto r = k8s::resolve_priority({}, classes);
  REQUIRE(r.ok());
  CHECK(r->priority == 300);
  CHECK(r->class_name == "default-a");
  CHECK(r->policy == preemption_policy::never);
}

TEST_CASE("kubernetes priority: no class at all is 0") {
  auto r = k8s::resolve_priority({}, {});
  REQUIRE(r.ok());
  CHECK(r->priority == 0);
  CHECK(r->policy == preemption_policy::preempt_lower_priority);
  CHECK(k8s::resolve_priority({.policy = preemption_policy::never}, {})->policy ==
        preemption_policy::never);
}

TEST_CASE("kubernetes priority: unknown classes") {
  auto r = k8s::resolve_priority({.priority_class_name = "missing"}, classes);
  REQUIRE_FALSE(r.ok());
  CHECK(r.message() == "no PriorityClass with name \"missing\" was found");
  // With spec.priority already set (an admitted pod), the value stands.
  CHECK(
      k8s::resolve_priority({.priority = 5, .priority_class_name = "missing"}, classes)->priority ==
      5);
  // The system classes always exist.
  CHECK(k8s::resolve_priority({.priority_class_name = "system-node-critical"}, {})->priority ==
        2000001000);
  CHECK(k8s::resolve_priority({.priority_class_name = "system-cluster-critical"}, {})->priority ==
        2000000000);
}

TEST_CASE("kubernetes priority: policy names") {
  CHECK(*k8s::parse_preemption_policy("Never") == preemption_policy::never);
  CHECK(*k8s::parse_preemption_policy("PreemptLowerPriority") ==
        preemption_policy::preempt_lower_priority);
  CHECK(k8s::parse_preemption_policy("never").message() ==
        "invalid preemption policy \"never\": must be PreemptLowerPriority or Never");
}

}  // namespace priority_test
