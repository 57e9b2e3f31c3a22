// preempt/cluster.hpp - how the evaluation reads the caller's cluster.
//
// The algorithms read a cluster only through these accessors (function objects in namespace
// preempt), each of which asks preempt::cluster_traits<C> first, then the cluster's own member:
//   preempt::cluster_size(c)                 c.size(): the number of nodes
//   preempt::cluster_node(c, i)              c[i]: node i (models preempt::node), i < size
//   preempt::cluster_state_t<C>              C::state_type: its what-if node state (models
//                                            preempt::node_state)
//   preempt::make_node_state(c)              c.make_state(): a fresh state (one per worker
//                                            thread; reused across nodes)
//   preempt::prepare_node_state(c, i, s)     c.prepare_state(i, s): point s at node i with all
//                                            its pods
// A type with those members models `cluster` as it is (preempt::model::resource_cluster, with
// resource_fit_state); any other is adapted by specializing cluster_traits with `using state_type`
// and static size(c), node(c, i), make_state(c), prepare_state(c, i, state) for what it lacks.
// cluster_view<C> is a cluster with the members, over one adapted through the traits.
//
// Rules. The evaluation takes the cluster by const reference, may share it between worker
// threads, and keeps views of its nodes' names and pods in its decision: nobody may change the
// cluster (add or remove nodes or pods, or move it) while an evaluate call reads it (a use after
// free), and the decision is valid only until the cluster changes. A cluster may have const members
// reading_started() and reading_ended(): the evaluator calls them around each evaluation, so that
// the cluster can check the rule (model::resource_cluster does, in builds without NDEBUG).
// Node i may be returned by value (a proxy that refers to the caller's node), but not as a copy of
// a node that holds its pods (`machine operator[](std::size_t) const` over machines that each hold
// a std::vector of pods): every pod read through such a copy is gone at the end of the access.
// The evaluators check node 0 when an evaluation starts (O(1)) and report it as a contract
// violation (PREEMPT_ASSERT).
// Cluster-wide filter state (topology spread counts, anti-affinity pairs: upstream's PreFilter) is
// part of the cluster object, computed before the evaluation and read-only during it; each worker's
// state holds only what its node changes (an overlay, reset by prepare_state).
// kubernetes::filter_cluster adds PodTopologySpread, InterPodAffinity and NodePorts to any cluster
// this way.
//
// Header-only declarations; no allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_CLUSTER_HPP
#define PREEMPT_CLUSTER_HPP

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <ranges>
#include <type_traits>
#include <utility>

#include "preempt/config.hpp"
#include "preempt/detail/hook_check.hpp"
#include "preempt/node.hpp"
#include "preempt/node_state.hpp"

PREEMPT_NAMESPACE_BEGIN

// How the library reads a cluster type. The primary template is empty: the accessors then call the
// cluster's members. A specialization provides `using state_type` and any of the static functions
// size(c), node(c, i), make_state(c), prepare_state(c, i, state).
template <class C>
struct cluster_traits {};

namespace detail {

template <class C>
using cluster_traits_of = ::preempt::cluster_traits<std::remove_cvref_t<C>>;

template <class C>
struct cluster_state {};
template <class C>
  requires requires { typename cluster_traits_of<C>::state_type; }
struct cluster_state<C> {
  using type = typename cluster_traits_of<C>::state_type;
};
template <class C>
  requires(
      !requires { typename cluster_traits_of<C>::state_type; } &&
      requires { typename C::state_type; })
struct cluster_state<C> {
  using type = typename C::state_type;
};

struct cluster_size_fn {
  template <class C>
    requires requires(const C& c) { cluster_traits_of<C>::size(c); } ||
             requires(const C& c) { c.size(); }
  constexpr std::size_t operator()(const C& c) const {
    if constexpr (requires { cluster_traits_of<C>::size(c); })
      return static_cast<std::size_t>(cluster_traits_of<C>::size(c));
    else
      return static_cast<std::size_t>(c.size());
  }
};

struct cluster_node_fn {
  template <class C>
    requires requires(const C& c, std::size_t i) { cluster_traits_of<C>::node(c, i); } ||
             requires(const C& c, std::size_t i) { c[i]; }
  constexpr decltype(auto) operator()(const C& c, std::size_t i) const {
    if constexpr (requires { cluster_traits_of<C>::node(c, i); })
      return cluster_traits_of<C>::node(c, i);
    else
      return c[i];
  }
};

struct make_node_state_fn {
  template <class C>
    requires requires(const C& c) { cluster_traits_of<C>::make_state(c); } ||
             requires(const C& c) { c.make_state(); }
  constexpr auto operator()(const C& c) const {
    if constexpr (requires { cluster_traits_of<C>::make_state(c); })
      return cluster_traits_of<C>::make_state(c);
    else
      return c.make_state();
  }
};

struct prepare_node_state_fn {
  template <class C, class S>
    requires requires(const C& c, std::size_t i, S& s) {
      cluster_traits_of<C>::prepare_state(c, i, s);
    } || requires(const C& c, std::size_t i, S& s) { c.prepare_state(i, s); }
  constexpr void operator()(const C& c, std::size_t i, S& state) const {
    if constexpr (requires { cluster_traits_of<C>::prepare_state(c, i, state); })
      cluster_traits_of<C>::prepare_state(c, i, state);
    else
      c.prepare_state(i, state);
  }
};

}  // namespace detail

// The number of nodes of a cluster.
inline constexpr detail::cluster_size_fn cluster_size{};
// Node i of a cluster (possibly a proxy returned by value).
inline constexpr detail::cluster_node_fn cluster_node{};
// A fresh node state for a cluster.
inline constexpr detail::make_node_state_fn make_node_state{};
// Points a node state at node i.
inline constexpr detail::prepare_node_state_fn prepare_node_state{};

// A cluster's node state type.
template <class C>
using cluster_state_t = typename detail::cluster_state<C>::type;

namespace detail {
template <class C>
using cluster_node_type =
    std::remove_cvref_t<decltype(::preempt::cluster_node(std::declval<const C&>(), std::size_t{}))>;
}  // namespace detail

template <class C>
concept cluster =
    requires(const C& c, std::size_t i, cluster_state_t<C>& state) {
      { ::preempt::cluster_size(c) } -> std::convertible_to<std::size_t>;
      ::preempt::cluster_node(c, i);
      { ::preempt::make_node_state(c) } -> std::same_as<cluster_state_t<C>>;
      ::preempt::prepare_node_state(c, i, state);
    } && node<detail::cluster_node_type<C>> &&
    node_state<cluster_state_t<C>, node_pod_t<detail::cluster_node_type<C>>>;

// The node and pod types of a cluster.
template <cluster C>
using cluster_node_t = detail::cluster_node_type<C>;
template <cluster C>
using cluster_pod_t = node_pod_t<cluster_node_t<C>>;

namespace detail {
// Tell a cluster that offers reading_started/ended that an evaluation reads it, or ended.
template <class C>
void reading_started(const C& c) noexcept {
  if constexpr (requires { c.reading_started(); }) c.reading_started();
}
template <class C>
void reading_ended(const C& c) noexcept {
  if constexpr (requires { c.reading_ended(); }) c.reading_ended();
}

// Marks a cluster as read for its lifetime.
template <class C>
class reading_scope {
 public:
  explicit reading_scope(const C& c) noexcept : c_(&c) { ::preempt::detail::reading_started(c); }
  reading_scope(const reading_scope&) = delete;
  reading_scope& operator=(const reading_scope&) = delete;
  ~reading_scope() { ::preempt::detail::reading_ended(*c_); }

 private:
  const C* c_;
};

// Whether c returns its nodes by value as copies that hold their pods: node 0's pods accessor
// refers to a storing container (a std::vector, a std::array) inside the node object returned, or
// hands out a contiguous range (a std::span) whose pods lie inside it. O(1); false for nodes
// returned by reference, proxies whose pods live elsewhere, and ranges of pointers.
template <class C>
bool nodes_copied_with_their_pods(const C& c) {
  using N = decltype(::preempt::cluster_node(c, std::size_t{}));
  if constexpr (std::is_reference_v<N>) {
    return false;
  } else {
    using R = raw_pods_t<N>;
    constexpr bool holds_container = std::is_lvalue_reference_v<R> && direct_pod_range<R> &&
                                     owning_temporary<std::remove_cvref_t<R>>;
    constexpr bool contiguous = std::ranges::contiguous_range<R> && direct_pod_range<R>;
    if constexpr (!holds_container && !contiguous) {
      return false;
    } else {
      if (::preempt::cluster_size(c) == 0) return false;
      const N& node = ::preempt::cluster_node(c, std::size_t{0});
      const auto first = reinterpret_cast<std::uintptr_t>(std::addressof(node));
      const auto inside = [first](const void* p) {
        const auto at = reinterpret_cast<std::uintptr_t>(p);
        return at >= first && at < first + sizeof(N);
      };
      decltype(auto) pods = ::preempt::detail::raw_pods(node);
      if constexpr (holds_container)
        if (inside(std::addressof(pods))) return true;
      if constexpr (contiguous)
        if (std::ranges::begin(pods) != std::ranges::end(pods) &&
            inside(std::to_address(std::ranges::begin(pods))))
          return true;
      return false;
    }
  }
}

// The evaluators' check, when an evaluation starts, that c's nodes are not such copies.
template <class C>
void check_nodes_not_copied(const C& c) noexcept {
  PREEMPT_ASSERT(!::preempt::detail::nodes_copied_with_their_pods(c),
                 "the cluster returns its nodes by value, as copies that hold their pods "
                 "(c[i] or cluster_traits<C>::node(c, i)): every pod read through one is gone "
                 "at the end of the access; return a reference to the node");
}
}  // namespace detail

// A cluster with the members the algorithms call, over a cluster read through the accessors (one
// adapted through cluster_traits). Refers to the cluster: it must outlive the view.
template <cluster C>
class cluster_view {
 public:
  using state_type = cluster_state_t<C>;

  explicit cluster_view(const C& c) noexcept : c_(&c) {}
  std::size_t size() const { return ::preempt::cluster_size(*c_); }
  decltype(auto) operator[](std::size_t i) const { return ::preempt::cluster_node(*c_, i); }
  state_type make_state() const { return ::preempt::make_node_state(*c_); }
  void prepare_state(std::size_t i, state_type& state) const {
    ::preempt::prepare_node_state(*c_, i, state);
  }
  const C& underlying() const noexcept { return *c_; }
  void reading_started() const noexcept { ::preempt::detail::reading_started(*c_); }
  void reading_ended() const noexcept { ::preempt::detail::reading_ended(*c_); }

 private:
  const C* c_;
};

namespace detail {
PREEMPT_DETAIL_MEMBER_NAMED(size)
PREEMPT_DETAIL_MEMBER_NAMED(node)
PREEMPT_DETAIL_MEMBER_NAMED(make_state)
PREEMPT_DETAIL_MEMBER_NAMED(prepare_state)
PREEMPT_DETAIL_MEMBER_NAMED(state_type)

// Whether C is read through its members alone (its cluster_traits, if any, provide nothing).
template <class C>
concept member_cluster =
    requires(const C& c, std::size_t i, typename C::state_type& s) {
      c.size();
      c[i];
      c.make_state();
      c.prepare_state(i, s);
    } && !has_member_named_size<cluster_traits_of<C>> &&
    !has_member_named_node<cluster_traits_of<C>> &&
    !has_member_named_make_state<cluster_traits_of<C>> &&
    !has_member_named_prepare_state<cluster_traits_of<C>> &&
    !has_member_named_state_type<cluster_traits_of<C>>;

// The cluster the algorithms' internals read: C itself when it has the members, else a
// cluster_view of it.
template <class C>
using member_cluster_t = std::conditional_t<member_cluster<C>, C, cluster_view<C>>;

template <class C>
constexpr decltype(auto) as_member_cluster(const C& c) noexcept {
  if constexpr (member_cluster<C>)
    return (c);
  else
    return cluster_view<C>(c);
}
}  // namespace detail

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_CLUSTER_HPP
