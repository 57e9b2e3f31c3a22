// examples/whatif/output/one_line.cpp - see one_line.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "output/one_line.hpp"

#include <cstdio>

namespace whatif {

namespace {

// Length of the well-formed UTF-8 sequence starting at s[i] (1-4), or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
  return n;
}

// Appends s[from, to) with control characters and non-UTF-8 bytes escaped; `to` is moved back to
// a character boundary when it would split one.
void append_escaped(std::string& out, std::string_view s, std::size_t to) {
  std::size_t i = 0;
  while (i < to) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = utf8_length(s, i);
    char buf[8];
    if (n == 0) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
      out += buf;
      ++i;
      continue;
    }
    if (i + n > to) break;
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else if (n == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0) {
      // C1 control characters (U+0080-U+009F) move terminals too.
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(s[i + 1] & 0xff));
      out += buf;
    } else {
      out.append(s, i, n);
    }
    i += n;
  }
}

}  // namespace

std::string clip(std::string_view value) {
  std::string out;
  if (value.size() <= clip_limit) {
    append_escaped(out, value, value.size());
    return out;
  }
  append_escaped(out, value, clip_keep);
  out += "...(";
  out += std::to_string(value.size());
  out += " bytes)";
  return out;
}

std::string one_line(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  append_escaped(out, message, message.size());
  return out;
}

std::string replace_value(std::string message, std::string_view value) {
  const std::string shown = clip(value);
  if (shown == value) return message;
  const std::size_t at = message.find(value);
  if (at == std::string::npos) return message;
  message.replace(at, value.size(), shown);
  return message;
}

}  // namespace whatif
