// examples/whatif/io/json_error.cpp - see json_error.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "io/json_error.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace whatif {

namespace {

constexpr std::size_t json_max_depth = 1024;  // simdjson's default

class checker {
 public:
  explicit checker(std::string_view text) : s_(text) {}

  // Checks the whole text, or, with `value_end`, only its first value (storing the offset after
  // it and the whitespace that follows).
  std::optional<json_error> run(std::size_t* value_end = nullptr) {
    skip_space();
    if (pos_ == s_.size()) return fail("the document is empty");
    // Containers still open: true = object, false = array.
    std::vector<bool> open;
    for (;;) {
      // A value is expected here.
      skip_space();
      if (pos_ == s_.size()) return fail("unexpected end of input: a value is missing");
      const char c = s_[pos_];
      if (c == '{' || c == '[') {
        if (open.size() == json_max_depth) return fail("nesting deeper than 1024 levels");
        ++pos_;
        skip_space();
        const bool object = c == '{';
        if (pos_ < s_.size() && s_[pos_] == (object ? '}' : ']')) {
          ++pos_;  // empty container: a complete value
        } else {
          open.push_back(object);
          if (object) {
            if (auto e = key()) return e;
          }
          continue;
        }
      } else if (auto e = scalar()) {
        return e;
      }
      // A value is complete: close containers or move to the next element.
      for (;;) {
        skip_space();
        if (open.empty()) {
          if (value_end != nullptr) {
            *value_end = pos_;
            return std::nullopt;
          }
          if (pos_ != s_.size()) return fail("unexpected text after the JSON value");
          return std::nullopt;
        }
        if (pos_ == s_.size())
          return fail(open.back() ? "unexpected end of input: an object is not closed"
                                  : "unexpected end of input: an array is not closed");
        const char d = s_[pos_];
        if (d == ',') {
          ++pos_;
          if (open.back()) {
            skip_space();
            if (auto e = key()) return e;
          }
          break;  // the next value
        }
        if (d == (open.back() ? '}' : ']')) {
          ++pos_;
          open.pop_back();
          continue;
        }
        return fail(open.back() ? "expected ',' or '}' after an object member"
                                : "expected ',' or ']' after an array element");
      }
    }
  }

 private:
  std::optional<json_error> fail(std::string_view what) const { return json_error{pos_, what}; }

  void skip_space() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }

  // An object key and its colon; the position is at the key's opening quote.
  std::optional<json_error> key() {
    if (pos_ == s_.size()) return fail("unexpected end of input: an object key is missing");
    if (s_[pos_] != '"') return fail("expected a string (an object key)");
    if (auto e = string()) return e;
    skip_space();
    if (pos_ == s_.size()) return fail("unexpected end of input: ':' is missing");
    if (s_[pos_] != ':') return fail("expected ':' after an object key");
    ++pos_;
    return std::nullopt;
  }

  std::optional<json_error> scalar() {
    const char c = s_[pos_];
    if (c == '"') return string();
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    if (c == 't') return literal("true");
    if (c == 'f') return literal("false");
    if (c == 'n') return literal("null");
    return fail("expected a value (an object, array, string, number, true, false or null)");
  }

  std::optional<json_error> literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word)
      return fail("invalid literal (expected true, false or null)");
    pos_ += word.size();
    return std::nullopt;
  }

  std::optional<json_error> number() {
    const std::size_t start = pos_;
    const auto digits = [&] {
      const std::size_t from = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    if (s_[pos_] == '-') ++pos_;
    if (pos_ == s_.size()) return fail("unexpected end of input in a number");
    if (s_[pos_] == '0') {
      ++pos_;
      if (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9')
        return fail("invalid number: leading zero");
    } else if (digits() == 0) {
      return fail("invalid number: a digit is expected");
    }
    bool integer = true;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      integer = false;
      ++pos_;
      if (digits() == 0) return fail("invalid number: a digit is expected after '.'");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      integer = false;
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (digits() == 0) return fail("invalid number: a digit is expected in the exponent");
    }
    const std::string_view text = s_.substr(start, pos_ - start);
    if (integer) {
      // simdjson keeps integers in 64 bits (signed, or unsigned when positive).
      const bool negative = text.front() == '-';
      const std::string_view magnitude = negative ? text.substr(1) : text;
      const std::string_view limit = negative ? "9223372036854775808" : "18446744073709551615";
      if (magnitude.size() > limit.size() ||
          (magnitude.size() == limit.size() && magnitude > limit)) {
        pos_ = start;
        return fail("integer does not fit in 64 bits");
      }
      return std::nullopt;
    }
    const std::string copy(text);
    const double v = std::strtod(copy.c_str(), nullptr);
    if (std::isinf(v)) {
      pos_ = start;
      return fail("number out of the range of a double");
    }
    return std::nullopt;
  }

  static bool hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }
  static unsigned hex_value(char c) {
    if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
    if (c >= 'a' && c <= 'f') return static_cast<unsigned>(c - 'a' + 10);
    return static_cast<unsigned>(c - 'A' + 10);
  }

  // \uXXXX at pos_ (pointing at the backslash); stores the code unit.
  std::optional<json_error> unicode_escape(unsigned& unit) {
    if (pos_ + 6 > s_.size()) {
      pos_ = s_.size();
      return fail("unexpected end of input in a \\u escape");
    }
    unit = 0;
    for (std::size_t i = 2; i < 6; ++i) {
      if (!hex(s_[pos_ + i])) {
        pos_ += i;
        return fail("invalid \\u escape: four hexadecimal digits are expected");
      }
      unit = unit * 16 + hex_value(s_[pos_ + i]);
    }
    return std::nullopt;
  }

  std::optional<json_error> string() {
    ++pos_;  // opening quote
    for (;;) {
      if (pos_ == s_.size()) return fail("unexpected end of input: a string is not closed");
      const auto c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return std::nullopt;
      }
      if (c < 0x20) return fail("control character in a string (it must be escaped)");
      if (c == '\\') {
        if (pos_ + 1 == s_.size()) {
          ++pos_;
          return fail("unexpected end of input in an escape");
        }
        const char e = s_[pos_ + 1];
        if (e == 'u') {
          unsigned unit = 0;
          if (auto err = unicode_escape(unit)) return err;
          if (unit >= 0xDC00 && unit <= 0xDFFF)
            return fail("invalid \\u escape: a lone low surrogate");
          if (unit >= 0xD800 && unit <= 0xDBFF) {
            const std::size_t high = pos_;
            pos_ += 6;
            if (pos_ + 1 >= s_.size() || s_[pos_] != '\\' || s_[pos_ + 1] != 'u') {
              pos_ = high;
              return fail("invalid \\u escape: a high surrogate without its low surrogate");
            }
            unsigned low = 0;
            if (auto err = unicode_escape(low)) return err;
            if (low < 0xDC00 || low > 0xDFFF)
              return fail("invalid \\u escape: a low surrogate is expected");
          }
          pos_ += 6;
          continue;
        }
        if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
          ++pos_;
          return fail("invalid escape in a string");
        }
        pos_ += 2;
        continue;
      }
      if (c < 0x80) {
        ++pos_;
        continue;
      }
      if (auto err = utf8(c)) return err;
    }
  }

  // One multi-byte UTF-8 sequence starting with lead byte c at pos_.
  std::optional<json_error> utf8(unsigned char c) {
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
      cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      cp = c & 0x07u;
    } else {
      return fail("invalid UTF-8");
    }
    if (pos_ + n >= s_.size()) return fail("invalid UTF-8 (a truncated sequence)");
    for (std::size_t i = 1; i <= n; ++i) {
      const auto b = static_cast<unsigned char>(s_[pos_ + i]);
      if ((b & 0xC0u) != 0x80u) return fail("invalid UTF-8");
      cp = (cp << 6) | (b & 0x3Fu);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return fail("invalid UTF-8");
    pos_ += n + 1;
    return std::nullopt;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

std::optional<json_error> find_json_error(std::string_view text) { return checker(text).run(); }

json_value_scan scan_json_value(std::string_view text) {
  json_value_scan r;
  r.error = checker(text).run(&r.end);
  return r;
}

std::string format_json_error(std::string_view text, const json_error& e) {
  const std::size_t offset = e.offset < text.size() ? e.offset : text.size();
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  std::string m = "line " + std::to_string(line) + ", column " + std::to_string(column) +
                  " (byte " + std::to_string(offset) + "): ";
  m += e.what;
  return m;
}

}  // namespace whatif
