// preempt/model/resource_fit_state.hpp - a what-if node state that checks resources.
//
// Models preempt::node_state<resource_fit_state, model::resource_pod>. It keeps the node's
// allocatable amounts and its requested sum, and updates the sum incrementally as pods are removed
// and added back. fits(p) reproduces the Kubernetes NodeResourcesFit rule: "Too many pods" when the
// pod slots are used up; then "Insufficient <resource>" for every dimension in which the pod
// requests more than zero and more than is left (cpu, memory, ephemeral storage, extended
// resources, in that order). Dimensions beyond the node's allocatable vector have zero allocatable.
//
// reset() points the state at a node again: O(d) for d dimensions, no allocation once the state
// has seen a node with as many dimensions. Given the node's priority_summary as well, the state
// offers remove_lower_priority_pods(q) (the optional member of preempt::node_state): the node's
// pods of priority below q removed at once in O(log k + d), valid only as the first change after
// reset (a remove_pod or add_pod before it, e.g. a view hiding pods, turns it off: it then
// answers nullopt and the caller removes the pods one by one). Given the node's pods in
// importance order too (as resource_cluster keeps them), it offers the other optional members:
// reprieve_removed_pods, upstream's reprieve of the removed pods in one pass over them (O(r·d) for
// r pods) when they are strictly in importance order, right after that removal (declining where
// the preemptor does not fit, it explains why as fits would, from the same pass over the
// dimensions, and reads no pod); and
// victim_score_bound, an upper bound on the node's candidate scores in O(d·log k + log p), under
// the same condition as remove_lower_priority_pods; and foreseen_rejection, how victim selection
// would reject the node (no victims, or one standard dimension still short with every
// lower-priority pod gone) in O(log k), under the same condition. The allocatable vector, the
// summary, the pods and the resource names must outlive the state. No exceptions; one state per
// thread.
//
// How the bound follows from the summary, for a state whose fit only gets easier as pods leave
// (no negative requests): let t be the lowest priority such that removing every pod of priority t
// or lower makes room for the preemptor. Upstream's reprieve (SelectVictimsOnNode, without budget
// violations or nominated pods) adds the potential victims back in importance order: every pod
// above t comes back (the node then holds a subset of what made room), and not every pod of
// priority t can (all of them back and the pods below t gone leaves no room, by the choice of t).
// So the most important victim has priority t exactly (score 1). The victims, all of priority t or
// lower, free at least the node's shortage in every dimension the preemptor asks for, each at most
// the largest request of the node's pods: a least number of victims (score 3) and, at least one of
// them of priority t, a least priority sum (score 2). The pods of priority t come back in
// start-time order until the first that does not fit: at most (room left with every pod of
// priority t or lower gone) / (smallest request of the node's pods) come back before it, so the
// earliest start among the victims of priority t (score 4) is at most the start time at that rank.
// With budgets (violating pods reprieved first) the bound still holds in lexicographic order: any
// victims whose removal makes room have a most important priority t' >= t (without every pod of
// priority t' or lower there is room), and when t' = t and no victim violates, the same counting
// bounds scores 2 and 3, and the pods of priority t that start before the earliest such victim
// all stay beside every pod above t, so score 4 too.
// (The smallest and largest requests are the node's, from its summary: exact on nodes whose pods
// are alike, looser where pods of other priorities differ in size.)
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_MODEL_RESOURCE_FIT_STATE_HPP
#define PREEMPT_MODEL_RESOURCE_FIT_STATE_HPP

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>

#include "preempt/config.hpp"
#include "preempt/model/priority_summary.hpp"
#include "preempt/model/resource_pod.hpp"
#include "preempt/model/resources.hpp"
#include "preempt/node_state.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace model {

namespace detail {

constexpr status single_shortage_status(status_code code, std::size_t d) noexcept {
  return {code, resource_names::insufficient_reason(nullptr, d)};
}

// resource_fit_state's statuses for one short standard dimension, [beyond the allocatable
// amount][dimension] (the pods column is never used).
inline constexpr status single_shortage[2][resource::first_extended] = {
    {single_shortage_status(status_code::unschedulable, 0),
     single_shortage_status(status_code::unschedulable, 1),
     single_shortage_status(status_code::unschedulable, 2),
     single_shortage_status(status_code::unschedulable, 3)},
    {single_shortage_status(status_code::unschedulable_and_unresolvable, 0),
     single_shortage_status(status_code::unschedulable_and_unresolvable, 1),
     single_shortage_status(status_code::unschedulable_and_unresolvable, 2),
     single_shortage_status(status_code::unschedulable_and_unresolvable, 3)}};

}  // namespace detail

class resource_fit_state {
 public:
  // The most dimensions (standard ones included) reprieve_removed_pods handles.
  static constexpr std::size_t max_fast_dimensions = 8;

  resource_fit_state() = default;
  explicit resource_fit_state(const resource_names* names) noexcept : names_(names) {}
  resource_fit_state(const resource_vector& allocatable, const resource_vector& requested,
                     const resource_names* names = nullptr)
      : names_(names) {
    reset(allocatable, requested);
  }

  // Starts over on a node with these allocatable amounts and this sum of requests; `lower`, when
  // given, summarizes the same pods by priority (see remove_lower_priority_pods), and
  // `pods_by_importance`, when given, lists them in resource_cluster's order (kept_before: see
  // victim_score_bound). `strictly_ordered` promises that every two neighbours among those pods
  // are strictly in importance order whatever `now` (resource_node::strictly_ordered):
  // reprieve_removed_pods then does not check the order.
  void reset(const resource_vector& allocatable, const resource_vector& requested,
             const priority_summary* lower = nullptr,
             std::span<const resource_pod> pods_by_importance = {}, bool strictly_ordered = false) {
    allocatable_ = &allocatable;
    lower_ = lower;
    removed_from_ = not_removed;
    pods_ = pods_by_importance;
    strictly_ordered_ = strictly_ordered;
    if (const std::size_t dims = std::max(allocatable.size(), resource::first_extended);
        requested_.size() != dims) {
      // Between nodes with and without extended dimensions the two vectors trade places, so
      // that the wide one keeps its heap block (resizing it to the standard dimensions would
      // free it, and the next wide node would allocate again).
      if ((dims == resource::first_extended) != (requested_.size() == resource::first_extended))
        std::swap(requested_, parked_);
      requested_.resize(dims);
    }
    std::int64_t* used = requested_.data();
    if (requested_.size() == resource::first_extended) {
      // The standard dimensions: always readable, zero past the node's size (resource_vector).
      const std::int64_t* from = requested.data();
      for (std::size_t d = 0; d < resource::first_extended; ++d) used[d] = from[d];
      return;
    }
    const std::size_t n = std::min(requested_.size(), requested.size());
    std::copy(requested.data(), requested.data() + n, used);
    std::fill(used + n, used + requested_.size(), 0);
  }

  status remove_pod(const resource_pod& p) noexcept {
    lower_ = nullptr;  // the summary no longer describes the pods counted here
    removed_from_ = not_removed;
    requested_.subtract(p.requests());
    return status::ok();
  }
  status add_pod(const resource_pod& p) noexcept {
    lower_ = nullptr;
    removed_from_ = not_removed;
    requested_.add(p.requests());
    return status::ok();
  }

  // Removes every pod of the node with a priority below q at once and returns how many there
  // were; nullopt (and no change) when the state has no summary or has changed since reset.
  std::optional<std::size_t> remove_lower_priority_pods(std::int32_t q) noexcept {
    const std::size_t removed = remove_below(q);
    if (removed == not_removed) return std::nullopt;
    return removed;
  }

  // Victim selection's reprieve in one pass, for a state whose last change was
  // remove_lower_priority_pods: the removed pods, in descending importance (default_policy's
  // order, `now` for a missing start time), are added back one by one when the preemptor still
  // fits with them, and the others are written, in that order, to `victims` (room for every
  // removed pod needed). Returns how many victims; nullopt, changing nothing but forgetting the
  // removal, when the removed pods are not strictly in importance order (two equally important
  // pods, or a missing start time that ranks elsewhere than last), when the last change was not
  // that removal, when the preemptor does not fit now, or for more than max_fast_dimensions
  // dimensions. O(r·d) for r removed pods, one contiguous pass; no allocation.
  std::optional<std::size_t> reprieve_removed_pods(
      const resource_pod& preemptor, timestamp now,
      std::span<const resource_pod*> victims) noexcept {
    const std::size_t count = reprieve_in_one_pass(preemptor, now, victims, nullptr);
    if (count == not_removed) return std::nullopt;
    return count;
  }

  // The same, and when it declines because the preemptor does not fit with the removal, fits'
  // answer for the preemptor in `rejection` (left as it was otherwise): one fit check, where
  // the caller would otherwise ask fits again.
  std::optional<std::size_t> reprieve_removed_pods(const resource_pod& preemptor, timestamp now,
                                                   std::span<const resource_pod*> victims,
                                                   status& rejection) noexcept {
    const std::size_t count = reprieve_in_one_pass(preemptor, now, victims, &rejection);
    if (count == not_removed) return std::nullopt;
    return count;
  }

  // The pods the last change, a remove_lower_priority_pods, removed, in the order
  // reprieve_removed_pods walks them (the node's kept_before order); empty when the last change
  // was anything else or the pods given to reset are not the summary's.
  std::span<const resource_pod> removed_pods() const noexcept {
    return removed_from_ == not_removed || !removal_matches_pods(removed_from_)
               ? std::span<const resource_pod>{}
               : pods_.subspan(removed_from_);
  }

  // reprieve_removed_pods with budget violations: flags[i] & 1 marks removed_pods()[i] as
  // violating a budget. As SelectVictimsOnNode, the violating pods are added back first, then the
  // others, each in importance order; flags[i] & 2 is set for each victim. The victims are
  // written in importance order (upstream's order: its re-sort by importance of the violating
  // victims followed by the others gives exactly that order when the order is strict). Returns
  // how many victims, or nullopt as reprieve_removed_pods does (flags then partly written).
  // O(r·d), two passes (the violating pods, then, when some pod does not violate, the others with
  // the victims collected); no allocation.
  std::optional<std::size_t> reprieve_removed_pods(const resource_pod& preemptor, timestamp now,
                                                   std::span<const resource_pod*> victims,
                                                   std::span<std::uint8_t> flags) noexcept {
    const std::size_t from = std::exchange(removed_from_, not_removed);
    if (from == not_removed || !removal_matches_pods(from)) return std::nullopt;
    const std::span<const resource_pod> removed = pods_.subspan(from);
    const std::size_t dims = requested_.size();
    if (dims > max_fast_dimensions || victims.size() < removed.size() ||
        flags.size() < removed.size())
      return std::nullopt;
    std::array<std::int64_t, max_fast_dimensions> limit;  // [0, dims) set below (no memset)
    if (!fit_limits(preemptor, limit.data())) return std::nullopt;
    std::int64_t* used = requested_.data();
    // As reprieve_removed_pods without flags: the dimension loops unrolled on nodes with the
    // standard dimensions only, no order check where the node says its pods are strictly ordered.
    const std::size_t count =
        dims == resource::first_extended
            ? (strictly_ordered_
                   ? resource_fit_state::reprieve_walk_flagged_standard<false>(
                         removed, now, used, limit.data(), victims.data(), flags.data())
                   : resource_fit_state::reprieve_walk_flagged_standard<true>(
                         removed, now, used, limit.data(), victims.data(), flags.data()))
            : resource_fit_state::reprieve_walk_flagged<max_fast_dimensions, true>(
                  removed, dims, now, used, limit.data(), victims.data(), flags.data());
    if (count == not_removed) return std::nullopt;
    return count;
  }

 private:
  // The two passes of the flagged reprieve over `removed` (importance order, checked in the first
  // pass when CheckOrder: not_removed when it does not hold). add_if_fits(p) adds p back when the
  // preemptor still fits with it and tells whether it did. The first pass adds back the pods that
  // violate a budget (flags[i] & 1) and writes them as victims when they stay; when every pod
  // violates, those are all the victims. Otherwise the second pass adds back the others and
  // writes every victim again, violating or not, in the pods' order. Sets flags[i] & 2 on each
  // victim; returns how many.
  template <bool CheckOrder, class AddIfFits>
  [[gnu::always_inline]] static std::size_t flagged_passes(std::span<const resource_pod> removed,
                                                           [[maybe_unused]] timestamp now,
                                                           const resource_pod** victims,
                                                           std::uint8_t* flags,
                                                           AddIfFits& add_if_fits) noexcept {
    const std::size_t size = removed.size();
    [[maybe_unused]] std::int32_t previous_priority = std::numeric_limits<std::int32_t>::max();
    [[maybe_unused]] timestamp previous_start = std::numeric_limits<timestamp>::min();
    std::size_t others = 0;
    std::size_t count = 0;
    for (std::size_t i = 0; i < size; ++i) {
      const resource_pod& p = removed[i];
      if constexpr (CheckOrder)
        if (!resource_fit_state::strictly_after(p, now, previous_priority, previous_start))
          return not_removed;
      const std::uint8_t f = flags[i];
      if ((f & 1) == 0) {
        ++others;
      } else if (!add_if_fits(p)) {
        flags[i] = static_cast<std::uint8_t>(f | 2);
        victims[count++] = &p;
      }
    }
    if (others == 0) return count;
    count = 0;
    for (std::size_t i = 0; i < size; ++i) {
      const resource_pod& p = removed[i];
      const std::uint8_t f = flags[i];
      victims[count] = &p;
      if ((f & 1) != 0) {
        count += (f & 2) != 0 ? 1 : 0;
      } else if (!add_if_fits(p)) {
        flags[i] = static_cast<std::uint8_t>(f | 2);
        ++count;
      }
    }
    return count;
  }

  // reprieve_walk_flagged for a node with the standard dimensions only, as
  // reprieve_walk_standard: the four amounts in scalars (an array indexed in a loop is spilled by
  // g++ and reloaded as vectors right after its scalar stores, a store-forwarding stall per pod),
  // the pods' requests read unchecked (four readable amounts, zero past their size).
  template <bool CheckOrder>
  [[gnu::noinline]] static std::size_t reprieve_walk_flagged_standard(
      std::span<const resource_pod> removed, [[maybe_unused]] timestamp now, std::int64_t* used,
      const std::int64_t* limit, const resource_pod** victims, std::uint8_t* flags) noexcept {
    static_assert(resource::first_extended == 4 && resource_vector::inline_dimensions >= 4);
    std::int64_t u0 = used[0], u1 = used[1], u2 = used[2], u3 = used[3];
    const std::int64_t l0 = limit[0], l1 = limit[1], l2 = limit[2], l3 = limit[3];
    // Adds p back when the preemptor still fits with it; false, adding nothing, otherwise.
    const auto add_if_fits = [&](const resource_pod& p) {
      const std::int64_t* r = p.requests().data();
      const std::int64_t w0 = u0 + r[0], w1 = u1 + r[1], w2 = u2 + r[2], w3 = u3 + r[3];
      if (!((w0 <= l0) & (w1 <= l1) & (w2 <= l2) & (w3 <= l3))) return false;
      u0 = w0;
      u1 = w1;
      u2 = w2;
      u3 = w3;
      return true;
    };
    const std::size_t count =
        resource_fit_state::flagged_passes<CheckOrder>(removed, now, victims, flags, add_if_fits);
    if (count == not_removed) return not_removed;  // `used` unchanged
    used[0] = u0;
    used[1] = u1;
    used[2] = u2;
    used[3] = u3;
    return count;
  }

  // The flagged reprieve's walk over `removed` (flagged_passes) for nodes with extended
  // dimensions (`dims` <= D; the standard ones take reprieve_walk_flagged_standard), as
  // reprieve_walk: `used` is updated only when the walk completes.
  template <std::size_t D, bool CheckOrder>
  [[gnu::noinline]] static std::size_t reprieve_walk_flagged(
      std::span<const resource_pod> removed, std::size_t dims, [[maybe_unused]] timestamp now,
      std::int64_t* used_out, const std::int64_t* limit_in, const resource_pod** victims,
      std::uint8_t* flags) noexcept {
    static_assert(D > resource_vector::inline_dimensions);
    std::array<std::int64_t, D> used{}, limit{};
    for (std::size_t d = 0; d < D; ++d) {
      used[d] = d < dims ? used_out[d] : 0;
      limit[d] = d < dims ? limit_in[d] : std::numeric_limits<std::int64_t>::max();
    }
    // Adds p back when the preemptor still fits with it; false, adding nothing, otherwise.
    const auto add_if_fits = [&](const resource_pod& p) {
      const std::int64_t* r = p.requests().data();
      const std::size_t n = std::min<std::size_t>(p.requests().size(), dims);
      std::array<std::int64_t, D> with;
      bool fits = true;
      for (std::size_t d = 0; d < D; ++d) {
        with[d] = used[d] + (d < n ? r[d] : 0);
        fits &= with[d] <= limit[d];
      }
      if (fits) used = with;
      return fits;
    };
    const std::size_t count =
        resource_fit_state::flagged_passes<CheckOrder>(removed, now, victims, flags, add_if_fits);
    if (count == not_removed) return not_removed;
    std::copy(used.data(), used.data() + dims, used_out);
    return count;
  }

 public:
  // Branch and bound: an upper bound, score by score, on the upstream scores (default_scores:
  // -violations, -priority of the most important victim, -shifted priority sum, -victims, the
  // earliest start among the victims of the highest priority, `now` standing for a missing start
  // time) that select_victims would give this node for `preemptor` without budgets (with
  // budgets, an upper bound in lexicographic order), assuming that no pod is nominated to the
  // node and default_policy's eligibility and importance order. Given only when the node is then
  // sure to be a candidate with at least one victim; nullopt otherwise, and when the state has no
  // summary or no pods, has changed since reset, or a pod requests a negative amount. Changes
  // nothing.
  std::optional<std::array<std::int64_t, 5>> victim_score_bound(const resource_pod& preemptor,
                                                                timestamp now) const noexcept {
    if (lower_ == nullptr || pods_.size() != lower_->pods() ||
        lower_->pods_with_negative_requests() != 0)
      return std::nullopt;
    const auto levels = lower_->levels();
    const std::int32_t q = preemptor.priority();
    const std::size_t potential =
        static_cast<std::size_t>(std::lower_bound(levels.begin(), levels.end(), q,
                                                  [](const priority_summary::level& l,
                                                     std::int32_t v) { return l.priority < v; }) -
                                 levels.begin());
    const resource_vector& want = preemptor.requests();
    if (potential == 0 || !short_anywhere(want)) return std::nullopt;  // no victim possible
    // The lowest level whose removal, with every level below it, makes room (binary search: the
    // more levels go, the more room).
    std::size_t lo = 0, hi = potential;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (room_without(want, levels[mid].requests) >= 0)
        hi = mid;
      else
        lo = mid + 1;
    }
    if (lo == potential) return std::nullopt;  // no room even without them: not a candidate
    const priority_summary::level& top = levels[lo];
    const std::size_t below_top = lo == 0 ? 0 : levels[lo - 1].pods;
    const std::size_t at_top = top.pods - below_top;
    const std::span<const resource_pod> top_pods = pods_.subspan(pods_.size() - top.pods, at_top);
    if (top_pods.back().priority() != top.priority)
      return std::nullopt;  // the pods are not the summary's, in kept_before order

    // The fewest victims, and the most pods of priority t reprieved before the first victim.
    std::int64_t fewest = 1;
    auto before_first = static_cast<std::int64_t>(at_top - 1);
    const std::size_t dims = std::max(want.size(), std::size_t{resource::pods + 1});
    for (std::size_t d = 0; d < dims; ++d) {
      const std::int64_t demand = d == resource::pods ? 1 : want[d];
      if (demand <= 0) continue;
      const std::int64_t free_now = (*allocatable_)[d] - requested_[d];
      if (const std::int64_t shortage = demand - free_now; shortage > 0) {
        const std::int64_t largest = lower_->largest()[d];
        if (largest <= 0) return std::nullopt;
        fewest = std::max(fewest, shortage / largest + (shortage % largest != 0 ? 1 : 0));
      }
      if (const std::int64_t smallest = lower_->smallest()[d]; smallest > 0)
        before_first = std::min(before_first, (free_now + top.requests[d] - demand) / smallest);
    }
    fewest = std::min(fewest, static_cast<std::int64_t>(top.pods));
    const std::int64_t at_top_victims =
        std::max<std::int64_t>(1, fewest - static_cast<std::int64_t>(below_top));
    constexpr std::int64_t shift = std::int64_t{1} << 31;
    const std::int64_t least_sum = at_top_victims * (std::int64_t{top.priority} + shift) +
                                   (fewest - at_top_victims) * (levels[0].priority + shift);
    return std::array<std::int64_t, 5>{0, -std::int64_t{top.priority}, -least_sum, -fewest,
                                       static_cast<std::int64_t>(start_at_rank(
                                           top_pods, static_cast<std::size_t>(before_first), now))};
  }

  // fits() without the reasons.
  bool can_fit(const resource_pod& p) const noexcept {
    PREEMPT_ASSERT(allocatable_ != nullptr, "resource_fit_state::can_fit before reset");
    return !short_anywhere(p.requests());
  }

  // One pass over the dimensions; the common failure, one short standard dimension and free pod
  // slots, is copied whole from a table built at compile time (not assembled field by field in
  // the caller's storage, which would make the caller's copies of it wait on partial stores).
  status fits(const resource_pod& p) const noexcept {
    PREEMPT_ASSERT(allocatable_ != nullptr, "resource_fit_state::fits before reset");
    const resource_vector& want = p.requests();
    const std::int64_t* w = want.data();
    const std::int64_t* have = allocatable_->data();
    const std::int64_t* used = requested_.data();
    const std::size_t n_have = allocatable_->size();
    const std::size_t n_used = requested_.size();
    // The pod slots: a standard dimension, always readable (zero past the node's size).
    const bool pods_short = used[resource::pods] + 1 > have[resource::pods];
    std::size_t short_count = 0, short_dimension = 0;
    bool beyond = false;
    if (want.size() <= resource::first_extended) {
      // The standard dimensions: every amount is readable (resource_vector), no branch per
      // dimension.
      for (std::size_t d = 0; d < resource::first_extended; ++d) {
        const bool is_short = d != resource::pods && w[d] > 0 && w[d] > have[d] - used[d];
        short_count += is_short ? 1 : 0;
        short_dimension = is_short ? d : short_dimension;
        beyond |= is_short && w[d] > have[d];
      }
    } else {
      for (std::size_t d = 0; d < want.size(); ++d) {
        if (d == resource::pods || w[d] <= 0) continue;
        const std::int64_t whole = d < n_have ? have[d] : 0;
        if (w[d] > whole - (d < n_used ? used[d] : 0)) {
          ++short_count;
          short_dimension = d;
          beyond |= w[d] > whole;
        }
      }
    }
    if (short_count == 0 && !pods_short) return status::ok();
    if (short_count == 1 && !pods_short && short_dimension < resource::first_extended)
      return model::detail::single_shortage[beyond ? 1 : 0][short_dimension];
    return shortage(want, pods_short, beyond);
  }

  // The current sum of requests (for diagnostics and tests).
  const resource_vector& requested() const noexcept { return requested_; }

  // Every dimension in which p does not fit now, with how much it asks and how much is left:
  // visit(d, wanted, left) for the pod slots (wanted 1) when they are used up, then for each
  // dimension p requests more of than is left (fits' "Insufficient" reasons, in its order).
  // preempt/victim_reasons.hpp reads it to say how much a victim's eviction frees. O(d).
  template <class Visit>
  void for_each_shortage(const resource_pod& p, Visit&& visit) const {
    PREEMPT_ASSERT(allocatable_ != nullptr, "resource_fit_state::for_each_shortage before reset");
    const resource_vector& want = p.requests();
    const auto left_in = [&](std::size_t d) -> std::int64_t {
      return (d < allocatable_->size() ? (*allocatable_)[d] : 0) -
             (d < requested_.size() ? requested_[d] : 0);
    };
    if (left_in(resource::pods) < 1)
      visit(std::size_t{resource::pods}, std::int64_t{1}, left_in(resource::pods));
    for (std::size_t d = 0; d < want.size(); ++d) {
      if (d == resource::pods || want[d] <= 0) continue;
      if (want[d] > left_in(d)) visit(d, want[d], left_in(d));
    }
  }

  // How victim selection would reject the node, told from the priority summary without changing
  // the state (node_state's optional foreseen_rejection), as the first use after reset:
  // &no_victims_status when no pod has a priority below the preemptor's; with those pods
  // removed, when the preemptor is then short of exactly one standard dimension other than the
  // pod slot on a node with the standard dimensions only, the status fits gives (the
  // single-shortage table, as rejection_for); nullptr otherwise. O(log k).
  const status* foreseen_rejection(const resource_pod& preemptor) const noexcept {
    if (lower_ == nullptr) return nullptr;
    const priority_summary::lower below = lower_->below(preemptor.priority());
    if (below.pods == 0) return &no_victims_status;
    const resource_vector& want = preemptor.requests();
    if (requested_.size() != resource::first_extended || below.requests == nullptr ||
        want.size() > resource::first_extended)
      return nullptr;
    // As reprieve_standard's limits, on the requests less the removed pods' (four readable
    // amounts each: resource_vector).
    const std::int64_t* w = want.data();
    const std::int64_t* have = allocatable_->data();
    const std::int64_t* used = requested_.data();
    const std::int64_t* freed = below.requests->data();
    unsigned short_of = 0;
    for (std::size_t d = 0; d < resource::first_extended; ++d) {
      const std::int64_t demand = d == resource::pods ? 1 : w[d];
      if (demand > 0 && used[d] - freed[d] > have[d] - demand) short_of |= 1u << d;
    }
    if (short_of == 0 || (short_of & (short_of - 1)) != 0 ||
        (short_of & (1u << resource::pods)) != 0)
      return nullptr;
    const auto d = static_cast<std::size_t>(std::countr_zero(short_of));
    return &model::detail::single_shortage[have[d] - w[d] < 0 ? 1 : 0][d];
  }

 private:
  bool short_in(const resource_vector& want, std::size_t d) const noexcept {
    return want[d] > 0 && want[d] > (*allocatable_)[d] - requested_[d];
  }

  // The hot path of the reprieve loop: raw arrays, no reason strings. requested_ has at least
  // as many dimensions as the allocatable vector, so past requested_.size() both are zero.
  bool short_anywhere(const resource_vector& want) const noexcept {
    const std::int64_t* w = want.data();
    const std::int64_t* have = allocatable_->data();
    const std::int64_t* used = requested_.data();
    const std::size_t n_have = allocatable_->size();
    const std::size_t n_used = requested_.size();
    if (used[resource::pods] + 1 > have[resource::pods]) return true;  // always readable
    const std::size_t n = want.size();
    for (std::size_t d = 0; d < n; ++d) {
      if (d == resource::pods || w[d] <= 0) continue;
      const std::int64_t left = (d < n_have ? have[d] : 0) - (d < n_used ? used[d] : 0);
      if (w[d] > left) return true;
    }
    return false;
  }

  // reprieve_removed_pods as a plain count (not_removed for nullopt); when the preemptor does not
  // fit and `rejection` is given, fits' answer is written there.
  std::size_t reprieve_in_one_pass(const resource_pod& preemptor, timestamp now,
                                   std::span<const resource_pod*> victims,
                                   status* rejection) noexcept {
    const std::size_t from = std::exchange(removed_from_, not_removed);
    if (from == not_removed || victims.size() < pods_.size() - from) return not_removed;
    const std::size_t dims = requested_.size();
    unsigned short_of = 0;
    if (dims == resource::first_extended) {
      // Nodes with the standard dimensions only: one call, no order check where the node says
      // its pods are strictly ordered.
      const std::size_t count =
          strictly_ordered_
              ? reprieve_standard<false>(preemptor, from, now, victims.data(), short_of)
              : reprieve_standard<true>(preemptor, from, now, victims.data(), short_of);
      if (short_of != 0 && rejection != nullptr) *rejection = rejection_for(preemptor, short_of);
      return count;
    }
    if (dims > max_fast_dimensions) return not_removed;
    std::array<std::int64_t, max_fast_dimensions> limit;  // [0, dims) set below (no memset)
    if (short_of = limits_and_shortage(preemptor, limit.data()); short_of != 0) {
      if (rejection != nullptr) *rejection = rejection_for(preemptor, short_of);
      return not_removed;
    }
    if (!removal_matches_pods(from)) return not_removed;  // read only now: a rejection reads no pod
    return resource_fit_state::reprieve_walk<max_fast_dimensions, true>(
        pods_.subspan(from), dims, now, requested_.data(), limit.data(), victims.data());
  }

  // reprieve_in_one_pass on a node with the standard dimensions only, in one call: the limits
  // (allocatable - the preemptor's request, one pod slot) kept in registers, the fit check, the
  // check that the removed pods are the summary's, then the walk. Returns how many victims, or
  // not_removed when it declines; `short_of` is then limits_and_shortage's answer when the
  // preemptor does not fit, else left as it was.
  template <bool CheckOrder>
  [[gnu::noinline]] std::size_t reprieve_standard(const resource_pod& preemptor, std::size_t from,
                                                  timestamp now, const resource_pod** victims,
                                                  unsigned& short_of) noexcept {
    static_assert(resource::first_extended == 4 && resource_vector::inline_dimensions >= 4);
    constexpr std::int64_t unlimited = std::numeric_limits<std::int64_t>::max();
    const resource_vector& want = preemptor.requests();
    const std::int64_t* w = want.data();  // four readable amounts (resource_vector)
    const std::int64_t* have = allocatable_->data();
    std::int64_t* used = requested_.data();
    const std::int64_t l0 = w[0] > 0 ? have[0] - w[0] : unlimited;
    const std::int64_t l1 = w[1] > 0 ? have[1] - w[1] : unlimited;
    const std::int64_t l2 = have[2] - 1;  // resource::pods: one slot
    const std::int64_t l3 = w[3] > 0 ? have[3] - w[3] : unlimited;
    static_assert(resource::pods == 2);
    unsigned s = static_cast<unsigned>(used[0] > l0) | static_cast<unsigned>(used[1] > l1) << 1 |
                 static_cast<unsigned>(used[2] > l2) << 2 |
                 static_cast<unsigned>(used[3] > l3) << 3;
    if (want.size() > resource::first_extended) [[unlikely]]
      s |= asks_beyond_standard(want) ? other_dimensions : 0u;
    if (s != 0) {
      short_of = s;
      return not_removed;
    }
    if (!removal_matches_pods(from)) return not_removed;  // read only now: a rejection reads no pod
    return resource_fit_state::reprieve_walk_standard<CheckOrder>(pods_.subspan(from), now, used,
                                                                  l0, l1, l2, l3, victims);
  }

  // remove_lower_priority_pods as a plain count, not_removed for nullopt: g++ returns an optional
  // built on the stack (its flag a byte store, then reloaded as a word), a store-forwarding stall
  // as long as the rest of a rejected node's evaluation.
  std::size_t remove_below(std::int32_t q) noexcept {
    if (lower_ == nullptr) return not_removed;
    const priority_summary::lower below = lower_->below(q);
    // The removed pods are the last below.pods of the node's pods in kept_before order when the
    // pods given to reset are the summary's (reprieve_removed_pods walks them; it checks their
    // priorities, removal_matches_pods, only once the preemptor fits).
    removed_from_ = pods_.size() == lower_->pods() && below.pods <= pods_.size()
                        ? pods_.size() - below.pods
                        : not_removed;
    removed_below_ = q;
    lower_ = nullptr;
    if (below.requests != nullptr) requested_.subtract(*below.requests);
    return below.pods;
  }

  // Whether the last `pods_.size() - from` pods are exactly those below the removal's priority:
  // the pods given to reset are the summary's, in kept_before order.
  bool removal_matches_pods(std::size_t from) const noexcept {
    return (from == pods_.size() || pods_[from].priority() < removed_below_) &&
           (from == 0 || pods_[from - 1].priority() >= removed_below_);
  }

  // Whether `p` comes strictly after the pod of `previous_priority` and `previous_start` in
  // importance order (more_important_pod: lower priority, or the same and a later start, `now`
  // standing for a missing one); then p's become the previous ones.
  static bool strictly_after(const resource_pod& p, timestamp now, std::int32_t& previous_priority,
                             timestamp& previous_start) noexcept {
    const std::int32_t priority = p.priority();
    const timestamp start = p.start_time().value_or(now);
    if (priority > previous_priority || (priority == previous_priority && start <= previous_start))
      return false;
    previous_priority = priority;
    previous_start = start;
    return true;
  }

  // reprieve_walk for a node with the standard dimensions only: the four amounts in scalars (g++
  // spills an array indexed in a loop, and loads it as vectors right after it was stored one
  // amount at a time, a store-forwarding stall); the pods' requests are read unchecked (four
  // readable amounts, zero past their size: resource_vector).
  template <bool CheckOrder>
  [[gnu::always_inline]] static std::size_t reprieve_walk_standard(
      std::span<const resource_pod> removed, [[maybe_unused]] timestamp now, std::int64_t* used,
      const std::int64_t l0, const std::int64_t l1, const std::int64_t l2, const std::int64_t l3,
      const resource_pod** victims) noexcept {
    static_assert(resource::first_extended == 4 && resource_vector::inline_dimensions >= 4);
    std::int64_t u0 = used[0], u1 = used[1], u2 = used[2], u3 = used[3];
    std::size_t count = 0;
    [[maybe_unused]] std::int32_t previous_priority = std::numeric_limits<std::int32_t>::max();
    [[maybe_unused]] timestamp previous_start = std::numeric_limits<timestamp>::min();
    for (const resource_pod& p : removed) {
      if constexpr (CheckOrder)
        if (!resource_fit_state::strictly_after(p, now, previous_priority, previous_start))
          return not_removed;
      // The preemptor fits as the node stands: only what the pod adds can stop it fitting.
      const std::int64_t* r = p.requests().data();
      const std::int64_t w0 = u0 + r[0], w1 = u1 + r[1], w2 = u2 + r[2], w3 = u3 + r[3];
      if ((w0 <= l0) & (w1 <= l1) & (w2 <= l2) & (w3 <= l3)) {
        u0 = w0;
        u1 = w1;
        u2 = w2;
        u3 = w3;
      } else {
        victims[count++] = &p;
      }
    }
    used[0] = u0;
    used[1] = u1;
    used[2] = u2;
    used[3] = u3;
    return count;
  }

  // reprieve_removed_pods' walk over `removed`, for nodes with extended dimensions (`dims` <= D;
  // the standard ones take reprieve_walk_standard): `used` is updated only when the walk
  // completes (not_removed: the pods are not strictly in importance order). A plain count, not an
  // optional: g++ stores an optional's flag as a byte and reloads it with the count as one word, a
  // store-forwarding stall as long as a short walk.
  template <std::size_t D, bool CheckOrder>
  [[gnu::noinline]] static std::size_t reprieve_walk(
      std::span<const resource_pod> removed, std::size_t dims, [[maybe_unused]] timestamp now,
      std::int64_t* used_out, const std::int64_t* limit_in, const resource_pod** victims) noexcept {
    static_assert(D > resource_vector::inline_dimensions);
    std::array<std::int64_t, D> used{}, limit{};
    for (std::size_t d = 0; d < D; ++d) {
      used[d] = d < dims ? used_out[d] : 0;
      limit[d] = d < dims ? limit_in[d] : std::numeric_limits<std::int64_t>::max();
    }
    std::size_t count = 0;
    // Strictly in importance order: each pod of lower priority than the one before (every
    // removed pod is below the highest priority), or of the same priority and a later start
    // (more_important_pod).
    [[maybe_unused]] std::int32_t previous_priority = std::numeric_limits<std::int32_t>::max();
    [[maybe_unused]] timestamp previous_start = std::numeric_limits<timestamp>::min();
    for (const resource_pod& p : removed) {
      if constexpr (CheckOrder)
        if (!resource_fit_state::strictly_after(p, now, previous_priority, previous_start))
          return not_removed;
      // The preemptor fits as the node stands: only what the pod adds can stop it fitting.
      const std::int64_t* r = p.requests().data();
      [[maybe_unused]] const std::size_t n = std::min<std::size_t>(p.requests().size(), dims);
      std::array<std::int64_t, D> with{};
      bool fits = true;
      for (std::size_t d = 0; d < D; ++d) {
        with[d] = used[d] + (d < n ? r[d] : 0);
        fits &= with[d] <= limit[d];
      }
      if (fits)
        used = with;
      else
        victims[count++] = &p;
    }
    std::copy(used.data(), used.data() + dims, used_out);
    return count;
  }

  // limits_and_shortage's answer when the preemptor does not fit: bit d for each standard dimension
  // d it is short of (resource::pods: no pod slot left), or other_dimensions when fits must tell (a
  // shortage in an extended dimension).
  static constexpr unsigned other_dimensions = 1u << resource::first_extended;

  // Whether `want` asks for an extended dimension, which a node with the standard dimensions only
  // does not have.
  static bool asks_beyond_standard(const resource_vector& want) noexcept {
    for (std::size_t d = resource::first_extended; d < want.size(); ++d)
      if (want[d] > 0) return true;
    return false;
  }

  // The preemptor fits while requested[d] <= limit[d] in every dimension it asks for (one pod
  // slot always); the other dimensions never limit. Writes limit[0, dims) and tells whether the
  // preemptor fits now.
  bool fit_limits(const resource_pod& preemptor, std::int64_t* limit) const noexcept {
    return limits_and_shortage(preemptor, limit) == 0;
  }

  // fit_limits, answering 0 when the preemptor fits now, else the dimensions it is short of (see
  // other_dimensions).
  unsigned limits_and_shortage(const resource_pod& preemptor, std::int64_t* limit) const noexcept {
    const resource_vector& want = preemptor.requests();
    const std::int64_t* used = requested_.data();
    const std::size_t dims = requested_.size();
    unsigned short_of = 0;
    if (dims == resource::first_extended) {
      // The standard dimensions only: every amount below is readable (resource_vector).
      const std::int64_t* w = want.data();
      const std::int64_t* have = allocatable_->data();
      for (std::size_t d = 0; d < resource::first_extended; ++d) {
        const std::int64_t demand = d == resource::pods ? 1 : w[d];
        limit[d] = demand > 0 ? have[d] - demand : std::numeric_limits<std::int64_t>::max();
        short_of |= static_cast<unsigned>(used[d] > limit[d]) << d;
      }
    } else {
      bool fits_now = true;
      for (std::size_t d = 0; d < dims; ++d) {
        const std::int64_t demand = d == resource::pods ? 1 : want[d];
        limit[d] =
            demand > 0 ? (*allocatable_)[d] - demand : std::numeric_limits<std::int64_t>::max();
        fits_now &= used[d] <= limit[d];
      }
      short_of = fits_now ? 0 : other_dimensions;
    }
    for (std::size_t d = dims; d < want.size(); ++d)
      if (want[d] > 0) short_of |= other_dimensions;
    return short_of;
  }

  // fits(preemptor) from limits_and_shortage's answer `short_of` (not 0): the same status.
  // A short dimension's request exceeds the whole allocatable amount exactly when its limit
  // (allocatable - request) is negative.
  status rejection_for(const resource_pod& preemptor, unsigned short_of) const noexcept {
    if ((short_of & other_dimensions) != 0) return fits(preemptor);
    constexpr unsigned pod_slot = 1u << resource::pods;
    const unsigned amounts = short_of & ~pod_slot;
    const std::int64_t* want = preemptor.requests().data();  // four readable amounts
    const std::int64_t* have = allocatable_->data();
    bool beyond = false;
    for (std::size_t d = 0; d < resource::first_extended; ++d)
      beyond |= d != resource::pods && ((amounts >> d) & 1u) != 0 && have[d] - want[d] < 0;
    if ((short_of & pod_slot) == 0 && amounts != 0 && (amounts & (amounts - 1)) == 0)
      return model::detail::single_shortage[beyond ? 1 : 0][std::countr_zero(amounts)];
    return shortage(preemptor.requests(), (short_of & pod_slot) != 0, beyond);
  }

  // The least room left, over the dimensions the preemptor asks for (and its pod slot), with
  // `freed` taken off the requested sum: negative when it does not fit then.
  std::int64_t room_without(const resource_vector& want, const resource_vector& freed) const {
    std::int64_t least = std::numeric_limits<std::int64_t>::max();
    const std::size_t dims = std::max(want.size(), std::size_t{resource::pods + 1});
    for (std::size_t d = 0; d < dims; ++d) {
      const std::int64_t demand = d == resource::pods ? 1 : want[d];
      if (demand > 0)
        least = std::min(least, (*allocatable_)[d] - (requested_[d] - freed[d]) - demand);
    }
    return least;
  }

  // The start time (`now` when missing) of rank `rank` in ascending order among pods of one
  // priority kept in kept_before order (start times ascending, the pods without one last).
  static timestamp start_at_rank(std::span<const resource_pod> pods, std::size_t rank,
                                 timestamp now) noexcept {
    // Commonly one look: a start time before `now` ranks where it is kept, and so does any when
    // every pod has one.
    if (const std::optional<timestamp> at = pods[rank].start_time();
        at && (*at < now || pods.back().start_time()))
      return *at;
    const auto dated_end = std::partition_point(
        pods.begin(), pods.end(), [](const resource_pod& p) { return p.start_time().has_value(); });
    const auto missing = static_cast<std::size_t>(pods.end() - dated_end);
    const auto before_now = static_cast<std::size_t>(
        std::lower_bound(pods.begin(), dated_end, now,
                         [](const resource_pod& p, timestamp t) { return *p.start_time() < t; }) -
        pods.begin());
    if (rank < before_now) return *pods[rank].start_time();
    if (rank < before_now + missing) return now;
    return *pods[rank - missing].start_time();
  }

  // fits' answer when it names more than one reason, in upstream order: pod slots first, then
  // each short dimension. UnschedulableAndUnresolvable when a short dimension's request exceeds
  // the node's whole allocatable amount (upstream's fitsRequest: no eviction can make room).
  [[gnu::noinline]] status shortage(const resource_vector& want, bool pods_short,
                                    bool beyond) const noexcept {
    status result(beyond ? status_code::unschedulable_and_unresolvable
                         : status_code::unschedulable);
    if (pods_short) result.add_reason(resource_names::insufficient_reason(names_, resource::pods));
    for (std::size_t d = 0; d < want.size(); ++d)
      if (d != resource::pods && short_in(want, d))
        result.add_reason(resource_names::insufficient_reason(names_, d));
    return result;
  }

  static constexpr std::size_t not_removed = std::numeric_limits<std::size_t>::max();

  const resource_vector* allocatable_ = nullptr;
  const priority_summary* lower_ = nullptr;
  // Where the pods removed by remove_lower_priority_pods start in pods_, while that removal is
  // the state's last change; not_removed otherwise.
  std::size_t removed_from_ = not_removed;
  std::int32_t removed_below_ = 0;  // that removal's priority
  std::span<const resource_pod> pods_;
  // Every two neighbours in pods_ strictly ordered whatever `now`
  // (resource_node::strictly_ordered): the reprieve walk skips its order check.
  bool strictly_ordered_ = false;
  resource_vector requested_;
  // The other of a wide (extended dimensions) and a standard vector, parked by reset.
  resource_vector parked_;
  const resource_names* names_ = nullptr;
};

static_assert(node_state<resource_fit_state, resource_pod>);
static_assert(reprieves_removed_pods<resource_fit_state, resource_pod>);
static_assert(reprieves_removed_pods_or_rejects<resource_fit_state, resource_pod>);
static_assert(foresees_rejections<resource_fit_state, resource_pod>);

}  // namespace model
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_MODEL_RESOURCE_FIT_STATE_HPP
