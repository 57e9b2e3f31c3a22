// preempt/detail/requirements.hpp - why a type is not a pod, a node or a cluster, in words.
//
// A concept that fails deep inside (priority_of's result not convertible to std::int32_t, a node
// whose pods are not pods) makes the compiler list unsatisfied constraints without saying which
// accessor is wrong unless asked for more depth. The entry points (evaluator, dispatcher,
// nomination_ledger, in_flight_table) check their arguments with explain_pod, explain_node and
// explain_cluster first: one static_assert per requirement, each saying what is looked for where
// and what it must return, and then stand in a placeholder (rejected_pod) so that no further
// error follows from the same mistake.
//
// Compile time only; no code.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_REQUIREMENTS_HPP
#define PREEMPT_DETAIL_REQUIREMENTS_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ranges>
#include <span>
#include <string_view>
#include <type_traits>

#include "preempt/cluster.hpp"
#include "preempt/config.hpp"
#include "preempt/decision.hpp"
#include "preempt/node.hpp"
#include "preempt/node_state.hpp"
#include "preempt/nominations.hpp"
#include "preempt/pod.hpp"
#include "preempt/policy.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

// The reasons a type P is not a pod, one static_assert each; true when it is one.
template <class P>
constexpr bool explain_pod() {
  static_assert(
      requires(const P& p) { ::preempt::uid_of(p); },
      "preempt: not a pod type: no identity. Give preempt::pod_traits<P> a static "
      "uid(const P&), or P a const member uid()");
  if constexpr (requires(const P& p) { ::preempt::uid_of(p); })
    static_assert(
        owning_uid<std::remove_cvref_t<decltype(::preempt::uid_of(std::declval<const P&>()))>>,
        "preempt: a pod's uid must own its value (std::string or an integer, hashable; "
        "not std::string_view or a pointer): the in-flight table keeps it after the pod "
        "is gone");
  static_assert(
      requires(const P& p) { ::preempt::priority_of(p); },
      "preempt: not a pod type: its priority, pod_traits<P>::priority(p) or the member "
      "p.priority(), is missing or does not return a value convertible to std::int32_t "
      "(a std::optional is not: read an unset priority as 0)");
  static_assert(
      requires(const P& p) { ::preempt::start_time_of(p); },
      "preempt: not a pod type: its start time, pod_traits<P>::start_time(p) or the "
      "member p.start_time(), is missing or returns neither a "
      "std::optional<preempt::timestamp> nor a std::chrono::sys_time (or an optional "
      "of one)");
  static_assert(
      requires(const P& p) { ::preempt::is_terminating_by_preemption(p); },
      "preempt: not a pod type: pod_traits<P>::terminating_by_preemption(p) or the "
      "member p.terminating_by_preemption() is missing or does not return bool");
  return ::preempt::pod<P>;
}

// What an element of a node's pod range stands for: *e, e.get(), or the element itself.
template <class E>
struct stood_for {
  using type = std::remove_cvref_t<E>;
};
template <class E>
  requires requires(E e) { *e; }
struct stood_for<E> {
  using type = std::remove_cvref_t<decltype(*std::declval<E>())>;
};
template <class E>
  requires(
      !requires(E e) { *e; } && requires(E e) { e.get(); })
struct stood_for<E> {
  using type = std::remove_cvref_t<decltype(std::declval<E>().get())>;
};
template <class E>
using stood_for_t = typename stood_for<E>::type;

// Names a check so that a class instantiates it (a member alias is part of the class).
template <bool>
struct checked {};

// The reasons a type N is not a node; true when it is one.
template <class N>
constexpr bool explain_node() {
  constexpr bool name_in_temporary = [] {
    if constexpr (requires { typename raw_name_t<N>; })
      return owning_temporary<raw_name_t<N>>;
    else
      return false;
  }();
  constexpr bool pods_returned_whole = [] {
    if constexpr (requires { typename raw_pods_t<N>; })
      return pods_in_temporary<raw_pods_t<N>>;
    else
      return false;
  }();
  static_assert(!name_in_temporary,
                "preempt: a node's name, node_traits<N>::name(n) or the member n.name(), is "
                "returned by value as a string: the library reads it as a std::string_view, "
                "which would refer into a temporary gone at the end of the call; return a "
                "const reference (const std::string&) or a std::string_view");
  static_assert(
      name_in_temporary || requires(const N& n) { ::preempt::name_of(n); },
      "preempt: not a node type: its name, node_traits<N>::name(n) or the member "
      "n.name(), is missing or not convertible to std::string_view");
  static_assert(!pods_returned_whole,
                "preempt: a node's pods, node_traits<N>::pods(n) or the member n.pods(), are "
                "returned by value in a container: the decision keeps pointers to the pods, "
                "which would be gone at the end of the call; return a const reference to the "
                "node's container, a view (std::span, a range-v3 view) or pointers to the pods");
  static_assert(
      pods_returned_whole || requires(const N& n) { ::preempt::pods_of(n); },
      "preempt: not a node type: its pods, node_traits<N>::pods(n) or the member "
      "n.pods(), are missing or not a forward range");
  if constexpr (requires(const N& n) { ::preempt::pods_of(n); }) {
    using element = stood_for_t<std::ranges::range_reference_t<node_pods_range_t<N>>>;
    static_assert(
        std::is_lvalue_reference_v<std::ranges::range_reference_t<node_pods_range_t<N>>> ||
            !std::is_same_v<
                element, std::remove_cvref_t<std::ranges::range_reference_t<node_pods_range_t<N>>>>,
        "preempt: a node's pods must be lvalues (the pods themselves, or pointers, "
        "smart pointers or reference wrappers standing for them): the decision keeps "
        "pointers to them");
    if constexpr (std::is_class_v<element> || std::is_scalar_v<element>)
      return ::preempt::detail::explain_pod<element>() && ::preempt::node<N>;
  }
  return ::preempt::node<N>;
}

// The reasons a type C is not a cluster; true when it is one.
template <class C>
constexpr bool explain_cluster() {
  static_assert(
      requires(const C& c) { ::preempt::cluster_size(c); },
      "preempt: not a cluster type: no node count (cluster_traits<C>::size(c) or the "
      "member c.size())");
  static_assert(
      requires(const C& c, std::size_t i) { ::preempt::cluster_node(c, i); },
      "preempt: not a cluster type: no node access (cluster_traits<C>::node(c, i) or "
      "the member c[i])");
  static_assert(
      requires { typename cluster_state_t<C>; },
      "preempt: not a cluster type: no node state type (cluster_traits<C>::state_type "
      "or C::state_type)");
  if constexpr (requires { typename cluster_state_t<C>; }) {
    static_assert(
        requires(const C& c) {
          { ::preempt::make_node_state(c) } -> std::same_as<cluster_state_t<C>>;
        },
        "preempt: not a cluster type: make_state (cluster_traits<C>::make_state(c) or the member "
        "c.make_state()) is missing or does not return the state type");
    static_assert(
        requires(const C& c, std::size_t i, cluster_state_t<C>& s) {
          ::preempt::prepare_node_state(c, i, s);
        },
        "preempt: not a cluster type: prepare_state (cluster_traits<C>::prepare_state(c, i, s) "
        "or the member c.prepare_state(i, s)) is missing");
  }
  if constexpr (requires(const C& c, std::size_t i) { ::preempt::cluster_node(c, i); }) {
    using N = cluster_node_type<C>;
    if constexpr (::preempt::detail::explain_node<N>() && requires { typename cluster_state_t<C>; })
      static_assert(::preempt::node_state<cluster_state_t<C>, node_pod_t<N>>,
                    "preempt: the cluster's state type is not a node state: it needs "
                    "remove_pod(p), add_pod(p) and fits(p), each returning a preempt::status");
  }
  return ::preempt::cluster<C>;
}

// What stands for a rejected argument's pod type, so that the mistake is reported once.
struct rejected_pod {
  int uid() const noexcept { return 0; }
  int priority() const noexcept { return 0; }
  std::optional<timestamp> start_time() const noexcept { return {}; }
  bool terminating_by_preemption() const noexcept { return false; }
};

template <class C, class Policy>
concept evaluator_arguments =
    ::preempt::cluster<C> &&
    ::preempt::victim_policy<Policy, cluster_node_type<C>, node_pod_t<cluster_node_type<C>>>;

// The evaluate overload that takes a nomination ledger where its reader is expected: a clear
// error rather than a list of unsatisfied constraints (the ledger does not model nominations_of).
template <class Decision, class P, class C>
struct ledger_misuse {
  template <class... Args>
    requires(nominations_owner<Args> || ...)
  const Decision& evaluate(const P&, const C&, Args&&...) {
    static_assert(sizeof...(Args) == 0,  // always false here: Args holds the ledger
                  "evaluate: pass the nomination ledger's reader(), which holds its shared lock "
                  "while the evaluation reads the nominations, not the ledger itself");
    static const Decision none;
    return none;
  }
};

// What an evaluator<C, Policy> is when C or Policy does not model the concepts: the reasons, and
// members that accept any call, so that nothing else is reported for the same mistake.
template <class C, class Policy>
class rejected_evaluator {
  using requirements_checked = checked<explain_cluster<C>()>;
  static constexpr bool policy_fits = [] {
    if constexpr (::preempt::cluster<C>)  // else node_pod_t is not even named
      return ::preempt::victim_policy<Policy, cluster_node_type<C>,
                                      node_pod_t<cluster_node_type<C>>>;
    else
      return true;
  }();
  static_assert(policy_fits,
                "evaluator: the policy needs const members is_eligible_victim(node, victim, "
                "preemptor) and more_important(a, b), both returning bool (preempt/policy.hpp)");

 public:
  using decision_type = decision<rejected_pod>;
  template <class... A>
  explicit rejected_evaluator(A&&...) noexcept {}
  template <class... A>
  const decision_type& evaluate(A&&...) noexcept {
    return decision_;
  }

 private:
  decision_type decision_;
};

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_REQUIREMENTS_HPP
