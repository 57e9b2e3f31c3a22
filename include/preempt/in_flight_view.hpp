// preempt/in_flight_view.hpp - an opt-in evaluation policy: count victims whose eviction is
// already in flight as gone.
//
// By default (as upstream) a victim stays on its node, occupying room, until its deletion is
// observed; the preemptor that evicts it holds the room through its nomination. A later
// preemption then sees both the victim and the nomination, counts the same room twice, and may
// pick the in-flight victims again (and more pods besides). `in_flight_view` wraps a cluster so
// that the victims in a snapshot of the in-flight victim ledger are neither listed among their
// node's pods nor counted in the node state: their room is free, and the nomination that
// preempted them still reserves it for the preemptor of equal or higher priority.
// Only async dispatch leaves victims in that ledger while their evictions run (and, once
// accepted, until the caller reports them); inline dispatch holds none once apply returns, so
// with an always-inline executor the view hides nothing and the caller's own cache (victims shown
// terminating) is what keeps a later evaluation from counting them.
//
//   std::vector<uid> in_flight;  table.victims_snapshot(in_flight);
//   preempt::in_flight_view view(cluster, in_flight);   // sorts the snapshot
//   evaluator<preempt::in_flight_view<model::resource_cluster>> ev; ev.evaluate(p, view, ...);
//
// It models preempt::cluster with the wrapped cluster's state type. Complexity: O(v log v) to
// build for v victims in flight; O(log v) per pod when iterating a node. No allocation after
// construction (the snapshot vector is the caller's, sorted in place). No exceptions of its own.
// Read-only over the cluster: as thread-safe as the wrapped cluster's const members.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_IN_FLIGHT_VIEW_HPP
#define PREEMPT_IN_FLIGHT_VIEW_HPP

#include <algorithm>
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "preempt/cluster.hpp"
#include "preempt/config.hpp"
#include "preempt/detail/pod_views.hpp"
#include "preempt/node.hpp"
#include "preempt/pod.hpp"

PREEMPT_NAMESPACE_BEGIN

template <cluster C>
class in_flight_view {
 public:
  using pod_type = cluster_pod_t<C>;
  using uid_type = pod_uid_t<pod_type>;
  using state_type = cluster_state_t<C>;

  // `in_flight` is sorted in place and must outlive the view, like `underlying`.
  in_flight_view(const C& underlying, std::vector<uid_type>& in_flight)
      : underlying_(&underlying), in_flight_(in_flight) {
    std::sort(in_flight.begin(), in_flight.end());
  }

  class node_view {
   public:
    node_view(const cluster_node_t<C>& n, const in_flight_view& v) : node_(&n), view_(&v) {}
    std::string_view name() const { return ::preempt::name_of(*node_); }
    auto pods() const {
      const in_flight_view* v = view_;
      return detail::filter_view(::preempt::pods_of(*node_),
                                 [v](const pod_type& p) { return !v->is_in_flight(p); });
    }
    const cluster_node_t<C>& underlying() const noexcept { return *node_; }

   private:
    const cluster_node_t<C>* node_;
    const in_flight_view* view_;
  };

  std::size_t size() const { return ::preempt::cluster_size(*underlying_); }
  node_view operator[](std::size_t i) const {
    return node_view(::preempt::cluster_node(*underlying_, i), *this);
  }
  state_type make_state() const { return ::preempt::make_node_state(*underlying_); }

  // The wrapped node's state, with its in-flight victims removed.
  void prepare_state(std::size_t i, state_type& state) const {
    ::preempt::prepare_node_state(*underlying_, i, state);
    for (const pod_type& p : ::preempt::pods_of(::preempt::cluster_node(*underlying_, i)))
      if (is_in_flight(p)) (void)state.remove_pod(p);
  }

  void reading_started() const noexcept { ::preempt::detail::reading_started(*underlying_); }
  void reading_ended() const noexcept { ::preempt::detail::reading_ended(*underlying_); }

  bool is_in_flight(const pod_type& p) const {
    return std::binary_search(in_flight_.begin(), in_flight_.end(), ::preempt::uid_of(p));
  }

 private:
  const C* underlying_;
  std::span<const uid_type> in_flight_;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_IN_FLIGHT_VIEW_HPP
