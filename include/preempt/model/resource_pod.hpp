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
  explicit resource_pod(pod_spec spec) : spec_(std::move(spec)) {
    if (spec_.requests[resource::pods] == 0) spec_.requests.set(resource::pods, 1);
  }

  pod_id uid() const noexcept { return spec_.uid; }
  std::int32_t priority() const noexcept { return spec_.priority; }
  std::optional<timestamp> start_time() const noexcept { return spec_.start_time; }
  bool terminating() const noexcept { return spec_.terminating; }
  bool terminating_by_preemption() const noexcept { return spec_.terminating_by_preemption; }
  preempt::preemption_policy preemption_policy() const noexcept { return spec_.preemption_policy; }
  std::uint32_t namespace_id() const noexcept { return spec_.namespace_id; }
  const resource_vector& requests() const noexcept { return spec_.requests; }
  const pod_spec& spec() const noexcept { return spec_; }

 private:
  pod_spec spec_;
};

static_assert(pod<resource_pod>);

}  // namespace model
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_MODEL_RESOURCE_POD_HPP
