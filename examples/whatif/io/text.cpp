// examples/whatif/io/text.cpp - see text.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "io/text.hpp"

#include <cstdint>
#include <string>

namespace whatif::detail {

namespace {

void append_utf8(text_buffer& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

// UTF-16 (`bytes` after any byte-order mark, which was `skipped` bytes long) to UTF-8.
std::optional<load_error> from_utf16(const source& src, std::string_view bytes, std::size_t skipped,
                                     bool big_endian, text_buffer& out) {
  const auto fail = [&](std::size_t at, std::string_view what) {
    return load_error{src.name + ": invalid UTF-16 at byte " + std::to_string(skipped + at) + ": " +
                      std::string(what)};
  };
  if (bytes.size() % 2 != 0) return fail(bytes.size() - 1, "an odd number of bytes");
  const auto unit = [&](std::size_t i) {
    const auto a = static_cast<unsigned char>(bytes[i]),
               b = static_cast<unsigned char>(bytes[i + 1]);
    return big_endian ? static_cast<std::uint32_t>(a << 8 | b)
                      : static_cast<std::uint32_t>(b << 8 | a);
  };
  out.reserve(bytes.size() / 2 + bytes.size() / 4);
  for (std::size_t i = 0; i < bytes.size(); i += 2) {
    std::uint32_t cp = unit(i);
    if (cp >= 0xdc00 && cp <= 0xdfff) return fail(i, "a low surrogate without a high one");
    if (cp >= 0xd800 && cp <= 0xdbff) {
      if (i + 2 >= bytes.size()) return fail(i, "a high surrogate at the end");
      const std::uint32_t low = unit(i + 2);
      if (low < 0xdc00 || low > 0xdfff) return fail(i, "a high surrogate without a low one");
      cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
      i += 2;
    }
    append_utf8(out, cp);
  }
  out.resize(out.size());  // clears the padding
  return std::nullopt;
}

}  // namespace

std::optional<load_error> utf8_text(const source& src, text_buffer& converted,
                                    std::string_view& text) {
  const std::string_view b = src.bytes.view();
  const auto starts = [&](std::string_view prefix) { return b.substr(0, prefix.size()) == prefix; };
  using namespace std::string_view_literals;
  if (starts("\xff\xfe\0\0"sv) || starts("\0\0\xfe\xff"sv) ||
      (b.size() >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] != 0) ||
      (b.size() >= 4 && b[0] != 0 && b[1] == 0 && b[2] == 0 && b[3] == 0))
    return load_error{src.name +
                      ": is UTF-32 text; convert it to UTF-8 (e.g. iconv -f UTF-32 -t UTF-8)"};
  std::optional<bool> big_endian;
  std::size_t skip = 0;
  if (starts("\xef\xbb\xbf")) {
    text = b.substr(3);
    return std::nullopt;
  }
  if (starts("\xff\xfe")) {
    big_endian = false;
    skip = 2;
  } else if (starts("\xfe\xff")) {
    big_endian = true;
    skip = 2;
  } else if (b.size() >= 2 && b[0] == 0 && b[1] != 0) {
    big_endian = true;
  } else if (b.size() >= 2 && b[0] != 0 && b[1] == 0) {
    big_endian = false;
  }
  if (!big_endian) {
    text = b;
    return std::nullopt;
  }
  if (auto e = from_utf16(src, b.substr(skip), skip, *big_endian, converted)) return e;
  text = converted.view();
  return std::nullopt;
}

std::size_t skip_space(std::string_view text, std::size_t pos) {
  while (pos < text.size() && is_space(text[pos])) ++pos;
  return pos;
}

bool is_json(std::string_view text) {
  const std::size_t pos = skip_space(text, 0);
  return pos == text.size() || text[pos] == '{' || text[pos] == '[';
}

std::size_t skip_container_logs(std::string_view text, std::size_t pos) {
  constexpr std::string_view start = "==== START logs for ";
  constexpr std::string_view end = "==== END logs for ";
  for (;;) {
    pos = skip_space(text, pos);
    if (text.substr(pos, start.size()) != start) return pos;
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) return text.size();
    const std::string_view header = text.substr(pos + start.size(), eol - pos - start.size());
    const std::string closing = "\n" + std::string(end) + std::string(header);
    const std::size_t found = text.find(closing, eol);
    if (found == std::string_view::npos) return text.size();
    pos = found + closing.size();
  }
}

}  // namespace whatif::detail
