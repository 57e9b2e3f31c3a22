// preempt/node.hpp - how the algorithms read the caller's node type.
//
// The algorithms read a node only through these accessors (function objects in namespace
// preempt), each of which asks preempt::node_traits<N> first, then the node's own const member:
//   preempt::name_of(n)   n.name(): the node's name (convertible to std::string_view), used in
//                         results and diagnoses
//   preempt::pods_of(n)   n.pods(): a forward range of the pods assigned to the node. Its
//                         elements are lvalues of a type that models `pod`, or proxies that stand
//                         for such lvalues: pointers and smart pointers (*e), or
//                         std::reference_wrapper and other handles with get() (e.get()). A range
//                         of proxies is read through a small view that yields the pods themselves.
// Optionally, a node's own n.stamp() (a std::uint64_t) names its pods: a new value whenever they
// change, the same only for nodes with the same pods (a copy). With a budget set that has one too,
// the evaluator remembers what the budgets answered on the node (preempt/budget.hpp,
// stamped_budgets).
// A type models `node` when both accessors answer. Specialize node_traits with static functions
// name(n) and pods(n) to adapt a type whose members are named otherwise.
// The algorithms keep pointers to the pods for as long as a result that names them is used, so
// the node must not change in the meantime (a proxy must refer to a pod that outlives it). So
// neither accessor may hand out a temporary that holds what it yields: a name returned as a
// std::string by value, or the pods as a container by value (std::vector<pod>, any container
// with an allocator, std::array) would be gone when the call returns, and such a node type is not
// a `node` (the entry points say so in words). Return a const reference or a view instead
// (std::string_view, std::span, a range-v3 view); a container of pointers by value is fine (the
// pods it points to live on).
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
#include "preempt/detail/pod_views.hpp"
#include "preempt/pod.hpp"

PREEMPT_NAMESPACE_BEGIN

// How the library reads a node type. The primary template is empty: the accessors then call the
// node's members. A specialization provides static name(n) and/or pods(n).
template <class N>
struct node_traits {};

namespace detail {

template <class N>
using node_traits_of = ::preempt::node_traits<std::remove_cvref_t<N>>;

// Whether R stores its elements: a container with an allocator (std::vector, std::string, ...) or
// a std::array.
template <class R>
concept storing_range =
    requires { typename R::allocator_type; } || requires { std::tuple_size<R>::value; };

// Whether R, an accessor's result, is a temporary that holds what it yields (a std::string, a
// container of the pods themselves): a std::string_view or a pointer read from it would refer
// into an object gone at the end of the call. Views and borrowed ranges refer elsewhere.
template <class R>
concept owning_temporary =
    !std::is_reference_v<R> && std::ranges::range<R> && !std::ranges::borrowed_range<R> &&
    !std::ranges::view<R> && storing_range<R>;

// The name of a node as the node gives it (traits first, then the member).
template <class N>
  requires requires(const N& n) { node_traits_of<N>::name(n); } ||
           requires(const N& n) { n.name(); }
constexpr decltype(auto) raw_name(const N& n) {
  if constexpr (requires { node_traits_of<N>::name(n); })
    return node_traits_of<N>::name(n);
  else
    return n.name();
}

template <class N>
using raw_name_t = decltype(::preempt::detail::raw_name(std::declval<const N&>()));

// The pods of a node as the node gives them (traits first, then the member).
template <class N>
  requires requires(const N& n) { node_traits_of<N>::pods(n); } ||
           requires(const N& n) { n.pods(); }
constexpr decltype(auto) raw_pods(const N& n) {
  if constexpr (requires { node_traits_of<N>::pods(n); })
    return node_traits_of<N>::pods(n);
  else
    return n.pods();
}

template <class N>
using raw_pods_t = decltype(::preempt::detail::raw_pods(std::declval<const N&>()));

// An element of a node's pod range read as a pod lvalue: the element itself when it is one, else
// what it stands for (*e, then e.get()).
struct pod_of_element_fn {
  template <class E>
    requires(std::is_lvalue_reference_v<E &&> && ::preempt::pod<std::remove_cvref_t<E>>) ||
            requires(E&& e) { *e; } || requires(E&& e) { e.get(); }
  constexpr decltype(auto) operator()(E&& e) const {
    if constexpr (std::is_lvalue_reference_v<E&&> && ::preempt::pod<std::remove_cvref_t<E>>)
      return static_cast<const std::remove_cvref_t<E>&>(e);
    else if constexpr (requires { *e; })
      return static_cast<const std::remove_cvref_t<decltype(*e)>&>(*e);
    else
      return static_cast<const std::remove_cvref_t<decltype(e.get())>&>(e.get());
  }
};

// Whether the elements of range R are already pod lvalues.
template <class R>
concept direct_pod_range = std::is_lvalue_reference_v<std::ranges::range_reference_t<R>> &&
                           ::preempt::pod<std::remove_cvref_t<std::ranges::range_reference_t<R>>>;

// Whether the elements of range R stand for pod lvalues.
template <class R>
concept proxy_pod_range = requires(std::ranges::range_reference_t<R> e) {
  { pod_of_element_fn{}(static_cast<std::ranges::range_reference_t<R>>(e)) };
  requires std::is_lvalue_reference_v<decltype(pod_of_element_fn{}(
      static_cast<std::ranges::range_reference_t<R>>(e)))>;
  requires ::preempt::pod<std::remove_cvref_t<decltype(pod_of_element_fn{}(
      static_cast<std::ranges::range_reference_t<R>>(e)))>>;
};

// Whether a range R of pods returned by value holds the pods themselves.
template <class R>
concept pods_in_temporary = owning_temporary<R> && direct_pod_range<R>;

struct name_of_fn {
  template <class N>
    requires requires(const N& n) {
      { ::preempt::detail::raw_name(n) } -> std::convertible_to<std::string_view>;
    } && (!owning_temporary<raw_name_t<N>>)
  constexpr std::string_view operator()(const N& n) const {
    return ::preempt::detail::raw_name(n);
  }
};

struct pods_of_fn {
  template <class N>
    requires requires(const N& n) {
      { ::preempt::detail::raw_pods(n) } -> std::ranges::forward_range;
    } && (!pods_in_temporary<raw_pods_t<N>>)
  constexpr decltype(auto) operator()(const N& n) const {
    using R = decltype(::preempt::detail::raw_pods(n));
    if constexpr (direct_pod_range<R> || !proxy_pod_range<R>)
      return ::preempt::detail::raw_pods(n);
    else
      return deref_view<R, pod_of_element_fn>(::preempt::detail::raw_pods(n), pod_of_element_fn{});
  }
};

}  // namespace detail

// A node's name.
inline constexpr detail::name_of_fn name_of{};

// A node's pods, as a forward range of pod lvalues.
inline constexpr detail::pods_of_fn pods_of{};

namespace detail {
template <class N>
using node_pods_range_t = decltype(::preempt::pods_of(std::declval<const N&>()));
}  // namespace detail

template <class N>
concept node =
    requires(const N& n) {
      ::preempt::name_of(n);
      ::preempt::pods_of(n);
    } && std::is_lvalue_reference_v<std::ranges::range_reference_t<detail::node_pods_range_t<N>>> &&
    pod<std::remove_cvref_t<std::ranges::range_reference_t<detail::node_pods_range_t<N>>>>;

// The pod type of a node.
template <node N>
using node_pod_t =
    std::remove_cvref_t<std::ranges::range_reference_t<detail::node_pods_range_t<N>>>;

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_NODE_HPP
