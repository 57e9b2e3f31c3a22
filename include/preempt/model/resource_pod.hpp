// preempt/model/resource_pod.hpp - a ready pod type for callers without their own.
//
// `model::resource_pod` models preempt::pod. Build it from a `pod_spec` with designated
// initializers:
//   model::resource_pod p({.uid = 7, .priority = 100, .requests = {500, 1 << 20}, .start_time =
//   42});
// Every pod occupies one pod slot: the constructor sets requests[resource::pods] to 1 when the
// spec leaves it at zero. Names are not stored (they cost memory on every pod); keep them beside
// the cluster, keyed by uid, when you need them.
//
// Allocation: only through resource_vector (more than four dimensions). No exceptions.
// Size: 64 bytes with g++ and clang (one cache line; the pod's fields are stored packed, and
// spec() rebuilds the spec from them).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_MODEL_RESOURCE_POD_HPP
#define PREEMPT_MODEL_RESOURCE_POD_HPP

#include <cstdint>
#include <optional>
#include <utility>

#include "preempt/config.hpp"
#include "preempt/model/resources.hpp"
#include "preempt/pod.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace model {

using pod_id = std::uint64_t;

struct pod_spec {
  pod_id uid = 0;
  std::int32_t priority = 0;
  resource_vector requests;
  std::optional<timestamp> start_time;
  std::uint32_t namespace_id = 0;  // budgets apply within one namespace
  bool terminating = false;        // deletionTimestamp is set
  bool terminating_by_preemption = false;
  preempt::preemption_policy preemption_policy = preempt::preemption_policy::preempt_lower_priority;
};

class resource_pod {
 public:
  explicit resource_pod(pod_spec spec)
      : uid_(spec.uid),
        priority_(spec.priority),
        namespace_id_(spec.namespace_id),
        start_(spec.start_time.value_or(0)),
        requests_(std::move(spec.requests)),
        flags_(static_cast<std::uint8_t>(
            (spec.start_time ? has_start : 0) | (spec.terminating ? is_terminating : 0) |
            (spec.terminating_by_preemption ? is_terminating_by_preemption : 0))),
        policy_(spec.preemption_policy) {
    if (requests_[resource::pods] == 0) requests_.set(resource::pods, 1);
  }

  pod_id uid() const noexcept { return uid_; }
  std::int32_t priority() const noexcept { return priority_; }
  std::optional<timestamp> start_time() const noexcept {
    return (flags_ & has_start) != 0 ? std::optional<timestamp>(start_) : std::nullopt;
  }
  bool terminating() const noexcept { return (flags_ & is_terminating) != 0; }
  bool terminating_by_preemption() const noexcept {
    return (flags_ & is_terminating_by_preemption) != 0;
  }
  preempt::preemption_policy preemption_policy() const noexcept { return policy_; }
  std::uint32_t namespace_id() const noexcept { return namespace_id_; }
  const resource_vector& requests() const noexcept { return requests_; }
  // The spec this pod was built from (requests[resource::pods] set as the constructor sets it).
  pod_spec spec() const {
    return {.uid = uid_,
            .priority = priority_,
            .requests = requests_,
            .start_time = start_time(),
            .namespace_id = namespace_id_,
            .terminating = terminating(),
            .terminating_by_preemption = terminating_by_preemption(),
            .preemption_policy = preemption_policy()};
  }

 private:
  static constexpr std::uint8_t has_start = 1, is_terminating = 2, is_terminating_by_preemption = 4;
  // One cache line: what a walk over a node's pods reads (priority, start, requests) sits
  // together, and the flags and the policy fill the requests' tail padding.
  pod_id uid_;
  std::int32_t priority_;
  std::uint32_t namespace_id_;
  timestamp start_;  // meaningful with has_start
  [[no_unique_address]] resource_vector requests_;
  std::uint8_t flags_;
  preempt::preemption_policy policy_;
};

static_assert(pod<resource_pod>);

}  // namespace model
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_MODEL_RESOURCE_POD_HPP
