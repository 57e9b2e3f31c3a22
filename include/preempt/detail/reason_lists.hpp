// preempt/detail/reason_lists.hpp - the process-wide table of interned reason lists behind
// status::add_reason: a status holds up to status::inline_reasons reasons itself, and a longer
// list is interned here, each distinct list once with its own copy of the texts, never freed (the
// lists a scheduler produces are few: resource names combined in a fixed order), so that a status
// stays a small trivially copyable value.
//
// Implementation notes: this is the library's only global state. It stays reachable from
// status.hpp because add_reason is an inline member every caller of it (the library's states and
// the caller's own filters alike) must be able to instantiate; removing it needs an API change
// (a reason list owned by the caller, or a bound on the reasons a status keeps).
//
// Complexity: a lock and a hash of the list per intern. Allocation: only the first time a
// distinct list is seen. No exceptions (an allocation failure terminates, as everywhere under
// -fno-exceptions). Thread-safety: synchronized (a null mutex under PREEMPT_NO_THREADS).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_REASON_LISTS_HPP
#define PREEMPT_DETAIL_REASON_LISTS_HPP

#include <algorithm>
#include <cstddef>
#include <deque>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/detail/lock.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

// The interned reason lists of statuses with more than status::inline_reasons reasons: each
// distinct list once, with its own copy of the texts, never freed (the lists a scheduler
// produces are few: resource names combined in a fixed order).
class reason_lists {
 public:
  static reason_lists& instance() {
    static reason_lists lists;
    return lists;
  }

  // A stable array equal to `head` followed by `last`.
  const std::string_view* intern(std::span<const std::string_view> head, std::string_view last) {
    std::size_t h = std::hash<std::string_view>{}(last);
    for (std::string_view r : head) h = h * 1000003u ^ std::hash<std::string_view>{}(r);
    const exclusive_guard<default_mutex> lock(mutex_);
    const auto [first, end] = by_hash_.equal_range(h);
    for (auto it = first; it != end; ++it) {
      const std::vector<std::string_view>& l = lists_[it->second];
      if (l.size() == head.size() + 1 && l.back() == last &&
          std::equal(head.begin(), head.end(), l.begin()))
        return l.data();
    }
    std::vector<std::string_view>& l = lists_.emplace_back();
    l.reserve(head.size() + 1);
    for (std::string_view r : head) l.push_back(text(r));
    l.push_back(text(last));
    by_hash_.emplace(h, lists_.size() - 1);
    return l.data();
  }

 private:
  std::string_view text(std::string_view r) { return *texts_.emplace(r).first; }

  default_mutex mutex_;                              // null_mutex under PREEMPT_NO_THREADS
  std::unordered_set<std::string> texts_;            // node-based: the texts never move
  std::deque<std::vector<std::string_view>> lists_;  // a deque: the lists never move
  std::unordered_multimap<std::size_t, std::size_t> by_hash_;
};

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_REASON_LISTS_HPP
