// examples/whatif/io/sniff.hpp - tells an input that is not a text dump from its first bytes,
// before anything else reads it: a gzip file of 3 GB is named as such at once, not read whole and
// then rejected by a parser with a message about line 1.
//
//   not_text(head)  why the input whose first bytes are `head` is not text, or nullopt:
//     * compressed or archived data by its magic number (gzip, zstd, xz, bzip2, zip, 7z), with
//       how to decompress it;
//     * a NUL byte among the first 4 KiB (binary data), except where the bytes are UTF-16 (a
//       byte-order mark, or ASCII in every other byte, as the loader converts them) or UTF-32 (the
//       loader names that itself);
//     * kubectl's standard error mixed into the dump (`kubectl get ... > dump 2>&1`): a first line
//       that is a kubectl message ("Warning: ...", "error: ...", "Error from server ...", "Unable
//       to connect to the server ...", "The connection to the server ...") or a klog line
//       ("E0520 10:00:00.000000 ...").
//   The text says what was found and what to do ("is gzip-compressed data, not text: ...");
//   callers prefix the input's name.
//
// O(min(size, 4 KiB)); no allocation unless it answers; no exceptions of its own; thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_SNIFF_HPP
#define PREEMPT_WHATIF_SNIFF_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace whatif {

// How many first bytes not_text() looks at (it needs fewer when the input is shorter).
inline constexpr std::size_t sniff_size = 4096;

std::optional<std::string> not_text(std::string_view head);

// A line kubectl writes to its standard error: its messages ("Warning: ...", "error: ...",
// "Error from server ...", "Unable to connect to the server ...", "The connection to the
// server ...") and klog's ("E0520 10:00:00.123456   12345 file.go:42] ...", is_klog_line).
bool is_kubectl_message(std::string_view line);
bool is_klog_line(std::string_view line);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_SNIFF_HPP
