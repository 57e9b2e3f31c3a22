// examples/whatif/io/input.cpp - see input.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "io/input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <new>

#include <simdjson.h>

#include "io/sniff.hpp"

namespace whatif {

namespace {

constexpr std::size_t padding = simdjson::SIMDJSON_PADDING;
static_assert(padding <= 64, "text_buffer's empty text is 64 bytes of padding");
constexpr std::size_t first_stream_buffer = std::size_t{1} << 20;
constexpr int wanted_pipe_buffer = 1 << 20;  // Linux's default pipe-max-size

// Closes a file descriptor.
class descriptor {
 public:
  explicit descriptor(int fd) noexcept : fd_(fd) {}
  descriptor(const descriptor&) = delete;
  descriptor& operator=(const descriptor&) = delete;
  ~descriptor() { ::close(fd_); }

 private:
  int fd_;
};

std::string too_large(const std::string& name, std::uint64_t max_size,
                      std::optional<std::uint64_t> size) {
  std::string m = name + ": ";
  m += size ? "is " + format_size(*size) : std::string("holds more than ") + format_size(max_size);
  m += ", more than the input size limit of " + format_size(max_size) +
       " (--max-input-size raises it)";
  return m;
}

}  // namespace

std::string input_too_large(const std::string& name, std::uint64_t max_size) {
  return too_large(name, max_size, std::nullopt);
}

namespace {

std::string cannot_read(const std::string& name, int error) {
  return name + ": cannot read: " + std::strerror(error);
}

// Reads until end of input or until more than `max_size` bytes, into `out` from its current size.
std::optional<load_error> read_all(int fd, const std::string& name, std::uint64_t max_size,
                                   std::size_t first_chunk, text_buffer& out) {
  std::size_t room = std::max<std::size_t>(first_chunk, 1);
  for (;;) {
    if (out.size() == room) room *= 2;
    // One byte more than the limit tells "too large" from "exactly at the limit".
    const std::uint64_t cap = max_size + 1;
    room = static_cast<std::size_t>(std::min<std::uint64_t>(room, cap));
    out.reserve(room);
    const ssize_t n = ::read(fd, out.data() + out.size(), room - out.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return load_error{cannot_read(name, errno)};
    }
    if (n == 0) return std::nullopt;
    out.resize(out.size() + static_cast<std::size_t>(n));
    if (out.size() > max_size) return load_error{too_large(name, max_size, std::nullopt)};
  }
}

}  // namespace

void text_buffer::reserve(std::size_t n) {
  if (n > capacity_) grow(n);
}

void text_buffer::resize(std::size_t n) noexcept {
  size_ = n;
  if (data_) std::memset(data_.get() + size_, 0, padding);
}

void text_buffer::grow(std::size_t at_least) {
  std::size_t want = std::max(at_least, capacity_ * 2);
  want = std::max<std::size_t>(want, 256);
  void* p = std::realloc(data_.get(), want + padding);
  if (p == nullptr) throw std::bad_alloc();
  (void)data_.release();
  data_.reset(static_cast<char*>(p));
  capacity_ = want;
  std::memset(data_.get() + size_, 0, padding);
}

namespace {

// The kinds of descriptor that are not read: their own messages.
std::optional<load_error> check_kind(const std::string& name, int fd, struct stat& st) {
  if (::fstat(fd, &st) != 0) return load_error{cannot_read(name, errno)};
  if (S_ISDIR(st.st_mode))
    return load_error{name + ": is a directory, not a file (name the files in it)"};
  if (S_ISBLK(st.st_mode)) return load_error{name + ": is a block device, not a file or a stream"};
  if (S_ISCHR(st.st_mode) && ::isatty(fd) == 0)
    return load_error{name +
                      ": is a character device, not a file or a stream (a device such as "
                      "/dev/null reads as nothing)"};
  return std::nullopt;
}

// Reads until `out` holds `n` bytes or the input ends (`ended`).
std::optional<load_error> read_up_to(int fd, const std::string& name, std::size_t n,
                                     text_buffer& out, bool& ended) {
  out.reserve(n);
  ended = false;
  while (out.size() < n) {
    const ssize_t got = ::read(fd, out.data() + out.size(), n - out.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      return load_error{cannot_read(name, errno)};
    }
    if (got == 0) {
      ended = true;
      break;
    }
    out.resize(out.size() + static_cast<std::size_t>(got));
  }
  out.resize(out.size());
  return std::nullopt;
}

}  // namespace

std::optional<load_error> read_descriptor(int fd, std::string name, std::uint64_t max_size,
                                          source& out) {
  out.name = std::move(name);
  out.bytes.clear();
  struct stat st {};
  if (auto e = check_kind(out.name, fd, st)) return e;
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > max_size) return load_error{too_large(out.name, max_size, size)};
    // Its first bytes first: a compressed or binary file is named before it is read whole.
    char head[sniff_size];
    const ::off_t at = ::lseek(fd, 0, SEEK_CUR);
    const ssize_t n = at < 0 ? -1 : ::pread(fd, head, sizeof head, at);
    if (n > 0)
      if (auto why = not_text(std::string_view(head, static_cast<std::size_t>(n))))
        return load_error{out.name + ": " + *why};
    // The file may grow while it is read: read on to its end, within the limit.
    return read_all(fd, out.name, max_size, static_cast<std::size_t>(size) + 1, out.bytes);
  }
#ifdef F_SETPIPE_SZ
  if (S_ISFIFO(st.st_mode)) (void)::fcntl(fd, F_SETPIPE_SZ, wanted_pipe_buffer);
#endif
  // A stream's first bytes first, as a file's.
  bool ended = false;
  const auto first = static_cast<std::size_t>(std::min<std::uint64_t>(sniff_size, max_size + 1));
  if (auto e = read_up_to(fd, out.name, first, out.bytes, ended)) return e;
  if (auto why = not_text(out.bytes.view())) return load_error{out.name + ": " + *why};
  if (ended) return std::nullopt;
  if (out.bytes.size() > max_size) return load_error{too_large(out.name, max_size, std::nullopt)};
  return read_all(fd, out.name, max_size, first_stream_buffer, out.bytes);
}

std::optional<load_error> read_source(const std::string& path, std::uint64_t max_size,
                                      source& out) {
  if (path == "-") return read_descriptor(STDIN_FILENO, "<stdin>", max_size, out);
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    out.name = path;
    return load_error{cannot_read(path, errno)};
  }
  const descriptor file(fd);
  return read_descriptor(fd, path, max_size, out);
}

open_input::~open_input() {
  if (fd >= 0) ::close(fd);
}

std::optional<load_error> open_descriptor(int fd, std::string name, std::uint64_t max_size,
                                          std::size_t first_window, open_input& out) {
  out.head.name = std::move(name);
  out.head.bytes.clear();
  out.complete = true;
  struct stat st {};
  if (auto e = check_kind(out.head.name, fd, st)) return e;
  // A regular file read from its start is mapped and may be read again from offset 0; one handed
  // over part-read (standard input redirected from a file someone already read from) is a stream.
  const bool regular = S_ISREG(st.st_mode) && ::lseek(fd, 0, SEEK_CUR) == 0;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (regular && size > max_size) return load_error{too_large(out.head.name, max_size, size)};
  if (!regular || size > first_window) {
#ifdef F_SETPIPE_SZ
    if (S_ISFIFO(st.st_mode)) (void)::fcntl(fd, F_SETPIPE_SZ, wanted_pipe_buffer);
#endif
    bool ended = false;
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(first_window, max_size + 1));
    if (auto e = read_up_to(fd, out.head.name, want, out.head.bytes, ended)) return e;
    if (!ended && out.head.bytes.size() > max_size)
      return load_error{too_large(out.head.name, max_size, std::nullopt)};
    if (!ended) {
      out.complete = false;
      out.seekable = regular;
      out.fd = ::dup(fd);
      if (out.fd < 0) return load_error{cannot_read(out.head.name, errno)};
      return std::nullopt;
    }
    if (!regular) return std::nullopt;
    out.head.bytes.clear();
    if (::lseek(fd, 0, SEEK_SET) < 0) return load_error{cannot_read(out.head.name, errno)};
  }
  return read_descriptor(fd, out.head.name, max_size, out.head);
}

std::optional<load_error> open_source(const std::string& path, std::uint64_t max_size,
                                      std::size_t first_window, open_input& out) {
  if (path == "-") return open_descriptor(STDIN_FILENO, "<stdin>", max_size, first_window, out);
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    out.head.name = path;
    return load_error{cannot_read(path, errno)};
  }
  const descriptor file(fd);
  return open_descriptor(fd, path, max_size, first_window, out);
}

std::optional<load_error> read_rest(open_input& in, std::uint64_t max_size) {
  if (in.complete) return std::nullopt;
  auto e = read_all(in.fd, in.head.name, max_size, in.head.bytes.size() * 2, in.head.bytes);
  in.head.bytes.resize(in.head.bytes.size());
  ::close(in.fd);
  in.fd = -1;
  in.complete = true;
  return e;
}

std::optional<load_error> read_again(open_input& in, std::uint64_t max_size) {
  if (in.fd < 0 || ::lseek(in.fd, 0, SEEK_SET) < 0)
    return load_error{cannot_read(in.head.name, in.fd < 0 ? EBADF : errno)};
  in.head.bytes.clear();
  in.complete = false;
  return read_rest(in, max_size);
}

source make_source(std::string name, std::string_view bytes) {
  return source{std::move(name), text_buffer(bytes)};
}

std::string format_size(std::uint64_t bytes) {
  constexpr std::pair<std::string_view, int> units[] = {
      {"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}};
  for (const auto& [unit, shift] : units) {
    const std::uint64_t u = std::uint64_t{1} << shift;
    if (bytes >= u && bytes % u == 0) return std::to_string(bytes / u) + " " + std::string(unit);
  }
  return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
}

std::optional<std::uint64_t> parse_size(std::string_view text) {
  std::uint64_t v = 0;
  std::size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (v > (std::uint64_t{1} << 63) / 10) return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(text[i] - '0');
  }
  if (i == 0) return std::nullopt;
  std::string suffix;
  for (; i < text.size(); ++i)
    suffix += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  int shift = 0;
  if (suffix.empty() || suffix == "b") {
    shift = 0;
  } else if (suffix == "k" || suffix == "ki" || suffix == "kib") {
    shift = 10;
  } else if (suffix == "m" || suffix == "mi" || suffix == "mib") {
    shift = 20;
  } else if (suffix == "g" || suffix == "gi" || suffix == "gib") {
    shift = 30;
  } else if (suffix == "t" || suffix == "ti" || suffix == "tib") {
    shift = 40;
  } else {
    return std::nullopt;
  }
  if (v == 0 || v > ((std::uint64_t{1} << 63) >> shift)) return std::nullopt;
  return v << shift;
}

}  // namespace whatif
