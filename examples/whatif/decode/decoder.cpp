// examples/whatif/decode/decoder.cpp - see decoder.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "decode/decoder.hpp"

#include <array>
#include <charconv>
#include <limits>

#include "output/one_line.hpp"

namespace whatif::decode {

namespace {

// The largest resource amount accepted: sums of many such amounts stay far from overflow
// (the analysis also checks the totals per node).
constexpr std::int64_t max_amount = std::int64_t{1} << 62;

// The text of a quantity given as a JSON string (surrounding spaces trimmed) or number.
bool quantity_text(context& x, dom::element e, std::string& text) {
  switch (e.type()) {
    case dom::element_type::STRING: {
      std::string_view s;
      if (!x.read_string(e, s)) return false;
      const auto first = s.find_first_not_of(" \t\r\n");
      const auto last = s.find_last_not_of(" \t\r\n");
      if (first != std::string_view::npos) text.assign(s.substr(first, last - first + 1));
      return true;
    }
    case dom::element_type::INT64: text = std::to_string(e.get_int64().value_unsafe()); return true;
    case dom::element_type::UINT64:
      text = std::to_string(e.get_uint64().value_unsafe());
      return true;
    case dom::element_type::DOUBLE: {
      std::array<char, 64> buf{};
      const auto r =
          std::to_chars(buf.data(), buf.data() + buf.size(), e.get_double().value_unsafe());
      text.assign(buf.data(), r.ptr);
      return true;
    }
    default:
      return x.wrong_type(e, "a quantity (a string such as \"500m\" or \"1Gi\", or a number)");
  }
}

// An RFC 3339 time outside the nanosecond range (years before 1677 or after 2262): the first or
// last representable instant when the text is otherwise valid. The check parses the same text
// with the year replaced by one in range of the same leap-ness, so that only the range differs.
std::optional<preempt::timestamp> out_of_range_time(std::string_view s) {
  if (s.size() < 4) return std::nullopt;
  int year = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    year = year * 10 + (s[i] - '0');
  }
  if (year > 1677 && year < 2262) return std::nullopt;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  std::string probe(s);
  probe.replace(0, 4, leap ? "2000" : "2001");
  if (!k8s::parse_time(probe)) return std::nullopt;
  return year <= 1677 ? std::numeric_limits<preempt::timestamp>::min()
                      : std::numeric_limits<preempt::timestamp>::max();
}

}  // namespace

std::string_view type_name(dom::element_type t) noexcept {
  switch (t) {
    case dom::element_type::ARRAY: return "an array";
    case dom::element_type::OBJECT: return "an object";
    case dom::element_type::INT64:
    case dom::element_type::UINT64:
    case dom::element_type::DOUBLE: return "a number";
    case dom::element_type::STRING: return "a string";
    case dom::element_type::BOOL: return "a boolean";
    case dom::element_type::NULL_VALUE: return "null";
  }
  return "a value";
}

context::context(std::string_view file, std::string_view kind, std::string item)
    : file_(file), kind_(kind), item_(std::move(item)) {
  path_.reserve(16);
}

bool context::fail(std::string_view problem) {
  if (error_) return false;
  std::string m(file_);
  m += ": ";
  m += clip(kind_);
  if (!name_.empty()) {
    m += ' ';
    if (!ns_.empty()) {
      m += clip(ns_);
      m += '/';
    }
    m += clip(name_);
  } else if (!item_.empty()) {
    m += ' ';
    m += item_;
  } else {
    m += " (unnamed)";
  }
  const std::string path = render_path();
  if (!path.empty()) {
    m += ": ";
    m += path;
  }
  m += ": ";
  m += problem;
  error_ = load_error{one_line(m)};
  return false;
}

bool context::wrong_type(dom::element e, std::string_view expected) {
  std::string p = "expected ";
  p += expected;
  p += ", found ";
  p += type_name(e.type());
  return fail(p);
}

bool context::read_object(dom::element e, dom::object& out) {
  if (e.get_object().get(out) != simdjson::SUCCESS) return wrong_type(e, "an object");
  return true;
}

bool context::read_array(dom::element e, dom::array& out) {
  if (e.get_array().get(out) != simdjson::SUCCESS) return wrong_type(e, "an array");
  return true;
}

bool context::read_string(dom::element e, std::string_view& out) {
  if (e.get_string().get(out) != simdjson::SUCCESS) return wrong_type(e, "a string");
  return true;
}

bool context::read_string(dom::element e, std::string& out) {
  std::string_view v;
  if (!read_string(e, v)) return false;
  out.assign(v);
  return true;
}

bool context::read_bool(dom::element e, bool& out) {
  if (e.get_bool().get(out) != simdjson::SUCCESS) return wrong_type(e, "a boolean");
  return true;
}

bool context::read_int32(dom::element e, std::int32_t& out) {
  std::int64_t v = 0;
  if (e.type() == dom::element_type::DOUBLE || e.type() == dom::element_type::UINT64 ||
      e.get_int64().get(v) != simdjson::SUCCESS) {
    if (e.is_number()) return fail("expected a 32-bit integer");
    return wrong_type(e, "an integer");
  }
  if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
    return fail("expected a 32-bit integer, found " + std::to_string(v));
  out = static_cast<std::int32_t>(v);
  return true;
}

bool context::read_quantity(dom::element e, std::string_view resource, std::int64_t& out) {
  std::string text;
  if (!quantity_text(*this, e, text)) return false;
  auto amount = k8s::resource_amount(resource, text);
  if (!amount) return fail(replace_value(amount.message(), text));
  if (*amount < 0) return fail("must not be negative");
  if (*amount > max_amount) return fail("too large (more than 2^62)");
  out = *amount;
  return true;
}

bool context::read_time(dom::element e, preempt::timestamp& out) {
  std::string_view s;
  if (!read_string(e, s)) return false;
  auto t = k8s::parse_time(s);
  if (t) {
    out = *t;
    return true;
  }
  if (const auto clamped = out_of_range_time(s)) {
    out = *clamped;
    return true;
  }
  return fail(replace_value(t.message(), s));
}

std::string context::render_path() const {
  std::string p;
  for (const segment& s : path_) {
    if (s.is_index) {
      p += '[';
      p += std::to_string(s.index);
      p += ']';
    } else {
      if (!p.empty()) p += '.';
      p += clip(s.key);
    }
  }
  return p;
}

namespace detail {

void set_pair(std::vector<std::pair<std::string, std::string>>& pairs, std::string_view k,
              std::string_view v) {
  for (auto& [key, value] : pairs) {
    if (key == k) {
      value.assign(v);
      return;
    }
  }
  pairs.emplace_back(std::string(k), std::string(v));
}

namespace {

// Calls each(key, value) for the string members of a map; null members are skipped.
template <class F>
bool for_each_string(context& x, dom::element e, F&& each) {
  dom::object o;
  if (!x.read_object(e, o)) return false;
  for (dom::key_value_pair kv : o) {
    if (kv.value.is_null()) continue;
    auto s = x.field(kv.key);
    std::string_view v;
    if (!x.read_string(kv.value, v)) return false;
    each(kv.key, v);
  }
  return true;
}

}  // namespace

bool read_string_map(context& x, dom::element e, k8s::label_set& out) {
  return for_each_string(x, e, [&](std::string_view k, std::string_view v) {
    out.set(std::string(k), std::string(v));
  });
}

bool read_string_map(context& x, dom::element e,
                     std::vector<std::pair<std::string, std::string>>& out) {
  return for_each_string(x, e,
                         [&](std::string_view k, std::string_view v) { set_pair(out, k, v); });
}

bool read_resource_map(context& x, dom::element e, k8s::resource_list& out) {
  dom::object o;
  if (!x.read_object(e, o)) return false;
  for (dom::key_value_pair kv : o) {
    if (kv.value.is_null()) continue;
    auto s = x.field(kv.key);
    std::int64_t amount = 0;
    if (!x.read_quantity(kv.value, kv.key, amount)) return false;
    out.set(kv.key, amount);
  }
  return true;
}

}  // namespace detail

}  // namespace whatif::decode
