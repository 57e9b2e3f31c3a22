// tests/support/pods.hpp - the one builder of model pods for tests.
//
//   fx::make_pod(uid, priority)                      requests 100m cpu / 100 bytes, start time 0
//   fx::make_pod(uid, priority, {.terminating = true, .terminating_by_preemption = true})
// pod_options says how a pod differs from that default (designated initializers, in declaration
// order): requests, start time (std::nullopt: none), namespace, and whether it is terminating
// (a deletion timestamp), by preemption or not (the DisruptionTarget condition).
#ifndef PREEMPT_TESTS_SUPPORT_PODS_HPP
#define PREEMPT_TESTS_SUPPORT_PODS_HPP

#include <cstdint>
#include <optional>
#include <utility>

#include "preempt/model/resource_pod.hpp"

namespace fx {

struct pod_options {
  preempt::model::resource_vector requests{100, 100};
  std::optional<preempt::timestamp> start_time = 0;
  std::uint32_t namespace_id = 0;
  bool terminating = false;
  bool terminating_by_preemption = false;
};

inline preempt::model::resource_pod make_pod(preempt::model::pod_id uid, std::int32_t priority,
                                             pod_options o = {}) {
  return preempt::model::resource_pod({.uid = uid,
                                       .priority = priority,
                                       .requests = std::move(o.requests),
                                       .start_time = o.start_time,
                                       .namespace_id = o.namespace_id,
                                       .terminating = o.terminating,
                                       .terminating_by_preemption = o.terminating_by_preemption});
}

}  // namespace fx

#endif  // PREEMPT_TESTS_SUPPORT_PODS_HPP
