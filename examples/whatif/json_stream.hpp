// examples/whatif/json_stream.hpp - reads a large JSON input a window at a time: a window of
// bytes over a file descriptor, and a scanner that finds where a JSON value ends without parsing
// it, so that each item of a dump's `items` array can be handed to simdjson on its own.
//
// stream_window keeps the bytes not yet consumed in one buffer followed by simdjson's padding;
// refilling moves them to the front and reads on, growing the buffer only when a single value
// does not fit (so memory is the window plus the largest item, not the input). It counts what
// it has read against a size limit and names the limit in its error.
//
// find_value_end() looks at 64 bytes at a time (SSE2 where available): quotes not escaped by an
// odd run of backslashes open and close strings, and brackets outside strings change the depth,
// so braces, brackets and escaped quotes inside strings never end a value early. It does not
// validate: simdjson parses every value it delimits. O(n) time, no allocation, no exceptions.
// Not thread-safe (one window per input).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_JSON_STREAM_HPP
#define PREEMPT_WHATIF_JSON_STREAM_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "input.hpp"

namespace whatif {

// The end (one past the last byte) of the JSON value that starts at text[0], which must be '{',
// '[', '"' or the first byte of a number or literal; npos when the text ends first. A number or
// literal ends at the first byte that cannot continue it.
std::size_t find_value_end(std::string_view text) noexcept;

inline constexpr std::size_t default_stream_window = std::size_t{16} << 20;

// Bytes of an input read in windows. Positions are offsets into the current buffer; refill()
// moves the bytes from `keep` on to the front, so positions taken before it move by `keep`.
class stream_window {
 public:
  // Takes the bytes already read (`head`, read from the start of the input) and the descriptor
  // to read on (not closed here). `window` is how much is read at a time.
  stream_window(std::string name, int fd, text_buffer head, std::uint64_t max_size,
                std::size_t window);

  const std::string& name() const noexcept { return name_; }
  const char* data() const noexcept { return buf_.data(); }
  std::size_t size() const noexcept { return buf_.size(); }
  std::string_view view(std::size_t from) const noexcept { return buf_.view().substr(from); }
  bool at_end() const noexcept { return eof_; }
  // The offset in the input of buffer position `pos`.
  std::uint64_t offset(std::size_t pos) const noexcept { return consumed_ + pos; }

  // Drops the bytes before `keep` and reads at least one more byte, unless the input has ended
  // (then at_end() is true and nothing changes but the dropped bytes). Read errors and the size
  // limit are reported.
  std::optional<load_error> refill(std::size_t keep);

 private:
  std::string name_;
  int fd_;
  text_buffer buf_;
  std::uint64_t max_size_;
  std::size_t window_;
  std::uint64_t consumed_ = 0;  // bytes dropped from the front so far
  bool eof_ = false;
};

}  // namespace whatif

#endif  // PREEMPT_WHATIF_JSON_STREAM_HPP
