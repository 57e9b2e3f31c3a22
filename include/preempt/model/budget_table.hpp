// preempt/model/budget_table.hpp - disruption budgets for model::resource_pod, ready to use.
//
// Each budget has a namespace, an allowed-disruptions count, the pods its selector matches
// (registered by the caller with add_member, who evaluates the selector) and the pods already
// disrupted (disruptedPods). A pod counts against a budget only within the budget's namespace.
// Models preempt::budget_set<budget_table, model::resource_pod>.
//
// Complexity: for_each_budget_of is O(log m + k log d) for m memberships, k budgets of the pod and
// d disrupted entries; add_member is amortized O(1) when pods are added in increasing uid order,
// O(m) otherwise. Allocation only while budgets and members are added. Not synchronized: build
// first, then share for reading.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_MODEL_BUDGET_TABLE_HPP
#define PREEMPT_MODEL_BUDGET_TABLE_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

#include "preempt/budget.hpp"
#include "preempt/config.hpp"
#include "preempt/model/resource_pod.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace model {

class budget_table {
 public:
  // Adds a budget and returns its index.
  std::size_t add_budget(std::uint32_t namespace_id, std::int32_t disruptions_allowed) {
    budgets_.push_back({namespace_id, disruptions_allowed});
    return budgets_.size() - 1;
  }

  // Records that budget b's selector matches the pod with this uid.
  void add_member(std::size_t budget, pod_id uid) {
    PREEMPT_ASSERT(budget < budgets_.size(), "budget_table::add_member: no such budget");
    insert_sorted(members_, {uid, static_cast<std::uint32_t>(budget)});
  }

  // Records that the pod with this uid is in budget b's disruptedPods.
  void add_disrupted(std::size_t budget, pod_id uid) {
    PREEMPT_ASSERT(budget < budgets_.size(), "budget_table::add_disrupted: no such budget");
    insert_sorted(disrupted_, {uid, static_cast<std::uint32_t>(budget)});
  }

  std::size_t budget_count() const noexcept { return budgets_.size(); }
  std::int32_t disruptions_allowed(std::size_t i) const noexcept { return budgets_[i].allowed; }

  template <class Visit>
  void for_each_budget_of(const resource_pod& p, Visit&& visit) const {
    const auto [first, last] = std::equal_range(members_.begin(), members_.end(), key{p.uid(), 0},
                                                same_pod);
    for (auto it = first; it != last; ++it) {
      if (budgets_[it->budget_index].namespace_id != p.namespace_id()) continue;
      visit(std::size_t{it->budget_index},
            std::binary_search(disrupted_.begin(), disrupted_.end(), *it));
    }
  }

 private:
  struct budget_entry {
    std::uint32_t namespace_id;
    std::int32_t allowed;
  };
  struct key {
    pod_id uid;
    std::uint32_t budget_index;
    friend bool operator<(const key& a, const key& b) noexcept {
      return a.uid != b.uid ? a.uid < b.uid : a.budget_index < b.budget_index;
    }
  };
  static bool same_pod(const key& a, const key& b) noexcept { return a.uid < b.uid; }

  static void insert_sorted(std::vector<key>& keys, key k) {
    auto at = std::upper_bound(keys.begin(), keys.end(), k);
    if (at != keys.begin() && !(*std::prev(at) < k)) return;  // already present
    keys.insert(at, k);
  }

  std::vector<budget_entry> budgets_;
  std::vector<key> members_;    // sorted by (uid, budget)
  std::vector<key> disrupted_;  // sorted by (uid, budget)
};

static_assert(budget_set<budget_table, resource_pod>);

}  // namespace model
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_MODEL_BUDGET_TABLE_HPP
