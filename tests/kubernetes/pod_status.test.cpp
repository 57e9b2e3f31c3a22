// Pod lifecycle facts: RFC 3339 times, termination because of preemption, terminal phases.
#include <doctest/doctest.h>

#include <vector>

#include "preempt/kubernetes/pod_status.hpp"

namespace pod_status_test {

namespace k8s = preempt::kubernetes;

TEST_CASE("kubernetes pod status: RFC 3339 times") {
  CHECK(*k8s::parse_time("1970-01-01T00:00:00Z") == 0);
  CHECK(*k8s::parse_time("1970-01-01T00:00:00.000000001Z") == 1);
  CHECK(*k8s::parse_time("1970-01-01T00:00:01.5Z") == 1'500'000'000);
  CHECK(*k8s::parse_time("1970-01-01T01:00:00+01:00") == 0);
  CHECK(*k8s::parse_time("1969-12-31T23:00:00-01:00") == 0);
  CHECK(*k8s::parse_time("2024-05-01T10:00:05Z") == 1714557605LL * 1'000'000'000);
  CHECK(*k8s::parse_time("2024-02-29T00:00:00z") == 1709164800LL * 1'000'000'000);
  CHECK(*k8s::parse_time("2000-03-01t00:00:00Z") == 951868800LL * 1'000'000'000);
  // Digits beyond nanoseconds are dropped.
  CHECK(*k8s::parse_time("1970-01-01T00:00:00.1234567891Z") == 123456789);
  for (const char* bad :
       {"", "2024-05-01", "2024-05-01T10:00:05", "2024-05-01 10:00:05Z", "2023-02-29T00:00:00Z",
        "2024-13-01T00:00:00Z", "2024-04-31T00:00:00Z", "2024-05-01T24:00:00Z",
        "2024-05-01T10:00:05.Z", "2024-05-01T10:00:05+0100", "2024-05-01T10:00:05Zjunk",
        "1600-01-01T00:00:00Z", "2300-01-01T00:00:00Z", "x024-05-01T10:00:05Z"}) {
    CAPTURE(bad);
    auto t = k8s::parse_time(bad);
    CHECK_FALSE(t.ok());
    CHECK(t.message().find(std::string("\"") + bad + "\"") != std::string::npos);
  }
}

TEST_CASE("kubernetes pod status: terminating because of preemption") {
  const std::vector<k8s::pod_condition> preempted = {
      {"Ready", "True", ""}, {"DisruptionTarget", "True", "PreemptionByScheduler"}};
  CHECK(k8s::terminating_by_preemption(true, preempted));
  CHECK_FALSE(k8s::terminating_by_preemption(false, preempted));  // no deletionTimestamp
  CHECK_FALSE(k8s::terminating_by_preemption(
      true,
      std::vector<k8s::pod_condition>{{"DisruptionTarget", "True", "EvictionByEvictionAPI"}}));
  CHECK_FALSE(k8s::terminating_by_preemption(
      true,
      std::vector<k8s::pod_condition>{{"DisruptionTarget", "False", "PreemptionByScheduler"}}));
  CHECK_FALSE(k8s::terminating_by_preemption(true, {}));
}

TEST_CASE("kubernetes pod status: terminal phases") {
  CHECK(k8s::is_terminal_phase("Succeeded"));
  CHECK(k8s::is_terminal_phase("Failed"));
  CHECK_FALSE(k8s::is_terminal_phase("Running"));
  CHECK_FALSE(k8s::is_terminal_phase("Pending"));
  CHECK_FALSE(k8s::is_terminal_phase(""));
}

}  // namespace pod_status_test
