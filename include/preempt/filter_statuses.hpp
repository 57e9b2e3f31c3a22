// preempt/filter_statuses.hpp - the filter outcome of every node for the preemptor (upstream's
// NodeToStatus map, from which findCandidates takes the nodes preemption may help).
//
// A type S models `node_statuses` when `s.code_of(i)` returns the status_code of node i, or when
// it is a sized random-access range of status_code (a std::vector<status_code>, a span): element
// i is node i's. Only nodes whose code is `unschedulable` are tried;
// `unschedulable_and_unresolvable` nodes never are. detail::statuses_cover(s, n) says whether S
// answers for n nodes: a range, or a type with size(), must hold at least n (the evaluator turns a
// shorter one into an error decision instead of reading past its end); a type with absent() (a map
// with a default) or neither answers for every node. `filter_statuses` is a ready implementation:
// every node starts with the map's absent code (UnschedulableAndUnresolvable by default, as
// upstream) until the caller sets it.
//
// O(1) per query; allocation on construction and resize only; no exceptions of its own.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_FILTER_STATUSES_HPP
#define PREEMPT_FILTER_STATUSES_HPP

#include <concepts>
#include <cstddef>
#include <ranges>
#include <type_traits>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN

namespace detail {
template <class S>
concept status_code_range =
    std::ranges::random_access_range<const S> && std::ranges::sized_range<const S> &&
    std::same_as<std::remove_cvref_t<std::ranges::range_reference_t<const S>>, status_code>;
}  // namespace detail

template <class S>
concept node_statuses = detail::status_code_range<S> || requires(const S& s, std::size_t i) {
  { s.code_of(i) } -> std::convertible_to<status_code>;
};

namespace detail {
// Node i's code in `s` (i within what statuses_cover allows).
template <node_statuses S>
constexpr status_code code_of(const S& s, std::size_t i) {
  if constexpr (requires { s.code_of(i); })
    return static_cast<status_code>(s.code_of(i));
  else
    return std::ranges::begin(s)[static_cast<std::ranges::range_difference_t<const S>>(i)];
}

// Whether `s` answers for `nodes` nodes (see the header comment).
template <node_statuses S>
constexpr bool statuses_cover(const S& s, std::size_t nodes) {
  if constexpr (requires { s.absent(); })
    return true;
  else if constexpr (status_code_range<S>)
    return static_cast<std::size_t>(std::ranges::size(s)) >= nodes;
  else if constexpr (requires {
                       { s.size() } -> std::convertible_to<std::size_t>;
                     })
    return static_cast<std::size_t>(s.size()) >= nodes;
  else
    return true;
}
}  // namespace detail

class filter_statuses {
 public:
  explicit filter_statuses(std::size_t nodes = 0,
                           status_code absent = status_code::unschedulable_and_unresolvable)
      : codes_(nodes, absent), absent_(absent) {}

  // Forgets every node's code and sizes the map for `nodes` nodes.
  void reset(std::size_t nodes) { codes_.assign(nodes, absent_); }

  void set(std::size_t node, status_code code) {
    if (node >= codes_.size()) codes_.resize(node + 1, absent_);
    codes_[node] = code;
  }
  // Marks every node with the same code.
  void set_all(status_code code) {
    for (auto& c : codes_) c = code;
  }

  status_code code_of(std::size_t node) const noexcept {
    return node < codes_.size() ? codes_[node] : absent_;
  }
  status_code absent() const noexcept { return absent_; }
  // Nodes with a code of their own (any other node's is absent()).
  std::size_t size() const noexcept { return codes_.size(); }

 private:
  std::vector<status_code> codes_;
  status_code absent_;
};

static_assert(node_statuses<filter_statuses>);

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_FILTER_STATUSES_HPP
