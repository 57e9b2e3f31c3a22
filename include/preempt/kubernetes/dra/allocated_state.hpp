// preempt/kubernetes/dra/allocated_state.hpp - the devices a cluster's ResourceClaims hold, as
// kube-scheduler's structured allocator reads them (upstream's AllocatedState), and the small
// types of an allocation: a device's identity, the node allocated for, the outcome.
//
// allocated_state gathers every claim's status.allocation (add, then finish): devices allocated
// to one claim (dedicated), devices shared by allocations with a shareID (consumable capacity),
// and the capacity those shares consume, summed per device. Devices allocated with admin access
// do not count. allocated(id) is upstream's IsDeviceAllocated.
//
// Complexity: add O(devices of the claim); finish O(n log n); lookups O(log n). Allocation: the
// devices' names. No exceptions; const lookups are thread-safe once finish() has returned.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_DRA_ALLOCATED_STATE_HPP
#define PREEMPT_KUBERNETES_DRA_ALLOCATED_STATE_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/dra/amount.hpp"
#include "preempt/kubernetes/dra/objects.hpp"
#include "preempt/kubernetes/labels.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes::dra {

// resourceapi.AllocationResultsMaxSize: devices per claim.
inline constexpr std::size_t allocation_results_max_size = 32;

// A device's identity: driver, pool, name.
struct device_id {
  std::string_view driver, pool, device;
  friend bool operator==(const device_id& a, const device_id& b) noexcept {
    return a.driver == b.driver && a.pool == b.pool && a.device == b.device;
  }
  friend bool operator<(const device_id& a, const device_id& b) noexcept {
    return std::tie(a.driver, a.pool, a.device) < std::tie(b.driver, b.pool, b.device);
  }
};

// Capacity consumed per capacity name.
using consumed_capacity = std::vector<std::pair<std::string, amount>>;

namespace detail {

inline void add_capacity(consumed_capacity& into, const consumed_capacity& what) {
  for (const auto& entry : what) {
    auto it = std::find_if(into.begin(), into.end(),
                           [&](const auto& e) { return e.first == entry.first; });
    if (it == into.end())
      into.push_back(entry);
    else
      it->second = add(it->second, entry.second).value_or(it->second);
  }
}

inline amount capacity_of(const consumed_capacity* c, std::string_view name) {
  if (c == nullptr) return {};
  for (const auto& [n, q] : *c)
    if (n == name) return q;
  return {};
}

}  // namespace detail

// The devices allocated in the cluster (upstream's AllocatedState, from every claim's
// status.allocation): dedicated devices, devices shared by allocations with a shareID, and the
// capacity those consume. Devices allocated with admin access do not count.
class allocated_state {
 public:
  void add(const resource_claim& claim) {
    if (!claim.allocation) return;
    for (const allocated_device& d : claim.allocation->devices) {
      if (d.admin_access.value_or(false)) continue;
      key k{d.driver, d.pool, d.device};
      if (!d.share_id) {
        dedicated_.push_back(std::move(k));
        continue;
      }
      shared_.push_back(k);
      if (d.consumed_capacity) capacity_.emplace_back(std::move(k), *d.consumed_capacity);
    }
  }
  // Sorts what add() gathered; call before use.
  void finish() {
    std::sort(dedicated_.begin(), dedicated_.end());
    std::sort(shared_.begin(), shared_.end());
    std::sort(capacity_.begin(), capacity_.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    // Sum the capacity of the shares of one device.
    std::vector<std::pair<key, consumed_capacity>> merged;
    for (auto& [k, c] : capacity_) {
      if (!merged.empty() && merged.back().first == k)
        detail::add_capacity(merged.back().second, c);
      else
        merged.emplace_back(std::move(k), std::move(c));
    }
    capacity_ = std::move(merged);
  }

  bool dedicated(device_id id) const { return contains(dedicated_, id); }
  bool shared(device_id id) const { return contains(shared_, id); }
  const consumed_capacity* capacity(device_id id) const {
    auto it = std::lower_bound(capacity_.begin(), capacity_.end(), id,
                               [](const auto& e, device_id v) { return e.first.view() < v; });
    return it != capacity_.end() && it->first.view() == id ? &it->second : nullptr;
  }
  // IsDeviceAllocated: dedicated, shared or consuming capacity.
  bool allocated(device_id id) const {
    return dedicated(id) || shared(id) || capacity(id) != nullptr;
  }

 private:
  struct key {
    std::string driver, pool, device;
    device_id view() const noexcept { return {driver, pool, device}; }
    friend bool operator<(const key& a, const key& b) { return a.view() < b.view(); }
    friend bool operator==(const key& a, const key& b) { return a.view() == b.view(); }
  };
  static bool contains(const std::vector<key>& v, device_id id) {
    auto it = std::lower_bound(v.begin(), v.end(), id,
                               [](const key& e, device_id x) { return e.view() < x; });
    return it != v.end() && it->view() == id;
  }
  std::vector<key> dedicated_, shared_;
  std::vector<std::pair<key, consumed_capacity>> capacity_;
};

// One device of an allocation: the claim (its index among those allocated), the request
// ("request" or "request/subrequest") and the device.
struct allocated_for {
  std::size_t claim = 0;
  std::string request;
  device_id id;
};

struct allocation_outcome {
  enum class kind_type : std::uint8_t {
    allocated,
    unsatisfiable,
    failed_on_node,
    error,
    not_modelled
  };
  kind_type kind = kind_type::unsatisfiable;
  std::string message;
  // allocated: the devices chosen, in upstream's result order (its views point into the slices).
  std::vector<allocated_for> devices;
  // Steps of the search (upstream's allocateOne invocations).
  std::size_t steps = 0;

  bool allocated() const noexcept { return kind == kind_type::allocated; }
};

// The node an allocation is for.
struct allocation_node {
  std::string_view name;
  const label_set* labels = nullptr;
};

}  // namespace kubernetes::dra
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_DRA_ALLOCATED_STATE_HPP
