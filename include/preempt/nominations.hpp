// preempt/nominations.hpp - how the evaluation reads which pods are nominated to which node.
//
// A nominated pod has been promised room on a node by an earlier preemption (its
// nominatedNodeName) but is not running there yet. Upstream's nominator keeps them; filtering
// with nominated pods (RunFilterPluginsWithNominatedPods, preempt/nominated_fit.hpp) counts the
// ones of equal or higher priority on the node being tried.
//
//   nominated_range<R, P>   a forward range of pods, or of pointers to pods, of type P: the pods
//                           nominated to one node
//   nominations_of<N, P>    `n.nominated_to(i)` yields the nominated_range of node i; the
//                           nomination_ledger's reader models it
//   no_nominations          nothing is nominated anywhere (no_nominated_pods<P> on every node)
//
// Header-only declarations; no allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_NOMINATIONS_HPP
#define PREEMPT_NOMINATIONS_HPP

#include <concepts>
#include <cstddef>
#include <ranges>
#include <span>
#include <type_traits>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN

namespace detail {

template <class P, class Nominated>
concept nominated_range_of =
    std::ranges::forward_range<Nominated> &&
    (std::same_as<std::remove_cvref_t<std::ranges::range_reference_t<Nominated>>, P> ||
     std::same_as<std::remove_cvref_t<std::ranges::range_reference_t<Nominated>>, const P*> ||
     std::same_as<std::remove_cvref_t<std::ranges::range_reference_t<Nominated>>, P*>);

// An element of a nominated_range as a pod reference.
template <class P, class T>
constexpr const P& as_pod_ref(const T& x) noexcept {
  if constexpr (std::is_pointer_v<T>)
    return *x;
  else
    return x;
}

}  // namespace detail

// A range of nominated pods: pods or pointers to pods of type P.
template <class R, class P>
concept nominated_range = detail::nominated_range_of<P, R>;

// An empty list of nominated pods. (A span, not std::ranges::empty_view, which clang 14 cannot
// compile with libstdc++ 12.)
template <class P>
inline constexpr std::span<const P* const> no_nominated_pods{};

struct no_nominations;

template <class N, class P>
concept nominations_of = std::same_as<N, no_nominations> || requires(const N& n, std::size_t i) {
  { n.nominated_to(i) } -> nominated_range<P>;
};

// No pod is nominated anywhere.
struct no_nominations {};

namespace detail {
// A type that owns nominations behind a lock and hands out readers (nomination_ledger): passed
// where nominations are read, it is the wrong argument (see the evaluator's diagnosis).
template <class T>
concept nominations_owner = requires { typename std::remove_cvref_t<T>::reader_view; } &&
                            std::remove_cvref_t<T>::owns_nominations;
}  // namespace detail

namespace detail {

// The pods nominated to node i (no_nominated_pods for no_nominations).
template <class P, class N>
decltype(auto) nominated_to(const N& n, std::size_t i) {
  if constexpr (std::same_as<N, no_nominations>)
    return no_nominated_pods<P>;
  else
    return n.nominated_to(i);
}

// Whether pods are nominated to node i.
template <class P, class N>
bool has_nominated(const N& n, std::size_t i) {
  const auto& nominated = ::preempt::detail::nominated_to<P>(n, i);
  return std::ranges::begin(nominated) != std::ranges::end(nominated);
}

}  // namespace detail

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_NOMINATIONS_HPP
