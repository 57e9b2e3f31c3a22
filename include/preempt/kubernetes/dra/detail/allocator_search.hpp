// preempt/kubernetes/dra/detail/allocator_search.hpp - the search of structured_allocator
// (allocator.hpp) for one node: upstream's GatherPools, validateDeviceRequest, allocateOne and
// allocateDevice (k8s.io/dynamic-resource-allocation v0.37, structured/internal/incubating),
// rewritten here with the same order of pools, slices, devices, claims and requests, the same
// checks in the same order, and the same rollback on backtracking.
//
// Design notes:
// * The search recurses as upstream's allocateOne does: one frame per device to allocate. A
//   claim holds at most 32 devices, so the depth stays small.
// * "max size exceeded" (a claim would pass 32 devices) is an outcome of its own, as upstream's
//   errAllocationResultMaxSizeExceeded: it prunes harder and lets firstAvailable try smaller
//   sub-requests; at the top it is an error, as upstream's.
// * Selector results are cached per (device, request), as upstream's deviceMatchesRequest: an
//   expression runs at most once per device and request, in the order upstream first asks.
// * Shared counters: the counters a pool has left after the allocated devices are computed once
//   per pool and node; the devices being allocated add to a per-pool consumption.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_DRA_DETAIL_ALLOCATOR_SEARCH_HPP
#define PREEMPT_KUBERNETES_DRA_DETAIL_ALLOCATOR_SEARCH_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/dra/allocated_state.hpp"
#include "preempt/kubernetes/dra/amount.hpp"
#include "preempt/kubernetes/dra/cel.hpp"
#include "preempt/kubernetes/dra/objects.hpp"
#include "preempt/kubernetes/labels.hpp"
#include "preempt/kubernetes/node_affinity.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes::dra::detail {

// What a structured_allocator holds for all nodes.
struct allocator_inputs {
  std::span<const resource_slice> slices;
  std::span<const device_class> classes;
  const allocated_state* used;
  std::span<const resource_claim* const> claims;
  std::unordered_map<std::string, std::vector<std::size_t>> slices_on_node;
  std::vector<std::size_t> slices_shared;
  std::map<std::string, cel::program, std::less<>> programs;  // by expression
};

inline bool node_matches(const allocation_node& node, const std::optional<std::string>& name,
                         bool all_nodes, const std::optional<node_selector>& selector,
                         bool& invalid) {
  if (name && !name->empty()) return node.name == *name;
  if (all_nodes) return true;
  if (selector) {
    if (!validate(*selector)) {
      invalid = true;
      return false;
    }
    static const label_set none;
    return matches(*selector, node.labels != nullptr ? *node.labels : none, node.name);
  }
  return false;
}

inline bool uses_compatibility_groups(const resource_slice& s) {
  for (const device& d : s.devices)
    for (const counter_consumption& c : d.consumes_counters)
      if (c.compatibility_groups) return true;
  return false;
}

class allocator_search {
 public:
  allocator_search(const allocator_inputs& in, const allocation_node& node, std::size_t step_limit)
      : in_(in), node_(node), step_limit_(step_limit) {}

  allocation_outcome run() {
    if (!gather_pools()) return outcome_;
    if (!prepare_requests()) return outcome_;
    result_counts_.assign(in_.claims.size(), 0);
    selected_sub_.assign(request_base_.size(), 0);
    const step s = allocate_one({}, false, {});
    allocation_outcome o;
    if (s == step::error) {
      o = outcome_;
    } else if (s == step::max_size_exceeded) {
      o = fail(kind::error, "allocation max size exceeded");
    } else if (s == step::success) {
      o.kind = kind::allocated;
      // Claim by claim, as upstream's results.
      for (std::size_t c = 0; c < in_.claims.size(); ++c)
        for (const allocated_for& a : results_)
          if (a.claim == c) o.devices.push_back(a);
    } else {
      o.kind = kind::unsatisfiable;
      for (const pool& p : pools_)
        if (p.invalid) o = {kind::failed_on_node, "invalid resource pools were encountered", {}, 0};
    }
    o.steps = steps_;
    return o;
  }

 private:
  using kind = allocation_outcome::kind_type;
  enum class step : std::uint8_t { success, failure, max_size_exceeded, error };

  struct pool {
    std::string_view driver, name;
    bool incomplete = false, invalid = false;
    std::string invalid_reason;
    std::vector<const resource_slice*> targeting, not_targeting;
    std::vector<const counter_set*> counter_sets;
    bool binding_conditions = false;
  };

  struct request_data {
    const exact_request* req = nullptr;
    const device_request* parent = nullptr;  // set for sub-requests
    const device_class* cls = nullptr;
    std::size_t num_devices = 0;
    struct located {
      std::size_t pool;
      const resource_slice* slice;
      std::size_t device;
    };
    std::vector<located> all_devices;
  };

  struct indices {
    std::size_t claim = 0, request = 0, sub = 0, device = 0;
  };
  struct location {
    std::size_t pool = 0, slice = 0, device = 0;
  };

  struct constraint {
    bool distinct = false;
    const std::vector<std::string>* requests = nullptr;
    std::string_view attribute;
    const attribute_value* first = nullptr;    // match: the value all must share
    std::size_t count = 0;                     // match: devices in the set
    std::vector<const attribute_value*> seen;  // distinct
  };

  // counter set name -> counter name -> amount
  using counters = std::map<std::string, std::map<std::string, amount>, std::less<>>;

  allocation_outcome fail(kind k, std::string why) {
    if (!failed_) {
      failed_ = true;
      outcome_ = {k, std::move(why), {}, 0};
    }
    return outcome_;
  }

  // ---- GatherPools -------------------------------------------------------------------------

  bool gather_pools() {
    std::map<std::pair<std::string_view, std::string_view>, std::vector<const resource_slice*>>
        found;
    const auto consider = [&](const resource_slice& s) {
      if (uses_compatibility_groups(s)) return true;
      bool relevant = false, invalid = false;
      if ((s.node_name && !s.node_name->empty()) || s.all_nodes || s.node_selector) {
        relevant = node_matches(node_, s.node_name, s.all_nodes, s.node_selector, invalid);
      } else if (s.per_device_node_selection) {
        for (const device& d : s.devices)
          if (node_matches(node_, d.node_name, d.all_nodes, d.node_selector, invalid)) {
            relevant = true;
            break;
          }
      } else {
        return true;  // a future, unknown kind of slice
      }
      if (invalid) {
        fail(kind::error,
             "gather pool information: failed to perform node selection for slice " + s.name);
        return false;
      }
      if (!relevant) return true;
      auto& list = found[{s.driver, s.pool}];
      if (list.empty() || s.generation > list.front()->generation) {
        list.assign(1, &s);
      } else if (s.generation == list.front()->generation) {
        list.push_back(&s);
      }
      return true;
    };
    if (auto it = in_.slices_on_node.find(std::string(node_.name)); it != in_.slices_on_node.end())
      for (std::size_t i : it->second)
        if (!consider(in_.slices[i])) return false;
    for (std::size_t i : in_.slices_shared)
      if (!consider(in_.slices[i])) return false;

    std::vector<pool> plain, with_conditions;
    for (auto& [id, list] : found) {
      const std::int64_t expected = list.front()->slice_count;
      if (static_cast<std::int64_t>(list.size()) == expected) {
        pool p = build_pool(id.first, id.second, list, nullptr);
        (p.binding_conditions ? with_conditions : plain).push_back(std::move(p));
        continue;
      }
      // checkSlicesInPool: every slice of the pool at this generation, whether or not it targets
      // this node; a newer generation anywhere makes the pool obsolete.
      const std::int64_t generation = list.front()->generation;
      bool obsolete = false;
      std::vector<const resource_slice*> all;
      for (const resource_slice& s : in_.slices) {
        if (s.driver != id.first || s.pool != id.second) continue;
        if (s.generation > generation) {
          obsolete = true;
          break;
        }
        if (s.generation == generation && !uses_compatibility_groups(s)) all.push_back(&s);
      }
      if (obsolete) continue;
      if (static_cast<std::int64_t>(all.size()) != expected) {
        pool p;
        p.driver = id.first;
        p.name = id.second;
        p.incomplete = true;
        plain.push_back(std::move(p));
        continue;
      }
      pool p = build_pool(id.first, id.second, list, &all);
      (p.binding_conditions ? with_conditions : plain).push_back(std::move(p));
    }
    // `found` is ordered by (driver, pool): both lists are already sorted by pool ID.
    pools_ = std::move(plain);
    for (pool& p : with_conditions) pools_.push_back(std::move(p));
    return true;
  }

  pool build_pool(std::string_view driver, std::string_view name,
                  std::vector<const resource_slice*> slices,
                  const std::vector<const resource_slice*>* all) {
    std::stable_sort(
        slices.begin(), slices.end(),
        [](const resource_slice* a, const resource_slice* b) { return a->name < b->name; });
    pool p;
    p.driver = driver;
    p.name = name;
    std::vector<const resource_slice*> counter_slices;
    for (const resource_slice* s : slices)
      (s->shared_counters.empty() ? p.targeting : counter_slices).push_back(s);
    if (all != nullptr && slices.size() < all->size()) {
      for (const resource_slice* s : *all) {
        const bool seen = std::any_of(slices.begin(), slices.end(),
                                      [&](const resource_slice* t) { return t->name == s->name; });
        if (seen) continue;
        (s->shared_counters.empty() ? p.not_targeting : counter_slices).push_back(s);
      }
    }
    const auto invalid = [&](std::string why) {
      pool bad;
      bad.driver = driver;
      bad.name = name;
      bad.invalid = true;
      bad.invalid_reason = std::move(why);
      return bad;
    };
    std::vector<std::string_view> names;
    for (const resource_slice* s : p.targeting)
      for (const device& d : s->devices) {
        if (std::find(names.begin(), names.end(), d.name) != names.end())
          return invalid("duplicate device name " + d.name);
        names.push_back(d.name);
      }
    for (const resource_slice* s : counter_slices)
      for (const counter_set& cs : s->shared_counters) {
        for (const counter_set* other : p.counter_sets)
          if (other->name == cs.name) return invalid("duplicate counter set name " + cs.name);
        p.counter_sets.push_back(&cs);
      }
    for (const auto* list : {&p.targeting, &p.not_targeting})
      for (const resource_slice* s : *list)
        for (const device& d : s->devices)
          for (const counter_consumption& c : d.consumes_counters) {
            const counter_set* set = find_counter_set(p, c.counter_set);
            if (set == nullptr) return invalid("counter set " + c.counter_set + " not found");
            for (const counter& k : c.counters) {
              const bool known = std::any_of(set->counters.begin(), set->counters.end(),
                                             [&](const counter& x) { return x.name == k.name; });
              if (!known)
                return invalid("counter " + k.name + " not found in counter set " + set->name);
            }
          }
    for (const resource_slice* s : p.targeting)
      for (const device& d : s->devices)
        if (d.binding_conditions_present) p.binding_conditions = true;
    return p;
  }

  static const counter_set* find_counter_set(const pool& p, std::string_view name) {
    for (const counter_set* cs : p.counter_sets)
      if (cs->name == name) return cs;
    return nullptr;
  }

  // ---- validateDeviceRequest ---------------------------------------------------------------

  const device_class* find_class(std::string_view name) const {
    for (const device_class& c : in_.classes)
      if (c.name == name) return &c;
    return nullptr;
  }

  // klog.KObj's form: namespace/name, or the name alone without a namespace.
  std::string claim_name(std::size_t claim) const {
    const resource_claim& c = *in_.claims[claim];
    return c.ns.empty() ? c.name : c.key();
  }

  bool validate(request_data& rd, std::size_t claim, std::size_t request, std::size_t sub) {
    const exact_request& r = *rd.req;
    const std::string name =
        rd.parent != nullptr ? r.name : in_.claims[claim]->requests[request].name;
    if (r.derived_attributes_present) {
      fail(kind::error,
           "claim " + claim_name(claim) + ", request " + name +
               ": cannot handle request with derived attributes, the feature is disabled");
      return false;
    }
    for (std::size_t i = 0; i < r.selectors.size(); ++i)
      if (!r.selectors[i].cel) {
        fail(kind::error, "claim " + claim_name(claim) + ", request " + name + ", selector #" +
                              std::to_string(i) +
                              ": CEL expression empty (unsupported selector type?)");
        return false;
      }
    if (r.class_name.empty()) {
      fail(kind::error, "claim " + claim_name(claim) + ", request " + name +
                            ": missing device class name (unsupported request type?)");
      return false;
    }
    rd.cls = find_class(r.class_name);
    if (rd.cls == nullptr) {
      fail(kind::error, "claim " + claim_name(claim) + ", request " + name +
                            ": could not retrieve device class " + r.class_name);
      return false;
    }
    if (r.exact_mode()) {
      rd.num_devices = static_cast<std::size_t>(std::max<std::int64_t>(r.device_count(), 0));
      return true;
    }
    if (!r.all_mode()) {
      fail(kind::error, "claim " + claim_name(claim) + ", request " + name +
                            ": unsupported count mode " + r.allocation_mode);
      return false;
    }
    for (std::size_t pi = 0; pi < pools_.size(); ++pi) {
      const pool& p = pools_[pi];
      const std::string id = std::string(p.driver) + "/" + std::string(p.name);
      if (p.incomplete) {
        fail(kind::error, "claim " + claim_name(claim) + ", request " + name +
                              ": asks for all devices, but resource pool " + id +
                              " is currently being updated");
        return false;
      }
      if (p.invalid) {
        fail(kind::error, "claim " + claim_name(claim) + ", request " + name +
                              ": asks for all devices, but resource pool " + id +
                              " is currently invalid");
        return false;
      }
      for (const resource_slice* s : p.targeting)
        for (std::size_t di = 0; di < s->devices.size(); ++di) {
          const std::optional<bool> sel = selectable(rd, claim, request, sub, *s, di);
          if (!sel) return false;
          if (!*sel) continue;
          const device& d = s->devices[di];
          const std::optional<bool> fits = over_capacity_ok(r, d, nullptr, nullptr, claim, name);
          if (!fits) return false;
          if (!*fits) continue;
          rd.all_devices.push_back({pi, s, di});
        }
    }
    rd.num_devices = rd.all_devices.size();
    return true;
  }

  bool prepare_requests() {
    std::size_t total = 0;
    for (std::size_t c = 0; c < in_.claims.size(); ++c) {
      const resource_claim& claim = *in_.claims[c];
      std::size_t min_per_claim = 0;
      for (std::size_t r = 0; r < claim.requests.size(); ++r) {
        const device_request& req = claim.requests[r];
        request_base_.push_back(data_.size());
        request_subs_.push_back(req.first_available.size());
        std::size_t min_per_request = 0;
        if (!req.first_available.empty()) {
          min_per_request = static_cast<std::size_t>(-1);
          for (std::size_t s = 0; s < req.first_available.size(); ++s) {
            request_data rd;
            rd.req = &req.first_available[s];
            rd.parent = &req;
            if (!validate(rd, c, r, s)) return false;
            min_per_request = std::min(min_per_request, rd.num_devices);
            data_.push_back(std::move(rd));
          }
        } else {
          request_data rd;
          rd.req = req.exactly ? &*req.exactly : nullptr;
          if (rd.req == nullptr) {
            fail(kind::error,
                 "claim " + claim_name(c) + ", request " + req.name + ": unknown request type");
            return false;
          }
          if (!validate(rd, c, r, 0)) return false;
          min_per_request = rd.num_devices;
          data_.push_back(std::move(rd));
        }
        if (min_per_request > allocation_results_max_size - min_per_claim) {
          fail(kind::error, "claim " + claim_name(c) + ", request " + req.name + ": adding " +
                                std::to_string(min_per_request) +
                                " devices exceeds the claim limit of " +
                                std::to_string(allocation_results_max_size) + ", with " +
                                std::to_string(min_per_claim) + " already accounted for");
          return false;
        }
        min_per_claim += min_per_request;
      }
      claim_request_base_.push_back(request_base_.size() - claim.requests.size());
      std::vector<constraint> cs;
      for (std::size_t i = 0; i < claim.constraints.size(); ++i) {
        const device_constraint& k = claim.constraints[i];
        constraint x;
        x.requests = &k.requests;
        if (k.match_attribute) {
          x.attribute = *k.match_attribute;
        } else if (k.distinct_attribute) {
          x.distinct = true;
          x.attribute = *k.distinct_attribute;
        } else {
          fail(kind::error, "claim " + claim_name(c) + ", constraint #" + std::to_string(i) +
                                ": empty constraint (unsupported constraint type?)");
          return false;
        }
        cs.push_back(std::move(x));
      }
      constraints_.push_back(std::move(cs));
      total += min_per_claim;
    }
    (void)total;
    return true;
  }

  request_data& data(std::size_t claim, std::size_t request, std::size_t sub) {
    return data_[request_base_[claim_request_base_[claim] + request] + sub];
  }
  std::size_t subs(std::size_t claim, std::size_t request) const {
    return request_subs_[claim_request_base_[claim] + request];
  }

  // ---- isSelectable ------------------------------------------------------------------------

  // nullopt: the search stops (outcome_ set).
  std::optional<bool> run_selectors(const std::vector<device_selector>& selectors, const device& d,
                                    const resource_slice& s, const std::string& owner) {
    for (std::size_t i = 0; i < selectors.size(); ++i) {
      if (!selectors[i].cel) {
        fail(kind::not_modelled,
             owner + ": selector #" + std::to_string(i) + " is not a CEL selector");
        return std::nullopt;
      }
      const std::string& expression = *selectors[i].cel;
      const auto it = in_.programs.find(expression);
      std::optional<cel::program> compiled;
      if (it == in_.programs.end()) compiled = cel::program::compile(expression);
      const cel::program& p = it != in_.programs.end() ? it->second : *compiled;
      if (!p.ok()) {
        if (p.state() == cel::syntax_tree::status::not_modelled)
          fail(kind::not_modelled, owner + ": selector #" + std::to_string(i) + " (" + expression +
                                       "): " + p.message() + " is outside the CEL subset modelled");
        else
          fail(kind::error, owner + ": selector #" + std::to_string(i) +
                                ": CEL compile error: " + p.message() + " (" + expression + ")");
        return std::nullopt;
      }
      const cel::outcome o = p.evaluate(d, s.driver);
      switch (o.kind) {
        case cel::outcome_kind::match: continue;
        case cel::outcome_kind::no_match: return false;
        case cel::outcome_kind::error:
          fail(kind::error, owner + ": selector #" + std::to_string(i) + " on device " + s.driver +
                                "/" + s.pool + "/" + d.name + ": CEL runtime error: " + o.message +
                                " (" + expression + ")");
          return std::nullopt;
        case cel::outcome_kind::not_modelled:
          fail(kind::not_modelled, owner + ": selector #" + std::to_string(i) + " (" + expression +
                                       "): " + o.message + " is outside the CEL subset modelled");
          return std::nullopt;
      }
    }
    return true;
  }

  std::optional<bool> selectable(const request_data& rd, std::size_t claim, std::size_t request,
                                 std::size_t sub, const resource_slice& s, std::size_t di) {
    const device& d = s.devices[di];
    const auto key = std::make_tuple(&d, claim, request, sub);
    if (auto it = matches_.find(key); it != matches_.end()) return it->second;
    bool result = true;
    if (rd.cls != nullptr) {
      const auto r = run_selectors(rd.cls->selectors, d, s, "class " + rd.cls->name);
      if (!r) return std::nullopt;
      result = *r;
    }
    if (result) {
      const auto r = run_selectors(rd.req->selectors, d, s, "claim " + claim_name(claim));
      if (!r) return std::nullopt;
      result = *r;
    }
    if (result && s.per_device_node_selection) {
      bool invalid = false;
      result = node_matches(node_, d.node_name, d.all_nodes, d.node_selector, invalid);
      if (invalid) {
        fail(kind::error, "invalid node selector of device " + d.name + " in slice " + s.name);
        return std::nullopt;
      }
    }
    matches_.emplace(key, result);
    return result;
  }

  // ---- Consumable capacity -----------------------------------------------------------------

  // calculateConsumedCapacity (integer arithmetic: DRAFractionalCapacityRange is off).
  std::optional<amount> consumed_for(const std::optional<amount>& requested, const capacity& cap,
                                     const std::string& owner) {
    if (!requested) {
      if (cap.policy && cap.policy->default_value) return *cap.policy->default_value;
      return cap.value;
    }
    if (!cap.policy) return *requested;
    const capacity_policy& p = *cap.policy;
    if (p.valid_range && p.min) {
      if (*requested < *p.min) return *p.min;
      if (!p.step) return *requested;
      const std::int64_t req = ceil_units(*requested), step_units = ceil_units(*p.step),
                         min = ceil_units(*p.min);
      if (step_units <= 0) {
        fail(kind::not_modelled,
             owner + ": capacity " + cap.name + " has a requestPolicy step that is not positive");
        return std::nullopt;
      }
      std::int64_t added = 0, n = 0, rounded = 0;
      if (__builtin_sub_overflow(req, min, &added)) {
        fail(kind::error,
             owner + ": capacity request cannot be represented in the device's range arithmetic");
        return std::nullopt;
      }
      n = added / step_units + (added % step_units != 0 ? 1 : 0);
      if (__builtin_mul_overflow(step_units, n, &rounded) ||
          __builtin_add_overflow(min, rounded, &rounded)) {
        fail(kind::error,
             owner + ": capacity request cannot be represented in the device's range arithmetic");
        return std::nullopt;
      }
      return amount::of_units(rounded);
    }
    if (!p.valid_values.empty()) {
      for (const amount& v : p.valid_values)
        if (*requested <= v) return v;
      return *requested;
    }
    return *requested;
  }

  static bool violates_policy(const amount& consumed,
                              const std::optional<capacity_policy>& policy) {
    if (!policy) return false;
    if (policy->default_value && consumed == *policy->default_value) return false;
    if (policy->valid_range) {
      if (policy->max && consumed > *policy->max) return true;
      if (policy->step) {
        const std::int64_t step_units = ceil_units(*policy->step);
        const std::int64_t min = policy->min ? ceil_units(*policy->min) : 0;
        std::int64_t diff = 0;
        if (step_units <= 0 || __builtin_sub_overflow(ceil_units(consumed), min, &diff))
          return true;
        if (diff % step_units != 0) return true;
      }
      return false;
    }
    if (!policy->valid_values.empty())
      return std::none_of(policy->valid_values.begin(), policy->valid_values.end(),
                          [&](const amount& v) { return v == consumed; });
    return false;
  }

  // CmpRequestOverCapacity: nullopt stops the search (a fatal error), false skips the device.
  std::optional<bool> over_capacity_ok(const exact_request& r, const device& d,
                                       const consumed_capacity* current,
                                       const consumed_capacity* allocating, std::size_t claim,
                                       const std::string& request_name) {
    const std::string owner = "claim " + claim_name(claim) + ", request " + request_name;
    if (r.capacity_requests)
      for (const auto& [name, q] : *r.capacity_requests)
        if (d.find_capacity(name) == nullptr) return false;
    std::vector<amount> consumed;
    consumed.reserve(d.capacities.size());
    for (const capacity& cap : d.capacities) {
      std::optional<amount> requested;
      if (r.capacity_requests)
        for (const auto& [name, q] : *r.capacity_requests)
          if (name == cap.name) requested = q;
      const auto c = consumed_for(requested, cap, owner);
      if (!c) return std::nullopt;
      if (c->sign() < 0) {
        fail(kind::error, owner + ": checking capacity for device " + d.name + ": capacity \"" +
                              cap.name + "\": capacity value is negative");
        return std::nullopt;
      }
      consumed.push_back(*c);
    }
    for (std::size_t i = 0; i < d.capacities.size(); ++i) {
      const capacity& cap = d.capacities[i];
      if (violates_policy(consumed[i], cap.policy)) return false;
      std::optional<amount> total = add(detail::capacity_of(current, cap.name), consumed[i]);
      if (total) total = add(*total, detail::capacity_of(allocating, cap.name));
      if (!total) {
        fail(kind::not_modelled, owner + ": capacity sums beyond 2^63 units");
        return std::nullopt;
      }
      if (*total > cap.value) return false;
    }
    return true;
  }

  // ---- Allocation state --------------------------------------------------------------------

  struct allocating_entry {
    device_id id;
    std::vector<std::size_t> claims;
  };
  struct capacity_entry {
    device_id id;
    consumed_capacity used;
  };

  std::vector<std::size_t>* allocating_claims(device_id id) {
    for (allocating_entry& e : allocating_)
      if (e.id == id) return &e.claims;
    return nullptr;
  }
  bool allocating_for_any(device_id id) {
    const auto* c = allocating_claims(id);
    return c != nullptr && !c->empty();
  }
  bool allocating_for_claim(device_id id, std::size_t claim) {
    const auto* c = allocating_claims(id);
    return c != nullptr && std::find(c->begin(), c->end(), claim) != c->end();
  }
  bool in_use(device_id id) { return in_.used->dedicated(id) || allocating_for_any(id); }
  capacity_entry* allocating_capacity(device_id id) {
    for (capacity_entry& e : allocating_capacity_)
      if (e.id == id) return &e;
    return nullptr;
  }
  bool capacity_in_use(device_id id) {
    return in_.used->capacity(id) != nullptr || in_.used->shared(id) ||
           allocating_capacity(id) != nullptr;
  }

  // The counters a pool has left after its allocated devices (computed once per pool).
  const counters& available_counters(std::size_t pi) {
    auto it = available_.find(pi);
    if (it != available_.end()) return it->second;
    const pool& p = pools_[pi];
    counters c;
    for (const counter_set* cs : p.counter_sets)
      for (const counter& k : cs->counters) c[cs->name][k.name] = k.value;
    for (const auto* list : {&p.targeting, &p.not_targeting})
      for (const resource_slice* s : *list)
        for (const device& d : s->devices) {
          if (!in_.used->allocated({s->driver, s->pool, d.name})) continue;
          for (const counter_consumption& cc : d.consumes_counters) {
            auto set = c.find(cc.counter_set);
            if (set == c.end()) continue;
            for (const counter& k : cc.counters) {
              auto ctr = set->second.find(k.name);
              if (ctr == set->second.end()) continue;
              ctr->second = sub(ctr->second, k.value).value_or(ctr->second);
            }
          }
        }
    return available_.emplace(pi, std::move(c)).first->second;
  }

  void consume_counters(std::size_t pi, const device& d, bool release) {
    counters& used = consumed_[pi];
    for (const counter_consumption& cc : d.consumes_counters)
      for (const counter& k : cc.counters) {
        amount& a = used[cc.counter_set][k.name];
        a = (release ? sub(a, k.value) : add(a, k.value)).value_or(a);
      }
  }

  bool check_counters(std::size_t pi, const device& d) {
    const counters& available = available_counters(pi);
    consume_counters(pi, d, false);
    const counters& used = consumed_[pi];
    for (const auto& [set, ctrs] : available) {
      const auto u = used.find(set);
      for (const auto& [name, a] : ctrs) {
        amount c{};
        if (u != used.end())
          if (auto x = u->second.find(name); x != u->second.end()) c = x->second;
        if (a < c) {
          consume_counters(pi, d, true);
          return false;
        }
      }
    }
    return true;
  }

  // ---- Constraints -------------------------------------------------------------------------

  static bool constraint_applies(const constraint& c, std::string_view request,
                                 std::string_view sub) {
    if (c.requests->empty()) return true;
    for (const std::string& r : *c.requests) {
      if (r == request) return true;
      if (!sub.empty() && r.size() == request.size() + 1 + sub.size() &&
          r.compare(0, request.size(), request) == 0 && r[request.size()] == '/' &&
          r.compare(request.size() + 1, sub.size(), sub) == 0)
        return true;
    }
    return false;
  }

  static const attribute_value* lookup_attribute(const device& d, std::string_view driver,
                                                 std::string_view name) {
    if (const attribute* a = d.find_attribute(name)) return &a->value;
    const std::size_t slash = name.find('/');
    if (slash == std::string_view::npos || name.substr(0, slash) != driver) return nullptr;
    if (const attribute* a = d.find_attribute(name.substr(slash + 1))) return &a->value;
    return nullptr;
  }

  static bool same_value(const attribute_value& a, const attribute_value& b) {
    using k = attribute_value::kind_type;
    if (a.kind != b.kind) return false;
    switch (a.kind) {
      case k::integer: return a.integer == b.integer;
      case k::boolean: return a.boolean == b.boolean;
      case k::string:
      case k::version: return a.text == b.text;
      case k::none: return false;
    }
    return false;
  }

  // nullopt: not modelled (outcome_ set).
  std::optional<bool> constraint_add(constraint& c, std::string_view request, std::string_view sub,
                                     const device& d, std::string_view driver) {
    if (!constraint_applies(c, request, sub)) return true;
    const attribute_value* v = lookup_attribute(d, driver, c.attribute);
    if (v == nullptr) return false;
    if (v->list_present) {
      fail(kind::not_modelled, "a constraint on the list-typed attribute " +
                                   std::string(c.attribute) + " (DRAListTypeAttributes)");
      return std::nullopt;
    }
    if (v->kind == attribute_value::kind_type::none) return false;
    if (!c.distinct) {
      if (c.count == 0) {
        c.first = v;
        c.count = 1;
        return true;
      }
      if (!same_value(*c.first, *v)) return false;
      ++c.count;
      return true;
    }
    for (const attribute_value* seen : c.seen)
      if (same_value(*seen, *v)) return false;
    c.seen.push_back(v);
    return true;
  }

  static void constraint_remove(constraint& c, std::string_view request, std::string_view sub) {
    if (!constraint_applies(c, request, sub)) return;
    if (c.distinct)
      c.seen.pop_back();
    else
      --c.count;
  }

  static bool taint_prevents(const device& d, const exact_request& r) {
    for (const device_taint& t : d.taints) {
      if (t.effect != "NoSchedule" && t.effect != "NoExecute") continue;
      const bool tolerated =
          std::any_of(r.tolerations.begin(), r.tolerations.end(), [&](const device_toleration& x) {
            if (!x.effect.empty() && x.effect != t.effect) return false;
            if (!x.key.empty() && x.key != t.key) return false;
            if (x.op.empty() || x.op == "Equal") return x.value == t.value;
            return x.op == "Exists";
          });
      if (!tolerated) return true;
    }
    return false;
  }

  // ---- allocateDevice ----------------------------------------------------------------------

  struct undo_state {
    bool counters_reserved = false;
    std::size_t constraints_added = 0;
    bool device_marked = false;
    bool capacity_inserted = false;
    bool capacity_entry_existed = false;
    consumed_capacity consumed;
    bool result_added = false;
  };

  struct candidate {
    std::size_t pool;
    const resource_slice* slice;
    const device* dev;
    device_id id() const noexcept { return {slice->driver, slice->pool, dev->name}; }
  };

  void rollback(const indices& r, const candidate& c, std::string_view base, std::string_view sub,
                const undo_state& u) {
    if (u.result_added) {
      --result_counts_[r.claim];
      results_.pop_back();
    }
    if (u.capacity_inserted) {
      capacity_entry* e = allocating_capacity(c.id());
      if (e != nullptr) {
        for (const auto& [name, q] : u.consumed)
          for (auto& [n, have] : e->used)
            if (n == name) have = sub_amount(have, q);
        const bool empty = std::all_of(e->used.begin(), e->used.end(),
                                       [](const auto& x) { return x.second.is_zero(); });
        if (empty && !u.capacity_entry_existed)
          allocating_capacity_.erase(allocating_capacity_.begin() +
                                     (e - allocating_capacity_.data()));
        else if (empty)
          e->used.clear();
      }
    }
    if (u.device_marked) {
      auto* claims = allocating_claims(c.id());
      if (claims != nullptr) {
        auto it = std::find(claims->begin(), claims->end(), r.claim);
        if (it != claims->end()) claims->erase(it);
      }
    }
    auto& cs = constraints_[r.claim];
    for (std::size_t i = u.constraints_added; i-- > 0;) constraint_remove(cs[i], base, sub);
    if (u.counters_reserved) consume_counters(c.pool, *c.dev, true);
  }

  static amount sub_amount(amount a, amount b) { return sub(a, b).value_or(a); }

  enum class placed : std::uint8_t { yes, no, stop };

  placed allocate_device(const indices& r, const candidate& c, bool must, undo_state& u) {
    request_data& rd = data(r.claim, r.request, r.sub);
    const exact_request& req = *rd.req;
    const device_id id = c.id();
    const bool multiple = c.dev->multiple_allocations();
    if (!multiple && req.admin() && allocating_for_claim(id, r.claim)) return placed::no;
    if (!req.admin() && in_use(id)) return placed::no;
    const bool skip_counters = multiple && capacity_in_use(id);
    if (!skip_counters && !c.dev->consumes_counters.empty()) {
      if (!check_counters(c.pool, *c.dev)) return placed::no;
      u.counters_reserved = true;
    }
    const std::string_view base =
        rd.parent != nullptr ? std::string_view(rd.parent->name)
                             : std::string_view(in_.claims[r.claim]->requests[r.request].name);
    const std::string_view sub =
        rd.parent != nullptr ? std::string_view(req.name) : std::string_view();
    if (taint_prevents(*c.dev, req)) {
      rollback(r, c, base, sub, u);
      return placed::no;
    }
    for (constraint& k : constraints_[r.claim]) {
      const std::optional<bool> ok = constraint_add(k, base, sub, *c.dev, c.slice->driver);
      if (!ok) {
        rollback(r, c, base, sub, u);
        return placed::stop;
      }
      if (!*ok) {
        rollback(r, c, base, sub, u);
        if (must) {
          fail(kind::error, "claim " + claim_name(r.claim) + ", request " +
                                std::string(req.name.empty() ? base : std::string_view(req.name)) +
                                ": cannot add device " + std::string(id.driver) + "/" +
                                std::string(id.pool) + "/" + std::string(id.device) +
                                " because a claim constraint would not be satisfied");
          return placed::stop;
        }
        return placed::no;
      }
      ++u.constraints_added;
    }
    if (!multiple) {
      if (auto* claims = allocating_claims(id))
        claims->push_back(r.claim);
      else
        allocating_.push_back({id, {r.claim}});
      u.device_marked = true;
    }
    const std::string request_name =
        rd.parent != nullptr ? std::string(base) + "/" + std::string(sub) : std::string(base);
    capacity_entry* existing = allocating_capacity(id);
    const std::optional<bool> fits =
        over_capacity_ok(req, *c.dev, in_.used->capacity(id),
                         existing != nullptr ? &existing->used : nullptr, r.claim, request_name);
    if (!fits || !*fits) {
      rollback(r, c, base, sub, u);
      return fits ? placed::no : placed::stop;
    }
    if (multiple) {
      consumed_capacity consumed;
      for (const capacity& cap : c.dev->capacities) {
        std::optional<amount> requested;
        if (req.capacity_requests)
          for (const auto& [name, q] : *req.capacity_requests)
            if (name == cap.name) requested = q;
        const auto v = consumed_for(requested, cap, "claim " + claim_name(r.claim));
        if (!v) {
          rollback(r, c, base, sub, u);
          return placed::stop;
        }
        consumed.emplace_back(cap.name, *v);
      }
      u.capacity_entry_existed = existing != nullptr;
      if (existing != nullptr)
        detail::add_capacity(existing->used, consumed);
      else
        allocating_capacity_.push_back({id, consumed});
      u.capacity_inserted = true;
      u.consumed = std::move(consumed);
    }
    ++result_counts_[r.claim];
    results_.push_back({r.claim, request_name, id});
    u.result_added = true;
    return placed::yes;
  }

  // ---- allocateOne -------------------------------------------------------------------------

  step allocate_one(indices r, bool allocate_sub, location start) {
    if (++steps_ > step_limit_) {
      fail(kind::not_modelled, "the device allocation search takes more than " +
                                   std::to_string(step_limit_) +
                                   " steps (kube-scheduler's filter may time out)");
      return step::error;
    }
    if (r.claim >= in_.claims.size()) return step::success;
    const resource_claim& claim = *in_.claims[r.claim];
    if (r.request >= claim.requests.size()) {
      const step s = allocate_one({r.claim + 1, 0, 0, 0}, false, {});
      return s == step::max_size_exceeded ? step::failure : s;
    }
    if (!allocate_sub && subs(r.claim, r.request) > 0) {
      bool all_exceeded = true;
      for (std::size_t sub = 0;; ++sub) {
        if (sub >= subs(r.claim, r.request))
          return all_exceeded ? step::max_size_exceeded : step::failure;
        r.sub = sub;
        const step s = allocate_one(r, true, {});
        if (s == step::max_size_exceeded) continue;
        all_exceeded = false;
        if (s == step::error) return s;
        if (s == step::success) {
          selected_sub_[claim_request_base_[r.claim] + r.request] = sub;
          return s;
        }
      }
    }
    request_data& rd = data(r.claim, r.request, r.sub);
    const exact_request& req = *rd.req;
    const bool all = req.all_mode();
    if (all && rd.all_devices.empty()) return step::failure;
    if (r.device >= rd.num_devices) return allocate_one({r.claim, r.request + 1, 0, 0}, false, {});
    const std::size_t remaining = rd.num_devices - r.device;
    const std::size_t available = allocation_results_max_size - result_counts_[r.claim];
    if (remaining > available) return step::max_size_exceeded;

    if (all) {
      const auto& loc = rd.all_devices[r.device];
      const candidate c{loc.pool, loc.slice, &loc.slice->devices[loc.device]};
      undo_state u;
      const placed p = allocate_device(r, c, true, u);
      if (p == placed::stop) return step::error;
      if (p == placed::no) return step::failure;
      const step s = allocate_one({r.claim, r.request, r.sub, r.device + 1}, allocate_sub, {});
      if (s != step::success) rollback(r, c, base_name(r), sub_name(r), u);
      return s;
    }

    const std::string request_name =
        rd.parent != nullptr ? rd.parent->name + "/" + req.name : claim.requests[r.request].name;
    for (std::size_t pi = start.pool; pi < pools_.size(); ++pi) {
      const pool& p = pools_[pi];
      if (p.incomplete || p.invalid) continue;
      const std::size_t slice_start = pi == start.pool ? start.slice : 0;
      for (std::size_t si = slice_start; si < p.targeting.size(); ++si) {
        const resource_slice& s = *p.targeting[si];
        const std::size_t device_start = (pi == start.pool && si == start.slice) ? start.device : 0;
        for (std::size_t di = device_start; di < s.devices.size(); ++di) {
          const device& d = s.devices[di];
          const device_id id{p.driver, p.name, d.name};
          if (req.admin() && allocating_for_claim(id, r.claim)) continue;
          if (!req.admin() && in_use(id)) continue;
          const std::optional<bool> sel = selectable(rd, r.claim, r.request, r.sub, s, di);
          if (!sel) return step::error;
          if (!*sel) continue;
          capacity_entry* existing = allocating_capacity(id);
          const std::optional<bool> fits = over_capacity_ok(
              req, d, in_.used->capacity(id), existing != nullptr ? &existing->used : nullptr,
              r.claim, request_name);
          if (!fits) return step::error;
          if (!*fits) continue;
          const candidate c{pi, &s, &d};
          undo_state u;
          const placed placed_device = allocate_device(r, c, false, u);
          if (placed_device == placed::stop) return step::error;
          if (placed_device == placed::no) continue;
          const step next = allocate_one({r.claim, r.request, r.sub, r.device + 1}, allocate_sub,
                                         {pi, si, di + 1});
          if (next == step::success) return next;
          rollback(r, c, base_name(r), sub_name(r), u);
          if (next != step::failure) return next;
        }
      }
    }
    return step::failure;
  }

  std::string_view base_name(const indices& r) {
    const request_data& rd = data(r.claim, r.request, r.sub);
    return rd.parent != nullptr ? std::string_view(rd.parent->name)
                                : std::string_view(in_.claims[r.claim]->requests[r.request].name);
  }
  std::string_view sub_name(const indices& r) {
    const request_data& rd = data(r.claim, r.request, r.sub);
    return rd.parent != nullptr ? std::string_view(rd.req->name) : std::string_view();
  }

  const allocator_inputs& in_;
  allocation_node node_;
  std::size_t step_limit_;
  std::size_t steps_ = 0;
  bool failed_ = false;
  allocation_outcome outcome_;
  std::vector<pool> pools_;
  std::vector<request_data> data_;
  std::vector<std::size_t> request_base_;        // per (claim, request): index of its first data
  std::vector<std::size_t> request_subs_;        // per (claim, request): its sub-requests
  std::vector<std::size_t> claim_request_base_;  // per claim: index of its first request
  std::vector<std::size_t> selected_sub_;
  std::vector<std::vector<constraint>> constraints_;
  std::vector<std::size_t> result_counts_;
  std::vector<allocated_for> results_;  // the devices chosen so far, in order
  std::map<std::tuple<const device*, std::size_t, std::size_t, std::size_t>, bool> matches_;
  std::vector<allocating_entry> allocating_;
  std::vector<capacity_entry> allocating_capacity_;
  std::map<std::size_t, counters> available_, consumed_;
};

}  // namespace kubernetes::dra::detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_DRA_DETAIL_ALLOCATOR_SEARCH_HPP
