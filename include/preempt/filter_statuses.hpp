// preempt/filter_statuses.hpp - the filter outcome of every node for the preemptor (upstream's
// NodeToStatus map, from which findCandidates takes the nodes preemption may help).
//
// A type S models `node_statuses` when `s.code_of(i)` returns the status_code of node i. Only
// nodes whose code is `unschedulable` are tried; `unschedulable_and_unresolvable` nodes never are.
// `filter_statuses` is a ready implementation: every node starts with the map's absent code
// (UnschedulableAndUnresolvable by default, as upstream) until the caller sets it.
//
// O(1) per query; allocation on construction and resize only; no exceptions of its own.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_FILTER_STATUSES_HPP
#define PREEMPT_FILTER_STATUSES_HPP

#include <concepts>
#include <cstddef>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN

template <class S>
concept node_statuses = requires(const S& s, std::size_t i) {
  { s.code_of(i) } -> std::convertible_to<status_code>;
};

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

 private:
  std::vector<status_code> codes_;
  status_code absent_;
};

static_assert(node_statuses<filter_statuses>);

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_FILTER_STATUSES_HPP
