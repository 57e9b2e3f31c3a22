// preempt/kubernetes/pod_status.hpp - the pod lifecycle facts preemption reads: start time,
// termination because of preemption, and whether a pod still holds node resources.
//
//   parse_time(text)   an RFC 3339 timestamp as Kubernetes writes it (metav1.Time "2024-05-01T
//                      10:00:05Z", MicroTime with fractional seconds, or a numeric offset such as
//                      "+02:00") → nanoseconds since the Unix epoch (preempt::timestamp). Anything
//                      else is an error naming the value, and so is a time outside 1677-2262
//                      (nanoseconds no longer fit in 64 bits).
//   terminating_by_preemption(deleting, conditions)
//                      deletionTimestamp is set and a DisruptionTarget condition has status True
//                      and reason PreemptionByScheduler (Kubernetes podTerminatingByPreemption)
//   is_terminal_phase(phase)   Succeeded or Failed: such pods no longer count on their node (the
//                      scheduler's informer skips them)
//
// O(n) in the text; no allocation except error messages; no exceptions; thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_POD_STATUS_HPP
#define PREEMPT_KUBERNETES_POD_STATUS_HPP

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "preempt/config.hpp"
#include "preempt/kubernetes/result.hpp"
#include "preempt/pod.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

struct pod_condition {
  std::string type;
  std::string status;
  std::string reason;
};

inline bool terminating_by_preemption(bool deletion_timestamp_set,
                                      std::span<const pod_condition> conditions) noexcept {
  if (!deletion_timestamp_set) return false;
  for (const pod_condition& c : conditions)
    if (c.type == "DisruptionTarget" && c.status == "True" && c.reason == "PreemptionByScheduler")
      return true;
  return false;
}

inline bool is_terminal_phase(std::string_view phase) noexcept {
  return phase == "Succeeded" || phase == "Failed";
}

namespace detail {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

constexpr bool leap_year(std::int64_t y) noexcept {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

}  // namespace detail

inline result<timestamp> parse_time(std::string_view text) {
  const auto fail = [&](std::string_view why) {
    std::string m = "invalid timestamp \"";
    m += text;
    m += "\": ";
    m += why;
    m += " (expected RFC 3339, e.g. 2024-05-01T10:00:05Z)";
    return result<timestamp>(error{std::move(m)});
  };
  std::size_t pos = 0;
  const auto number = [&](std::size_t width, std::int64_t& out) {
    if (pos + width > text.size()) return false;
    std::int64_t v = 0;
    for (std::size_t i = 0; i < width; ++i) {
      const char c = text[pos + i];
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    pos += width;
    out = v;
    return true;
  };
  const auto expect = [&](char a, char b = '\0') {
    if (pos < text.size() && (text[pos] == a || (b != '\0' && text[pos] == b))) {
      ++pos;
      return true;
    }
    return false;
  };
  std::int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!number(4, year) || !expect('-') || !number(2, month) || !expect('-') || !number(2, day) ||
      !expect('T', 't') || !number(2, hour) || !expect(':') || !number(2, minute) || !expect(':') ||
      !number(2, second))
    return fail("malformed");
  constexpr int month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12) return fail("month out of range");
  const int max_day = month_days[month - 1] + (month == 2 && detail::leap_year(year) ? 1 : 0);
  if (day < 1 || day > max_day) return fail("day out of range");
  if (hour > 23 || minute > 59 || second > 60) return fail("time of day out of range");
  std::int64_t nanos = 0;
  if (expect('.')) {
    std::size_t digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 9) nanos = nanos * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return fail("empty fraction of a second");
    for (std::size_t i = digits; i < 9; ++i) nanos *= 10;
  }
  std::int64_t offset_minutes = 0;
  if (expect('Z', 'z')) {
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const bool negative = text[pos] == '-';
    ++pos;
    std::int64_t oh = 0, om = 0;
    if (!number(2, oh) || !expect(':') || !number(2, om) || oh > 23 || om > 59)
      return fail("malformed time zone offset");
    offset_minutes = (negative ? -1 : 1) * (oh * 60 + om);
  } else {
    return fail("missing time zone (Z or an offset)");
  }
  if (pos != text.size()) return fail("trailing characters");
  const std::int64_t days =
      detail::days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const std::int64_t seconds =
      days * 86400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
  // Nanoseconds since the epoch fit in 64 bits from 1677-09-21 to 2262-04-11.
  constexpr std::int64_t limit = 9'223'372'035;
  if (seconds < -limit || seconds > limit) return fail("out of the representable range");
  return seconds * 1'000'000'000 + nanos;
}

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_POD_STATUS_HPP
