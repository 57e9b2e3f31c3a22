// examples/whatif/output/one_line.hpp - keeps preempt-whatif's error messages on one readable line
// whatever the input holds.
//
//   clip(value)        a value from the input as a message shows it: control characters and bytes
//                      that are not UTF-8 escaped (\n, \t, \u0007, \xff), and a value longer than
//                      80 bytes cut to its first 60 with "..." and its length: `aaaa...(5000
//                      bytes)`
//   one_line(message)  the whole message with control characters escaped (a file name from the
//                      command line may hold a newline too)
//   replace_value(message, value)  the message with the first occurrence of `value` replaced by
//                      clip(value): for messages composed by the adapter, which quote values whole
//
// O(n); no exceptions of their own; thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_ONE_LINE_HPP
#define PREEMPT_WHATIF_ONE_LINE_HPP

#include <cstddef>
#include <string>
#include <string_view>

namespace whatif {

inline constexpr std::size_t clip_limit = 80;  // longest value shown whole
inline constexpr std::size_t clip_keep = 60;   // bytes kept of a longer one

std::string clip(std::string_view value);
std::string one_line(std::string_view message);
std::string replace_value(std::string message, std::string_view value);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_ONE_LINE_HPP
