// examples/whatif/io/sniff.cpp - see sniff.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "io/sniff.hpp"

#include <algorithm>

#include "output/one_line.hpp"

namespace whatif {

namespace {

using namespace std::string_view_literals;

struct magic {
  std::string_view bytes;
  std::string_view format;
  std::string_view decompress;  // the command that writes it out as text
};

constexpr magic magics[] = {
    {"\x1f\x8b"sv, "gzip-compressed data", "gunzip -c"},
    {"\x28\xb5\x2f\xfd"sv, "zstd-compressed data", "zstd -dc"},
    {"\xfd\x37\x7a\x58\x5a\x00"sv, "xz-compressed data", "xz -dc"},
    {"BZh"sv, "bzip2-compressed data", "bzip2 -dc"},
    {"PK\x03\x04"sv, "a zip archive", "unzip -p"},
    {"\x37\x7a\xbc\xaf\x27\x1c"sv, "a 7z archive", "7z x -so"},
};

bool ascii_text_byte(unsigned char c) {
  return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\r' || c == '\t';
}

// UTF-16 without a byte-order mark as the loader reads it: ASCII in every other byte, zero in
// the others (`zero_first`: big-endian), for the first pairs.
bool utf16_ascii(std::string_view b, bool zero_first) {
  const std::size_t pairs = std::min<std::size_t>(b.size() / 2, 8);
  if (pairs == 0) return false;
  for (std::size_t i = 0; i < pairs; ++i) {
    const auto hi = static_cast<unsigned char>(b[2 * i + (zero_first ? 0 : 1)]);
    const auto lo = static_cast<unsigned char>(b[2 * i + (zero_first ? 1 : 0)]);
    if (hi != 0 || !ascii_text_byte(lo)) return false;
  }
  return true;
}

// The encodings the loader converts or names itself (utf8_text in text.cpp).
bool utf16_or_32(std::string_view b) {
  const auto starts = [&](std::string_view p) { return b.substr(0, p.size()) == p; };
  if (starts("\xff\xfe"sv) || starts("\xfe\xff"sv) || starts("\0\0\xfe\xff"sv)) return true;
  if (b.size() >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] != 0) return true;  // UTF-32BE
  if (b.size() >= 4 && b[0] != 0 && b[1] == 0 && b[2] == 0 && b[3] == 0) return true;  // UTF-32LE
  return utf16_ascii(b, true) || utf16_ascii(b, false);
}

bool digits(std::string_view s, std::size_t from, std::size_t n) {
  if (s.size() < from + n) return false;
  for (std::size_t i = from; i < from + n; ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

}  // namespace

bool is_klog_line(std::string_view line) {
  // A level letter, MMDD, a space, hh:mm:ss.
  const bool level =
      !line.empty() && (line[0] == 'I' || line[0] == 'W' || line[0] == 'E' || line[0] == 'F');
  return level && digits(line, 1, 4) && line.size() > 13 && line[5] == ' ' && digits(line, 6, 2) &&
         line[8] == ':' && digits(line, 9, 2) && line[11] == ':' && digits(line, 12, 2);
}

bool is_kubectl_message(std::string_view line) {
  constexpr std::string_view prefixes[] = {"Warning: ",
                                           "error: ",
                                           "Error: ",
                                           "Error from server",
                                           "Unable to connect to the server",
                                           "The connection to the server"};
  for (std::string_view p : prefixes)
    if (line.substr(0, p.size()) == p) return true;
  return is_klog_line(line);
}

std::optional<std::string> not_text(std::string_view head) {
  const std::string_view b = head.substr(0, sniff_size);
  for (const magic& m : magics)
    if (b.substr(0, m.bytes.size()) == m.bytes &&
        (m.bytes != "BZh" || (b.size() > 3 && b[3] >= '1' && b[3] <= '9')))
      return "is " + std::string(m.format) + ", not text: decompress it first (e.g. read `<(" +
             std::string(m.decompress) + " FILE)` in its place)";
  if (utf16_or_32(b)) return std::nullopt;
  if (const std::size_t nul = b.find('\0'); nul != std::string_view::npos)
    return "is not text: byte " + std::to_string(nul) +
           " is a NUL (binary data; a cluster dump is JSON or YAML text)";
  std::string_view first = b.substr(b.substr(0, 3) == "\xef\xbb\xbf" ? 3 : 0);
  first = first.substr(0, first.find('\n'));
  if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
  if (is_kubectl_message(first))
    return "line 1 is kubectl's standard error, not part of the dump: \"" + clip(first) +
           "\" (write kubectl's standard error elsewhere: `kubectl get ... 2>/dev/null`)";
  return std::nullopt;
}

}  // namespace whatif
