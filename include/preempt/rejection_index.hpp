// preempt/rejection_index.hpp - the optional index a cluster offers so that an evaluator rules out,
// in runs of nodes, the nodes victim selection would reject, without visiting them one by one.
//
// A cluster type may name `rejection_index_type`, a class I with
//   i.prepare(cluster, preemptor) -> bool   brings I up to date with the cluster for this
//                                           preemptor; false when it cannot answer for it
//   ci.run_at(node) -> node_run             after a prepare that returned true: the nodes
//                                           [node, run.end) share one verdict (run.end > node)
// A run's `rejection` is 0 ("open": the dry run decides each node) or a key naming one way victim
// selection rejects every node of the run, with the same status, when no pod is nominated to it
// (two runs with the same key, prepared for the same preemptor, are rejected alike). The evaluator
// (preempt/evaluator.hpp, evaluator_config::rejection_index) selects the victims of one node per
// key, once per decision, keeps its outcome, and gives it to every other potential node of a run
// with that key: the decision is the one the dry run of every node gives. Where the index and the
// dry run disagree on that node (a candidate, or an error), the key is ignored for the decision.
// The index must answer as SelectVictimsOnNode with the policy's default victim eligibility (every
// pod of lower priority), which is the only policy the evaluator uses it with.
//
// model::resource_cluster offers one (preempt/model/resource_rejection_index.hpp), and so does
// kubernetes::filter_cluster over it. Plain values; no allocation, no exceptions in this header.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_REJECTION_INDEX_HPP
#define PREEMPT_REJECTION_INDEX_HPP

#include <concepts>
#include <cstddef>
#include <cstdint>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN

// A run of nodes [begin, end) that share a verdict: open (0), or a rejection key.
struct node_run {
  std::size_t end = 0;
  std::uint32_t rejection = 0;
};

template <class I, class C, class P>
concept rejection_index = std::default_initializable<I> && std::movable<I> &&
                          requires(I& i, const I& ci, const C& c, const P& p, std::size_t n) {
                            { i.prepare(c, p) } -> std::same_as<bool>;
                            { ci.run_at(n) } -> std::same_as<node_run>;
                          };

namespace detail {

// What an evaluator holds where the cluster offers no index: never prepared.
template <class C, class P>
struct no_rejection_index {
  static constexpr bool offered = false;
  bool prepare(const C&, const P&) noexcept { return false; }
  node_run run_at(std::size_t) const noexcept { return {}; }
};

template <class C, class P>
struct rejection_index_of {
  using type = no_rejection_index<C, P>;
};
template <class C, class P>
  requires requires { typename C::rejection_index_type; } &&
           rejection_index<typename C::rejection_index_type, C, P>
struct rejection_index_of<C, P> {
  using type = typename C::rejection_index_type;
};

// The index an evaluator of cluster C holds: C's own, or no_rejection_index.
template <class C, class P>
using rejection_index_of_t = typename rejection_index_of<C, P>::type;

template <class C, class P>
inline constexpr bool offers_rejection_index =
    !std::same_as<rejection_index_of_t<C, P>, no_rejection_index<C, P>>;

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_REJECTION_INDEX_HPP
