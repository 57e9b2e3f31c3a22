// preempt/kubernetes/dra/cel.hpp - device selectors: the subset of CEL that device classes and
// claims use, evaluated against one device as kube-scheduler's structured allocator does
// (k8s.io/dynamic-resource-allocation/cel, v0.37: the `device` variable with `driver`,
// `allowMultipleAllocations`, `attributes` and `capacity`).
//
//   program p = program::compile(expression);   // parse and check once
//   outcome o = p.evaluate(device, driver);     // match, no_match, error or not_modelled
//
// Modelled (cel_syntax.hpp has the syntax): `device.driver`, `device.allowMultipleAllocations`,
// `device.attributes["domain"].name` and `device.capacity["domain"].name` (also by index; an
// unknown domain is an empty map, an unknown name a "no such key" error, `has()` a presence
// test; unqualified names are in the driver's domain), attribute values (int, bool, string,
// version as a semver), capacities as quantities; `== != < <= > >=` with CEL's heterogeneous
// equality and cross-type numeric comparison; `in` on lists and maps; `&& || !` with CEL's
// commutative error absorption (`false && error` is false); `?:`; `+ - * / %` on numbers,
// strings and lists with overflow errors; size(), startsWith, endsWith, contains, matches (RE2,
// regex.hpp), lowerAscii, upperAscii; the quantity library (quantity, isQuantity, sign,
// isGreaterThan, isLessThan, compareTo, add, sub, asInteger, isInteger, asApproximateFloat) and
// the semver library (semver, isSemver, major, minor, patch, isGreaterThan, isLessThan,
// compareTo); cel.bind.
// Outside it (other functions and macros, map literals, list-typed attributes, quantities finer
// than 1n): `not_modelled`, naming the construct. `error` is where upstream's evaluation fails
// (a CEL runtime error, which aborts kube-scheduler's scheduling attempt), or where its
// compiler would reject the expression.
//
// Complexity: compile O(length); evaluate O(tree × attributes) plus regex searches (bounded).
// Allocation: the tree when compiling; values (strings, lists) while evaluating. No exceptions;
// a compiled program is read-only and thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_DRA_CEL_HPP
#define PREEMPT_KUBERNETES_DRA_CEL_HPP

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/kubernetes/dra/amount.hpp"
#include "preempt/kubernetes/dra/cel_syntax.hpp"
#include "preempt/kubernetes/dra/objects.hpp"
#include "preempt/kubernetes/dra/regex.hpp"
#include "preempt/kubernetes/dra/semver.hpp"
#include "preempt/kubernetes/quantity.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes::dra::cel {

enum class outcome_kind : std::uint8_t { match, no_match, error, not_modelled };

struct outcome {
  outcome_kind kind = outcome_kind::no_match;
  std::string message;  // error and not_modelled: what

  bool decided() const noexcept {
    return kind == outcome_kind::match || kind == outcome_kind::no_match;
  }
};

// A CEL value.
struct value {
  enum class kind_type : std::uint8_t {
    error,
    unmodelled,
    null,
    boolean,
    integer,
    uinteger,
    real,
    string,
    list,
    quantity,
    version,
    device,
    attribute_domains,  // device.attributes
    attribute_map,      // device.attributes["domain"]: `text` is the domain
    capacity_domains,   // device.capacity
    capacity_map,       // device.capacity["domain"]
  };
  kind_type kind = kind_type::null;
  bool b = false;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
  std::string text;  // string; error and unmodelled: the message; maps: the domain
  std::vector<value> items;
  amount q;
  semver v;

  static value error(std::string why) { return make(kind_type::error, std::move(why)); }
  static value unmodelled(std::string why) { return make(kind_type::unmodelled, std::move(why)); }
  static value boolean(bool x) {
    value r;
    r.kind = kind_type::boolean;
    r.b = x;
    return r;
  }
  static value integer(std::int64_t x) {
    value r;
    r.kind = kind_type::integer;
    r.i = x;
    return r;
  }
  static value real(double x) {
    value r;
    r.kind = kind_type::real;
    r.d = x;
    return r;
  }
  static value string(std::string x) { return make(kind_type::string, std::move(x)); }
  static value quantity(amount x) {
    value r;
    r.kind = kind_type::quantity;
    r.q = x;
    return r;
  }
  static value version(semver x) {
    value r;
    r.kind = kind_type::version;
    r.v = std::move(x);
    return r;
  }
  static value make(kind_type k, std::string t) {
    value r;
    r.kind = k;
    r.text = std::move(t);
    return r;
  }

  bool failed() const noexcept { return kind == kind_type::error || kind == kind_type::unmodelled; }
  bool numeric() const noexcept {
    return kind == kind_type::integer || kind == kind_type::uinteger || kind == kind_type::real;
  }
};

namespace detail {

using vk = value::kind_type;

inline std::string_view type_name(vk k) noexcept {
  switch (k) {
    case vk::error: return "error";
    case vk::unmodelled: return "unmodelled";
    case vk::null: return "null_type";
    case vk::boolean: return "bool";
    case vk::integer: return "int";
    case vk::uinteger: return "uint";
    case vk::real: return "double";
    case vk::string: return "string";
    case vk::list: return "list";
    case vk::quantity: return "kubernetes.Quantity";
    case vk::version: return "kubernetes.Semver";
    case vk::device: return "kubernetes.DRADevice";
    default: return "map";
  }
}

inline value no_overload(std::string_view fn, const value& a) {
  return value::error("no such overload: " + std::string(fn) + "(" +
                      std::string(type_name(a.kind)) + ")");
}
inline value no_overload(std::string_view fn, const value& a, const value& b) {
  return value::error("no such overload: " + std::string(fn) + "(" +
                      std::string(type_name(a.kind)) + ", " + std::string(type_name(b.kind)) + ")");
}

// The first failed operand, unmodelled before error.
inline const value* failed_of(const value& a, const value& b) noexcept {
  if (a.kind == vk::unmodelled) return &a;
  if (b.kind == vk::unmodelled) return &b;
  if (a.failed()) return &a;
  if (b.failed()) return &b;
  return nullptr;
}

// Numeric comparison across int, uint and double: -1, 0, 1, or 2 when unordered (NaN).
inline int compare_numbers(const value& a, const value& b) noexcept {
  const auto cmp = [](auto x, auto y) { return x < y ? -1 : x > y ? 1 : 0; };
  if (a.kind == vk::real || b.kind == vk::real) {
    const double x = a.kind == vk::real      ? a.d
                     : a.kind == vk::integer ? static_cast<double>(a.i)
                                             : static_cast<double>(a.u);
    const double y = b.kind == vk::real      ? b.d
                     : b.kind == vk::integer ? static_cast<double>(b.i)
                                             : static_cast<double>(b.u);
    if (std::isnan(x) || std::isnan(y)) return 2;
    // Exact when the double side is integral and the integer side is large.
    return cmp(x, y);
  }
  if (a.kind == b.kind) return a.kind == vk::integer ? cmp(a.i, b.i) : cmp(a.u, b.u);
  if (a.kind == vk::integer) return a.i < 0 ? -1 : cmp(static_cast<std::uint64_t>(a.i), b.u);
  return b.i < 0 ? 1 : cmp(a.u, static_cast<std::uint64_t>(b.i));
}

// CEL's `==` (types.Equal): null only equals null; numbers compare by value; a Quantity or a
// Semver on the left errs against another type; other mismatches are false.
inline value equals(const value& a, const value& b) {
  if (const value* f = failed_of(a, b)) return *f;
  if (a.kind == vk::null || b.kind == vk::null) return value::boolean(a.kind == b.kind);
  if (a.numeric() && b.numeric()) return value::boolean(compare_numbers(a, b) == 0);
  switch (a.kind) {
    case vk::boolean: return value::boolean(b.kind == vk::boolean && a.b == b.b);
    case vk::string: return value::boolean(b.kind == vk::string && a.text == b.text);
    case vk::quantity:
      if (b.kind != vk::quantity) return no_overload("_==_", a, b);
      return value::boolean(a.q == b.q);
    case vk::version:
      if (b.kind != vk::version) return no_overload("_==_", a, b);
      return value::boolean(compare(a.v, b.v) == 0);
    case vk::list: {
      if (b.kind != vk::list) return value::boolean(false);
      if (a.items.size() != b.items.size()) return value::boolean(false);
      for (std::size_t k = 0; k < a.items.size(); ++k) {
        value e = equals(a.items[k], b.items[k]);
        if (e.kind != vk::boolean || !e.b) return e;
      }
      return value::boolean(true);
    }
    case vk::integer:
    case vk::uinteger:
    case vk::real: return value::boolean(false);
    default: return value::unmodelled("equality of maps or devices");
  }
}

inline value compare_values(binary_op op, const value& a, const value& b) {
  if (const value* f = failed_of(a, b)) return *f;
  int c = 0;
  if (a.numeric() && b.numeric()) {
    c = compare_numbers(a, b);
    if (c == 2) return value::boolean(false);
  } else if (a.kind == vk::string && b.kind == vk::string) {
    c = a.text < b.text ? -1 : a.text == b.text ? 0 : 1;
  } else if (a.kind == vk::boolean && b.kind == vk::boolean) {
    c = a.b == b.b ? 0 : a.b ? 1 : -1;
  } else {
    return no_overload("_<_", a, b);
  }
  switch (op) {
    case binary_op::less: return value::boolean(c < 0);
    case binary_op::less_equal: return value::boolean(c <= 0);
    case binary_op::greater: return value::boolean(c > 0);
    default: return value::boolean(c >= 0);
  }
}

inline std::size_t code_points(std::string_view s) noexcept {
  std::size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

inline value arithmetic(binary_op op, const value& a, const value& b) {
  if (const value* f = failed_of(a, b)) return *f;
  const std::string_view name = op == binary_op::add        ? "_+_"
                                : op == binary_op::subtract ? "_-_"
                                : op == binary_op::multiply ? "_*_"
                                : op == binary_op::divide   ? "_/_"
                                                            : "_%_";
  if (a.kind != b.kind) return no_overload(name, a, b);
  switch (a.kind) {
    case vk::integer: {
      std::int64_t r = 0;
      bool overflow = false;
      switch (op) {
        case binary_op::add: overflow = __builtin_add_overflow(a.i, b.i, &r); break;
        case binary_op::subtract: overflow = __builtin_sub_overflow(a.i, b.i, &r); break;
        case binary_op::multiply: overflow = __builtin_mul_overflow(a.i, b.i, &r); break;
        default:
          if (b.i == 0)
            return value::error(op == binary_op::divide ? "division by zero" : "modulus by zero");
          if (a.i == std::numeric_limits<std::int64_t>::min() && b.i == -1) {
            overflow = true;
            break;
          }
          r = op == binary_op::divide ? a.i / b.i : a.i % b.i;
      }
      if (overflow) return value::error("integer overflow");
      return value::integer(r);
    }
    case vk::uinteger: {
      std::uint64_t r = 0;
      bool overflow = false;
      switch (op) {
        case binary_op::add: overflow = __builtin_add_overflow(a.u, b.u, &r); break;
        case binary_op::subtract: overflow = __builtin_sub_overflow(a.u, b.u, &r); break;
        case binary_op::multiply: overflow = __builtin_mul_overflow(a.u, b.u, &r); break;
        default:
          if (b.u == 0)
            return value::error(op == binary_op::divide ? "division by zero" : "modulus by zero");
          r = op == binary_op::divide ? a.u / b.u : a.u % b.u;
      }
      if (overflow) return value::error("unsigned integer overflow");
      value v;
      v.kind = vk::uinteger;
      v.u = r;
      return v;
    }
    case vk::real:
      switch (op) {
        case binary_op::add: return value::real(a.d + b.d);
        case binary_op::subtract: return value::real(a.d - b.d);
        case binary_op::multiply: return value::real(a.d * b.d);
        case binary_op::divide: return value::real(a.d / b.d);
        default: return no_overload(name, a, b);
      }
    case vk::string:
      if (op != binary_op::add) return no_overload(name, a, b);
      return value::string(a.text + b.text);
    case vk::list: {
      if (op != binary_op::add) return no_overload(name, a, b);
      value r = a;
      r.items.insert(r.items.end(), b.items.begin(), b.items.end());
      return r;
    }
    default: return no_overload(name, a, b);
  }
}

// A device's attributes or capacities by (domain, id): unqualified names are in the driver's
// domain (parseQualifiedName).
inline bool split_name(std::string_view name, std::string_view driver, std::string_view& domain,
                       std::string_view& id) noexcept {
  const std::size_t slash = name.find('/');
  if (slash == std::string_view::npos) {
    domain = driver;
    id = name;
  } else {
    domain = name.substr(0, slash);
    id = name.substr(slash + 1);
  }
  return true;
}

struct context {
  const device* dev = nullptr;
  std::string_view driver;
  std::vector<std::pair<std::string_view, value>> bound;  // cel.bind variables, innermost last
};

inline value attribute_to_value(const attribute& a) {
  switch (a.value.kind) {
    case attribute_value::kind_type::integer: return value::integer(a.value.integer);
    case attribute_value::kind_type::boolean: return value::boolean(a.value.boolean);
    case attribute_value::kind_type::string: return value::string(a.value.text);
    case attribute_value::kind_type::version: {
      auto v = parse_semver(a.value.text);
      if (!v) return value::error("attribute " + a.name + ": parse semantic version");
      return value::version(std::move(*v));
    }
    case attribute_value::kind_type::none: break;
  }
  if (a.value.list_present)
    return value::unmodelled("list-typed attribute " + a.name + " (DRAListTypeAttributes)");
  return value::error("attribute " + a.name + ": unsupported attribute value");
}

// map[domain][id]; `found` false when absent.
inline value map_entry(const context& x, const value& m, std::string_view id, bool& found) {
  found = false;
  if (m.kind == vk::attribute_map) {
    for (const attribute& a : x.dev->attributes) {
      std::string_view domain, name;
      split_name(a.name, x.driver, domain, name);
      if (domain == m.text && name == id) {
        found = true;
        return attribute_to_value(a);
      }
    }
  } else {
    for (const capacity& c : x.dev->capacities) {
      std::string_view domain, name;
      split_name(c.name, x.driver, domain, name);
      if (domain == m.text && name == id) {
        found = true;
        return value::quantity(c.value);
      }
    }
  }
  return value::error("no such key: " + std::string(id));
}

inline bool has_domain(const context& x, bool attributes, std::string_view domain) {
  const auto in = [&](std::string_view name) {
    std::string_view d, id;
    split_name(name, x.driver, d, id);
    return d == domain;
  };
  if (attributes) {
    for (const attribute& a : x.dev->attributes)
      if (in(a.name)) return true;
  } else {
    for (const capacity& c : x.dev->capacities)
      if (in(c.name)) return true;
  }
  return false;
}

inline std::size_t map_size(const context& x, const value& m) {
  std::vector<std::string_view> seen;
  const auto count = [&](std::string_view name) {
    std::string_view d, id;
    split_name(name, x.driver, d, id);
    const bool domains = m.kind == vk::attribute_domains || m.kind == vk::capacity_domains;
    if (!domains && d != m.text) return;
    const std::string_view key = domains ? d : id;
    for (std::string_view s : seen)
      if (s == key) return;
    seen.push_back(key);
  };
  if (m.kind == vk::attribute_domains || m.kind == vk::attribute_map) {
    for (const attribute& a : x.dev->attributes) count(a.name);
  } else {
    for (const capacity& c : x.dev->capacities) count(c.name);
  }
  return seen.size();
}

// Functions, by name: members take the receiver first.
struct function_info {
  std::string_view name;
  bool member;
  int min_args, max_args;  // excluding the receiver
};
inline constexpr function_info functions[] = {
    {"size", false, 1, 1},         {"size", true, 0, 0},
    {"matches", false, 2, 2},      {"matches", true, 1, 1},
    {"startsWith", true, 1, 1},    {"endsWith", true, 1, 1},
    {"contains", true, 1, 1},      {"lowerAscii", true, 0, 0},
    {"upperAscii", true, 0, 0},    {"quantity", false, 1, 1},
    {"isQuantity", false, 1, 1},   {"sign", false, 1, 1},
    {"isGreaterThan", true, 1, 1}, {"isLessThan", true, 1, 1},
    {"compareTo", true, 1, 1},     {"add", true, 1, 1},
    {"sub", true, 1, 1},           {"asInteger", true, 0, 0},
    {"isInteger", true, 0, 0},     {"asApproximateFloat", true, 0, 0},
    {"semver", false, 1, 2},       {"isSemver", false, 1, 2},
    {"major", true, 0, 0},         {"minor", true, 0, 0},
    {"patch", true, 0, 0},
};

}  // namespace detail

class program {
 public:
  static program compile(std::string_view expression) {
    program p;
    p.tree_ = std::make_shared<syntax_tree>(parse(expression));
    if (p.tree_->state == syntax_tree::status::ok) {
      std::vector<std::string_view> scope;
      p.check(p.tree_->root, scope);
    }
    return p;
  }

  bool ok() const noexcept { return tree_ && tree_->state == syntax_tree::status::ok; }
  syntax_tree::status state() const noexcept {
    return tree_ ? tree_->state : syntax_tree::status::invalid;
  }
  const std::string& message() const noexcept { return tree_->message; }

  // Evaluates the program for `dev`, published by `driver` (ok() must hold).
  outcome evaluate(const device& dev, std::string_view driver) const {
    detail::context x{&dev, driver, {}};
    // DeviceMatches converts every attribute before evaluating: a bad one fails any selector.
    for (const attribute& a : dev.attributes) {
      const value v = detail::attribute_to_value(a);
      if (v.kind == detail::vk::error) return {outcome_kind::error, v.text};
    }
    const value r = eval(tree_->root, x);
    switch (r.kind) {
      case detail::vk::boolean: return {r.b ? outcome_kind::match : outcome_kind::no_match, {}};
      case detail::vk::error: return {outcome_kind::error, r.text};
      case detail::vk::unmodelled: return {outcome_kind::not_modelled, r.text};
      default:
        return {outcome_kind::error, "CEL result of type " +
                                         std::string(detail::type_name(r.kind)) +
                                         " could not be converted to bool"};
    }
  }

 private:
  using vk = detail::vk;

  const node& at(int i) const { return tree_->nodes[static_cast<std::size_t>(i)]; }

  void fail(syntax_tree::status s, std::string why) {
    if (tree_->state != syntax_tree::status::ok) return;
    tree_->state = s;
    tree_->message = std::move(why);
  }

  // Static checks: identifiers declared, functions known with their arity, constant regexes.
  void check(int i, std::vector<std::string_view>& scope) {
    if (tree_->state != syntax_tree::status::ok) return;
    const node& n = at(i);
    switch (n.kind) {
      case node_kind::ident: {
        if (n.text == "device") return;
        for (std::string_view s : scope)
          if (s == n.text) return;
        fail(syntax_tree::status::invalid, "undeclared reference to '" + n.text + "'");
        return;
      }
      case node_kind::bind: {
        check(n.children[0], scope);
        scope.push_back(n.text);
        check(n.children[1], scope);
        scope.pop_back();
        return;
      }
      case node_kind::call: {
        const int args = static_cast<int>(n.children.size()) - (n.member ? 1 : 0);
        bool known = false, arity = false;
        for (const detail::function_info& f : detail::functions) {
          if (f.name != n.text || f.member != n.member) continue;
          known = true;
          if (args >= f.min_args && args <= f.max_args) arity = true;
        }
        if (!known) {
          fail(syntax_tree::status::not_modelled, "the function " + n.text + "()");
          return;
        }
        if (!arity) {
          fail(syntax_tree::status::invalid, "found no matching overload for '" + n.text + "'");
          return;
        }
        if (n.text == "matches") {
          const node& pattern = at(n.children.back());
          if (pattern.kind == node_kind::string) {
            const regex r = regex::compile(pattern.text);
            if (r.state() == regex::status::invalid)
              fail(syntax_tree::status::invalid, "invalid regular expression: " + r.message());
            else if (r.state() == regex::status::not_modelled)
              fail(syntax_tree::status::not_modelled,
                   "the regular expression syntax " + r.message());
          }
        }
        break;
      }
      default: break;
    }
    for (int c : n.children) check(c, scope);
  }

  value eval(int i, detail::context& x) const {
    const node& n = at(i);
    switch (n.kind) {
      case node_kind::boolean: return value::boolean(n.flag);
      case node_kind::integer: return value::integer(n.i);
      case node_kind::uinteger: {
        value v;
        v.kind = vk::uinteger;
        v.u = n.u;
        return v;
      }
      case node_kind::real: return value::real(n.d);
      case node_kind::string: return value::string(n.text);
      case node_kind::null: return value{};
      case node_kind::ident: {
        for (auto it = x.bound.rbegin(); it != x.bound.rend(); ++it)
          if (it->first == n.text) return it->second;
        value v;
        v.kind = vk::device;
        return v;
      }
      case node_kind::bind: {
        value init = eval(n.children[0], x);
        x.bound.emplace_back(n.text, std::move(init));
        value r = eval(n.children[1], x);
        x.bound.pop_back();
        return r;
      }
      case node_kind::select: return select(eval(n.children[0], x), n.text, n.test_only, x);
      case node_kind::index: return index(eval(n.children[0], x), eval(n.children[1], x), x);
      case node_kind::list: {
        value l;
        l.kind = vk::list;
        for (int c : n.children) {
          value e = eval(c, x);
          if (e.failed()) return e;
          l.items.push_back(std::move(e));
        }
        return l;
      }
      case node_kind::logical_not: {
        value v = eval(n.children[0], x);
        if (v.failed()) return v;
        if (v.kind != vk::boolean) return detail::no_overload("!_", v);
        return value::boolean(!v.b);
      }
      case node_kind::negate: {
        value v = eval(n.children[0], x);
        if (v.failed()) return v;
        if (v.kind == vk::integer) {
          if (v.i == std::numeric_limits<std::int64_t>::min())
            return value::error("integer overflow");
          return value::integer(-v.i);
        }
        if (v.kind == vk::real) return value::real(-v.d);
        return detail::no_overload("-_", v);
      }
      case node_kind::conditional: {
        value c = eval(n.children[0], x);
        if (c.failed()) return c;
        if (c.kind != vk::boolean) return detail::no_overload("_?_:_", c);
        return eval(n.children[c.b ? 1 : 2], x);
      }
      case node_kind::binary: return binary(n, x);
      case node_kind::call: return call(n, x);
    }
    return value::error("unknown expression");
  }

  // `a || b` and `a && b`: commutative; a decisive operand absorbs the other's failure.
  value logical(const node& n, detail::context& x) const {
    const bool is_or = n.op == binary_op::logical_or;
    value a = eval(n.children[0], x);
    if (a.kind == vk::boolean && a.b == is_or) return a;  // decided
    value b = eval(n.children[1], x);
    if (b.kind == vk::boolean && b.b == is_or) return b;
    if (a.kind == vk::boolean && b.kind == vk::boolean) return value::boolean(!is_or);
    if (const value* f = detail::failed_of(a, b)) return *f;
    return detail::no_overload(is_or ? "_||_" : "_&&_", a, b);
  }

  value binary(const node& n, detail::context& x) const {
    if (n.op == binary_op::logical_or || n.op == binary_op::logical_and) return logical(n, x);
    const value a = eval(n.children[0], x);
    const value b = eval(n.children[1], x);
    switch (n.op) {
      case binary_op::equal: return detail::equals(a, b);
      case binary_op::not_equal: {
        value e = detail::equals(a, b);
        if (e.kind == vk::boolean) e.b = !e.b;
        return e;
      }
      case binary_op::less:
      case binary_op::less_equal:
      case binary_op::greater:
      case binary_op::greater_equal: return detail::compare_values(n.op, a, b);
      case binary_op::in: return contains(a, b, x);
      default: return detail::arithmetic(n.op, a, b);
    }
  }

  value contains(const value& elem, const value& container, const detail::context& x) const {
    if (const value* f = detail::failed_of(elem, container)) return *f;
    switch (container.kind) {
      case vk::list: {
        std::optional<value> err;
        for (const value& item : container.items) {
          value e = detail::equals(elem, item);
          if (e.kind == vk::boolean) {
            if (e.b) return e;
          } else if (!err) {
            err = std::move(e);
          }
        }
        if (err) return *err;
        return value::boolean(false);
      }
      case vk::attribute_domains:
      case vk::capacity_domains:
        if (elem.kind != vk::string) return detail::no_overload("@in", elem, container);
        return value::boolean(
            detail::has_domain(x, container.kind == vk::attribute_domains, elem.text));
      case vk::attribute_map:
      case vk::capacity_map: {
        if (elem.kind != vk::string) return detail::no_overload("@in", elem, container);
        bool found = false;
        (void)detail::map_entry(x, container, elem.text, found);
        return value::boolean(found);
      }
      default: return detail::no_overload("@in", elem, container);
    }
  }

  value select(const value& operand, const std::string& field, bool test_only,
               const detail::context& x) const {
    if (operand.failed()) return operand;
    switch (operand.kind) {
      case vk::device:
        if (field == "driver")
          return test_only ? value::boolean(true) : value::string(std::string(x.driver));
        if (field == "allowMultipleAllocations")
          return value::boolean(test_only || x.dev->multiple_allocations());
        if (field == "attributes" || field == "capacity") {
          if (test_only) return value::boolean(true);
          return value::make(field == "attributes" ? vk::attribute_domains : vk::capacity_domains,
                             {});
        }
        return value::error("no such field: " + field);
      case vk::attribute_domains:
      case vk::capacity_domains:
        // The outer maps default to an empty map for any domain: present.
        if (test_only) return value::boolean(true);
        return value::make(
            operand.kind == vk::attribute_domains ? vk::attribute_map : vk::capacity_map, field);
      case vk::attribute_map:
      case vk::capacity_map: {
        bool found = false;
        value v = detail::map_entry(x, operand, field, found);
        if (test_only) return value::boolean(found);
        return v;
      }
      default:
        return value::error("type '" + std::string(detail::type_name(operand.kind)) +
                            "' does not support field selection");
    }
  }

  value index(const value& operand, const value& key, const detail::context& x) const {
    if (const value* f = detail::failed_of(operand, key)) return *f;
    switch (operand.kind) {
      case vk::attribute_domains:
      case vk::capacity_domains:
        if (key.kind != vk::string) return detail::no_overload("_[_]", operand, key);
        return value::make(
            operand.kind == vk::attribute_domains ? vk::attribute_map : vk::capacity_map, key.text);
      case vk::attribute_map:
      case vk::capacity_map: {
        if (key.kind != vk::string) return detail::no_overload("_[_]", operand, key);
        bool found = false;
        return detail::map_entry(x, operand, key.text, found);
      }
      case vk::list: {
        std::int64_t k = 0;
        if (key.kind == vk::integer) {
          k = key.i;
        } else if (key.kind == vk::uinteger && key.u <= static_cast<std::uint64_t>(INT64_MAX)) {
          k = static_cast<std::int64_t>(key.u);
        } else if (key.kind == vk::real && std::floor(key.d) == key.d && std::abs(key.d) < 9e18) {
          k = static_cast<std::int64_t>(key.d);
        } else {
          return detail::no_overload("_[_]", operand, key);
        }
        if (k < 0 || static_cast<std::uint64_t>(k) >= operand.items.size())
          return value::error("index out of range: " + std::to_string(k));
        return operand.items[static_cast<std::size_t>(k)];
      }
      default: return detail::no_overload("_[_]", operand, key);
    }
  }

  static value quantity_of(const std::string& text) {
    auto q = parse_quantity(text);
    if (!q) return value::error(q.message());
    auto a = to_amount(*q);
    if (!a) return value::unmodelled("quantity(\"" + text + "\"): " + a.message());
    return value::quantity(*a);
  }

  value call(const node& n, detail::context& x) const {
    std::vector<value> args;
    args.reserve(n.children.size());
    for (int c : n.children) {
      args.push_back(eval(c, x));
      if (args.back().failed()) return args.back();
    }
    const std::string& f = n.text;
    const value& a = args.front();
    const auto arg = [&](std::size_t k) -> const value& { return args[k]; };
    if (f == "size") {
      switch (a.kind) {
        case vk::string:
          return value::integer(static_cast<std::int64_t>(detail::code_points(a.text)));
        case vk::list: return value::integer(static_cast<std::int64_t>(a.items.size()));
        case vk::attribute_domains:
        case vk::capacity_domains:
        case vk::attribute_map:
        case vk::capacity_map:
          return value::integer(static_cast<std::int64_t>(detail::map_size(x, a)));
        default: return detail::no_overload("size", a);
      }
    }
    if (f == "startsWith" || f == "endsWith" || f == "contains") {
      if (a.kind != vk::string || arg(1).kind != vk::string)
        return detail::no_overload(f, a, arg(1));
      const std::string& s = a.text;
      const std::string& p = arg(1).text;
      if (f == "contains") return value::boolean(s.find(p) != std::string::npos);
      if (p.size() > s.size()) return value::boolean(false);
      return value::boolean(f == "startsWith" ? s.compare(0, p.size(), p) == 0
                                              : s.compare(s.size() - p.size(), p.size(), p) == 0);
    }
    if (f == "matches") {
      if (a.kind != vk::string || arg(1).kind != vk::string)
        return detail::no_overload(f, a, arg(1));
      const regex r = regex::compile(arg(1).text);
      if (r.state() == regex::status::invalid)
        return value::error("invalid regular expression: " + r.message());
      if (r.state() == regex::status::not_modelled)
        return value::unmodelled("the regular expression syntax " + r.message());
      switch (r.search(a.text)) {
        case regex::match_result::match: return value::boolean(true);
        case regex::match_result::no_match: return value::boolean(false);
        case regex::match_result::too_long:
          return value::unmodelled("a regular expression search too long");
      }
    }
    if (f == "lowerAscii" || f == "upperAscii") {
      if (a.kind != vk::string) return detail::no_overload(f, a);
      std::string s = a.text;
      for (char& c : s) {
        if (f == "lowerAscii" && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
        if (f == "upperAscii" && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
      }
      return value::string(std::move(s));
    }
    if (f == "quantity" || f == "isQuantity") {
      if (a.kind != vk::string) return detail::no_overload(f, a);
      if (f == "isQuantity") return value::boolean(parse_quantity(a.text).ok());
      return quantity_of(a.text);
    }
    if (f == "semver" || f == "isSemver") {
      if (a.kind != vk::string || (args.size() == 2 && arg(1).kind != vk::boolean))
        return detail::no_overload(f, a);
      const bool normalize = args.size() == 2 && arg(1).b;
      auto v = parse_semver(a.text, normalize);
      if (f == "isSemver") return value::boolean(v.has_value());
      if (!v) return value::error("invalid semantic version \"" + a.text + "\"");
      return value::version(std::move(*v));
    }
    if (f == "sign") {
      if (a.kind != vk::quantity) return detail::no_overload(f, a);
      return value::integer(a.q.sign());
    }
    if (f == "isGreaterThan" || f == "isLessThan" || f == "compareTo") {
      int c = 0;
      if (a.kind == vk::quantity && arg(1).kind == vk::quantity) {
        c = a.q < arg(1).q ? -1 : a.q == arg(1).q ? 0 : 1;
      } else if (a.kind == vk::version && arg(1).kind == vk::version) {
        c = compare(a.v, arg(1).v);
      } else {
        return detail::no_overload(f, a, arg(1));
      }
      if (f == "compareTo") return value::integer(c);
      return value::boolean(f == "isGreaterThan" ? c > 0 : c < 0);
    }
    if (f == "add" || f == "sub") {
      if (a.kind != vk::quantity) return detail::no_overload(f, a, arg(1));
      amount other;
      if (arg(1).kind == vk::quantity)
        other = arg(1).q;
      else if (arg(1).kind == vk::integer)
        other = amount::of_units(arg(1).i);
      else
        return detail::no_overload(f, a, arg(1));
      const auto r = f == "add" ? add(a.q, other) : sub(a.q, other);
      if (!r) return value::unmodelled("a quantity beyond 2^63 units");
      return value::quantity(*r);
    }
    if (f == "asInteger" || f == "isInteger") {
      if (a.kind != vk::quantity) return detail::no_overload(f, a);
      if (f == "isInteger") return value::boolean(a.q.is_integer());
      if (!a.q.is_integer()) return value::error("cannot convert value to integer");
      return value::integer(a.q.units);
    }
    if (f == "asApproximateFloat") {
      if (a.kind != vk::quantity) return detail::no_overload(f, a);
      return value::real(static_cast<double>(a.q.units) + static_cast<double>(a.q.nanos) / 1e9);
    }
    if (f == "major" || f == "minor" || f == "patch") {
      if (a.kind != vk::version) return detail::no_overload(f, a);
      const std::uint64_t part = f == "major" ? a.v.major : f == "minor" ? a.v.minor : a.v.patch;
      return value::integer(static_cast<std::int64_t>(part));
    }
    return value::unmodelled("the function " + f + "()");
  }

  std::shared_ptr<syntax_tree> tree_;
};

}  // namespace kubernetes::dra::cel
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_DRA_CEL_HPP
