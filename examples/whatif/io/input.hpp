// examples/whatif/io/input.hpp - reads preempt-whatif's inputs whole into memory, or opens them to
// be read a window at a time (open_source, for json_stream.hpp): regular files, and streams of
// any kind (standard input, pipes, `<(kubectl ...)`, named pipes, sockets, terminals), at the same
// speed.
//
// A regular file is read with one read loop into a buffer of its size; a stream in large chunks
// into a buffer that doubles (realloc, which moves big blocks without copying). Either stops at
// `max_size` bytes with an error naming the limit and the flag that raises it. A directory, a
// block device and a character device that is not a terminal (/dev/null, /dev/zero: they would
// read as nothing or forever) each get their own message instead of a parse error.
//
// text_buffer keeps SIMDJSON_PADDING bytes after its content, so that simdjson parses it in
// place. Allocation failure throws std::bad_alloc; nothing else throws. Not thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_INPUT_HPP
#define PREEMPT_WHATIF_INPUT_HPP

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "decode/dump.hpp"

namespace whatif {

struct load_error {
  std::string message;
};

// Bytes followed by simdjson's padding (SIMDJSON_PADDING readable bytes after the end).
class text_buffer {
 public:
  text_buffer() = default;
  explicit text_buffer(std::string_view bytes) {
    append(bytes);
    resize(size_);
  }
  text_buffer(text_buffer&& other) noexcept
      : data_(std::move(other.data_)), size_(other.size_), capacity_(other.capacity_) {
    other.size_ = other.capacity_ = 0;
  }
  text_buffer& operator=(text_buffer&& other) noexcept {
    data_ = std::move(other.data_);
    size_ = other.size_;
    capacity_ = other.capacity_;
    other.size_ = other.capacity_ = 0;
    return *this;
  }

  const char* data() const noexcept { return data_ ? data_.get() : empty_; }
  char* data() noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }
  std::string_view view() const noexcept { return {data(), size_}; }

  // Makes room for `n` bytes of content (and the padding after them).
  void reserve(std::size_t n);
  // Sets the size after writing into data() (n <= the reserved room) and clears the padding
  // after it. append() and push_back() leave the padding as it is: resize(size()) clears it.
  void resize(std::size_t n) noexcept;
  void clear() noexcept { resize(0); }

  void append(std::string_view s) {
    if (s.empty()) return;
    if (size_ + s.size() > capacity_) grow(size_ + s.size());
    std::memcpy(data_.get() + size_, s.data(), s.size());
    size_ += s.size();
  }
  void push_back(char c) {
    if (size_ + 1 > capacity_) grow(size_ + 1);
    data_.get()[size_++] = c;
  }

 private:
  struct free_deleter {
    void operator()(char* p) const noexcept { std::free(p); }
  };
  void grow(std::size_t at_least);

  static constexpr char empty_[64] = {};  // the padded empty text
  std::unique_ptr<char, free_deleter> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;  // content room; the padding comes after it
};

// One input: its display name and its bytes.
struct source {
  std::string name;
  text_buffer bytes;
};

// The default of --max-input-size: simdjson's largest document (4 GiB - 1 bytes) fits.
inline constexpr std::uint64_t default_max_input_size = std::uint64_t{4} << 30;

// Reads a file or stream ("-" = standard input) into `out`.
std::optional<load_error> read_source(const std::string& path, std::uint64_t max_size, source& out);

// Reads an open file descriptor (not closed) as input `name`.
std::optional<load_error> read_descriptor(int fd, std::string name, std::uint64_t max_size,
                                          source& out);

// An input opened to be read in windows (json_stream.hpp): its first bytes, and the descriptor
// the rest is read from when the input did not end within them. Closes the descriptor.
struct open_input {
  source head;            // the name and the bytes read so far: the whole input when complete
  bool complete = true;   // head holds the whole input
  bool seekable = false;  // a regular file, which can be read again from its start
  int fd = -1;            // -1 when complete

  open_input() = default;
  open_input(const open_input&) = delete;
  open_input& operator=(const open_input&) = delete;
  ~open_input();
};

// Opens a file or stream ("-" = standard input) and reads its first `first_window` bytes (a
// regular file no larger than that, or a stream that ends within them, is read whole). The same
// checks and errors as read_source.
std::optional<load_error> open_source(const std::string& path, std::uint64_t max_size,
                                      std::size_t first_window, open_input& out);
// The same for an open descriptor (not closed).
std::optional<load_error> open_descriptor(int fd, std::string name, std::uint64_t max_size,
                                          std::size_t first_window, open_input& out);
// Reads the rest of an incomplete input into head (then complete).
std::optional<load_error> read_rest(open_input& in, std::uint64_t max_size);
// Reads a seekable input again from its start, whole, into head.
std::optional<load_error> read_again(open_input& in, std::uint64_t max_size);

// A source from bytes in memory (the bundled example, the fuzzer).
source make_source(std::string name, std::string_view bytes);

// The error of a stream that holds more than `max_size` bytes.
std::string input_too_large(const std::string& name, std::uint64_t max_size);

// "4 GiB", "512 MiB", "1000 bytes".
std::string format_size(std::uint64_t bytes);
// Parses a size for --max-input-size: bytes, or a number with K, M, G or T (powers of 1024; Ki,
// KiB, ... too). nullopt when malformed, zero or beyond 2^63.
std::optional<std::uint64_t> parse_size(std::string_view text);

}  // namespace whatif

#endif  // PREEMPT_WHATIF_INPUT_HPP
