// examples/whatif/output/text_format.cpp - see text_format.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "output/text_format.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "analysis/analysis.hpp"

namespace whatif {

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

std::string aligned_rows(const std::vector<std::vector<std::string>>& rows) {
  if (rows.empty()) return {};
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  std::string o;
  for (const auto& row : rows) {
    std::string line = " ";
    for (std::size_t c = 0; c < row.size(); ++c)
      line += " " + (c + 1 < row.size() ? pad(row[c], width[c] + 1) : row[c]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    o += line + "\n";
  }
  return o;
}

std::string victims_summary(const std::vector<victim_info>& victims) {
  std::string summary = std::to_string(victims.size());
  for (std::size_t v = 0; v < victims.size() && v < 2; ++v)
    summary += (v ? ", " : ": ") + victims[v].name;
  if (victims.size() > 2) summary += ", ...";
  return summary;
}

std::string trim_lines(const std::string& o) {
  std::string trimmed;
  trimmed.reserve(o.size());
  std::size_t start = 0;
  while (start < o.size()) {
    std::size_t end = o.find('\n', start);
    if (end == std::string::npos) end = o.size();
    std::size_t last = end;
    while (last > start && o[last - 1] == ' ') --last;
    trimmed.append(o, start, last - start);
    if (end < o.size()) trimmed += '\n';
    start = end + 1;
  }
  return trimmed;
}

std::string format_time(preempt::timestamp t) {
  // Times beyond nanoseconds' range are held at its ends (decode::context::read_time).
  if (t == std::numeric_limits<preempt::timestamp>::min()) return "before 1677-09-21T00:12:44Z";
  if (t == std::numeric_limits<preempt::timestamp>::max()) return "after 2262-04-11T23:47:16Z";
  // civil_from_days (Howard Hinnant).
  std::int64_t secs = t / 1'000'000'000;
  std::int64_t nanos = t % 1'000'000'000;
  if (nanos < 0) {
    nanos += 1'000'000'000;
    --secs;
  }
  std::int64_t days = secs / 86400;
  std::int64_t rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const auto digits = [](std::int64_t v, std::size_t width) {
    std::string d = std::to_string(v);
    if (d.size() < width) d.insert(0, width - d.size(), '0');
    return d;
  };
  std::string s = digits(year, 4) + "-" + digits(month, 2) + "-" + digits(day, 2) + "T" +
                  digits(rem / 3600, 2) + ":" + digits(rem / 60 % 60, 2) + ":" +
                  digits(rem % 60, 2);
  if (nanos != 0) {
    std::string frac = digits(nanos, 9);
    while (frac.back() == '0') frac.pop_back();
    s += "." + frac;
  }
  s += 'Z';
  return s;
}

std::string format_amount(std::string_view resource, std::int64_t amount) {
  if (resource == "cpu") {
    if (amount % 1000 == 0) return std::to_string(amount / 1000);
    return std::to_string(amount) + "m";
  }
  if (resource == "memory" || resource == "ephemeral-storage" ||
      resource.substr(0, 10) == "hugepages-") {
    constexpr std::pair<std::string_view, int> units[] = {{"Ei", 60}, {"Pi", 50}, {"Ti", 40},
                                                          {"Gi", 30}, {"Mi", 20}, {"Ki", 10}};
    for (const auto& [suffix, shift] : units) {
      const std::int64_t unit = std::int64_t{1} << shift;
      if (amount != 0 && amount % unit == 0)
        return std::to_string(amount / unit) + std::string(suffix);
    }
  }
  return std::to_string(amount);
}

}  // namespace whatif
