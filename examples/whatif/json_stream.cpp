// examples/whatif/json_stream.cpp - see json_stream.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "json_stream.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace whatif {

namespace {

// Bit i of each mask is byte i of a 64-byte block.
struct block_masks {
  std::uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

block_masks classify(const char* p) noexcept {
  block_masks m;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
                lower = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    // '[' | 0x20 == '{' and ']' | 0x20 == '}'; no other byte maps onto them.
    const __m128i folded = _mm_or_si128(v, lower);
    const auto bits = [](__m128i eq) {
      return static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(eq)));
    };
    const int shift = 16 * k;
    m.quote |= bits(_mm_cmpeq_epi8(v, quote)) << shift;
    m.backslash |= bits(_mm_cmpeq_epi8(v, backslash)) << shift;
    m.open |= bits(_mm_cmpeq_epi8(folded, open)) << shift;
    m.close |= bits(_mm_cmpeq_epi8(folded, close)) << shift;
  }
#else
  for (int i = 0; i < 64; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << i;
    switch (p[i]) {
      case '"': m.quote |= bit; break;
      case '\\': m.backslash |= bit; break;
      case '{':
      case '[': m.open |= bit; break;
      case '}':
      case ']': m.close |= bit; break;
      default: break;
    }
  }
#endif
  return m;
}

// Bit i is the XOR of bits 0..i: 1 from an opening quote up to (not including) its closing one.
std::uint64_t prefix_xor(std::uint64_t x) noexcept {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// The end of the container starting at text[0] ('{' or '['), or npos.
std::size_t container_end(std::string_view text) noexcept {
  std::uint64_t in_string = 0;  // all ones when the previous block ended inside a string
  bool escape_next = false;     // the previous block ended with an odd run of backslashes
  std::size_t depth = 0;
  char tail[64];
  for (std::size_t base = 0; base < text.size(); base += 64) {
    const char* p = text.data() + base;
    if (text.size() - base < 64) {
      std::memset(tail, ' ', sizeof tail);
      std::memcpy(tail, p, text.size() - base);
      p = tail;
    }
    block_masks m = classify(p);
    if (m.backslash != 0 || escape_next) {
      // Backslashes are rare in Kubernetes objects: walk this block's bytes for the escaped ones.
      std::uint64_t escaped = 0;
      for (int i = 0; i < 64; ++i) {
        const std::uint64_t bit = std::uint64_t{1} << i;
        if (escape_next) {
          escaped |= bit;
          escape_next = false;
        } else if ((m.backslash & bit) != 0) {
          escape_next = true;
        }
      }
      m.quote &= ~escaped;
    }
    const std::uint64_t strings = prefix_xor(m.quote) ^ in_string;
    in_string = (strings >> 63) != 0 ? ~std::uint64_t{0} : 0;
    const std::uint64_t opens = m.open & ~strings, closes = m.close & ~strings;
    for (std::uint64_t s = opens | closes; s != 0; s &= s - 1) {
      const int i = std::countr_zero(s);
      if ((opens >> i & 1) != 0) {
        ++depth;
      } else if (depth <= 1) {  // a stray closer at depth 0 cannot happen: text[0] opens
        const std::size_t end = base + static_cast<std::size_t>(i) + 1;
        return end <= text.size() ? end : std::string_view::npos;
      } else {
        --depth;
      }
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::size_t find_value_end(std::string_view text) noexcept {
  if (text.empty()) return std::string_view::npos;
  const char c = text[0];
  if (c == '{' || c == '[') return container_end(text);
  if (c == '"') {
    for (std::size_t i = 1; i < text.size(); ++i) {
      if (text[i] == '\\')
        ++i;
      else if (text[i] == '"')
        return i + 1;
    }
    return std::string_view::npos;
  }
  for (std::size_t i = 1; i < text.size(); ++i) {
    const char d = text[i];
    if (d == ',' || d == '}' || d == ']' || d == ' ' || d == '\n' || d == '\r' || d == '\t' ||
        d == '{' || d == '[' || d == '"' || d == ':')
      return i;
  }
  return std::string_view::npos;
}

stream_window::stream_window(std::string name, int fd, text_buffer head, std::uint64_t max_size,
                             std::size_t window)
    : name_(std::move(name)),
      fd_(fd),
      buf_(std::move(head)),
      max_size_(max_size),
      window_(std::max<std::size_t>(window, 64)) {}

std::optional<load_error> stream_window::refill(std::size_t keep) {
  keep = std::min(keep, buf_.size());
  const std::size_t kept = buf_.size() - keep;
  if (keep > 0) {
    std::memmove(buf_.data(), buf_.data() + keep, kept);
    consumed_ += keep;
    buf_.resize(kept);
  }
  if (eof_) return std::nullopt;
  // Room for a window beyond what is kept, or for as much again when one value outgrows the
  // window (so that a value is scanned a logarithmic number of times).
  const std::size_t room = kept + std::max(window_, kept);
  buf_.reserve(room);
  for (;;) {
    const std::uint64_t total = consumed_ + buf_.size();
    // One byte more than the limit tells "too large" from "exactly at the limit".
    const std::uint64_t allowed = max_size_ + 1 - std::min(total, max_size_ + 1);
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(room - buf_.size(), allowed));
    if (want == 0) return load_error{input_too_large(name_, max_size_)};
    const ssize_t n = ::read(fd_, buf_.data() + buf_.size(), want);
    if (n < 0) {
      if (errno == EINTR) continue;
      return load_error{name_ + ": cannot read: " + std::strerror(errno)};
    }
    if (n == 0) {
      eof_ = true;
      buf_.resize(buf_.size());  // clears the padding
      return std::nullopt;
    }
    buf_.resize(buf_.size() + static_cast<std::size_t>(n));
    if (consumed_ + buf_.size() > max_size_) return load_error{input_too_large(name_, max_size_)};
    return std::nullopt;
  }
}

}  // namespace whatif
