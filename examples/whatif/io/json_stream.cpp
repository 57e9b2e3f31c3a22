// examples/whatif/io/json_stream.cpp - see json_stream.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "io/json_stream.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <utility>

#include <simdjson.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace whatif {

namespace {

constexpr std::size_t padding_bytes = simdjson::SIMDJSON_PADDING;

// Bit i of each mask is byte i of a 64-byte block.
struct block_masks {
  std::uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

// The block operations for any target: SSE2 where available (every x86-64), else a byte loop.
struct baseline_ops {
  static block_masks classify(const char* p) noexcept {
    block_masks m;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
                  lower = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'),
                  close = _mm_set1_epi8('}');
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

  // The number of bits set: one instruction where the target has it, else inline arithmetic (a
  // call into libgcc per block would cost a quarter of the scan).
  static std::size_t bit_count(std::uint64_t x) noexcept {
#if defined(__POPCNT__)
    return static_cast<std::size_t>(std::popcount(x));
#else
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return static_cast<std::size_t>((x * 0x0101010101010101ULL) >> 56);
#endif
  }

  // Bit i is the XOR of bits 0..i: 1 from an opening quote up to (not including) its closing one.
  static std::uint64_t prefix_xor(std::uint64_t x) noexcept {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
  }
};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PREEMPT_WHATIF_SCAN_AVX2 1
// The same operations with AVX2, POPCNT and carry-less multiplication, chosen at run time where
// the processor has them (the build targets plain x86-64): half the instructions per block.
struct avx2_ops {
  __attribute__((target("avx2"))) static block_masks classify(const char* p) noexcept {
    const __m256i quote = _mm256_set1_epi8('"'), backslash = _mm256_set1_epi8('\\'),
                  lower = _mm256_set1_epi8(0x20), open = _mm256_set1_epi8('{'),
                  close = _mm256_set1_epi8('}');
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
    const auto bits = [](__m256i a, __m256i b) __attribute__((target("avx2"))) {
      return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(a))) |
             static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(b))) << 32;
    };
    const __m256i flo = _mm256_or_si256(lo, lower), fhi = _mm256_or_si256(hi, lower);
    block_masks m;
    m.quote = bits(_mm256_cmpeq_epi8(lo, quote), _mm256_cmpeq_epi8(hi, quote));
    m.backslash = bits(_mm256_cmpeq_epi8(lo, backslash), _mm256_cmpeq_epi8(hi, backslash));
    m.open = bits(_mm256_cmpeq_epi8(flo, open), _mm256_cmpeq_epi8(fhi, open));
    m.close = bits(_mm256_cmpeq_epi8(flo, close), _mm256_cmpeq_epi8(fhi, close));
    return m;
  }
  __attribute__((target("popcnt"))) static std::size_t bit_count(std::uint64_t x) noexcept {
    return static_cast<std::size_t>(__builtin_popcountll(x));
  }
  __attribute__((target("pclmul,sse2"))) static std::uint64_t prefix_xor(std::uint64_t x) noexcept {
    const __m128i all = _mm_set1_epi8(static_cast<char>(0xff));
    return static_cast<std::uint64_t>(_mm_cvtsi128_si64(
        _mm_clmulepi64_si128(_mm_set_epi64x(0, static_cast<long long>(x)), all, 0)));
  }
};
#endif

// The bytes escaped by a backslash in a block whose backslashes are `backslash`; `carry` is 1 when
// the previous block ended with an odd run of backslashes (its first byte is escaped), and is set
// for the next block. Branch-free: a backslash run starting at an even byte and one starting at an
// odd byte are told apart by a subtraction that carries through the run (as in simdjson).
std::uint64_t escaped_bytes(std::uint64_t backslash, std::uint64_t& carry) noexcept {
  constexpr std::uint64_t odd_bits = 0xaaaaaaaaaaaaaaaaULL;
  const std::uint64_t potential = backslash & ~carry;  // an escaped backslash escapes nothing
  const std::uint64_t codes = (((potential << 1) | odd_bits) - potential) ^ odd_bits;
  const std::uint64_t escaped = codes ^ (backslash | carry);
  carry = (codes & backslash) >> 63;
  return escaped;
}

// The end of the container starting at text[0] ('{' or '['), or npos.
template <class Ops>
std::size_t scan_container(std::string_view text) noexcept {
  std::uint64_t in_string = 0;  // all ones when the previous block ended inside a string
  std::uint64_t carry = 0;      // the previous block ended with an odd run of backslashes
  std::size_t depth = 0;
  char tail[64];
  for (std::size_t base = 0; base < text.size(); base += 64) {
    const char* p = text.data() + base;
    if (text.size() - base < 64) {
      std::memset(tail, ' ', sizeof tail);
      std::memcpy(tail, p, text.size() - base);
      p = tail;
    }
    block_masks m = Ops::classify(p);
    if ((m.backslash | carry) != 0) m.quote &= ~escaped_bytes(m.backslash, carry);
    const std::uint64_t strings = Ops::prefix_xor(m.quote) ^ in_string;
    in_string = (strings >> 63) != 0 ? ~std::uint64_t{0} : 0;
    const std::uint64_t opens = m.open & ~strings, closes = m.close & ~strings;
    // Most blocks cannot close the value: fewer closers than the depth.
    const std::size_t n_closes = Ops::bit_count(closes);
    if (n_closes < depth) {
      depth = depth + Ops::bit_count(opens) - n_closes;
      continue;
    }
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

#if defined(PREEMPT_WHATIF_SCAN_AVX2)
// flatten: the block operations are inlined here, where their instructions are allowed.
__attribute__((target("avx2,popcnt,pclmul"), flatten)) std::size_t container_end_avx2(
    std::string_view text) noexcept {
  return scan_container<avx2_ops>(text);
}

bool has_avx2() noexcept {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") &&
         __builtin_cpu_supports("pclmul");
}
#endif

std::size_t container_end(std::string_view text) noexcept {
#if defined(PREEMPT_WHATIF_SCAN_AVX2)
  static const bool avx2 = has_avx2();
  if (avx2) return container_end_avx2(text);
#endif
  return scan_container<baseline_ops>(text);
}

}  // namespace

std::size_t detail::container_end_portable(std::string_view text) noexcept {
  return scan_container<baseline_ops>(text);
}

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

stream_window::~stream_window() {
  if (map_ != nullptr || retired_map_ != nullptr)
    ::munmap(map_ != nullptr ? map_ : retired_map_, map_length_);
}

bool stream_window::map_file(std::uint64_t file_size) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  if (map_ != nullptr || consumed_ != 0 || file_size < buf_.size() || page == 0 ||
      file_size > (std::uint64_t{1} << 46))
    return false;
  const auto round = [&](std::uint64_t n) {
    return static_cast<std::size_t>((n + page - 1) / page * page);
  };
  // Zero pages for the whole length, then the file over their start: past the file's last page
  // the zeros stay readable (a file mapping past its end would fault).
  const std::size_t length = round(file_size + padding_bytes);
  void* zeros = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (zeros == MAP_FAILED) return false;
  if (file_size > 0 &&
      ::mmap(zeros, round(file_size), PROT_READ, MAP_PRIVATE | MAP_FIXED, fd_, 0) == MAP_FAILED) {
    ::munmap(zeros, length);
    return false;
  }
  (void)::madvise(zeros, round(file_size), MADV_SEQUENTIAL);
  map_ = static_cast<char*>(zeros);
  map_length_ = length;
  file_size_ = file_size;
  visible_ = buf_.size();  // what was read already, the same bytes
  buf_ = text_buffer();
  return true;
}

void stream_window::give_back(std::size_t pos) noexcept {
  constexpr std::uint64_t step = std::uint64_t{8} << 20;
  const std::uint64_t before = consumed_ + pos;
  if (map_ == nullptr || before - given_back_ < step) return;
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t upto = before / page * page;
  (void)::madvise(map_ + given_back_, static_cast<std::size_t>(upto - given_back_), MADV_DONTNEED);
  given_back_ = upto;
}

std::optional<load_error> stream_window::refill(std::size_t keep) {
  if (map_ != nullptr) {
    consumed_ += std::min(keep, size());
    give_back(0);
    if (visible_ < file_size_) {
      visible_ = std::min<std::uint64_t>(file_size_, visible_ + std::max(window_, size()));
      return std::nullopt;
    }
    // The mapping is read: on from the descriptor, in case the file grew.
    // The mapping stays until the window goes: a thread parsing ahead may still be reading it.
    text_buffer rest(std::string_view(data(), size()));
    retired_map_ = map_;
    map_ = nullptr;
    buf_ = std::move(rest);
    if (::lseek(fd_, static_cast<off_t>(file_size_), SEEK_SET) < 0)
      return load_error{name_ + ": cannot read: " + std::strerror(errno)};
    keep = 0;
  }
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
