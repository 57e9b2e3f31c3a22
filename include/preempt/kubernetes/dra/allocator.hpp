// preempt/kubernetes/dra/allocator.hpp - can a pod's unallocated ResourceClaims be allocated on
// a node? kube-scheduler's structured allocator, as v1.37's default features select it (the
// "incubating" allocator of k8s.io/dynamic-resource-allocation v0.37: prioritized lists,
// partitionable devices, device taints, admin access, consumable capacity and binding conditions
// on; fractional capacity ranges, list attributes, compatibility groups, derived attributes and
// optional node operations off).
//
//   allocated_state used;  used.add(claim) for every claim of the cluster; used.finish();
//   structured_allocator a(slices, classes, used, claims_to_allocate);
//   allocation_outcome o = a.allocate(node);   // per node; thread-safe
//
// The search is upstream's, in its order: the node's resource pools (slices with the node's
// name, all-nodes and node-selector slices, per-device node selection), complete and valid ones
// only, sorted by driver and pool name with pools that have binding conditions last; slices by
// name; devices in slice order; claims, requests, sub-requests (firstAvailable, first that
// works) and devices in order, backtracking (detail/allocator_search.hpp). The outcome:
//   allocated       every claim can be allocated on the node
//   unsatisfiable   no solution ("cannot allocate all claims")
//   failed_on_node  no solution and a pool is invalid ("invalid resource pools were encountered")
//   error           what makes upstream's Allocate fail for the whole attempt (a CEL runtime
//                   error, a pool being updated under allocationMode All, ...), with its text
//   not_modelled    the search met something outside cel.hpp's subset, or ran past `step_limit`
//                   steps (upstream gives up after its filter timeout)
// Devices of allocated claims stay allocated: v1.37 frees no device for a victim (see
// dynamic_resources.hpp).
//
// Complexity: upstream's backtracking, bounded by `step_limit`; a selector is evaluated at most
// once per device and request. Allocation: per call, the pools and search state of the node.
// No exceptions; allocate() is const and thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_DRA_ALLOCATOR_HPP
#define PREEMPT_KUBERNETES_DRA_ALLOCATOR_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/dra/allocated_state.hpp"
#include "preempt/kubernetes/dra/cel.hpp"
#include "preempt/kubernetes/dra/detail/allocator_search.hpp"
#include "preempt/kubernetes/dra/objects.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes::dra {

class structured_allocator {
 public:
  static constexpr std::size_t step_limit = 2'000'000;

  // `claims` are the claims to allocate, in the pod's order; every request names an existing
  // class (the caller's PreFilter checks that). All arguments must outlive the allocator.
  structured_allocator(std::span<const resource_slice> slices,
                       std::span<const device_class> classes, const allocated_state& used,
                       std::span<const resource_claim* const> claims)
      : shared_{slices, classes, &used, claims, {}, {}, {}} {
    for (std::size_t i = 0; i < slices.size(); ++i) {
      const resource_slice& s = slices[i];
      if (s.node_name && !s.node_name->empty())
        shared_.slices_on_node[*s.node_name].push_back(i);
      else
        shared_.slices_shared.push_back(i);
    }
    for (const device_class& c : classes)
      for (const device_selector& sel : c.selectors)
        if (sel.cel) shared_.programs.try_emplace(*sel.cel, cel::program::compile(*sel.cel));
    for (const resource_claim* claim : claims)
      for (const device_request& r : claim->requests) {
        const auto compile_all = [&](const exact_request& e) {
          for (const device_selector& sel : e.selectors)
            if (sel.cel) shared_.programs.try_emplace(*sel.cel, cel::program::compile(*sel.cel));
        };
        if (r.exactly) compile_all(*r.exactly);
        for (const exact_request& sub : r.first_available) compile_all(sub);
      }
  }

  allocation_outcome allocate(const allocation_node& node) const {
    detail::allocator_search search(shared_, node, step_limit);
    return search.run();
  }

 private:
  detail::allocator_inputs shared_;
};

}  // namespace kubernetes::dra
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_DRA_ALLOCATOR_HPP
