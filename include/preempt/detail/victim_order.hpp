// preempt/detail/victim_order.hpp - the order of a node's potential victims (step 5 of
// SelectVictimsOnNode). Potential victims are ordered by descending importance
// (policy.more_important, or for default_policy's order more_important_as_built: victims without a
// start time ordered by their position in the cache's order, as upstream builds them), as
// upstream's sort.Slice orders them starting from the cache's order of the node's pods
// (node.cache_position(i) when the node has it, else node order): equally important pods end in
// the order Go's pdqsort leaves them (detail::go_sort_slice), so the victims' order is upstream's.
// Nodes whose pods are strictly in importance order are not sorted.
//
// Complexity: O(v log v) for v potential victims, O(v) when strictly ordered. No allocation.
// Exceptions: only the policy's order's.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_VICTIM_ORDER_HPP
#define PREEMPT_DETAIL_VICTIM_ORDER_HPP

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "preempt/config.hpp"
#include "preempt/detail/go_sort.hpp"
#include "preempt/detail/victim_policy_traits.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

// Where the i-th pod of the node stands in the order kube-scheduler's cache lists the node's pods:
// node.cache_position(i) when the node keeps that order apart (model::resource_node does), else
// the node's own order.
template <class N>
std::uint32_t cache_position(const N& node, std::size_t i) {
  if constexpr (requires {
                  { node.cache_position(i) } -> std::convertible_to<std::uint32_t>;
                })
    return node.cache_position(i);
  else
    return static_cast<std::uint32_t>(i);
}

// Upstream's MoreImportantVictim on two potential victims of a node, each built at its position
// in the cache's order of the node's pods.
template <class Entry, class Policy>
bool more_important_victim(const Entry& a, const Entry& b, const Policy& policy) {
  using P = std::remove_cvref_t<decltype(*a.pod)>;
  if constexpr (detail::orders_as_built<Policy, P>())
    return policy.more_important_as_built(*a.pod, a.position, *b.pod, b.position);
  else
    return policy.more_important(*a.pod, *b.pod);
}

// Every entry strictly less important than the one before: the importance order is unique, and
// any sort, upstream's included, gives exactly this order.
template <class Entry, class Policy>
bool in_strict_importance_order(std::span<const Entry> entries, const Policy& policy) {
  for (std::size_t i = 1; i < entries.size(); ++i)
    if (!detail::more_important_victim(entries[i - 1], entries[i], policy)) return false;
  return true;
}

// Orders the entries as upstream's SelectVictimsOnNode does: sort.Slice by MoreImportantPod over
// the pods in cache order. Equally important pods end where Go's pdqsort leaves them.
template <class Entry, class Policy>
void order_by_importance(std::span<Entry> entries, const Policy& policy) {
  if (detail::in_strict_importance_order(std::span<const Entry>(entries), policy)) return;
  const bool in_cache_order =
      std::is_sorted(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return a.position < b.position; });
  if (!in_cache_order)
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.position < b.position; });
  detail::go_sort_slice(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    return detail::more_important_victim(a, b, policy);
  });
}

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_VICTIM_ORDER_HPP
