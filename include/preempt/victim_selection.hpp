// preempt/victim_selection.hpp - choose the victims on one node (Kubernetes SelectVictimsOnNode).
//
// select_victims(preemptor, node, state, budgets, nominated, scratch, policy) follows upstream
// exactly (SelectVictimsOnNode, with filterPodsWithPDBViolation for the budgets, MoreImportantPod
// for the order and RunFilterPluginsWithNominatedPods for the fit):
//   1. Potential victims: the node's pods of strictly lower priority that the policy deems
//      eligible, in node order.
//   2. Every potential victim is removed from the state (at once, before the pods are visited,
//      when the state has remove_lower_priority_pods and the policy keeps default_policy's
//      eligibility: a node where step 4 fails is then rejected in O(log k)).
//   3. None ⇒ unschedulable_and_unresolvable "No preemption victims found for incoming pod".
//   4. The preemptor must fit with the nominated pods (two-pass rule); if not, that status is the
//      answer (e.g. "Insufficient cpu").
//   5. Potential victims are ordered by descending importance (policy.more_important, or for
//      default_policy's order more_important_as_built: victims without a start time ordered by
//      their position in the cache's order, as upstream builds them), as upstream's sort.Slice
//      orders them starting from the cache's order of the node's pods
//      (node.cache_position(i) when the node has it, else node order): equally important pods
//      end in the order Go's pdqsort leaves them (detail::go_sort_slice), so the victims' order is
//      upstream's. Nodes whose pods are strictly in importance order are not sorted.
//   6. Budget classification on a fresh copy of every budget: walking the ordered victims, each
//      budget a pod counts against (unless the pod is in its disruptedPods), in budget order,
//      loses one allowed disruption, until one is driven below zero: the pod is then "violating"
//      and the budgets after that one are not charged for it.
//   7. Reprieve: violating pods first, then the others, each in importance order: add it back; if
//      the preemptor no longer fits, remove it again and it becomes a victim (a violating victim
//      counts one budget violation).
// The victims come out as upstream's: the violating ones, then the others, re-sorted by importance
// (sort.Slice) when both kinds of potential victims existed.
// Without nominated pods, under default_policy, a state with remove_lower_priority_pods and
// reprieve_removed_pods (model::resource_fit_state) takes steps 4-7 in one pass over the removed
// pods, which it walks in the node's importance order (checking that it is strict): no entries, no
// sort, no call per pod; a node where the preemptor does not fit is rejected with the status the
// reprieve gives (reprieve_removed_pods with a status&, when the state offers it), without a
// second fit check. With budgets (a state with removed_pods as well), a node where the preemptor
// does not fit is rejected before any pod is charged; elsewhere step 6 charges the removed pods in
// that order first and the state reprieves the violating ones, then the others (when none
// violates, through its reprieve without budgets). The budget set's optional
// prefetch_budgets_of is called a few pods ahead of each pod charged (detail::charge_in_order,
// detail::charge_into_flags).
// The answer is the same.
//
// Complexity: O(v log v) for v potential victims when the node is not strictly in importance
// order, O(v) when it is (O(v·d) in one pass for d dimensions through reprieve_removed_pods), plus
// (v + 1) two-pass fit checks and O(v · b) budget visits for b budgets per pod; a node rejected at
// step 4 through remove_lower_priority_pods costs what the state's member costs (O(log k) for
// model::resource_fit_state). Allocation: none once `scratch` has seen a node of this size and
// budget count (or after scratch.reserve). Exceptions: none of its own; whatever the caller's hooks
// throw passes through. Thread-safety: the scratch and the state are mutated; give each thread its
// own.
//
// A policy with a member select_victims_on_node(preemptor, node, state, budgets, nominated,
// scratch) (preempt/preemption_policies.hpp) selects the node's victims itself: select_victims
// returns its answer.
//
// The result refers to the scratch and to the node's pods: it is valid until the scratch is used
// again or the node changes.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_VICTIM_SELECTION_HPP
#define PREEMPT_VICTIM_SELECTION_HPP

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <ranges>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "preempt/budget.hpp"
#include "preempt/config.hpp"
#include "preempt/detail/go_sort.hpp"
#include "preempt/detail/policy_memory.hpp"
#include "preempt/detail/requirements.hpp"
#include "preempt/node.hpp"
#include "preempt/node_state.hpp"
#include "preempt/nominated_fit.hpp"
#include "preempt/pod.hpp"
#include "preempt/policy.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN

// The outcome of victim selection on one node.
template <class P>
struct victim_selection {
  // success when the node is a candidate; otherwise why it is not.
  status outcome;
  // The victims in upstream's order, descending importance (empty unless outcome is success).
  std::span<const P* const> victims;
  // How many victims violate a disruption budget.
  std::int64_t pdb_violations = 0;

  constexpr bool is_candidate() const noexcept { return outcome.is_success(); }
};

// Reusable working memory for select_victims. One per thread; it grows to the largest node and
// budget count it has seen and never shrinks, so steady-state selection allocates nothing.
template <class P, class Allocator = std::allocator<P>>
class victim_scratch {
 public:
  struct entry {
    const P* pod;
    std::uint32_t position;  // in the cache's order of the node's pods (see detail::cache_position)
    bool violating;
    bool victim;
  };

  victim_scratch() = default;
  explicit victim_scratch(const Allocator& alloc)
      : entries_(alloc),
        chosen_(alloc),
        victims_(alloc),
        flags_(alloc),
        copies_(alloc),
        policy_(alloc) {}

  // Makes room for nodes of up to `pods` pods and for `budgets` budgets.
  void reserve(std::size_t pods, std::size_t budgets) {
    entries_.reserve(pods);
    chosen_.reserve(pods);
    victims_.reserve(pods);
    flags_.reserve(pods);
    grow_budgets(budgets);
  }
  // The most pods one of its per-pod buffers has room for: the largest node a selection on this
  // scratch has needed so far, whichever buffers its path used (the one-pass reprieve uses the
  // victims and the flags only, the pod-by-pod path the entries and the victims). Another scratch
  // reserved for that many pods selects on the same nodes without growing.
  std::size_t pods_reserved() const noexcept {
    return std::max({entries_.capacity(), victims_.capacity(), flags_.capacity()});
  }

  // Takes one disruption from the current node's copy of budget i (copied from the budget set the
  // first time the node touches it); true when that drives the copy below zero. A copy below zero
  // stays there (at -1 or its negative allowed count): no further count can bring it back.
  template <class B>
  bool charge(std::size_t i, const B& budgets) {
    return charger_for_node()(i, budgets);
  }

 private:
  // A budget's remaining disruptions for the node evaluation of that generation (one word: one
  // cache line read per charge).
  struct budget_copy {
    std::uint32_t generation;
    std::int32_t remaining;
  };

 public:
  // charge for a loop over many pods: the copies and the generation held in locals, so that
  // writing a copy does not make the compiler read the generation again. Valid until the next
  // start_node.
  class charger {
   public:
    // The copy written back whole (one store): a copy at zero or below violates, one below zero
    // keeps its count.
    template <class B>
    [[gnu::always_inline]] inline bool operator()(std::size_t i, const B& budgets) const {
      budget_copy& c = copies_[i];
      std::int32_t left = c.remaining;
      if (c.generation != generation_)
        left = static_cast<std::int32_t>(budgets.disruptions_allowed(i));
      c = budget_copy{generation_, left >= 0 ? left - 1 : left};
      return left <= 0;
    }

   private:
    friend class victim_scratch;
    charger(budget_copy* copies, std::uint32_t generation) noexcept
        : copies_(copies), generation_(generation) {}
    budget_copy* copies_;
    std::uint32_t generation_;
  };
  charger charger_for_node() noexcept { return charger(copies_.data(), generation_); }

  // Starts a node evaluation: forgets the previous node's potential victims and all budget
  // copies (select_victims rewrites the victims).
  void start_node(std::size_t budgets) {
    entries_.clear();
    grow_budgets(budgets);
    if (++generation_ == 0) {  // wrapped: every stamp could look current again
      for (budget_copy& c : copies_) c.generation = 0;
      generation_ = 1;
    }
  }

  template <class T>
  using rebound = typename std::allocator_traits<Allocator>::template rebind_alloc<T>;

  // The potential victims of the current node and the chosen victims (used by select_victims).
  std::vector<entry, rebound<entry>>& entries() noexcept { return entries_; }
  // The victims' entries, when they are sorted again (violating and other victims both).
  std::vector<entry, rebound<entry>>& chosen_entries() noexcept { return chosen_; }
  std::vector<const P*, rebound<const P*>>& victims() noexcept { return victims_; }
  // Room for n victims written in place (the victims vector, grown when needed, never shrunk
  // here: its contents are the caller's until the next node).
  std::span<const P*> victim_room(std::size_t n) {
    if (victims_.size() < n) victims_.resize(n);
    return {victims_.data(), n};
  }
  // n flags, one per removed pod, for the one-pass reprieve with budgets (contents unspecified).
  std::span<std::uint8_t> flag_room(std::size_t n) {
    if (flags_.size() < n) flags_.resize(n);
    return {flags_.data(), n};
  }
  // The working memory of a policy's own victim search (preempt/policy_selection.hpp).
  detail::policy_memory<P, Allocator>& policy_memory() noexcept { return policy_; }

 private:
  void grow_budgets(std::size_t budgets) {
    if (copies_.size() < budgets) copies_.resize(budgets, budget_copy{0u, 0});
  }

  std::vector<entry, rebound<entry>> entries_;
  std::vector<entry, rebound<entry>> chosen_;
  std::vector<const P*, rebound<const P*>> victims_;
  std::vector<std::uint8_t, rebound<std::uint8_t>> flags_;
  std::vector<budget_copy, rebound<budget_copy>> copies_;
  std::uint32_t generation_ = 0;
  detail::policy_memory<P, Allocator> policy_;
};

namespace detail {

// Where the i-th pod of the node stands in the order kube-scheduler's cache lists the node's pods:
// node.cache_position(i) when the node keeps that order apart (model::resource_node does), else
// the node's own order.
template <class N>
std::uint32_t cache_position(const N& node, std::size_t i) {
  if constexpr (requires {
                  { node.cache_position(i) } -> std::convertible_to<std::uint32_t>;
                })
    return node.cache_position(i);
  else
    return static_cast<std::uint32_t>(i);
}

// Whether the policy keeps default_policy's is_eligible_victim (every lower-priority pod may be
// evicted): an inherited member's pointer type names default_policy, one the policy declares
// itself names the policy.
template <class Policy, class N, class P>
constexpr bool every_lower_priority_pod_eligible() {
  if constexpr (requires { &Policy::template is_eligible_victim<N, P>; })
    return std::same_as<decltype(&Policy::template is_eligible_victim<N, P>),
                        decltype(&default_policy::template is_eligible_victim<N, P>)>;
  else
    return false;
}

// Whether the policy keeps default_policy's more_important (priority, then start time, `now` for
// a missing one), found the same way.
template <class Policy, class P>
constexpr bool default_importance_order() {
  if constexpr (requires { &Policy::template more_important<P>; })
    return std::same_as<decltype(&Policy::template more_important<P>),
                        decltype(&default_policy::template more_important<P>)>;
  else
    return false;
}

// Whether victim selection orders by the policy's more_important_as_built (victims built in the
// node's pod order, policy.hpp): for default_policy's order, or a policy's own as-built order.
template <class Policy, class P>
constexpr bool orders_as_built() {
  if constexpr (requires { &Policy::template more_important_as_built<P>; })
    return !std::same_as<decltype(&Policy::template more_important_as_built<P>),
                         decltype(&default_policy::template more_important_as_built<P>)> ||
           detail::default_importance_order<Policy, P>();
  else
    return false;
}

// Upstream's MoreImportantVictim on two potential victims of a node, each built at its position
// in the cache's order of the node's pods.
template <class Entry, class Policy>
bool more_important_victim(const Entry& a, const Entry& b, const Policy& policy) {
  using P = std::remove_cvref_t<decltype(*a.pod)>;
  if constexpr (detail::orders_as_built<Policy, P>())
    return policy.more_important_as_built(*a.pod, a.position, *b.pod, b.position);
  else
    return policy.more_important(*a.pod, *b.pod);
}

// Every entry strictly less important than the one before: the importance order is unique, and
// any sort, upstream's included, gives exactly this order.
template <class Entry, class Policy>
bool in_strict_importance_order(std::span<const Entry> entries, const Policy& policy) {
  for (std::size_t i = 1; i < entries.size(); ++i)
    if (!detail::more_important_victim(entries[i - 1], entries[i], policy)) return false;
  return true;
}

// Orders the entries as upstream's SelectVictimsOnNode does: sort.Slice by MoreImportantPod over
// the pods in cache order. Equally important pods end where Go's pdqsort leaves them.
template <class Entry, class Policy>
void order_by_importance(std::span<Entry> entries, const Policy& policy) {
  if (detail::in_strict_importance_order(std::span<const Entry>(entries), policy)) return;
  const bool in_cache_order =
      std::is_sorted(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return a.position < b.position; });
  if (!in_cache_order)
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.position < b.position; });
  detail::go_sort_slice(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    return detail::more_important_victim(a, b, policy);
  });
}

// Charges the pod, the next in importance order, against its budgets through the node's
// charger (victim_scratch::charger_for_node); true when it violates one. In budget order; the
// first budget the pod exhausts makes it violating and ends its count (upstream's
// FilterVictimsWithPDBViolation returns there): later budgets keep their share.
template <class P, class Budgets, class Charger>
[[gnu::always_inline]] inline bool violates_budget(const P& pod, const Budgets& budgets,
                                                   const Charger& charge) {
  // The visitor answers whether the pod violates: a budget set may end the visit there (one that
  // goes on gets no further charge).
  bool violating = false;
  budgets.for_each_budget_of(pod, [&](std::size_t i, bool already_disrupted) -> bool {
    if (!already_disrupted && !violating) violating = charge(i, budgets);
    return violating;
  });
  return violating;
}

// How many pods ahead of the one charged the budget set's prefetch_budgets_of is called: enough
// for a lookup's miss to arrive while the pods in between are charged.
inline constexpr std::size_t budget_prefetch_distance = 8;

// Charges pods(0), pods(1), ... pods(n - 1) in that order (violates_budget) and hands each answer
// to record(i, violating); with prefetch_budgets_of, the lookups of the next pods are asked for
// ahead.
template <class Budgets, class Scratch, class PodAt, class Record>
void charge_in_order(std::size_t n, const Budgets& budgets, Scratch& scratch, PodAt&& pod_at,
                     Record&& record) {
  using P = std::remove_cvref_t<decltype(pod_at(std::size_t{0}))>;
  const auto charge = scratch.charger_for_node();
  if constexpr (prefetches_budgets<Budgets, P>) {
    constexpr std::size_t d = detail::budget_prefetch_distance;
    for (std::size_t i = 0; i < n && i < d; ++i) budgets.prefetch_budgets_of(pod_at(i));
    for (std::size_t i = 0; i < n; ++i) {
      if (i + d < n) budgets.prefetch_budgets_of(pod_at(i + d));
      record(i, detail::violates_budget(pod_at(i), budgets, charge));
    }
  } else {
    for (std::size_t i = 0; i < n; ++i)
      record(i, detail::violates_budget(pod_at(i), budgets, charge));
  }
}

// flags[i] = bit i of `bits` (0 or 1), eight flags at a time: the byte of bits copied into every
// byte of a word, bit k kept in byte k, each byte then turned into 0 or 1.
inline void write_bits_as_flags(std::uint64_t bits, std::span<std::uint8_t> flags) noexcept {
  constexpr std::uint64_t bytes = 0x0101010101010101u, bit_k_of_byte_k = 0x8040201008040201u;
  constexpr std::uint64_t high = 0x8080808080808080u, low7 = 0x7f7f7f7f7f7f7f7fu;
  std::size_t i = 0;
  if constexpr (std::endian::native == std::endian::little) {
    for (; i + 8 <= flags.size(); i += 8, bits >>= 8) {
      const std::uint64_t kept = ((bits & 0xffu) * bytes) & bit_k_of_byte_k;
      const std::uint64_t f = ((kept + low7) & high) >> 7;
      std::memcpy(flags.data() + i, &f, sizeof f);
    }
  }
  for (; i < flags.size(); ++i, bits >>= 1) flags[i] = static_cast<std::uint8_t>(bits & 1u);
}

// charge_in_order over `pods` with the answers as flags: flags[i] = 1 when pods[i] violates a
// budget, 0 otherwise; true when any does. The answers of up to 64 pods are gathered in a word
// and written after them: a byte store between two lookups would make the compiler read the
// budget set's members again (a byte may alias anything).
template <class P, class Budgets, class Scratch>
bool charge_into_flags(std::span<const P> pods, const Budgets& budgets, Scratch& scratch,
                       std::span<std::uint8_t> flags) {
  const std::size_t n = pods.size();
  const auto charge = scratch.charger_for_node();
  constexpr std::size_t d = detail::budget_prefetch_distance;
  constexpr bool prefetches = prefetches_budgets<Budgets, P>;
  if constexpr (prefetches)
    for (std::size_t i = 0; i < n && i < d; ++i) budgets.prefetch_budgets_of(pods[i]);
  // The pods before `ahead` have a pod d places further to prefetch (no bound check per pod).
  const std::size_t ahead = prefetches && n > d ? n - d : 0;
  std::uint64_t any = 0;
  for (std::size_t first = 0; first < n; first += 64) {
    const std::size_t end = std::min(n, first + 64);
    std::uint64_t violating = 0;
    std::size_t i = first;
    const auto record = [&](std::size_t k) {
      violating |= std::uint64_t{detail::violates_budget(pods[k], budgets, charge)} << (k - first);
    };
    if constexpr (prefetches)
      for (; i < std::min(end, ahead); ++i) {
        budgets.prefetch_budgets_of(pods[i + d]);
        record(i);
      }
    for (; i < end; ++i) record(i);
    detail::write_bits_as_flags(violating, flags.subspan(first, end - first));
    any |= violating;
  }
  return any != 0;
}

template <class Entry, class Budgets, class Scratch>
void classify_budget_violations(std::span<Entry> entries, const Budgets& budgets,
                                Scratch& scratch) {
  detail::charge_in_order(
      entries.size(), budgets, scratch,
      [&](std::size_t i) -> const auto& { return *entries[i].pod; },
      [&](std::size_t i, bool violating) { entries[i].violating = violating; });
}

// How many flags have both 1 (violating) and 2 (victim) set, eight bytes at a time.
inline std::int64_t violating_victims(std::span<const std::uint8_t> flags) noexcept {
  constexpr std::uint64_t ones = 0x0101010101010101u;
  std::int64_t count = 0;
  std::size_t i = 0;
  for (; i + 8 <= flags.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, flags.data() + i, sizeof w);
    // Bit 0 of each byte: its bits 0 and 1 both set; the multiplication sums the bytes (at most
    // 8) into the top one.
    count += static_cast<std::int64_t>(((w & w >> 1 & ones) * ones) >> 56);
  }
  for (; i < flags.size(); ++i) count += (flags[i] & 3) == 3 ? 1 : 0;
  return count;
}

// charge_into_flags, or the budget set's own answer when it remembers the flags of spans it
// was charged on (detail::memo_budgets, which an evaluator passes with stamped budgets).
template <class P, class Budgets, class Scratch>
bool violation_flags(std::span<const P> pods, const Budgets& budgets, Scratch& scratch,
                     std::span<std::uint8_t> flags) {
  if constexpr (requires { requires Budgets::remembers_flags; }) {
    return budgets.charge_into_flags(pods, scratch, flags);
  } else {
    return detail::charge_into_flags(pods, budgets, scratch, flags);
  }
}

// Step 1: the node's pods of lower priority than the preemptor that the policy deems eligible,
// appended to `entries` in node order.
template <class P, class N, class Entries, class Policy>
void collect_potential_victims(const P& preemptor, const N& node, Entries& entries,
                               const Policy& policy) {
  const std::int32_t preemptor_priority = ::preempt::priority_of(preemptor);
  std::size_t index = 0;
  for (const P& p : ::preempt::pods_of(node)) {
    if (::preempt::priority_of(p) < preemptor_priority &&
        policy.is_eligible_victim(node, p, preemptor))
      entries.push_back({&p, detail::cache_position(node, index), false, false});
    ++index;
  }
}

// A successful selection. Through a function so that the violation count is not a constant
// where the result is built: g++ clears the whole result (rep stos) before an aggregate
// initialization from status::ok() and constants, a fixed cost as large as a short walk.
template <class P>
victim_selection<P> successful_selection(std::span<const P* const> victims,
                                         std::int64_t violations) noexcept {
  return {status::ok(), victims, violations};
}

// select_victims pod by pod, past its one-pass paths: steps 1 and 4-7 when `removed` (every
// potential victim was removed at once, remove_lower_priority_pods), else steps 1-7. Its own
// function, so that the one-pass paths keep a small frame.
template <class N, class S, class B, class Nominated, class Allocator, class Policy>
[[gnu::noinline]] victim_selection<node_pod_t<N>> select_one_by_one(
    const node_pod_t<N>& preemptor, const N& node, S& state, const B& budgets,
    const Nominated& nominated, victim_scratch<node_pod_t<N>, Allocator>& scratch,
    const Policy& policy, bool removed) {
  using P = node_pod_t<N>;
  using entry = typename victim_scratch<P, Allocator>::entry;
  auto& entries = scratch.entries();
  const bool no_nominees = std::ranges::begin(nominated) == std::ranges::end(nominated);
  constexpr bool has_can_fit = requires(S& s) {
    { s.can_fit(preemptor) } -> std::convertible_to<bool>;
  };
  // Without nominated pods and with the state's cheap can_fit, the fit is asked as yes or no,
  // and only a node that fails builds its status, directly in the returned selection (the
  // caller's storage): the status is written once, not copied out of a temporary.
  const bool fast_fit = has_can_fit && no_nominees;
  if (removed) {
    if (fast_fit) {
      if (!detail::passes(state, preemptor)) return {status(state.fits(preemptor)), {}, 0};
    } else if (status st = preempt::fits_with_nominated(state, preemptor, nominated); !st) {
      return {st, {}, 0};
    }
    detail::collect_potential_victims(preemptor, node, entries, policy);
  }
  if (!removed) {
    detail::collect_potential_victims(preemptor, node, entries, policy);
    for (const entry& e : entries) {
      status st = state.remove_pod(*e.pod);
      if (!st) return {st, {}, 0};
    }
    if (entries.empty()) return {status::unresolvable(no_victims_reason), {}, 0};

    if (fast_fit) {
      if (!detail::passes(state, preemptor)) return {status(state.fits(preemptor)), {}, 0};
    } else if (status st = preempt::fits_with_nominated(state, preemptor, nominated); !st) {
      return {st, {}, 0};
    }
  }

  const std::span<entry> ordered(entries.data(), entries.size());
  detail::order_by_importance(ordered, policy);
  detail::classify_budget_violations(ordered, budgets, scratch);

  std::int64_t violations = 0;
  // Without nominated pods the two-pass fit is the plain fit (no status to build per pod).
  const auto reprieve = [&](entry& e) -> status {
    if (status st = state.add_pod(*e.pod); !st) return st;
    if (no_nominees) {
      if (detail::passes(state, preemptor)) return status::ok();
    } else {
      const status fit = preempt::passes_with_nominated(state, preemptor, nominated);
      if (fit.code() == status_code::error) return fit;
      if (fit) return status::ok();
    }
    if (status st = state.remove_pod(*e.pod); !st) return st;
    e.victim = true;
    if (e.violating) ++violations;
    return status::ok();
  };
  for (entry& e : ordered)
    if (e.violating)
      if (status st = reprieve(e); !st) return {st, {}, 0};
  for (entry& e : ordered)
    if (!e.violating)
      if (status st = reprieve(e); !st) return {st, {}, 0};

  // As upstream appends them: the violating victims, then the others; re-sorted by importance
  // (sort.Slice again) when there were potential victims of both kinds.
  auto& victims = scratch.victims();
  victims.clear();
  bool any_violating = false, any_other = false;
  for (const entry& e : ordered) (e.violating ? any_violating : any_other) = true;
  if (any_violating && any_other) {
    // The victims keep the moment they were built (their entries): sort.Slice again over them.
    auto& chosen = scratch.chosen_entries();
    chosen.clear();
    for (const entry& e : ordered)
      if (e.victim && e.violating) chosen.push_back(e);
    for (const entry& e : ordered)
      if (e.victim && !e.violating) chosen.push_back(e);
    detail::go_sort_slice(chosen.begin(), chosen.end(), [&](const entry& a, const entry& b) {
      return detail::more_important_victim(a, b, policy);
    });
    for (const entry& e : chosen) victims.push_back(e.pod);
  } else {
    for (const entry& e : ordered)
      if (e.victim) victims.push_back(e.pod);
  }
  return {status::ok(), {scratch.victims().data(), scratch.victims().size()}, violations};
}

}  // namespace detail

template <node N, node_state<node_pod_t<N>> S, budget_set<node_pod_t<N>> B,
          nominated_range<node_pod_t<N>> Nominated, class Allocator,
          victim_policy<N, node_pod_t<N>> Policy = default_policy>
[[gnu::noinline]] victim_selection<node_pod_t<N>> select_victims(
    const node_pod_t<N>& preemptor, const N& node, S& state, const B& budgets,
    const Nominated& nominated, victim_scratch<node_pod_t<N>, Allocator>& scratch,
    const Policy& policy = {}) {
  using P = node_pod_t<N>;
  // A policy that selects victims its own way (preempt/preemption_policies.hpp) does so here.
  if constexpr (requires {
                  policy.select_victims_on_node(preemptor, node, state, budgets, nominated,
                                                scratch);
                })
    return policy.select_victims_on_node(preemptor, node, state, budgets, nominated, scratch);
  scratch.start_node(budgets.budget_count());
  const std::int32_t preemptor_priority = ::preempt::priority_of(preemptor);
  const bool no_nominees = std::ranges::begin(nominated) == std::ranges::end(nominated);
  // Steps 2-4 at once when the state sums the node's pods by priority and every lower-priority
  // pod is eligible: a node where the preemptor cannot fit is rejected without visiting its pods.
  bool removed = false;
  if constexpr (removes_lower_priority_pods<S> &&
                detail::every_lower_priority_pod_eligible<Policy, N, P>()) {
    if (const std::optional<std::size_t> count =
            state.remove_lower_priority_pods(preemptor_priority)) {
      if (*count == 0) return {status::unresolvable(no_victims_reason), {}, 0};
      // Steps 4-7 in one pass over the removed pods when the state offers it and nothing else
      // takes part: no budget, no nominated pod, default_policy's importance order. When it
      // declines (the preemptor does not fit, pods not strictly in importance order), the state
      // is as the removal left it and the steps are taken one by one.
      if constexpr (reprieves_removed_pods<S, P> && detail::default_importance_order<Policy, P>()) {
        if (no_nominees && budgets.budget_count() == 0) {
          const std::span<const P*> room = scratch.victim_room(*count);
          if constexpr (reprieves_removed_pods_or_rejects<S, P>) {
            // A node where the preemptor does not fit is rejected with the reprieve's fit check.
            status rejection;
            if (const std::optional<std::size_t> chosen = state.reprieve_removed_pods(
                    preemptor, ::preempt::detail::now_of(policy), room, rejection))
              return detail::successful_selection<P>(room.first(*chosen), 0);
            if (!rejection) return {rejection, {}, 0};
          } else if (const std::optional<std::size_t> chosen = state.reprieve_removed_pods(
                         preemptor, ::preempt::detail::now_of(policy), room)) {
            return detail::successful_selection<P>(room.first(*chosen), 0);
          }
        } else if constexpr (reprieves_removed_pods_with_budgets<S, P>) {
          if (no_nominees) {
            // With budgets: step 4 first, as upstream checks the fit before the budgets (a node
            // without room is left to select_one_by_one, which gives the fit's status, no pod
            // charged); then step 6 on the removed pods in the order the state walks them (its
            // reprieve declines unless that is the strict importance order), then steps 5 and 7
            // in the state's two passes.
            const std::span<const P> pods = state.removed_pods();
            if (pods.size() == *count && detail::passes(state, preemptor)) {
              const std::span<std::uint8_t> flags = scratch.flag_room(*count);
              const bool any_violating = detail::violation_flags(pods, budgets, scratch, flags);
              const std::span<const P*> room = scratch.victim_room(*count);
              if (!any_violating) {
                // No violating pod: the first pass adds nothing back, and the reprieve without
                // budgets chooses the same victims.
                if (const std::optional<std::size_t> chosen = state.reprieve_removed_pods(
                        preemptor, ::preempt::detail::now_of(policy), room))
                  return detail::successful_selection<P>(room.first(*chosen), 0);
              } else if (const std::optional<std::size_t> chosen = state.reprieve_removed_pods(
                             preemptor, ::preempt::detail::now_of(policy), room, flags)) {
                return detail::successful_selection<P>(room.first(*chosen),
                                                       detail::violating_victims(flags));
              }
              scratch.start_node(budgets.budget_count());  // the budget copies start over
            }
          }
        }
      }
      removed = true;
    }
  }
  return detail::select_one_by_one(preemptor, node, state, budgets, nominated, scratch, policy,
                                   removed);
}

// select_victims without nominated pods.
template <node N, node_state<node_pod_t<N>> S, budget_set<node_pod_t<N>> B, class Allocator,
          victim_policy<N, node_pod_t<N>> Policy = default_policy>
victim_selection<node_pod_t<N>> select_victims(const node_pod_t<N>& preemptor, const N& node,
                                               S& state, const B& budgets,
                                               victim_scratch<node_pod_t<N>, Allocator>& scratch,
                                               const Policy& policy = {}) {
  return preempt::select_victims(preemptor, node, state, budgets, no_nominated_pods<node_pod_t<N>>,
                                 scratch, policy);
}

// A node type that does not model preempt::node: the reasons, each once (detail/requirements.hpp).
template <class Preemptor, class N, class... Rest>
  requires(!node<N>)
victim_selection<detail::rejected_pod> select_victims(const Preemptor&, const N&, Rest&&...) {
  static_assert(detail::explain_node<N>() || true);
  return {};
}

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_VICTIM_SELECTION_HPP
