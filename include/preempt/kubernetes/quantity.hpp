// preempt/kubernetes/quantity.hpp - Kubernetes resource quantities ("250m", "1.5Gi", "1e3").
//
// parse_quantity(text) accepts exactly what Kubernetes' ParseQuantity accepts:
//   <quantity> ::= <signedNumber><suffix>       <number> ::= digits | digits.digits | digits. |
//   .digits <suffix>   ::= <binarySI> | <decimalSI> | <decimalExponent> binarySI   Ki Mi Gi Ti Pi
//   Ei (2^10 .. 2^60)      decimalSI  n u m "" k M G T P E (10^-9 .. 10^18) decimalExponent
//   e<signedInteger> or E<signedInteger> ("1e3", "1.3E+6"; a bare "E" is exa)
// including upstream's lenient corners: "1." and ".5" are numbers, and a sign, a dot or a suffix
// with no digit at all ("-", ".", "Ki") is zero. No whitespace is allowed (the JSON loader trims
// it first, as Kubernetes' UnmarshalJSON does). The value is kept exactly (arbitrary precision),
// then converted:
//   scaled_value(q, scale)  ceil(q / 10^scale), rounding away from zero like Quantity.ScaledValue
//   parse_milli(text)       cpu in millicores (MilliValue):  "250m" → 250, "0.5" → 500, "1n" → 1
//   parse_value(text)       bytes and counts (Value):        "1Ki" → 1024, "1.5" → 2, "1e3" → 1000
//   resource_amount(name, text)   parse_milli for "cpu", parse_value for any other resource
// A binarySI quantity above 2^63-1 is capped there, as upstream does ("8Ei" → 2^63-1 bytes), and
// one below 1 is reported as decimalSI; any other result that does not fit in std::int64_t is an
// error ("out of range").
// Errors name the value: `invalid quantity "12x": unknown suffix "x"`.
//
// Complexity O(n) in the length of the text, plus O(n) per binary doubling (at most 60) when a
// binary suffix meets a fraction. Allocation: the digit string of a parsed quantity. No
// exceptions; no global state, so thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_QUANTITY_HPP
#define PREEMPT_KUBERNETES_QUANTITY_HPP

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "preempt/config.hpp"
#include "preempt/kubernetes/result.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

// The suffix family a quantity was written with.
enum class quantity_format : std::uint8_t { decimal_si, binary_si, decimal_exponent };

// An exactly parsed quantity: (negative ? -1 : 1) × digits × 10^exponent10 × 2^exponent2.
struct quantity {
  bool negative = false;
  // Significant decimal digits, without leading or trailing zeros; empty means zero.
  std::string digits;
  std::int64_t exponent10 = 0;
  int exponent2 = 0;  // 0, 10, 20, ..., 60
  quantity_format format = quantity_format::decimal_si;

  bool is_zero() const noexcept { return digits.empty(); }
};

// Decimal scales for scaled_value.
inline constexpr int scale_units = 0;
inline constexpr int scale_milli = -3;

namespace detail {

// Decimal exponents are clamped to ±2^40: far beyond any value that fits, and small enough that
// sums of exponents never overflow.
inline constexpr std::int64_t quantity_exponent_limit = std::int64_t{1} << 40;

// Digits of a quantity's integer part (before its binary suffix) beyond which scaled_value answers
// "out of range" at once: such a value is at least 10^40, and scaled to any Kubernetes scale (up to
// 10^18, Exa) still above 2^63 - 1. It also keeps short the digit string that the exact
// computation doubles up to 60 times (for the suffix Ei).
inline constexpr std::int64_t scaled_value_max_digits = 40;

inline std::int64_t clamp_exponent(std::int64_t e) noexcept {
  if (e > quantity_exponent_limit) return quantity_exponent_limit;
  if (e < -quantity_exponent_limit) return -quantity_exponent_limit;
  return e;
}

inline bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

inline bool is_suffix_char(char c) noexcept {
  return std::string_view("eEinumkKMGTP").find(c) != std::string_view::npos;
}

inline error quantity_error(std::string_view text, std::string_view why) {
  std::string m = "invalid quantity \"";
  m += text;
  m += "\": ";
  m += why;
  return error{std::move(m)};
}

// Multiplies a decimal digit string (most significant first) by two, in place.
inline void double_digits(std::string& d) {
  int carry = 0;
  for (std::size_t i = d.size(); i-- > 0;) {
    const int v = (d[i] - '0') * 2 + carry;
    d[i] = static_cast<char>('0' + v % 10);
    carry = v / 10;
  }
  if (carry != 0) d.insert(d.begin(), static_cast<char>('0' + carry));
}

// Moves trailing zeros of the digits into the exponent; drops leading zeros.
inline void normalize(std::string& d, std::int64_t& exponent10) {
  std::size_t first = 0;
  while (first < d.size() && d[first] == '0') ++first;
  d.erase(0, first);
  std::size_t zeros = 0;
  while (zeros < d.size() && d[d.size() - 1 - zeros] == '0') ++zeros;
  d.resize(d.size() - zeros);
  exponent10 = clamp_exponent(exponent10 + static_cast<std::int64_t>(zeros));
}

// The integer value of a digit string of at most 19 digits, if it is <= max.
inline bool digits_to_int(std::string_view d, std::uint64_t max, std::uint64_t& out) noexcept {
  if (d.size() > 19) return false;
  std::uint64_t v = 0;
  for (char c : d) v = v * 10 + static_cast<std::uint64_t>(c - '0');
  if (v > max) return false;
  out = v;
  return true;
}

enum class fast_outcome : std::uint8_t { value, overflow, unknown };

// ceil(digits × 10^k × 2^exponent2) in 64-bit arithmetic, for the common short quantities
// ("500m", "1536Mi"); `unknown` sends the caller to the exact (digit string) computation.
inline fast_outcome fast_scaled(std::string_view d, std::int64_t k, int exponent2,
                                std::uint64_t& out) noexcept {
  if (d.size() > 18 || k > 19 || k < -18) return fast_outcome::unknown;
  std::uint64_t v = 0;
  for (char c : d) v = v * 10 + static_cast<std::uint64_t>(c - '0');
  constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (exponent2 > 0) {
    if (v > (max >> exponent2)) return k >= 0 ? fast_outcome::overflow : fast_outcome::unknown;
    v <<= exponent2;
  }
  if (k >= 0) {
    for (std::int64_t i = 0; i < k; ++i) {
      if (v > max / 10) return fast_outcome::overflow;
      v *= 10;
    }
    out = v;
    return fast_outcome::value;
  }
  std::uint64_t p = 1;
  for (std::int64_t i = 0; i < -k; ++i) p *= 10;
  out = v / p + (v % p != 0 ? 1 : 0);
  return fast_outcome::value;
}

// Whether digits × 10^exponent10 × 2^exponent2 is above 2^63-1 (digits normalized, non-empty).
inline bool exceeds_int64(std::string d, std::int64_t e, int exponent2) {
  std::uint64_t fast = 0;
  switch (fast_scaled(d, e, exponent2, fast)) {
    case fast_outcome::overflow: return true;
    case fast_outcome::value:
      return fast > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    case fast_outcome::unknown: break;
  }
  if (e >= 0 && static_cast<std::int64_t>(d.size()) + e > 19 + 19) return true;  // ≥ 10^38
  for (int i = 0; i < exponent2; ++i) double_digits(d);
  normalize(d, e);
  constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  std::uint64_t v = 0;
  if (e >= 0) {
    if (static_cast<std::int64_t>(d.size()) + e > 19) return true;
    d.append(static_cast<std::size_t>(e), '0');
    return !digits_to_int(d, max, v);
  }
  const auto drop = static_cast<std::uint64_t>(-e);
  if (drop >= d.size()) return false;  // below one
  // The integer part, plus a non-zero fraction (no trailing zeros): above max iff int >= max.
  return !digits_to_int(std::string_view(d).substr(0, d.size() - drop), max - 1, v);
}

// Whether 0 < |q| < 1 (q non-zero).
inline bool below_one(const quantity& q) {
  if (q.exponent10 >= 0) return false;
  std::string d = q.digits;
  std::int64_t e = q.exponent10;
  for (int i = 0; i < q.exponent2; ++i) double_digits(d);
  normalize(d, e);
  return e < 0 && static_cast<std::int64_t>(d.size()) <= -e;
}

}  // namespace detail

// Parses a quantity exactly. See the header comment for the grammar.
inline result<quantity> parse_quantity(std::string_view text) {
  using detail::is_digit;
  if (text.empty()) return detail::quantity_error(text, "empty");
  quantity q;
  std::size_t pos = 0;
  const std::size_t end = text.size();
  if (text[0] == '-' || text[0] == '+') {
    q.negative = text[0] == '-';
    ++pos;
  }
  const std::size_t int_begin = pos;
  while (pos < end && is_digit(text[pos])) ++pos;
  std::string digits(text.substr(int_begin, pos - int_begin));
  std::int64_t exponent10 = 0;
  if (pos < end && text[pos] == '.') {
    ++pos;
    const std::size_t frac_begin = pos;
    while (pos < end && is_digit(text[pos])) ++pos;
    digits.append(text.substr(frac_begin, pos - frac_begin));
    exponent10 = -static_cast<std::int64_t>(pos - frac_begin);
  }
  // The suffix: letters of "eEinumkKMGTP", then an optional sign and digits (an exponent).
  const std::size_t suffix_begin = pos;
  while (pos < end && detail::is_suffix_char(text[pos])) ++pos;
  if (pos < end && (text[pos] == '-' || text[pos] == '+')) ++pos;
  while (pos < end && is_digit(text[pos])) ++pos;
  if (pos != end) {
    if (suffix_begin == pos && pos < end && (text[pos] == '.'))
      return detail::quantity_error(text, "more than one decimal point");
    return detail::quantity_error(text, "unexpected character '" + std::string(1, text[pos]) + "'");
  }
  const std::string_view suffix = text.substr(suffix_begin);

  struct entry {
    std::string_view name;
    int exponent;
  };
  constexpr entry decimal[] = {{"n", -9}, {"u", -6}, {"m", -3}, {"", 0},   {"k", 3},
                               {"M", 6},  {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
  constexpr entry binary[] = {{"Ki", 10}, {"Mi", 20}, {"Gi", 30},
                              {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  bool known = false;
  for (const entry& e : decimal)
    if (e.name == suffix) {
      exponent10 += e.exponent;
      q.format = quantity_format::decimal_si;
      known = true;
    }
  for (const entry& e : binary)
    if (e.name == suffix) {
      q.exponent2 = e.exponent;
      q.format = quantity_format::binary_si;
      known = true;
    }
  if (!known) {
    if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E'))
      return detail::quantity_error(text, "unknown suffix \"" + std::string(suffix) + "\"");
    // strconv.ParseInt(suffix[1:], 10, 64): an optional sign, then at least one digit.
    std::string_view exp = suffix.substr(1);
    bool negative_exp = false;
    if (!exp.empty() && (exp[0] == '-' || exp[0] == '+')) {
      negative_exp = exp[0] == '-';
      exp.remove_prefix(1);
    }
    if (exp.empty()) return detail::quantity_error(text, "exponent without digits");
    std::uint64_t value = 0;
    for (char c : exp) {
      if (!is_digit(c)) return detail::quantity_error(text, "invalid exponent");
      if (value > (std::uint64_t{1} << 62) / 10)
        return detail::quantity_error(text, "exponent out of range");
      value = value * 10 + static_cast<std::uint64_t>(c - '0');
    }
    const auto e = detail::clamp_exponent(static_cast<std::int64_t>(
        value > static_cast<std::uint64_t>(detail::quantity_exponent_limit)
            ? static_cast<std::uint64_t>(detail::quantity_exponent_limit)
            : value));
    exponent10 += negative_exp ? -e : e;
    q.format = quantity_format::decimal_exponent;
  }
  detail::normalize(digits, exponent10);
  q.digits = std::move(digits);
  q.exponent10 = detail::clamp_exponent(exponent10);
  if (q.is_zero()) {
    q.negative = false;
    q.exponent10 = 0;
    q.exponent2 = 0;
    return q;
  }
  if (q.format == quantity_format::binary_si &&
      detail::exceeds_int64(q.digits, q.exponent10, q.exponent2)) {
    // Upstream caps a binary quantity at 2^63-1 in magnitude, silently ("8Ei").
    q.digits = "9223372036854775807";
    q.exponent10 = 0;
    q.exponent2 = 0;
  } else if (q.format == quantity_format::binary_si && detail::below_one(q)) {
    q.format = quantity_format::decimal_si;  // upstream: "this avoids rounding and confusion"
  }
  return q;
}

// ceil(|q| / 10^scale) with q's sign (rounding away from zero, as Kubernetes' ScaledValue);
// an error when the result does not fit in std::int64_t.
inline result<std::int64_t> scaled_value(const quantity& q, int scale) {
  if (q.is_zero()) return std::int64_t{0};
  constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  std::uint64_t fast = 0;
  switch (detail::fast_scaled(q.digits, q.exponent10 - scale, q.exponent2, fast)) {
    case detail::fast_outcome::overflow: return error{"out of range"};
    case detail::fast_outcome::value:
      if (fast > max) return error{"out of range"};
      return q.negative ? -static_cast<std::int64_t>(fast) : static_cast<std::int64_t>(fast);
    case detail::fast_outcome::unknown: break;
  }
  std::string d = q.digits;
  std::int64_t e = q.exponent10;
  if (q.exponent2 > 0) {
    if (e >= 0 && static_cast<std::int64_t>(d.size()) + e > detail::scaled_value_max_digits)
      return error{"out of range"};
    for (int i = 0; i < q.exponent2; ++i) detail::double_digits(d);
    detail::normalize(d, e);
  }
  const std::int64_t k = detail::clamp_exponent(e - scale);
  std::uint64_t v = 0;
  if (k >= 0) {
    if (static_cast<std::int64_t>(d.size()) + k > 19) return error{"out of range"};
    d.append(static_cast<std::size_t>(k), '0');
    if (!detail::digits_to_int(d, max, v)) return error{"out of range"};
  } else {
    const auto drop = static_cast<std::uint64_t>(-k);
    if (drop >= d.size()) {
      v = 1;  // a non-zero fraction below one unit of the scale
    } else {
      // The dropped digits end with a non-zero digit (no trailing zeros), so round up.
      if (!detail::digits_to_int(std::string_view(d).substr(0, d.size() - drop), max - 1, v))
        return error{"out of range"};
      v += 1;
    }
  }
  const auto s = static_cast<std::int64_t>(v);
  return q.negative ? -s : s;
}

namespace detail {
inline result<std::int64_t> parse_scaled(std::string_view text, int scale, std::string_view unit) {
  auto q = parse_quantity(text);
  if (!q) return q.error_value();
  auto v = scaled_value(*q, scale);
  if (!v) {
    std::string why = "out of range for ";
    why += unit;
    return quantity_error(text, why);
  }
  return v;
}
}  // namespace detail

// A quantity in thousandths (Quantity.MilliValue): "250m" → 250, "2" → 2000.
inline result<std::int64_t> parse_milli(std::string_view text) {
  return detail::parse_scaled(text, scale_milli, "millis");
}

// A quantity in units, rounded up (Quantity.Value): "1Ki" → 1024, "0.5" → 1.
inline result<std::int64_t> parse_value(std::string_view text) {
  return detail::parse_scaled(text, scale_units, "a 64-bit integer");
}

// A resource amount as the scheduler counts it: millicores for "cpu", units for everything else
// (bytes of memory and ephemeral storage, pod slots, extended resources).
inline result<std::int64_t> resource_amount(std::string_view resource, std::string_view text) {
  return resource == "cpu" ? parse_milli(text) : parse_value(text);
}

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_QUANTITY_HPP
