// examples/whatif/output/json_writing.cpp - see json_writing.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "output/json_writing.hpp"

#include <cstdio>

namespace whatif {

namespace {

// Whether s[i] starts a C1 control (U+0080-U+009F: 0xc2 then 0x80-0x9f).
bool c1_control_at(std::string_view s, std::size_t i) {
  return static_cast<unsigned char>(s[i]) == 0xc2 && i + 1 < s.size() &&
         static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
         static_cast<unsigned char>(s[i + 1]) < 0xa0;
}

void append_unicode_escape(std::string& out, unsigned code) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", code);
  out += buf;
}

}  // namespace

void json_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    const auto c = static_cast<unsigned char>(ch);
    if (c == 0x7f) {
      append_unicode_escape(out, 0x7fu);
      continue;
    }
    if (c1_control_at(s, i)) {
      append_unicode_escape(out, static_cast<unsigned char>(s[++i]));
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20)
          append_unicode_escape(out, c);
        else
          out += ch;
    }
  }
  out += '"';
}

void json_strings(std::string& out, const std::vector<std::string>& list) {
  out += '[';
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (i) out += ", ";
    json_string(out, list[i]);
  }
  out += ']';
}

void json_header(std::string& out, std::string_view kind) {
  out += "\"apiVersion\": ";
  json_string(out, json_api_version);
  out += ",\n  \"kind\": ";
  json_string(out, kind);
}

void append_warnings_json(std::string& out, const std::vector<std::string>& warnings,
                          const std::vector<std::string>& not_modelled) {
  out += ",\n  \"warnings\": ";
  json_strings(out, warnings);
  out += ",\n  \"notModelled\": ";
  json_strings(out, not_modelled);
  out += "\n}\n";
}

}  // namespace whatif
