// preempt/model/resource_fit_state.hpp - a what-if node state that checks resources.
//
// Models preempt::node_state<resource_fit_state, model::pod>. It keeps the node's allocatable
// amounts and its requested sum, and updates the sum incrementally as pods are removed and added
// back. fits(p) reproduces the Kubernetes NodeResourcesFit rule: "Too many pods" when the pod slots
// are used up; then "Insufficient <resource>" for every dimension in which the pod requests more
// than zero and more than is left (cpu, memory, ephemeral storage, extended resources, in that
// order). Dimensions beyond the node's allocatable vector have zero allocatable.
//
// reset() points the state at a node again: O(d) for d dimensions, no allocation once the state
// has seen a node with as many dimensions. The allocatable vector and the resource names must
// outlive the state. No exceptions; one state per thread.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_MODEL_RESOURCE_FIT_STATE_HPP
#define PREEMPT_MODEL_RESOURCE_FIT_STATE_HPP

#include <algorithm>
#include <cstddef>

#include "preempt/config.hpp"
#include "preempt/model/pod.hpp"
#include "preempt/model/resources.hpp"
#include "preempt/node_state.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace model {

class resource_fit_state {
 public:
  resource_fit_state() = default;
  explicit resource_fit_state(const resource_names* names) noexcept : names_(names) {}
  resource_fit_state(const resource_vector& allocatable, const resource_vector& requested,
                     const resource_names* names = nullptr)
      : names_(names) {
    reset(allocatable, requested);
  }

  // Starts over on a node with these allocatable amounts and this sum of requests.
  void reset(const resource_vector& allocatable, const resource_vector& requested) {
    allocatable_ = &allocatable;
    requested_.resize(std::max(allocatable.size(), resource::first_extended));
    for (std::size_t i = 0; i < requested_.size(); ++i) requested_.set(i, requested[i]);
  }

  status remove_pod(const pod& p) noexcept {
    requested_.accumulate(p.requests(), -1);
    return status::ok();
  }
  status add_pod(const pod& p) noexcept {
    requested_.accumulate(p.requests(), 1);
    return status::ok();
  }

  status fits(const pod& p) const noexcept {
    PREEMPT_ASSERT(allocatable_ != nullptr, "resource_fit_state::fits before reset");
    const resource_vector& want = p.requests();
    const resource_vector& have = *allocatable_;
    status result;
    const auto short_in = [&](std::size_t d) {
      return want[d] > 0 && want[d] > have[d] - requested_[d];
    };
    const auto report = [&](std::size_t d) {
      if (result.is_success()) result = status(status_code::unschedulable);
      result.add_reason(resource_names::insufficient_reason(names_, d));
    };
    if (requested_[resource::pods] + 1 > have[resource::pods]) report(resource::pods);
    for (std::size_t d = 0; d < want.size(); ++d)
      if (d != resource::pods && short_in(d)) report(d);
    return result;
  }

  // The current sum of requests (for diagnostics and tests).
  const resource_vector& requested() const noexcept { return requested_; }

 private:
  const resource_vector* allocatable_ = nullptr;
  resource_vector requested_;
  const resource_names* names_ = nullptr;
};

static_assert(preempt::node_state<resource_fit_state, pod>);

}  // namespace model
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_MODEL_RESOURCE_FIT_STATE_HPP
