// preempt/kubernetes/dra/semver.hpp - semantic versions as Kubernetes' CEL semver library and
// device attributes of type `version` read them (github.com/blang/semver/v4 Parse and Compare,
// the library's normalizing variant included).
//
//   parse_semver("1.2.3-rc.1+build")   strict: MAJOR.MINOR.PATCH, no leading zeros, optional
//                                      pre-release and build identifiers ([0-9A-Za-z-]+)
//   parse_semver(text, true)           semver(text, true): a leading "v" dropped, leading zeros
//                                      removed, a missing minor or patch filled with 0
//   compare(a, b)                      -1, 0, 1: numbers, then pre-release precedence; build
//                                      metadata ignored
//
// Complexity O(length). Allocation: the identifiers of the parsed version. No exceptions;
// values, thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_DRA_SEMVER_HPP
#define PREEMPT_KUBERNETES_DRA_SEMVER_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes::dra {

struct semver {
  struct identifier {
    bool numeric = false;
    std::uint64_t number = 0;
    std::string text;
  };
  std::uint64_t major = 0, minor = 0, patch = 0;
  std::vector<identifier> pre;
};

namespace detail {

inline bool only_digits(std::string_view s) noexcept {
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}
inline bool only_alphanum(std::string_view s) noexcept {
  for (char c : s) {
    const bool ok =
        (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
    if (!ok) return false;
  }
  return true;
}
inline bool leading_zero(std::string_view s) noexcept { return s.size() > 1 && s[0] == '0'; }

// strconv.ParseUint(s, 10, 64) of a string of digits.
inline std::optional<std::uint64_t> parse_u64(std::string_view s) noexcept {
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

inline std::optional<std::uint64_t> version_number(std::string_view s) noexcept {
  if (!only_digits(s) || leading_zero(s)) return std::nullopt;
  return parse_u64(s);
}

// Splits on `sep` as Go's strings.Split (an empty string gives one empty part).
inline std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t p = s.find(sep, start);
    if (p == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, p - start));
    start = p + 1;
  }
}

inline std::optional<semver> parse_strict(std::string_view s) {
  if (s.empty()) return std::nullopt;
  const std::size_t d1 = s.find('.');
  if (d1 == std::string_view::npos) return std::nullopt;
  const std::size_t d2 = s.find('.', d1 + 1);
  if (d2 == std::string_view::npos) return std::nullopt;
  semver v;
  const auto major = version_number(s.substr(0, d1));
  const auto minor = version_number(s.substr(d1 + 1, d2 - d1 - 1));
  if (!major || !minor) return std::nullopt;
  v.major = *major;
  v.minor = *minor;
  std::string_view patch = s.substr(d2 + 1);
  std::string_view build, pre;
  bool has_build = false, has_pre = false;
  if (const std::size_t b = patch.find('+'); b != std::string_view::npos) {
    build = patch.substr(b + 1);
    patch = patch.substr(0, b);
    has_build = true;
  }
  if (const std::size_t p = patch.find('-'); p != std::string_view::npos) {
    pre = patch.substr(p + 1);
    patch = patch.substr(0, p);
    has_pre = true;
  }
  const auto patch_number = version_number(patch);
  if (!patch_number) return std::nullopt;
  v.patch = *patch_number;
  if (has_pre) {
    for (std::string_view id : split(pre, '.')) {
      if (id.empty()) return std::nullopt;
      semver::identifier pid;
      if (only_digits(id)) {
        if (leading_zero(id)) return std::nullopt;
        const auto n = parse_u64(id);
        if (!n) return std::nullopt;
        pid.numeric = true;
        pid.number = *n;
      } else if (only_alphanum(id)) {
        pid.text = std::string(id);
      } else {
        return std::nullopt;
      }
      v.pre.push_back(std::move(pid));
    }
  }
  if (has_build)
    for (std::string_view id : split(build, '.'))
      if (id.empty() || !only_alphanum(id)) return std::nullopt;
  return v;
}

// The library's normalizeAndParse.
inline std::optional<semver> parse_normalized(std::string_view s) {
  if (!s.empty() && s[0] == 'v') s.remove_prefix(1);
  std::vector<std::string> parts;
  {
    std::size_t start = 0;
    for (int i = 0; i < 2; ++i) {
      const std::size_t p = s.find('.', start);
      if (p == std::string_view::npos) break;
      parts.emplace_back(s.substr(start, p - start));
      start = p + 1;
    }
    parts.emplace_back(s.substr(start));
  }
  for (std::string& p : parts) {
    if (p.size() <= 1) continue;
    const std::size_t first = p.find_first_not_of('0');
    p = first == std::string::npos ? std::string() : p.substr(first);
    if (p.empty() || p[0] < '0' || p[0] > '9') p = "0" + p;
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) return std::nullopt;
    while (parts.size() < 3) parts.emplace_back("0");
  }
  return parse_strict(parts[0] + "." + parts[1] + "." + parts[2]);
}

}  // namespace detail

inline std::optional<semver> parse_semver(std::string_view text, bool normalize = false) {
  return normalize ? detail::parse_normalized(text) : detail::parse_strict(text);
}

inline int compare(const semver& a, const semver& b) noexcept {
  const auto cmp = [](std::uint64_t x, std::uint64_t y) { return x < y ? -1 : x > y ? 1 : 0; };
  if (int c = cmp(a.major, b.major)) return c;
  if (int c = cmp(a.minor, b.minor)) return c;
  if (int c = cmp(a.patch, b.patch)) return c;
  if (a.pre.empty() && b.pre.empty()) return 0;
  if (a.pre.empty()) return 1;
  if (b.pre.empty()) return -1;
  std::size_t i = 0;
  for (; i < a.pre.size() && i < b.pre.size(); ++i) {
    const semver::identifier &x = a.pre[i], &y = b.pre[i];
    if (x.numeric != y.numeric) return x.numeric ? -1 : 1;
    const int c = x.numeric                    ? cmp(x.number, y.number)
                  : x.text.compare(y.text) < 0 ? -1
                  : x.text == y.text           ? 0
                                               : 1;
    if (c != 0) return c;
  }
  if (i == a.pre.size() && i == b.pre.size()) return 0;
  return i == a.pre.size() ? -1 : 1;
}

}  // namespace kubernetes::dra
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_DRA_SEMVER_HPP
