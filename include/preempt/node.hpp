// preempt/node.hpp - how the algorithms read the caller's node type.
//
// A type models `node` when it answers, through const members:
//   n.name()   the node's name (convertible to std::string_view), used in results and diagnoses
//   n.pods()   a forward range of the pods assigned to the node, each an lvalue of a type that
//              models `pod`. The algorithms keep pointers to these pods for as long as a result
//              that names them is used, so the node must not change in the meantime.
// When pods() yields the pods in descending importance (as preempt::model::resource_cluster keeps
// them), victim selection skips its sort.
//
// Header-only declarations; no allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_NODE_HPP
#define PREEMPT_NODE_HPP

#include <concepts>
#include <ranges>
#include <string_view>
#include <type_traits>
#include <utility>

#include "preempt/config.hpp"
#include "preempt/pod.hpp"

PREEMPT_NAMESPACE_BEGIN

namespace detail {
template <class N>
using node_pods_range_t = decltype(std::declval<const N&>().pods());
}  // namespace detail

template <class N>
concept node =
    requires(const N& n) {
      { n.name() } -> std::convertible_to<std::string_view>;
      { n.pods() } -> std::ranges::forward_range;
    } && std::is_lvalue_reference_v<std::ranges::range_reference_t<detail::node_pods_range_t<N>>> &&
    pod<std::remove_cvref_t<std::ranges::range_reference_t<detail::node_pods_range_t<N>>>>;

// The pod type of a node.
template <node N>
using node_pod_t =
    std::remove_cvref_t<std::ranges::range_reference_t<detail::node_pods_range_t<N>>>;

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_NODE_HPP
