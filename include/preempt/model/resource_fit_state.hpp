// preempt/model/resource_fit_state.hpp - a what-if node state that checks resources.
//
// Models preempt::node_state<resource_fit_state, model::resource_pod>. It keeps the node's
// allocatable amounts and its requested sum, and updates the sum incrementally as pods are removed
// and added back. fits(p) reproduces the Kubernetes NodeResourcesFit rule: "Too many pods" when the
// pod slots are used up; then "Insufficient <resource>" for every dimension in which the pod
// requests more than zero and more than is left (cpu, memory, ephemeral storage, extended
// resources, in that order). Dimensions beyond the node's allocatable vector have zero allocatable.
// Given the node's priority_summary (and its pods in importance order, as resource_cluster keeps
// them), it offers node_state's optional members: remove_lower_priority_pods, the one-pass
// reprieve_removed_pods (model/detail/reprieve_walks.hpp), victim_score_bound
// (model/detail/victim_score_bound.hpp) and foreseen_rejection, each valid as the first change
// after reset (see each member).
//
// Complexity: reset O(d) for d dimensions; fits, can_fit, add_pod, remove_pod O(d);
// remove_lower_priority_pods O(log k + d) for k priority levels; reprieve_removed_pods O(r·d) for
// r removed pods; victim_score_bound O(d·log k + log p); foreseen_rejection O(log k).
// Allocation: none once the state has seen a node with as many dimensions. Exceptions: none.
// Thread-safety: one state per thread. The allocatable vector, the summary, the pods and the
// resource names must outlive the state.
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
#include "preempt/model/detail/reprieve_walks.hpp"
#include "preempt/model/detail/victim_score_bound.hpp"
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
                   ? ::preempt::model::detail::reprieve_walk_flagged_standard<false>(
                         removed, now, used, limit.data(), victims.data(), flags.data())
                   : ::preempt::model::detail::reprieve_walk_flagged_standard<true>(
                         removed, now, used, limit.data(), victims.data(), flags.data()))
            : ::preempt::model::detail::reprieve_walk_flagged<max_fast_dimensions, true>(
                  removed, dims, now, used, limit.data(), victims.data(), flags.data());
    if (count == not_removed) return std::nullopt;
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
    if (lower_ == nullptr) return std::nullopt;
    return ::preempt::model::detail::victim_score_bound(
        *allocatable_, requested_, *lower_, pods_, preemptor, now,
        [this](const resource_vector& want) noexcept { return short_anywhere(want); });
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
    return ::preempt::model::detail::reprieve_walk<max_fast_dimensions, true>(
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
    return ::preempt::model::detail::reprieve_walk_standard<CheckOrder>(
        pods_.subspan(from), now, used, l0, l1, l2, l3, victims);
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

  static constexpr std::size_t not_removed = model::detail::not_removed;

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
