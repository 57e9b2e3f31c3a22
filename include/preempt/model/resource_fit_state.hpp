// preempt/model/resource_fit_state.hpp - a what-if node state that checks resources.
//
// Models preempt::node_state<resource_fit_state, model::resource_pod>. It keeps the node's
// allocatable amounts and its requested sum, and updates the sum incrementally as pods are removed
// and added back. fits(p) reproduces the Kubernetes NodeResourcesFit rule: "Too many pods" when the
// pod slots are used up; then "Insufficient <resource>" for every dimension in which the pod
// requests more than zero and more than is left (cpu, memory, ephemeral storage, extended
// resources, in that order). Dimensions beyond the node's allocatable vector have zero allocatable.
//
// reset() points the state at a node again: O(d) for d dimensions, no allocation once the state
// has seen a node with as many dimensions. Given the node's priority_summary as well, the state
// offers remove_lower_priority_pods(q) (the optional member of preempt::node_state): the node's
// pods of priority below q removed at once in O(log k + d), valid only as the first change after
// reset (a remove_pod or add_pod before it, e.g. a view hiding pods, turns it off: it then
// answers nullopt and the caller removes the pods one by one). The allocatable vector, the
// summary and the resource names must outlive the state. No exceptions; one state per thread.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_MODEL_RESOURCE_FIT_STATE_HPP
#define PREEMPT_MODEL_RESOURCE_FIT_STATE_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "preempt/config.hpp"
#include "preempt/model/priority_summary.hpp"
#include "preempt/model/resource_pod.hpp"
#include "preempt/model/resources.hpp"
#include "preempt/node_state.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace model {

namespace detail {

constexpr status single_shortage_status(status_code code, std::size_t d) noexcept {
  return {code, resource_names::insufficient_reason(nullptr, d)};
}

// resource_fit_state's statuses for one short standard dimension, [beyond the allocatable
// amount][dimension] (the pods column is never used).
inline constexpr status single_shortage[2][resource::first_extended] = {
    {single_shortage_status(status_code::unschedulable, 0),
     single_shortage_status(status_code::unschedulable, 1),
     single_shortage_status(status_code::unschedulable, 2),
     single_shortage_status(status_code::unschedulable, 3)},
    {single_shortage_status(status_code::unschedulable_and_unresolvable, 0),
     single_shortage_status(status_code::unschedulable_and_unresolvable, 1),
     single_shortage_status(status_code::unschedulable_and_unresolvable, 2),
     single_shortage_status(status_code::unschedulable_and_unresolvable, 3)}};

}  // namespace detail

class resource_fit_state {
 public:
  resource_fit_state() = default;
  explicit resource_fit_state(const resource_names* names) noexcept : names_(names) {}
  resource_fit_state(const resource_vector& allocatable, const resource_vector& requested,
                     const resource_names* names = nullptr)
      : names_(names) {
    reset(allocatable, requested);
  }

  // Starts over on a node with these allocatable amounts and this sum of requests; `lower`, when
  // given, summarizes the same pods by priority (see remove_lower_priority_pods).
  void reset(const resource_vector& allocatable, const resource_vector& requested,
             const priority_summary* lower = nullptr) {
    allocatable_ = &allocatable;
    lower_ = lower;
    requested_.resize(std::max(allocatable.size(), resource::first_extended));
    std::int64_t* used = requested_.data();
    const std::size_t n = std::min(requested_.size(), requested.size());
    std::copy(requested.data(), requested.data() + n, used);
    std::fill(used + n, used + requested_.size(), 0);
  }

  status remove_pod(const resource_pod& p) noexcept {
    lower_ = nullptr;  // the summary no longer describes the pods counted here
    requested_.subtract(p.requests());
    return status::ok();
  }
  status add_pod(const resource_pod& p) noexcept {
    lower_ = nullptr;
    requested_.add(p.requests());
    return status::ok();
  }

  // Removes every pod of the node with a priority below q at once and returns how many there
  // were; nullopt (and no change) when the state has no summary or has changed since reset.
  std::optional<std::size_t> remove_lower_priority_pods(std::int32_t q) noexcept {
    if (lower_ == nullptr) return std::nullopt;
    const priority_summary::lower below = lower_->below(q);
    lower_ = nullptr;
    if (below.requests != nullptr) requested_.subtract(*below.requests);
    return below.pods;
  }

  // fits() without the reasons.
  bool can_fit(const resource_pod& p) const noexcept {
    PREEMPT_ASSERT(allocatable_ != nullptr, "resource_fit_state::can_fit before reset");
    return !short_anywhere(p.requests());
  }

  status fits(const resource_pod& p) const noexcept {
    PREEMPT_ASSERT(allocatable_ != nullptr, "resource_fit_state::fits before reset");
    if (!short_anywhere(p.requests())) return status::ok();
    return shortage(p.requests());
  }

  // The current sum of requests (for diagnostics and tests).
  const resource_vector& requested() const noexcept { return requested_; }

 private:
  bool short_in(const resource_vector& want, std::size_t d) const noexcept {
    return want[d] > 0 && want[d] > (*allocatable_)[d] - requested_[d];
  }

  // The hot path of the reprieve loop: raw arrays, no reason strings. requested_ has at least
  // as many dimensions as the allocatable vector, so past requested_.size() both are zero.
  bool short_anywhere(const resource_vector& want) const noexcept {
    const std::int64_t* w = want.data();
    const std::int64_t* have = allocatable_->data();
    const std::int64_t* used = requested_.data();
    const std::size_t n_have = allocatable_->size();
    const std::size_t n_used = requested_.size();
    if (used[resource::pods] + 1 > (resource::pods < n_have ? have[resource::pods] : 0))
      return true;
    const std::size_t n = want.size();
    for (std::size_t d = 0; d < n; ++d) {
      if (d == resource::pods || w[d] <= 0) continue;
      const std::int64_t left = (d < n_have ? have[d] : 0) - (d < n_used ? used[d] : 0);
      if (w[d] > left) return true;
    }
    return false;
  }

  // The reasons, in upstream order: pod slots first, then each short dimension.
  // UnschedulableAndUnresolvable when a short dimension's request exceeds the node's whole
  // allocatable amount (upstream's fitsRequest: no eviction can make room).
  // The common answer, one short standard dimension and free pod slots, is copied whole from a
  // table built at compile time: it is not assembled field by field in the caller's storage,
  // which would make the caller's copies of it wait on partial stores.
  [[gnu::noinline]] status shortage(const resource_vector& want) const noexcept {
    bool beyond = false;
    std::size_t short_count = 0, short_dimension = 0;
    for (std::size_t d = 0; d < want.size(); ++d)
      if (d != resource::pods && short_in(want, d)) {
        ++short_count;
        short_dimension = d;
        if (want[d] > (*allocatable_)[d]) beyond = true;
      }
    const bool pods_short = requested_[resource::pods] + 1 > (*allocatable_)[resource::pods];
    if (short_count == 1 && !pods_short && short_dimension < resource::first_extended)
      return model::detail::single_shortage[beyond ? 1 : 0][short_dimension];
    status result(beyond ? status_code::unschedulable_and_unresolvable
                         : status_code::unschedulable);
    if (pods_short) result.add_reason(resource_names::insufficient_reason(names_, resource::pods));
    for (std::size_t d = 0; d < want.size(); ++d)
      if (d != resource::pods && short_in(want, d))
        result.add_reason(resource_names::insufficient_reason(names_, d));
    return result;
  }

  const resource_vector* allocatable_ = nullptr;
  const priority_summary* lower_ = nullptr;
  resource_vector requested_;
  const resource_names* names_ = nullptr;
};

static_assert(node_state<resource_fit_state, resource_pod>);

}  // namespace model
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_MODEL_RESOURCE_FIT_STATE_HPP
