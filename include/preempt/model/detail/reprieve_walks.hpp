// preempt/model/detail/reprieve_walks.hpp - the walks of resource_fit_state's one-pass reprieve
// (reprieve_removed_pods): upstream's reprieve (step 7 of SelectVictimsOnNode) over the pods a
// remove_lower_priority_pods removed, in importance order, adding each back while the preemptor
// still fits and writing the others as victims. One walk without budgets, two passes with budget
// violation flags (the violating pods first); each for nodes with the standard dimensions only
// (the four amounts in scalars) and for nodes with extended dimensions (up to D, in arrays).
// Each checks, when CheckOrder, that the pods are strictly in importance order, and declines
// (not_removed, `used` unchanged) where they are not.
//
// Implementation notes: the walks with and without flags are near-copies on purpose. Each keeps
// its amounts where g++ keeps them in registers (scalars for the standard dimensions: an array
// indexed in a loop is spilled and reloaded as vectors right after its scalar stores, a
// store-forwarding stall per pod), and returns a plain count, not an optional (g++ stores an
// optional's flag as a byte and reloads it with the count as one word). The flagged walks share
// their two passes (flagged_passes) and differ from the plain ones in the fit step only where
// the amounts live.
//
// Complexity: O(r·d) for r removed pods and d dimensions, one contiguous pass (two with flags).
// No allocation, no exceptions. Thread-safety: writes only the caller's arrays.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_MODEL_DETAIL_REPRIEVE_WALKS_HPP
#define PREEMPT_MODEL_DETAIL_REPRIEVE_WALKS_HPP

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

#include "preempt/config.hpp"
#include "preempt/model/resource_pod.hpp"
#include "preempt/model/resources.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace model::detail {

// A walk's answer when it declines (and resource_fit_state's "no removal to reprieve").
inline constexpr std::size_t not_removed = std::numeric_limits<std::size_t>::max();

// Whether `p` comes strictly after the pod of `previous_priority` and `previous_start` in
// importance order (more_important_pod: lower priority, or the same and a later start, `now`
// standing for a missing one); then p's become the previous ones.
inline bool strictly_after(const resource_pod& p, timestamp now, std::int32_t& previous_priority,
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
[[gnu::always_inline]] inline std::size_t reprieve_walk_standard(
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
      if (!::preempt::model::detail::strictly_after(p, now, previous_priority, previous_start))
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
[[gnu::noinline]] std::size_t reprieve_walk(std::span<const resource_pod> removed, std::size_t dims,
                                            [[maybe_unused]] timestamp now, std::int64_t* used_out,
                                            const std::int64_t* limit_in,
                                            const resource_pod** victims) noexcept {
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
      if (!::preempt::model::detail::strictly_after(p, now, previous_priority, previous_start))
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

// The two passes of the flagged reprieve over `removed` (importance order, checked in the first
// pass when CheckOrder: not_removed when it does not hold). add_if_fits(p) adds p back when the
// preemptor still fits with it and tells whether it did. The first pass adds back the pods that
// violate a budget (flags[i] & 1) and writes them as victims when they stay; when every pod
// violates, those are all the victims. Otherwise the second pass adds back the others and
// writes every victim again, violating or not, in the pods' order. Sets flags[i] & 2 on each
// victim; returns how many.
template <bool CheckOrder, class AddIfFits>
[[gnu::always_inline]] inline std::size_t flagged_passes(std::span<const resource_pod> removed,
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
      if (!::preempt::model::detail::strictly_after(p, now, previous_priority, previous_start))
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
[[gnu::noinline]] std::size_t reprieve_walk_flagged_standard(
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
  const std::size_t count = ::preempt::model::detail::flagged_passes<CheckOrder>(
      removed, now, victims, flags, add_if_fits);
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
[[gnu::noinline]] std::size_t reprieve_walk_flagged(
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
  const std::size_t count = ::preempt::model::detail::flagged_passes<CheckOrder>(
      removed, now, victims, flags, add_if_fits);
  if (count == not_removed) return not_removed;
  std::copy(used.data(), used.data() + dims, used_out);
  return count;
}

}  // namespace model::detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_MODEL_DETAIL_REPRIEVE_WALKS_HPP
