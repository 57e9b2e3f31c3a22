// examples/whatif/output/text_safety.hpp - what the text output shows of names and messages from a
// dump.
//
// A dump is data from anywhere: an object's name may hold a terminal escape (ESC ] 0 ; ... BEL
// retitles the window, ESC [ 2 J clears it), a carriage return that overwrites the line shown, or
// a newline followed by "Decision: ..." that forges a line of the output. The text output shows
// every string it takes from a decision as one_line() writes it in error messages: control
// characters (C0, DEL, C1) and bytes that are not UTF-8 escaped (\n, \r, \t, \u001b, \xff),
// nothing clipped. for_text(x) returns a copy of a decision with every such string escaped; the
// formatting code then lays it out as before. (JSON escapes the same characters itself.)
//
// O(size of the strings); allocation for the copy; no exceptions of its own; thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_TEXT_SAFETY_HPP
#define PREEMPT_WHATIF_TEXT_SAFETY_HPP

#include <string>
#include <string_view>

#include "analysis/analysis.hpp"

namespace whatif {

// `s` as the text output shows it (one_line: control characters escaped, nothing cut).
std::string shown(std::string_view s);

report for_text(const report& r);
group_report for_text(const group_report& r);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_TEXT_SAFETY_HPP
