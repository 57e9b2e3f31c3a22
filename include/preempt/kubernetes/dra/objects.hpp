// preempt/kubernetes/dra/objects.hpp - the objects of dynamic resource allocation
// (resource.k8s.io/v1) that kube-scheduler's DynamicResources plugin reads, as plain values:
// ResourceSlice (devices a driver publishes), DeviceClass, ResourceClaim (spec and status).
//
// Only what the plugin and the structured allocator read is kept. Optional API fields are
// std::optional where absent and empty differ upstream. Fields the tool does not model are kept
// as flags (`*_present`) so that a decision depending on them can be refused, never guessed.
// Quantities are exact (amount.hpp). Names are as written: an attribute or capacity name is
// qualified ("gpu.example.com/model") or not ("model", in the driver's own domain).
//
// No behaviour beyond small lookups; no allocation beyond the values themselves; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_DRA_OBJECTS_HPP
#define PREEMPT_KUBERNETES_DRA_OBJECTS_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/dra/amount.hpp"
#include "preempt/kubernetes/node_affinity.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes::dra {

// ---- ResourceSlice ------------------------------------------------------------------------

// A DeviceAttribute: one typed value. List values (DRAListTypeAttributes, off in v1.37) are not
// modelled: `list_present` marks them.
struct attribute_value {
  enum class kind_type : std::uint8_t { none, integer, boolean, string, version };
  kind_type kind = kind_type::none;
  std::int64_t integer = 0;
  bool boolean = false;
  std::string text;  // string or version
  bool list_present = false;
};

struct attribute {
  std::string name;
  attribute_value value;
};

// DeviceCapacity's requestPolicy (consumable capacity).
struct capacity_policy {
  std::optional<amount> default_value;
  std::vector<amount> valid_values;
  std::optional<amount> min, max, step;  // validRange
  bool valid_range = false;              // validRange is set
};

struct capacity {
  std::string name;
  amount value;
  std::optional<capacity_policy> policy;
};

struct counter {
  std::string name;
  amount value;
};

// DeviceCounterConsumption.
struct counter_consumption {
  std::string counter_set;
  std::vector<counter> counters;
  bool compatibility_groups = false;  // compatibilityGroups set (DRADeviceCompatibilityGroups)
};

struct counter_set {
  std::string name;
  std::vector<counter> counters;
};

struct device_taint {
  std::string key, value, effect;
};

struct device {
  std::string name;
  std::vector<attribute> attributes;
  std::vector<capacity> capacities;
  std::vector<counter_consumption> consumes_counters;
  // Per-device node selection (with the slice's perDeviceNodeSelection).
  std::optional<std::string> node_name;
  std::optional<kubernetes::node_selector> node_selector;
  bool all_nodes = false;
  std::vector<device_taint> taints;
  bool binds_to_node = false;
  bool binding_conditions_present = false;  // bindingConditions set (even empty)
  std::vector<std::string> binding_conditions;
  std::optional<bool> allow_multiple_allocations;
  bool node_allocatable_present = false;  // nodeAllocatableResources (DRANodeAllocatableResources)

  const attribute* find_attribute(std::string_view n) const noexcept {
    for (const attribute& a : attributes)
      if (a.name == n) return &a;
    return nullptr;
  }
  const capacity* find_capacity(std::string_view n) const noexcept {
    for (const capacity& c : capacities)
      if (c.name == n) return &c;
    return nullptr;
  }
  bool multiple_allocations() const noexcept { return allow_multiple_allocations.value_or(false); }
};

struct resource_slice {
  std::string name;
  std::string driver;
  std::string pool;
  std::int64_t generation = 0;
  std::int64_t slice_count = 0;  // pool.resourceSliceCount
  std::optional<std::string> node_name;
  std::optional<kubernetes::node_selector> node_selector;
  bool all_nodes = false;
  bool per_device_node_selection = false;
  std::vector<device> devices;
  std::vector<counter_set> shared_counters;
  bool unmodelled_fields = false;  // partitionTypeAttribute, skipNodeOperations
};

// ---- DeviceClass --------------------------------------------------------------------------

// A DeviceSelector: a CEL expression, or a kind the tool does not know (`cel` unset).
struct device_selector {
  std::optional<std::string> cel;
};

struct device_class {
  std::string name;
  std::vector<device_selector> selectors;
  std::optional<std::string> extended_resource_name;
};

// ---- ResourceClaim ------------------------------------------------------------------------

struct device_toleration {
  std::string key, op, value, effect;
};

// ExactDeviceRequest, or one DeviceSubRequest of firstAvailable (`name` set then).
struct exact_request {
  std::string name;  // sub-requests only
  std::string class_name;
  std::vector<device_selector> selectors;
  std::string allocation_mode;  // "" means ExactCount (API defaulting)
  std::int64_t count = 0;       // 0 with ExactCount means 1 (API defaulting)
  std::optional<bool> admin_access;
  std::vector<device_toleration> tolerations;
  std::optional<std::vector<std::pair<std::string, amount>>> capacity_requests;
  bool derived_attributes_present = false;

  bool all_mode() const noexcept { return allocation_mode == "All"; }
  bool exact_mode() const noexcept {
    return allocation_mode.empty() || allocation_mode == "ExactCount";
  }
  std::int64_t device_count() const noexcept { return count == 0 ? 1 : count; }
  bool admin() const noexcept { return admin_access.value_or(false); }
};

struct device_request {
  std::string name;
  std::optional<exact_request> exactly;
  std::vector<exact_request> first_available;
};

struct device_constraint {
  std::vector<std::string> requests;
  std::optional<std::string> match_attribute;
  std::optional<std::string> distinct_attribute;
};

struct allocated_device {
  std::string request, driver, pool, device;
  std::optional<bool> admin_access;
  std::optional<std::string> share_id;
  std::optional<std::vector<std::pair<std::string, amount>>> consumed_capacity;
  std::vector<std::string> binding_conditions;
};

struct allocation_result {
  std::vector<allocated_device> devices;
  std::optional<kubernetes::node_selector> node_selector;
};

struct consumer_reference {
  std::string api_group, resource, name, uid;
};

struct resource_claim {
  std::string ns, name, uid;
  bool deleting = false;  // metadata.deletionTimestamp set
  // The controller owner reference (metadata.ownerReferences with controller: true), if any.
  std::optional<std::string> controller_uid;
  bool extended_resource_claim =
      false;  // annotation resource.kubernetes.io/extended-resource-claim
  std::vector<device_request> requests;
  std::vector<device_constraint> constraints;
  std::optional<allocation_result> allocation;
  std::vector<consumer_reference> reserved_for;

  std::string key() const { return ns + "/" + name; }
};

}  // namespace kubernetes::dra
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_DRA_OBJECTS_HPP
