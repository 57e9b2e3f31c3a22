// examples/whatif/output/text_format.hpp - the small pieces the text outputs are laid out with:
// padded columns, counted nouns, a victims cell, times and resource amounts as Kubernetes writes
// them.
//
// Pure functions of their arguments; no exceptions but allocation's; thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_TEXT_FORMAT_HPP
#define PREEMPT_WHATIF_TEXT_FORMAT_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "preempt/pod.hpp"

namespace whatif {

struct victim_info;  // analysis/analysis.hpp

// `s` followed by spaces up to `width` characters (bytes); longer strings are left whole.
std::string pad(std::string s, std::size_t width);

// "1 node", "3 nodes".
std::string plural(std::size_t n, std::string_view one, std::string_view many);

// The rows as a table, one line each: two spaces, then every cell but the last padded to its
// column's width plus one, separated by a space; trailing spaces removed.
std::string aligned_rows(const std::vector<std::vector<std::string>>& rows);

// "3: a, b, ...": how many victims, the first two named, "..." when there are more (the VICTIMS
// cell of the --all-pending and --plan tables).
std::string victims_summary(const std::vector<victim_info>& victims);

// `o` with the trailing spaces of every line removed (padded columns of empty cells).
std::string trim_lines(const std::string& o);

// "2024-05-01T10:00:05Z" (fractions of a second when present).
std::string format_time(preempt::timestamp t);

// A resource amount as Kubernetes would write it: "500m" / "6" for cpu, "12Gi" for bytes.
std::string format_amount(std::string_view resource, std::int64_t amount);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_TEXT_FORMAT_HPP
