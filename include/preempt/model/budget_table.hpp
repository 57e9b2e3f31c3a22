// preempt/model/budget_table.hpp - disruption budgets for model::resource_pod, ready to use.
//
// Each budget has a namespace, an allowed-disruptions count, the pods its selector matches
// (registered by the caller with add_member, who evaluates the selector) and the pods already
// disrupted (disruptedPods). A pod counts against a budget only within the budget's namespace.
// Models preempt::budget_set<budget_table, model::resource_pod>, with prefetch_budgets_of.
//
// Index by pod: an open-addressing hash table maps each uid to the list of its memberships (budget
// index, the budget's namespace, and whether the pod is in that budget's disruptedPods) in
// ascending budget order, so for_each_budget_of visits only the budgets that select the pod, with
// no search through all memberships or the disruptedPods lists. A pod's first two memberships live
// in its hash slot itself (most pods are selected by one or two budgets), namespaces included: a
// slot is 32 bytes, aligned, so looking such a pod up reads one cache line (a slot, or two when
// the probe goes on) and nothing else; further memberships follow in a linked overflow list.
// prefetch_budgets_of(p) asks the processor for p's first slot ahead of the lookup, so that the
// misses of a node's pods overlap (with many budgets the table does not stay in cache).
// stamp() names the table's contents (a new value at every add_*): with resource_cluster's nodes,
// which have one too, the pair models preempt::stamped_budgets, and an evaluator remembers per node
// what the budgets answered there until either changes.
//
// Complexity: for_each_budget_of is O(1) expected + O(k) for the k budgets of the pod; add_member
// is O(1) amortized expected + O(k + log d) for d disrupted entries, add_disrupted O(d + k).
// Allocation only while budgets and members are added. Not synchronized: build first, then share
// for reading.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_MODEL_BUDGET_TABLE_HPP
#define PREEMPT_MODEL_BUDGET_TABLE_HPP

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

#include "preempt/budget.hpp"
#include "preempt/config.hpp"
#include "preempt/detail/content_stamp.hpp"
#include "preempt/model/resource_pod.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace model {

class budget_table {
 public:
  // Adds a budget and returns its index.
  std::size_t add_budget(std::uint32_t namespace_id, std::int32_t disruptions_allowed) {
    budgets_.push_back({namespace_id, disruptions_allowed});
    stamp_.renew();
    return budgets_.size() - 1;
  }

  // Records that budget b's selector matches the pod with this uid.
  void add_member(std::size_t budget, pod_id uid) {
    PREEMPT_ASSERT(budget < budgets_.size(), "budget_table::add_member: no such budget");
    const key k{uid, static_cast<std::uint32_t>(budget)};
    stamp_.renew();
    link(uid, k.budget_index, budgets_[budget].namespace_id,
         std::binary_search(disrupted_.begin(), disrupted_.end(), k));
  }

  // Records that the pod with this uid is in budget b's disruptedPods.
  void add_disrupted(std::size_t budget, pod_id uid) {
    PREEMPT_ASSERT(budget < budgets_.size(), "budget_table::add_disrupted: no such budget");
    const key k{uid, static_cast<std::uint32_t>(budget)};
    auto at = std::upper_bound(disrupted_.begin(), disrupted_.end(), k);
    if (at != disrupted_.begin() && !(*std::prev(at) < k)) return;  // already present
    stamp_.renew();
    disrupted_.insert(at, k);
    const std::size_t found = find_slot(uid);
    if (found == npos) return;
    slot& s = slots_[found];
    for (std::uint32_t i = 0; i < s.count; ++i)
      if (s.inline_budgets[i] == k.budget_index)
        s.inline_disrupted = static_cast<std::uint8_t>(s.inline_disrupted | 1u << i);
    for (std::uint32_t e = s.overflow; e != nil; e = entries_[e].next) {
      if (entries_[e].budget_index == k.budget_index) entries_[e].disrupted = true;
    }
  }

  std::size_t budget_count() const noexcept { return budgets_.size(); }
  std::int32_t disruptions_allowed(std::size_t i) const noexcept { return budgets_[i].allowed; }
  // Names the table's current contents: a new value whenever a budget, member or disrupted pod
  // is added, the same in a copy (see detail::content_stamp; budget_set's optional stamp()).
  std::uint64_t stamp() const noexcept { return stamp_.value(); }

  // Inlined into the caller's loop (the lookup is a few instructions around one cache miss).
  // A visitor returning bool ends the visit by returning true (victim selection's, once the pod
  // violates: the later budgets are not charged for it); any other return is ignored.
  template <class Visit>
  [[gnu::always_inline]] inline void for_each_budget_of(const resource_pod& p,
                                                        Visit&& visit) const {
    const slot* s = budget_table::find(p.uid());
    if (s == nullptr) return;
    const std::uint32_t ns = p.namespace_id();
    // The inline memberships unrolled (inline_count of them at most, the first always there in
    // a used slot); the overflow list only behind a full slot.
    static_assert(inline_count == 2);
    if (s->inline_namespaces[0] == ns &&
        budget_table::visit_ends(visit, s->inline_budgets[0], (s->inline_disrupted & 1u) != 0))
      return;
    if (s->count < inline_count) return;
    if (s->inline_namespaces[1] == ns &&
        budget_table::visit_ends(visit, s->inline_budgets[1], (s->inline_disrupted >> 1 & 1u) != 0))
      return;
    for (std::uint32_t e = s->overflow; e != nil; e = entries_[e].next) {
      const entry& m = entries_[e];
      if (m.namespace_id == ns && budget_table::visit_ends(visit, m.budget_index, m.disrupted))
        return;
    }
  }

  // Asks for the slot where the lookup of p starts; no effect on the answers.
  void prefetch_budgets_of(const resource_pod& p) const noexcept {
    if (slots_.empty()) return;
    ::preempt::detail::prefetch_for_read(&slots_[budget_table::start_of(p.uid())]);
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
  // One membership past a pod's first two, a link of its overflow list (ascending budget order).
  struct entry {
    std::uint32_t budget_index;
    std::uint32_t namespace_id;  // the budget's
    std::uint32_t next;
    bool disrupted;
  };
  static constexpr std::uint32_t inline_count = 2;
  // One pod of the hash table; used == false marks an empty slot. Its memberships in ascending
  // budget order: inline_budgets[0 .. count) with their budgets' namespaces, bit k of
  // inline_disrupted telling whether the pod is in that budget's disruptedPods, then the overflow
  // list (only when count == inline_count); a used slot has one membership at least (add_member
  // creates it with one). Half a cache line, aligned: a slot never straddles two.
  struct alignas(32) slot {
    pod_id uid;
    std::uint32_t inline_budgets[inline_count];
    std::uint32_t inline_namespaces[inline_count];
    std::uint32_t overflow;
    std::uint8_t count;
    std::uint8_t inline_disrupted;
    bool used;
  };
  static_assert(sizeof(slot) == 32);

  // Visits one membership; true when the visitor returns bool and asks to end the visit.
  template <class Visit>
  [[gnu::always_inline]] static inline bool visit_ends(Visit& visit, std::uint32_t budget,
                                                       bool disrupted) {
    if constexpr (std::is_same_v<std::invoke_result_t<Visit&, std::size_t, bool>, bool>) {
      return visit(std::size_t{budget}, disrupted);
    } else {
      visit(std::size_t{budget}, disrupted);
      return false;
    }
  }
  static constexpr std::uint32_t nil = 0xffffffffu;
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  // Where the probe for uid starts: the top bits of uid times 2^64 / golden ratio (Fibonacci
  // hashing: a multiplication and a shift; consecutive or strided uids spread over the table).
  std::size_t start_of(pod_id uid) const noexcept {
    return static_cast<std::size_t>((uid * 0x9e3779b97f4a7c15ull) >> shift_);
  }

  std::size_t find_slot(pod_id uid) const noexcept {
    const slot* s = budget_table::find(uid);
    return s == nullptr ? npos : static_cast<std::size_t>(s - slots_.data());
  }

  [[gnu::always_inline]] inline const slot* find(pod_id uid) const noexcept {
    if (slots_.empty()) return nullptr;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = budget_table::start_of(uid);; i = (i + 1) & mask) {
      const slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.uid == uid) return &s;
    }
  }

  // The slot of uid, inserted with an empty list when absent; the table stays at most half full.
  std::size_t slot_for(pod_id uid) {
    if ((pods_ + 1) * 2 > slots_.size())
      budget_table::rehash(slots_.empty() ? 16 : slots_.size() * 2);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = budget_table::start_of(uid);; i = (i + 1) & mask) {
      if (!slots_[i].used) {
        slots_[i] = slot{uid, {0, 0}, {0, 0}, nil, 0, 0, true};
        ++pods_;
        return i;
      }
      if (slots_[i].uid == uid) return i;
    }
  }

  void rehash(std::size_t size) {
    std::vector<slot> old(size, slot{0, {0, 0}, {0, 0}, nil, 0, 0, false});
    old.swap(slots_);
    shift_ = 64 - static_cast<unsigned>(std::countr_zero(size));
    const std::size_t mask = slots_.size() - 1;
    for (const slot& o : old) {
      if (!o.used) continue;
      std::size_t i = budget_table::start_of(o.uid);
      while (slots_[i].used) i = (i + 1) & mask;
      slots_[i] = o;
    }
  }

  // Inserts (budget, disrupted) into uid's list, keeping ascending budget order; no duplicates.
  void link(pod_id uid, std::uint32_t budget, std::uint32_t namespace_id, bool disrupted) {
    PREEMPT_ASSERT(entries_.size() < nil, "budget_table::add_member: too many memberships");
    slot& s = slots_[budget_table::slot_for(uid)];
    std::uint32_t k = 0;
    while (k < s.count && s.inline_budgets[k] < budget) ++k;
    if (k < s.count && s.inline_budgets[k] == budget) return;  // already present
    if (k < inline_count) {
      // It goes inline at k; with the slot full, the last inline membership (below every overflow
      // one) moves to the front of the overflow list.
      if (s.count == inline_count) {
        const std::uint32_t last = inline_count - 1;
        const auto spilled = static_cast<std::uint32_t>(entries_.size());
        entries_.push_back(entry{s.inline_budgets[last], s.inline_namespaces[last], s.overflow,
                                 (s.inline_disrupted >> last & 1u) != 0});
        s.overflow = spilled;
        s.inline_disrupted = static_cast<std::uint8_t>(s.inline_disrupted & ~(1u << last));
        --s.count;
      }
      for (std::uint32_t i = s.count; i > k; --i) {
        s.inline_budgets[i] = s.inline_budgets[i - 1];
        s.inline_namespaces[i] = s.inline_namespaces[i - 1];
      }
      const std::uint32_t bits = s.inline_disrupted, below = (1u << k) - 1u;
      s.inline_disrupted = static_cast<std::uint8_t>((bits & below) | (bits & ~below) << 1u |
                                                     (disrupted ? 1u << k : 0u));
      s.inline_budgets[k] = budget;
      s.inline_namespaces[k] = namespace_id;
      ++s.count;
      return;
    }
    std::uint32_t prev = nil;
    std::uint32_t at = s.overflow;
    while (at != nil && entries_[at].budget_index < budget) {
      prev = at;
      at = entries_[at].next;
    }
    if (at != nil && entries_[at].budget_index == budget) return;  // already present
    const auto fresh = static_cast<std::uint32_t>(entries_.size());
    entries_.push_back(entry{budget, namespace_id, at, disrupted});
    if (prev == nil) {
      s.overflow = fresh;
    } else {
      entries_[prev].next = fresh;
    }
  }

  std::vector<budget_entry> budgets_;
  std::vector<slot> slots_;     // open addressing, linear probing, power-of-two size
  unsigned shift_ = 63;         // 64 - log2(slots_.size())
  std::size_t pods_ = 0;        // used slots
  std::vector<entry> entries_;  // memberships past the first two, linked per pod
  std::vector<key> disrupted_;  // sorted by (uid, budget)
  ::preempt::detail::content_stamp stamp_;
};

static_assert(budget_set<budget_table, resource_pod>);

}  // namespace model
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_MODEL_BUDGET_TABLE_HPP
