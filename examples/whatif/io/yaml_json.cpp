// examples/whatif/io/yaml_json.cpp - see yaml_json.hpp.
//
// The converter writes JSON as libyaml's events come. Members and elements are written with a
// leading comma (",k:v"); when a collection ends, its "{," or "[," is turned into " {" or " [",
// so that a member can be removed (a duplicate key) or added (a merge) without touching its
// neighbours.
//
// SPDX-License-Identifier: Apache-2.0
#include "io/yaml_json.hpp"

#include <yaml.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace whatif {

namespace {

constexpr std::size_t yaml_max_depth = 1024;  // simdjson's, which reads the result
constexpr std::size_t hashed_from = 16;       // members from which a mapping keeps key hashes
constexpr std::string_view tag_prefix = "tag:yaml.org,2002:";

// ---- Scalars, as go-yaml v2 resolves them -------------------------------------------------------

enum class scalar_kind { string, null, boolean, integer, floating, not_a_number };

struct scalar_value {
  scalar_kind kind = scalar_kind::string;
  std::optional<std::string> binary;  // a !!binary string's bytes (as UTF-8 text)
  bool truth = false;                 // boolean
  bool negative = false;
  std::uint64_t magnitude = 0;  // integer
  double real = 0;              // floating
};

// Go's strconv.ParseInt(s, 0, 64) (with_sign) or ParseUint(s, 0, 64): an optional sign, then
// 0x/0o/0b or a leading 0 (octal), then digits of that base.
bool go_parse_int(std::string_view s, bool with_sign, bool& negative, std::uint64_t& magnitude) {
  std::size_t i = 0;
  negative = false;
  if (with_sign && !s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    ++i;
  }
  unsigned base = 10;
  if (s.size() - i >= 2 && s[i] == '0') {
    const char p = static_cast<char>(s[i + 1] | 0x20);
    if (p == 'x' || p == 'o' || p == 'b') {
      base = p == 'x' ? 16 : p == 'o' ? 8 : 2;
      i += 2;
    } else {
      base = 8;
      i += 1;
    }
  }
  if (i == s.size()) return false;
  std::uint64_t v = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    unsigned d = 0;
    if (c >= '0' && c <= '9') {
      d = static_cast<unsigned>(c - '0');
    } else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') {
      d = static_cast<unsigned>((c | 0x20) - 'a' + 10);
    } else {
      return false;
    }
    if (d >= base) return false;
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / base) return false;
    v = v * base + d;
  }
  if (with_sign && v > (negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1))
    return false;
  magnitude = v;
  return true;
}

// YAML's decimal float syntax: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool yaml_style_float(std::string_view s) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - from;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

// Go's ParseFloat on YAML's float syntax: false when out of range (Go's ErrRange).
bool parse_float(std::string_view s, double& out) {
  std::string text(s);
  char* end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return false;
  return !(errno == ERANGE && std::isinf(out));
}

constexpr std::string_view true_words[] = {"y",    "Y",    "yes", "Yes", "YES", "true",
                                           "True", "TRUE", "on",  "On",  "ON"};
constexpr std::string_view false_words[] = {"n",     "N",     "no",  "No",  "NO", "false",
                                            "False", "FALSE", "off", "Off", "OFF"};
constexpr std::string_view null_words[] = {"", "~", "null", "Null", "NULL"};
constexpr std::string_view special_floats[] = {".nan",  ".NaN",  ".NAN",  ".inf",
                                               ".Inf",  ".INF",  "+.inf", "+.Inf",
                                               "+.INF", "-.inf", "-.Inf", "-.INF"};

template <std::size_t N>
bool one_of(std::string_view s, const std::string_view (&words)[N]) {
  for (std::string_view w : words)
    if (s == w) return true;
  return false;
}

// go-yaml v2's resolve() for an untagged plain scalar.
scalar_value resolve_plain(std::string_view in) {
  scalar_value v;
  // Only these first characters can start anything but a string (go-yaml's resolve table).
  if (!in.empty() && std::strchr("yYnNtTfFoO~.+-0123456789", in.front()) == nullptr) return v;
  if (one_of(in, null_words)) {
    v.kind = scalar_kind::null;
    return v;
  }
  if (one_of(in, true_words) || one_of(in, false_words)) {
    v.kind = scalar_kind::boolean;
    v.truth = one_of(in, true_words);
    return v;
  }
  if (one_of(in, special_floats)) {
    v.kind = scalar_kind::not_a_number;
    return v;
  }
  const char c = in.front();
  if (c == '.') {
    if (yaml_style_float(in) && parse_float(in, v.real)) v.kind = scalar_kind::floating;
    return v;
  }
  // A timestamp (2024-05-01T10:00:05Z, 2024-05-01) is a string: go-yaml v2 keeps it as written
  // when decoding into an untyped value, as sigs.k8s.io/yaml does.
  if (!(c == '+' || c == '-' || (c >= '0' && c <= '9'))) return v;
  std::string plain_text;
  plain_text.reserve(in.size());
  for (const char ch : in)
    if (ch != '_') plain_text += ch;
  const std::string_view plain = plain_text;
  if (go_parse_int(plain, true, v.negative, v.magnitude) ||
      go_parse_int(plain, false, v.negative, v.magnitude)) {
    v.kind = scalar_kind::integer;
    return v;
  }
  if (yaml_style_float(plain) && parse_float(plain, v.real)) v.kind = scalar_kind::floating;
  return v;
}

// The bytes as UTF-8 text: each byte that does not belong to a valid sequence becomes U+FFFD, as
// Go's JSON encoder writes it.
std::string utf8_or_replacement(std::string_view bytes) {
  std::string text;
  for (std::size_t i = 0; i < bytes.size();) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    const std::size_t n = c < 0x80         ? 1
                          : (c >> 5) == 6  ? 2
                          : (c >> 4) == 14 ? 3
                          : (c >> 3) == 30 ? 4
                                           : 0;
    bool valid = n > 0 && i + n <= bytes.size() && !(n == 2 && c < 0xc2) && !(n == 4 && c > 0xf4);
    for (std::size_t k = 1; valid && k < n; ++k)
      valid = (static_cast<unsigned char>(bytes[i + k]) >> 6) == 2;
    if (valid && n >= 3) {
      const auto d = static_cast<unsigned char>(bytes[i + 1]);
      valid = !(c == 0xe0 && d < 0xa0) && !(c == 0xed && d > 0x9f) && !(c == 0xf0 && d < 0x90) &&
              !(c == 0xf4 && d > 0x8f);
    }
    if (valid) {
      text.append(bytes, i, n);
      i += n;
    } else {
      text += "\xef\xbf\xbd";
      ++i;
    }
  }
  return text;
}

// Base64 as Go's base64.StdEncoding.DecodeString reads it (line breaks ignored, padding
// required), as UTF-8 text.
std::optional<std::string> decode_base64(std::string_view in) {
  std::string bits;
  for (const char c : in)
    if (c != '\r' && c != '\n') bits += c;
  if (bits.size() % 4 != 0) return std::nullopt;
  const auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string bytes;
  for (std::size_t i = 0; i < bits.size(); i += 4) {
    const bool last = i + 4 == bits.size();
    const std::size_t pad = last ? (bits[i + 3] == '=' ? (bits[i + 2] == '=' ? 2 : 1) : 0) : 0;
    std::uint32_t group = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const int v = k >= 4 - pad ? 0 : value(bits[i + k]);
      if (v < 0) return std::nullopt;
      group = group << 6 | static_cast<std::uint32_t>(v);
    }
    bytes += static_cast<char>(group >> 16);
    if (pad < 2) bytes += static_cast<char>(group >> 8 & 0xff);
    if (pad < 1) bytes += static_cast<char>(group & 0xff);
  }
  return utf8_or_replacement(bytes);
}

// ---- JSON text ----------------------------------------------------------------------------------

template <class Out>
void append_json_string(Out& out, std::string_view s) {
  out.push_back('"');
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.substr(run, i - run));
    run = i + 1;
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\t': out.append("\\t"); break;
      case '\r': out.append("\\r"); break;
      default: {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
        out.append(buf);
      }
    }
  }
  out.append(s.substr(run));
  out.push_back('"');
}

std::string integer_text(const scalar_value& v) {
  std::string t = v.negative && v.magnitude != 0 ? "-" : "";
  return t + std::to_string(v.magnitude);
}

// Go's encoding/json format of a float64: shortest, fixed notation unless tiny or huge.
std::string json_float_text(double f) {
  std::array<char, 64> buf{};
  const double a = std::fabs(f);
  // Go writes integral values up to 1e21 as integers; beyond 2^64 simdjson reads such integers
  // as errors, so those are written with an exponent (the same number).
  const bool exponent = a != 0 && (a < 1e-6 || a >= 18446744073709551616.0);
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), f,
                               exponent ? std::chars_format::scientific : std::chars_format::fixed);
  std::string s(buf.data(), r.ptr);
  // e-07 -> e-7, as Go writes it.
  const std::size_t n = s.size();
  if (exponent && n >= 4 && s[n - 4] == 'e' && s[n - 3] == '-' && s[n - 2] == '0')
    s.erase(n - 2, 1);
  return s;
}

// Go's strconv.FormatFloat(f, 'g', -1, 32), which sigs.k8s.io/yaml uses for float keys.
std::string go_float32_key(double f) {
  const auto g = static_cast<float>(f);
  if (std::isinf(g)) return g > 0 ? ".inf" : "-.inf";
  if (std::isnan(g)) return ".nan";
  std::array<char, 64> buf{};
  auto r = std::to_chars(buf.data(), buf.data() + buf.size(), g, std::chars_format::scientific);
  const std::string sci(buf.data(), r.ptr);
  const std::size_t e = sci.find('e');
  const int exp = std::atoi(sci.c_str() + e + 1);
  if (exp < -4 || exp >= 6) return sci;  // Go: %e, at least two exponent digits (as to_chars)
  r = std::to_chars(buf.data(), buf.data() + buf.size(), g, std::chars_format::fixed);
  return std::string(buf.data(), r.ptr);
}

// ---- The converter -----------------------------------------------------------------------------

struct anchored {
  std::string json;  // the node's JSON text
  bool is_map = false;
  std::vector<std::pair<std::string, std::string>> members;  // maps: (escaped key, ",k:v")
  std::optional<std::string> key;  // scalars: the escaped key it makes, if it can be one
};

class converter {
 public:
  converter(std::string_view name, std::string_view yaml, text_buffer& json,
            std::vector<json_document>& docs)
      : name_(name),
        yaml_(yaml),
        out_(json),
        docs_(docs),
        budget_(yaml.size() * 16 + (std::size_t{64} << 20)) {
    frames_.resize(8);
  }

  std::optional<load_error> run() {
    yaml_parser_t parser;
    if (yaml_parser_initialize(&parser) == 0) throw std::bad_alloc();
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(yaml_.data()),
                                 yaml_.size());
    yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
    std::optional<load_error> error;
    for (;;) {
      yaml_event_t event;
      if (yaml_parser_parse(&parser, &event) == 0) {
        error = syntax_error(parser);
        break;
      }
      const bool end = event.type == YAML_STREAM_END_EVENT;
      error = handle(event);
      yaml_event_delete(&event);
      if (error || end) break;
    }
    yaml_parser_delete(&parser);
    return error;
  }

 private:
  struct member {
    std::size_t begin;      // offset of its leading comma
    std::size_t key_begin;  // the escaped key, quotes included
    std::size_t key_end;
  };
  struct frame {
    bool is_map = false;
    std::size_t open = 0;  // offset of '{' or '['
    std::size_t count = 0;
    bool expect_key = true;
    std::vector<member> members;
    // Hashes of the member keys, kept once a mapping is large (so that a key is compared with the
    // others only when its hash is there already).
    std::unordered_multiset<std::size_t> hashes;
    bool hashed = false;
    std::string anchor;
    // A merge key's value: the aliased mappings, in order.
    bool merging = false;
    bool merge_list = false;
    std::vector<const anchored*> merge_sources;
    bool merge_source = false;  // this mapping is (part of) a merge key's value
  };

  std::optional<load_error> syntax_error(const yaml_parser_t& p) const {
    std::string m = std::string(name_) + ": malformed YAML at line " +
                    std::to_string(p.problem_mark.line + 1) + ", column " +
                    std::to_string(p.problem_mark.column + 1) + ": " +
                    (p.problem != nullptr ? p.problem : "unknown problem");
    if (p.context != nullptr) m += std::string(" (") + p.context + ")";
    return load_error{std::move(m)};
  }

  std::optional<load_error> fail(const yaml_mark_t& mark, std::string_view what) const {
    return load_error{std::string(name_) + ": YAML at line " + std::to_string(mark.line + 1) +
                      ", column " + std::to_string(mark.column + 1) + ": " + std::string(what)};
  }

  std::optional<load_error> handle(const yaml_event_t& e) {
    switch (e.type) {
      case YAML_DOCUMENT_START_EVENT:
        doc_ = json_document{out_.size(), 0, e.start_mark.line + 1};
        depth_ = 0;
        root_written_ = false;
        return std::nullopt;
      case YAML_DOCUMENT_END_EVENT:
        // An empty document (a lone "---", or only comments) holds null: there is nothing in it.
        if (root_written_ && out_.view().substr(doc_.begin) == "null") {
          out_.resize(doc_.begin);
          root_written_ = false;
        }
        if (root_written_) {
          doc_.end = out_.size();
          docs_.push_back(doc_);
          out_.push_back('\n');
        }
        anchors_.clear();
        inline_sources_.clear();
        return std::nullopt;
      case YAML_SCALAR_EVENT: return scalar(e);
      case YAML_ALIAS_EVENT: return alias(e);
      case YAML_MAPPING_START_EVENT: return open(e, true, e.data.mapping_start.anchor);
      case YAML_SEQUENCE_START_EVENT: return open(e, false, e.data.sequence_start.anchor);
      case YAML_MAPPING_END_EVENT:
      case YAML_SEQUENCE_END_EVENT: return close(e);
      default: return std::nullopt;
    }
  }

  frame* top() { return depth_ == 0 ? nullptr : &frames_[depth_ - 1]; }

  static std::string_view text_of(const unsigned char* p, std::size_t n) {
    return {reinterpret_cast<const char*>(p), n};
  }
  static std::string_view text_of(const unsigned char* p) {
    return p == nullptr ? std::string_view() : std::string_view(reinterpret_cast<const char*>(p));
  }

  // The scalar's value: its tag (if any) and style decide, as go-yaml v2 does.
  std::optional<load_error> typed(const yaml_event_t& e, scalar_value& v) const {
    const std::string_view value = text_of(e.data.scalar.value, e.data.scalar.length);
    std::string_view tag = text_of(e.data.scalar.tag);
    const bool plain = e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    if (tag.empty()) {
      v = plain ? resolve_plain(value) : scalar_value{};
      return std::nullopt;
    }
    if (tag.substr(0, tag_prefix.size()) != tag_prefix)
      return std::nullopt;  // "!" or local: a string
    tag.remove_prefix(tag_prefix.size());
    if (tag == "binary") {
      v.binary = decode_base64(value);
      if (!v.binary) return fail(e.start_mark, "!!binary value is not base64");
      return std::nullopt;
    }
    if (tag == "str" || tag == "timestamp") return std::nullopt;
    v = resolve_plain(value);
    const bool fits =
        (tag == "int" && v.kind == scalar_kind::integer) ||
        (tag == "float" && (v.kind == scalar_kind::floating || v.kind == scalar_kind::integer ||
                            v.kind == scalar_kind::not_a_number)) ||
        (tag == "bool" && v.kind == scalar_kind::boolean) ||
        (tag == "null" && v.kind == scalar_kind::null);
    if (tag == "int" || tag == "float" || tag == "bool" || tag == "null") {
      if (!fits)
        return fail(e.start_mark,
                    "cannot read \"" + std::string(value) + "\" as !!" + std::string(tag));
      if (tag == "float" && v.kind == scalar_kind::integer) {
        v.real = static_cast<double>(v.magnitude) * (v.negative ? -1.0 : 1.0);
        v.kind = scalar_kind::floating;
      }
      return std::nullopt;
    }
    v = scalar_value{};  // !!map, !!seq on a scalar, or unknown: a string
    return std::nullopt;
  }

  bool is_merge_key(const yaml_event_t& e) const {
    const std::string_view value = text_of(e.data.scalar.value, e.data.scalar.length);
    const std::string_view tag = text_of(e.data.scalar.tag);
    if (value != "<<") return false;
    return (tag.empty() && e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE) ||
           tag == "tag:yaml.org,2002:merge";
  }

  // The JSON value text of a scalar.
  std::optional<load_error> value_text(const yaml_event_t& e, const scalar_value& v) {
    switch (v.kind) {
      case scalar_kind::null: out_.append("null"); break;
      case scalar_kind::boolean: out_.append(v.truth ? "true" : "false"); break;
      case scalar_kind::integer: out_.append(integer_text(v)); break;
      case scalar_kind::floating: out_.append(json_float_text(v.real)); break;
      case scalar_kind::not_a_number:
        return fail(e.start_mark,
                    "\"" + std::string(text_of(e.data.scalar.value, e.data.scalar.length)) +
                        "\" is not a number JSON can hold (Kubernetes rejects it too)");
      case scalar_kind::string:
        append_json_string(out_, v.binary ? std::string_view(*v.binary)
                                          : text_of(e.data.scalar.value, e.data.scalar.length));
        break;
    }
    return std::nullopt;
  }

  // The key a scalar makes, as sigs.k8s.io/yaml makes it (escaped JSON string), or an error.
  std::optional<load_error> key_text(const yaml_event_t& e, const scalar_value& v,
                                     std::string& key) {
    const std::string_view value = text_of(e.data.scalar.value, e.data.scalar.length);
    key.clear();
    switch (v.kind) {
      case scalar_kind::string:
        append_json_string(key, v.binary ? std::string_view(*v.binary) : value);
        return std::nullopt;
      case scalar_kind::boolean: key = v.truth ? "\"true\"" : "\"false\""; return std::nullopt;
      case scalar_kind::integer:
        if (!v.negative &&
            v.magnitude > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
          return fail(e.start_mark,
                      "mapping key " + std::string(value) + " is beyond 64-bit integers");
        append_json_string(key, integer_text(v));
        return std::nullopt;
      case scalar_kind::floating:
        append_json_string(key, go_float32_key(v.real));
        return std::nullopt;
      case scalar_kind::not_a_number: {
        const bool nan = value.find_first_of("nN") != std::string_view::npos;
        append_json_string(key, nan ? ".nan" : value.front() == '-' ? "-.inf" : ".inf");
        return std::nullopt;
      }
      case scalar_kind::null:
        return fail(e.start_mark, "a null mapping key (Kubernetes rejects it)");
    }
    return std::nullopt;
  }

  // Writes what precedes a value in the current collection; for a mapping expecting a key, the
  // caller writes the key instead.
  void before_value() {
    frame* f = top();
    if (f == nullptr) {
      root_written_ = true;
      return;
    }
    if (!f->is_map) {
      out_.push_back(',');
      ++f->count;
    }
  }

  // A value is complete.
  std::optional<load_error> after_value(const yaml_mark_t& mark) {
    frame* f = top();
    if (f != nullptr && f->is_map) f->expect_key = true;
    if (out_.size() > budget_)
      return fail(mark, "aliases expand to more than " + std::to_string(budget_ >> 20) +
                            " MiB of JSON (an alias bomb?)");
    return std::nullopt;
  }

  // Starts member `key` (escaped) of the current mapping: an earlier member with the same key is
  // removed (the last wins).
  std::string_view key_at(const member& m) const {
    return {out_.data() + m.key_begin, m.key_end - m.key_begin};
  }

  // True when the mapping may hold `key` already (always true while it is small).
  bool may_hold(frame& f, std::size_t hash) {
    if (!f.hashed && f.members.size() >= hashed_from) {
      f.hashed = true;
      f.hashes.clear();
      for (const member& m : f.members) f.hashes.insert(std::hash<std::string_view>{}(key_at(m)));
    }
    return !f.hashed || f.hashes.count(hash) != 0;
  }

  void add_member(frame& f, std::size_t begin, std::size_t key_size, std::size_t hash) {
    f.members.push_back({begin, begin + 1, begin + 1 + key_size});
    if (f.hashed) f.hashes.insert(hash);
    ++f.count;
  }

  void start_member(std::string_view key) {
    frame& f = *top();
    const std::size_t hash = std::hash<std::string_view>{}(key);
    for (std::size_t i = 0; may_hold(f, hash) && i < f.members.size(); ++i) {
      const member& m = f.members[i];
      if (key_at(m) != key) continue;
      const std::size_t end = i + 1 < f.members.size() ? f.members[i + 1].begin : out_.size();
      erase(m.begin, end);
      const std::size_t removed = end - m.begin;
      f.members.erase(f.members.begin() + static_cast<std::ptrdiff_t>(i));
      if (f.hashed) f.hashes.erase(f.hashes.find(hash));
      for (std::size_t j = i; j < f.members.size(); ++j) {
        f.members[j].begin -= removed;
        f.members[j].key_begin -= removed;
        f.members[j].key_end -= removed;
      }
      break;
    }
    const std::size_t begin = out_.size();
    out_.push_back(',');
    out_.append(key);
    out_.push_back(':');
    add_member(f, begin, key.size(), hash);
    f.expect_key = false;
  }

  void erase(std::size_t from, std::size_t to) {
    char* d = out_.data();
    std::memmove(d + from, d + to, out_.size() - to);
    out_.resize(out_.size() - (to - from));
  }

  std::optional<load_error> scalar(const yaml_event_t& e) {
    frame* f = top();
    scalar_value v;
    if (auto err = typed(e, v)) return err;
    if (f != nullptr && f->merging)
      return fail(e.start_mark,
                  "a merge key (<<) takes a mapping, an alias of one, or a list of them");
    if (f != nullptr && f->is_map && f->expect_key) {
      if (is_merge_key(e)) {
        f->merging = true;
        f->expect_key = false;
        f->merge_sources.clear();
        return std::nullopt;
      }
      if (auto err = key_text(e, v, key_)) return err;
      if (e.data.scalar.anchor != nullptr) {
        const std::size_t begin = out_.size();
        const bool as_value = !value_text(e, v);
        record_key_anchor(e, key_,
                          as_value ? std::string(out_.view().substr(begin)) : std::string());
        out_.resize(begin);
      }
      start_member(key_);
      return std::nullopt;
    }
    before_value();
    const std::size_t begin = out_.size();
    if (auto err = value_text(e, v)) return err;
    if (e.data.scalar.anchor != nullptr) {
      std::optional<std::string> as_key;
      if (!key_text(e, v, key_)) as_key = key_;
      anchored& a = anchors_[std::string(text_of(e.data.scalar.anchor))];
      a = anchored{std::string(out_.view().substr(begin)), false, {}, as_key};
    }
    return after_value(e.start_mark);
  }

  void record_key_anchor(const yaml_event_t& e, const std::string& key, std::string json) {
    anchored& a = anchors_[std::string(text_of(e.data.scalar.anchor))];
    a = anchored{std::move(json), false, {}, key};
  }

  std::optional<load_error> alias(const yaml_event_t& e) {
    const std::string name(text_of(e.data.alias.anchor));
    const auto it = anchors_.find(name);
    if (it == anchors_.end())
      return fail(e.start_mark, "alias *" + name + " names no complete anchor before it");
    const anchored& a = it->second;
    frame* f = top();
    if (f != nullptr && f->merging) {
      if (!a.is_map)
        return fail(e.start_mark,
                    "a merge key (<<) takes a mapping, an alias of one, or a list of them");
      f->merge_sources.push_back(&a);
      if (!f->merge_list) return finish_merge(e.start_mark);
      return std::nullopt;
    }
    if (f != nullptr && f->is_map && f->expect_key) {
      if (!a.key || a.json.empty())
        return fail(e.start_mark,
                    "alias *" + name + " is not a scalar and cannot be a mapping key");
      start_member(*a.key);
      return std::nullopt;
    }
    if (a.json.empty())
      return fail(e.start_mark, "alias *" + name + " names a value JSON cannot hold");
    before_value();
    out_.append(a.json);
    return after_value(e.start_mark);
  }

  // The merge key's value is complete: its mappings' members join the current mapping unless
  // the mapping already has the key (explicit keys and earlier sources win).
  std::optional<load_error> finish_merge(const yaml_mark_t& mark) {
    frame& f = *top();
    f.merging = false;
    f.merge_list = false;
    for (const anchored* src : f.merge_sources) {
      for (const auto& [key, text] : src->members) {
        const std::size_t hash = std::hash<std::string_view>{}(key);
        bool present = false;
        for (std::size_t i = 0; !present && may_hold(f, hash) && i < f.members.size(); ++i)
          present = key_at(f.members[i]) == key;
        if (present) continue;
        const std::size_t begin = out_.size();
        out_.append(text);
        add_member(f, begin, key.size(), hash);
      }
    }
    return after_value(mark);
  }

  std::optional<load_error> open(const yaml_event_t& e, bool is_map, const unsigned char* anchor) {
    frame* f = top();
    // A mapping in a merge key's value is read as any mapping, then merged (close()).
    const bool merge_source = f != nullptr && f->merging && is_map;
    if (f != nullptr && f->merging && !is_map) {
      if (f->merge_list)
        return fail(e.start_mark,
                    "a merge key (<<) takes a mapping, an alias of one, or a list of them");
      f->merge_list = true;
      return std::nullopt;
    }
    if (!merge_source && f != nullptr && f->is_map && f->expect_key)
      return fail(e.start_mark, "a mapping or sequence as a mapping key (Kubernetes rejects it)");
    if (depth_ == yaml_max_depth) return fail(e.start_mark, "nesting deeper than 1024 levels");
    if (!merge_source) before_value();
    if (depth_ == frames_.size()) frames_.resize(frames_.size() * 2);
    frame& n = frames_[depth_++];
    n.is_map = is_map;
    n.open = out_.size();
    n.count = 0;
    n.expect_key = true;
    n.members.clear();
    n.hashed = false;
    n.anchor.assign(text_of(anchor));
    n.merging = n.merge_list = false;
    n.merge_source = merge_source;
    out_.push_back(is_map ? '{' : '[');
    return std::nullopt;
  }

  // The JSON text of a closed collection and, for a mapping, its members one by one.
  anchored record_of(const frame& n) const {
    anchored a;
    a.json.assign(out_.view().substr(n.open));
    a.is_map = n.is_map;
    if (!n.is_map) return a;
    for (std::size_t i = 0; i < n.members.size(); ++i) {
      const member& m = n.members[i];
      const std::size_t end = i + 1 < n.members.size() ? n.members[i + 1].begin : out_.size() - 1;
      std::string text(out_.view().substr(m.begin, end - m.begin));
      text[0] = ',';  // the first member's comma became the brace
      a.members.emplace_back(std::string(key_at(m)), std::move(text));
    }
    return a;
  }

  std::optional<load_error> close(const yaml_event_t& e) {
    frame* f = top();
    if (f->merging && f->merge_list) return finish_merge(e.start_mark);  // the end of a merge list
    frame& n = *f;
    if (n.count > 0) {
      out_.data()[n.open] = ' ';
      out_.data()[n.open + 1] = n.is_map ? '{' : '[';
    }
    out_.push_back(n.is_map ? '}' : ']');
    if (!n.anchor.empty()) anchors_[n.anchor] = record_of(n);
    --depth_;
    if (!n.merge_source) return after_value(e.start_mark);
    inline_sources_.push_back(std::make_unique<anchored>(record_of(n)));
    out_.resize(n.open);
    frame& target = *top();
    target.merge_sources.push_back(inline_sources_.back().get());
    if (!target.merge_list) return finish_merge(e.start_mark);
    return std::nullopt;
  }

  std::string_view name_;
  std::string_view yaml_;
  text_buffer& out_;
  std::vector<json_document>& docs_;
  std::size_t budget_;
  std::vector<frame> frames_;
  std::size_t depth_ = 0;
  bool root_written_ = false;
  json_document doc_;
  std::unordered_map<std::string, anchored> anchors_;
  std::vector<std::unique_ptr<anchored>> inline_sources_;  // mappings written in merge keys
  std::string key_;                                        // the current key, reused
};

}  // namespace

std::optional<load_error> yaml_to_json(std::string_view name, std::string_view yaml,
                                       text_buffer& json, std::vector<json_document>& docs) {
  auto error = converter(name, yaml, json, docs).run();
  json.resize(json.size());  // clears the padding
  return error;
}

}  // namespace whatif
