// preempt/cluster.hpp - how the evaluation reads the caller's cluster.
//
// A type C models `cluster` when it has:
//   c.size()                    the number of nodes
//   c[i]                        node i (models preempt::node), for i in [0, size())
//   typename C::state_type      its what-if node state (models preempt::node_state)
//   c.make_state()              a fresh state (one per worker thread; reused across nodes)
//   c.prepare_state(i, state)   point `state` at node i with all its pods
// The evaluation never copies a node: it prepares a worker's state for each node it evaluates.
// preempt::model::resource_cluster models it with resource_fit_state.
//
// Cluster-wide filter state. Some filters judge a node by pods elsewhere (topology spread counts
// per zone, inter-pod anti-affinity per topology pair). Upstream computes such state once per pod
// to place (PreFilter) and updates it as pods are removed from or added to the node under
// evaluation (the AddPod/RemovePod PreFilter extensions). Here the cluster object the evaluation
// reads carries that state: it is computed before the evaluation for the pod to place, and is
// read-only during it (the evaluation takes the cluster by const reference and may share it
// between threads). Each worker's state holds only what its node changes, on top of the shared
// counts (an overlay), and prepare_state(i, state) resets it for node i; the algorithms' calls to
// remove_pod/add_pod then keep it right, and nothing cluster-wide is copied. A cluster without
// such filters needs nothing of this. kubernetes::filter_cluster (kubernetes/filter_cluster.hpp)
// is a view that adds PodTopologySpread, InterPodAffinity and NodePorts to any cluster this way.
//
// Header-only declarations; no allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_CLUSTER_HPP
#define PREEMPT_CLUSTER_HPP

#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "preempt/config.hpp"
#include "preempt/node.hpp"
#include "preempt/node_state.hpp"

PREEMPT_NAMESPACE_BEGIN

template <class C>
concept cluster =
    requires(const C& c, std::size_t i, typename C::state_type& state) {
      { c.size() } -> std::convertible_to<std::size_t>;
      c[i];
      { c.make_state() } -> std::same_as<typename C::state_type>;
      c.prepare_state(i, state);
    } && node<std::remove_cvref_t<decltype(std::declval<const C&>()[std::size_t{}])>> &&
    node_state<typename C::state_type,
               node_pod_t<std::remove_cvref_t<decltype(std::declval<const C&>()[std::size_t{}])>>>;

// The node and pod types of a cluster.
template <cluster C>
using cluster_node_t = std::remove_cvref_t<decltype(std::declval<const C&>()[std::size_t{}])>;
template <cluster C>
using cluster_pod_t = node_pod_t<cluster_node_t<C>>;

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_CLUSTER_HPP
