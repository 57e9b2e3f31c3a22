// examples/whatif/io/text.hpp - the text of an input, before any parsing: its UTF-8 (UTF-16
// converted, UTF-32 named in an error), whether it is JSON or YAML, and the container logs
// `kubectl cluster-info dump` writes between its JSON documents. The first layer of the loader
// (loader.hpp).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_IO_TEXT_HPP
#define PREEMPT_WHATIF_IO_TEXT_HPP

#include <cstddef>
#include <optional>
#include <string_view>

#include "io/input.hpp"

namespace whatif::detail {

// The UTF-8 text of a source: its bytes without a UTF-8 byte-order mark, or their conversion
// from UTF-16 into `converted`. UTF-16 is recognized by its byte-order mark, or, without one, by
// the zero bytes of ASCII text (RFC 4627's rule).
std::optional<load_error> utf8_text(const source& src, text_buffer& converted,
                                    std::string_view& text);

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_space(std::string_view text, std::size_t pos);

// JSON when the text starts with '{' or '[' (or is empty: the JSON path names that); YAML else.
bool is_json(std::string_view text);

// After a document of `kubectl cluster-info dump`: the container logs it writes between the
// JSON documents, from "==== START logs for container C of pod NS/P ====" to the matching END
// line. Returns where the next document may start.
std::size_t skip_container_logs(std::string_view text, std::size_t pos);

}  // namespace whatif::detail

#endif  // PREEMPT_WHATIF_IO_TEXT_HPP
