// examples/whatif/io/json_stream.hpp - reads a large JSON input a window at a time: a window of
// bytes over a file descriptor, and a scanner that finds where a JSON value ends without parsing
// it, so that each item of a dump's `items` array can be handed to simdjson on its own.
//
// stream_window keeps the bytes not yet consumed in one buffer followed by simdjson's padding;
// refilling moves them to the front and reads on, growing the buffer only when a single value
// does not fit (so memory is the window plus the largest item, not the input). It counts what
// it has read against a size limit and names the limit in its error. A regular file is mapped
// instead (map_file): no copy, zero pages after its end for the padding, and the pages behind
// the window given back (madvise), so memory is again about a window.
//
// find_value_end() looks at 64 bytes at a time (AVX2 where the processor has it, chosen at run
// time; else SSE2 where available): quotes not escaped by an odd run of backslashes (found
// without a branch per byte) open and close strings, and brackets outside strings change the depth,
// so braces, brackets and escaped quotes inside strings never end a value early. It does not
// validate: simdjson parses every value it delimits. O(n) time, no allocation, no exceptions
// (but std::bad_alloc when the buffer grows). Not thread-safe: one window per input, though a
// mapped file's bytes may be read by another thread while the window lives (item_prefetcher.cpp
// does).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_JSON_STREAM_HPP
#define PREEMPT_WHATIF_JSON_STREAM_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "io/input.hpp"

namespace whatif {

// The end (one past the last byte) of the JSON value that starts at text[0], which must be '{',
// '[', '"' or the first byte of a number or literal; npos when the text ends first. A number or
// literal ends at the first byte that cannot continue it.
std::size_t find_value_end(std::string_view text) noexcept;

namespace detail {
// find_value_end() of a container ('{' or '[' first) with the portable block operations (SSE2 or
// a byte loop), whatever the processor has: for tests comparing the two.
std::size_t container_end_portable(std::string_view text) noexcept;
}  // namespace detail

inline constexpr std::size_t default_stream_window = std::size_t{16} << 20;

// Bytes of an input read in windows. Positions are offsets into the current buffer; refill()
// moves the bytes from `keep` on to the front, so positions taken before it move by `keep`.
class stream_window {
 public:
  // Takes the bytes already read (`head`, read from the start of the input) and the descriptor
  // to read on (not closed here). `window` is how much is read at a time.
  stream_window(std::string name, int fd, text_buffer head, std::uint64_t max_size,
                std::size_t window);
  stream_window(const stream_window&) = delete;
  stream_window& operator=(const stream_window&) = delete;
  ~stream_window();

  // For a regular file of `file_size` bytes (head read from its start): maps it instead of
  // reading it, and gives the pages behind the window back as it goes, so that the bytes are
  // never copied and memory still holds a window. Reads on from the descriptor if the file grew.
  // False (and nothing changes) when the file cannot be mapped.
  bool map_file(std::uint64_t file_size);

  const std::string& name() const noexcept { return name_; }
  const char* data() const noexcept { return map_ != nullptr ? map_ + consumed_ : buf_.data(); }
  std::size_t size() const noexcept {
    return map_ != nullptr ? static_cast<std::size_t>(visible_ - consumed_) : buf_.size();
  }
  std::string_view view(std::size_t from) const noexcept {
    return std::string_view(data(), size()).substr(from);
  }
  bool at_end() const noexcept { return eof_; }
  // The offset in the input of buffer position `pos`.
  std::uint64_t offset(std::size_t pos) const noexcept { return consumed_ + pos; }

  // A mapped file: makes the rest of it visible at once (size() reaches its end) and returns
  // true; false for a stream read into the buffer.
  bool view_all() noexcept {
    if (map_ != nullptr) visible_ = file_size_;
    return map_ != nullptr;
  }
  // A mapped file: returns the pages before buffer position `pos` (the bytes stay readable, read
  // again from the file). Nothing for a stream.
  void give_back(std::size_t pos) noexcept;

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
  // A mapped file: its bytes [consumed_, visible_) are the window, with readable zeros after the
  // file's end for simdjson's padding; pages before given_back_ are returned.
  char* map_ = nullptr;
  char* retired_map_ = nullptr;  // the mapping once read to its end (see refill)
  std::size_t map_length_ = 0;
  std::uint64_t file_size_ = 0, visible_ = 0, given_back_ = 0;
};

}  // namespace whatif

#endif  // PREEMPT_WHATIF_JSON_STREAM_HPP
