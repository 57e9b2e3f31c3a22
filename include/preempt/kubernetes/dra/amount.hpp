// preempt/kubernetes/dra/amount.hpp - exact quantity values for dynamic resources: device
// capacities, shared counters, capacity requests and CEL's quantity(), compared and summed as
// Kubernetes' resource.Quantity does (exactly, not rounded to a unit).
//
// An amount is units + nanos / 10^9 with 0 <= nanos < 10^9 (the floor form, so negative values
// compare correctly member by member). to_amount(q) converts a parsed quantity exactly; it fails
// when the integer part passes 2^63 - 1 or when the quantity is finer than 1n (the API server
// stores quantities in canonical form, never finer than nano). add/sub fail on overflow.
// ceil_units() is Quantity.Value() (rounded up, away from zero), used where upstream computes in
// whole units (the integer path of capacity request policies).
//
// Complexity O(digits of the quantity) to convert, O(1) otherwise. Allocation: a copy of the
// digits while converting a binary-suffixed quantity. No exceptions; values, thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_DRA_AMOUNT_HPP
#define PREEMPT_KUBERNETES_DRA_AMOUNT_HPP

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "preempt/config.hpp"
#include "preempt/kubernetes/quantity.hpp"
#include "preempt/kubernetes/result.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes::dra {

struct amount {
  std::int64_t units = 0;
  std::int32_t nanos = 0;  // [0, 10^9)

  // Member by member: the floor form orders negative values correctly too.
  friend constexpr bool operator==(const amount& a, const amount& b) noexcept {
    return a.units == b.units && a.nanos == b.nanos;
  }
  friend constexpr bool operator<(const amount& a, const amount& b) noexcept {
    return a.units < b.units || (a.units == b.units && a.nanos < b.nanos);
  }
  friend constexpr bool operator>(const amount& a, const amount& b) noexcept { return b < a; }
  friend constexpr bool operator<=(const amount& a, const amount& b) noexcept { return !(b < a); }
  friend constexpr bool operator>=(const amount& a, const amount& b) noexcept { return !(a < b); }

  static constexpr amount of_units(std::int64_t u) noexcept { return {u, 0}; }
  constexpr int sign() const noexcept { return units < 0 ? -1 : (units > 0 || nanos > 0) ? 1 : 0; }
  constexpr bool is_zero() const noexcept { return units == 0 && nanos == 0; }
  constexpr bool is_integer() const noexcept { return nanos == 0; }
};

inline constexpr std::int32_t nanos_per_unit = 1'000'000'000;

// a + b, or nullopt on overflow.
constexpr std::optional<amount> add(amount a, amount b) noexcept {
  std::int64_t units = 0;
  if (__builtin_add_overflow(a.units, b.units, &units)) return std::nullopt;
  std::int32_t nanos = a.nanos + b.nanos;  // < 2 * 10^9 fits
  if (nanos >= nanos_per_unit) {
    nanos -= nanos_per_unit;
    if (__builtin_add_overflow(units, std::int64_t{1}, &units)) return std::nullopt;
  }
  return amount{units, nanos};
}

// -a, or nullopt on overflow.
constexpr std::optional<amount> negate(amount a) noexcept {
  if (a.nanos == 0) {
    if (a.units == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
    return amount{-a.units, 0};
  }
  // -(u + n) = (-u - 1) + (1 - n)
  if (a.units == std::numeric_limits<std::int64_t>::max())
    return amount{std::numeric_limits<std::int64_t>::min(), nanos_per_unit - a.nanos};
  return amount{-a.units - 1, nanos_per_unit - a.nanos};
}

// a - b, or nullopt on overflow.
constexpr std::optional<amount> sub(amount a, amount b) noexcept {
  const auto nb = negate(b);
  if (!nb) return std::nullopt;
  return add(a, *nb);
}

// Quantity.Value(): rounded up away from zero to a whole number.
constexpr std::int64_t ceil_units(amount a) noexcept {
  if (a.nanos == 0 || a.units < 0) return a.units;  // negative: floor form rounds toward zero + 1
  return a.units == std::numeric_limits<std::int64_t>::max() ? a.units : a.units + 1;
}

namespace detail {

// The value of a digit string (most significant first), if at most 2^63 - 1.
inline bool amount_digits(std::string_view d, std::uint64_t& out) noexcept {
  constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  std::uint64_t v = 0;
  for (char c : d) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (v > (max - digit) / 10) return false;
    v = v * 10 + digit;
  }
  out = v;
  return true;
}

}  // namespace detail

// The exact value of q.
inline result<amount> to_amount(const quantity& q) {
  if (q.is_zero()) return amount{};
  std::string d = q.digits;
  std::int64_t e = q.exponent10;
  for (int i = 0; i < q.exponent2; ++i) ::preempt::kubernetes::detail::double_digits(d);
  ::preempt::kubernetes::detail::normalize(d, e);
  std::uint64_t units = 0, nanos = 0;
  if (e >= 0) {
    if (static_cast<std::int64_t>(d.size()) + e > 19) return error{"out of range"};
    d.append(static_cast<std::size_t>(e), '0');
    if (!detail::amount_digits(d, units)) return error{"out of range"};
  } else {
    const auto drop = static_cast<std::size_t>(-e);
    // The digits have no trailing zero: a fraction of more than nine digits is finer than 1n.
    if (drop > 9) return error{"finer than 1n"};
    std::string fraction =
        drop > d.size() ? std::string(drop - d.size(), '0') + d : d.substr(d.size() - drop);
    const std::string whole = drop >= d.size() ? std::string() : d.substr(0, d.size() - drop);
    fraction.append(9 - fraction.size(), '0');
    if (!detail::amount_digits(whole, units) || !detail::amount_digits(fraction, nanos))
      return error{"out of range"};
  }
  const amount magnitude{static_cast<std::int64_t>(units), static_cast<std::int32_t>(nanos)};
  if (!q.negative) return magnitude;
  const auto n = negate(magnitude);
  if (!n) return error{"out of range"};
  return *n;
}

// The exact value of a quantity text ("40Gi", "1.5").
inline result<amount> parse_amount(std::string_view text) {
  auto q = parse_quantity(text);
  if (!q) return q.error_value();
  auto a = to_amount(*q);
  if (!a) return error{"invalid quantity \"" + std::string(text) + "\": " + a.message()};
  return a;
}

}  // namespace kubernetes::dra
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_DRA_AMOUNT_HPP
