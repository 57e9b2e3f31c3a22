// preempt/kubernetes/dra/cel_syntax.hpp - the parser of the CEL subset that device selectors
// use (cel.hpp evaluates what it builds).
//
// parse(expression) builds a flat syntax tree: literals (int, uint, double, string, bool,
// null), identifiers, field selection, indexing, function and method calls, list literals,
// unary `!` and `-`, the binary operators `* / % + - < <= > >= == != in && ||`, `?:`, and the
// macros `has(a.b)` and `cel.bind(x, init, body)`, with CEL's precedence. What CEL has beyond
// that (map literals, bytes, comprehension macros such as all/exists/map/filter, optional
// syntax `?.` and `[?`, message construction) is `not_modelled` with the construct named; text
// CEL does not accept is `invalid`. Strings take CEL's escapes (\\ \" \' \n \t \r \a \b \f \v,
// \xHH, \uHHHH, \UHHHHHHHH, octal \ooo), raw strings (r"...") and triple quotes.
//
// Complexity O(length of the expression); nesting deeper than `max_depth` is refused.
// Allocation: the tree. No exceptions; the result is a value, thread-safe once built.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_DRA_CEL_SYNTAX_HPP
#define PREEMPT_KUBERNETES_DRA_CEL_SYNTAX_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes::dra::cel {

enum class node_kind : std::uint8_t {
  boolean,   // literal: `flag`
  integer,   // literal: `i`
  uinteger,  // literal: `u`
  real,      // literal: `d`
  string,    // literal: `text`
  null,      // literal
  ident,     // `text`
  select,    // children[0].`text`; `test_only` for has()
  index,     // children[0][children[1]]
  call,      // `text`(children...) or, with `member`, children[0].`text`(children[1...])
  list,      // [children...]
  logical_not,
  negate,
  binary,  // children[0] `op` children[1]
  conditional,
  bind,  // cel.bind(`text`, children[0], children[1])
};

enum class binary_op : std::uint8_t {
  logical_or,
  logical_and,
  equal,
  not_equal,
  less,
  less_equal,
  greater,
  greater_equal,
  in,
  add,
  subtract,
  multiply,
  divide,
  modulo,
};

struct node {
  node_kind kind = node_kind::null;
  binary_op op = binary_op::add;
  bool flag = false;       // boolean literal
  bool member = false;     // call: receiver style
  bool test_only = false;  // select: has()
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
  std::string text;
  std::vector<int> children;
};

struct syntax_tree {
  enum class status : std::uint8_t { ok, invalid, not_modelled };
  status state = status::ok;
  std::string message;  // why, when not ok
  std::vector<node> nodes;
  int root = -1;
};

namespace detail {

inline constexpr int max_depth = 100;

enum class token_kind : std::uint8_t {
  end,
  integer,
  uinteger,
  real,
  string,
  bytes,
  ident,
  punct,  // text: the operator or punctuation
};

struct token {
  token_kind kind = token_kind::end;
  std::string text;  // ident, punct, string (decoded)
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
  std::size_t pos = 0;
};

class lexer {
 public:
  explicit lexer(std::string_view s) : s_(s) {}

  // The next token; false (with `why`) on text CEL does not accept.
  bool next(token& t, std::string& why, bool& unmodelled) {
    skip_space();
    t = token{};
    t.pos = pos_;
    if (pos_ >= s_.size()) return true;
    const char c = s_[pos_];
    if (is_digit(c) || (c == '.' && pos_ + 1 < s_.size() && is_digit(s_[pos_ + 1])))
      return number(t, why);
    if (c == '"' || c == '\'') return string_literal(t, false, why);
    if ((c == 'r' || c == 'R') && pos_ + 1 < s_.size() &&
        (s_[pos_ + 1] == '"' || s_[pos_ + 1] == '\'')) {
      ++pos_;
      return string_literal(t, true, why);
    }
    if ((c == 'b' || c == 'B') && pos_ + 1 < s_.size() &&
        (s_[pos_ + 1] == '"' || s_[pos_ + 1] == '\'' || s_[pos_ + 1] == 'r' ||
         s_[pos_ + 1] == 'R')) {
      why = "bytes literals";
      unmodelled = true;
      return false;
    }
    if (is_ident_start(c)) {
      const std::size_t b = pos_;
      while (pos_ < s_.size() && (is_ident_start(s_[pos_]) || is_digit(s_[pos_]))) ++pos_;
      t.kind = token_kind::ident;
      t.text = std::string(s_.substr(b, pos_ - b));
      return true;
    }
    static constexpr std::string_view two[] = {"==", "!=", "<=", ">=", "&&", "||", ".?", "[?"};
    for (std::string_view op : two)
      if (s_.substr(pos_, 2) == op) {
        if (op == ".?" || op == "[?") {
          why = "optional syntax (" + std::string(op) + ")";
          unmodelled = true;
          return false;
        }
        t.kind = token_kind::punct;
        t.text = std::string(op);
        pos_ += 2;
        return true;
      }
    if (std::string_view("()[]{}.,:?!<>+-*/%").find(c) != std::string_view::npos) {
      t.kind = token_kind::punct;
      t.text = std::string(1, c);
      ++pos_;
      return true;
    }
    why = std::string("unexpected character '") + c + "'";
    return false;
  }

 private:
  static bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
  static bool is_hex(char c) noexcept {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }
  static bool is_ident_start(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }
  static unsigned hex_value(char c) noexcept {
    return is_digit(c) ? static_cast<unsigned>(c - '0')
                       : static_cast<unsigned>((c | 0x20) - 'a' + 10);
  }

  void skip_space() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '/') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  bool number(token& t, std::string& why) {
    const std::size_t b = pos_;
    if (s_.substr(pos_, 2) == "0x" || s_.substr(pos_, 2) == "0X") {
      pos_ += 2;
      const std::size_t digits = pos_;
      std::uint64_t v = 0;
      bool overflow = false;
      while (pos_ < s_.size() && is_hex(s_[pos_])) {
        if (v > (UINT64_MAX >> 4)) overflow = true;
        v = (v << 4) | hex_value(s_[pos_++]);
      }
      if (pos_ == digits) {
        why = "invalid hexadecimal literal";
        return false;
      }
      return integer_suffix(t, v, overflow, why);
    }
    while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
    bool real = false;
    if (pos_ + 1 < s_.size() && s_[pos_] == '.' && is_digit(s_[pos_ + 1])) {
      real = true;
      ++pos_;
      while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      std::size_t e = pos_ + 1;
      if (e < s_.size() && (s_[e] == '+' || s_[e] == '-')) ++e;
      if (e < s_.size() && is_digit(s_[e])) {
        real = true;
        pos_ = e;
        while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
      }
    }
    const std::string text(s_.substr(b, pos_ - b));
    if (real) {
      t.kind = token_kind::real;
      t.d = parse_double(text);
      return true;
    }
    std::uint64_t v = 0;
    bool overflow = false;
    for (char c : text) {
      const auto d = static_cast<std::uint64_t>(c - '0');
      if (v > (UINT64_MAX - d) / 10) overflow = true;
      v = v * 10 + d;
    }
    return integer_suffix(t, v, overflow, why);
  }

  // A decimal text as a double: digits, an optional fraction and exponent (correctly rounded
  // for the short literals selectors use: at most 19 significant digits, exact powers of ten).
  static double parse_double(std::string_view text) {
    double mantissa = 0;
    int exponent = 0;
    std::size_t i = 0;
    int significant = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      if (significant < 19) {
        mantissa = mantissa * 10 + (text[i] - '0');
        if (mantissa > 0) ++significant;
      } else {
        ++exponent;
      }
    }
    if (i < text.size() && text[i] == '.') {
      for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
        if (significant < 19) {
          mantissa = mantissa * 10 + (text[i] - '0');
          --exponent;
          if (mantissa > 0) ++significant;
        }
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
      ++i;
      bool neg = false;
      if (i < text.size() && (text[i] == '+' || text[i] == '-')) neg = text[i++] == '-';
      int e = 0;
      for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
        if (e < 10000) e = e * 10 + (text[i] - '0');
      exponent += neg ? -e : e;
    }
    double scale = 1;
    const int n = exponent < 0 ? -exponent : exponent;
    for (int k = 0; k < n && k < 400; ++k) scale *= 10;
    return exponent < 0 ? mantissa / scale : mantissa * scale;
  }

  bool integer_suffix(token& t, std::uint64_t v, bool overflow, std::string& why) {
    if (pos_ < s_.size() && (s_[pos_] == 'u' || s_[pos_] == 'U')) {
      ++pos_;
      if (overflow) {
        why = "integer literal out of range";
        return false;
      }
      t.kind = token_kind::uinteger;
      t.u = v;
      return true;
    }
    // A value of 2^63 is allowed only after unary minus; the parser checks.
    if (overflow || v > (std::uint64_t{1} << 63)) {
      why = "integer literal out of range";
      return false;
    }
    t.kind = token_kind::integer;
    t.u = v;
    return true;
  }

  static void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool string_literal(token& t, bool raw, std::string& why) {
    const char quote = s_[pos_];
    const bool triple = s_.substr(pos_, 3) == std::string(3, quote);
    pos_ += triple ? 3 : 1;
    std::string out;
    for (;;) {
      if (pos_ >= s_.size()) {
        why = "unterminated string";
        return false;
      }
      const char c = s_[pos_];
      if (triple ? s_.substr(pos_, 3) == std::string(3, quote) : c == quote) {
        pos_ += triple ? 3 : 1;
        break;
      }
      if (!triple && (c == '\n' || c == '\r')) {
        why = "newline in string";
        return false;
      }
      if (c != '\\' || raw) {
        out += c;
        ++pos_;
        continue;
      }
      if (pos_ + 1 >= s_.size()) {
        why = "unterminated string";
        return false;
      }
      const char e = s_[pos_ + 1];
      pos_ += 2;
      switch (e) {
        case '\\': out += '\\'; break;
        case '"': out += '"'; break;
        case '\'': out += '\''; break;
        case '`': out += '`'; break;
        case '?': out += '?'; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'v': out += '\v'; break;
        case 'x':
        case 'X':
        case 'u':
        case 'U': {
          const std::size_t n = (e == 'x' || e == 'X') ? 2 : e == 'u' ? 4 : 8;
          std::uint32_t cp = 0;
          for (std::size_t k = 0; k < n; ++k) {
            if (pos_ >= s_.size() || !is_hex(s_[pos_])) {
              why = "invalid escape sequence";
              return false;
            }
            cp = (cp << 4) | hex_value(s_[pos_++]);
          }
          if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            why = "invalid code point in escape";
            return false;
          }
          append_utf8(out, cp);
          break;
        }
        default:
          if (e >= '0' && e <= '3' && pos_ + 1 < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '7' &&
              s_[pos_ + 1] >= '0' && s_[pos_ + 1] <= '7') {
            const auto cp = static_cast<std::uint32_t>((e - '0') * 64 + (s_[pos_] - '0') * 8 +
                                                       (s_[pos_ + 1] - '0'));
            pos_ += 2;
            append_utf8(out, cp);
            break;
          }
          why = "invalid escape sequence";
          return false;
      }
    }
    t.kind = token_kind::string;
    t.text = std::move(out);
    return true;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

class parser {
 public:
  explicit parser(std::string_view s) : lex_(s) {}

  syntax_tree run() {
    advance();
    const int root = expr(0);
    if (ok() && tok_.kind != token_kind::end) fail("unexpected " + describe(tok_));
    tree_.root = root;
    return std::move(tree_);
  }

 private:
  bool ok() const noexcept { return tree_.state == syntax_tree::status::ok; }
  void fail(std::string why, bool unmodelled = false) {
    if (!ok()) return;
    tree_.state = unmodelled ? syntax_tree::status::not_modelled : syntax_tree::status::invalid;
    tree_.message = std::move(why);
  }
  static std::string describe(const token& t) {
    switch (t.kind) {
      case token_kind::end: return "end of expression";
      case token_kind::ident: return "'" + t.text + "'";
      case token_kind::punct: return "'" + t.text + "'";
      default: return "literal";
    }
  }
  void advance() {
    std::string why;
    bool unmodelled = false;
    if (!lex_.next(tok_, why, unmodelled)) {
      fail(why, unmodelled);
      tok_ = token{};
    }
  }
  bool is(std::string_view punct) const {
    return tok_.kind == token_kind::punct && tok_.text == punct;
  }
  bool expect(std::string_view punct) {
    if (!is(punct)) {
      fail("expected '" + std::string(punct) + "', found " + describe(tok_));
      return false;
    }
    advance();
    return true;
  }
  int add(node n) {
    tree_.nodes.push_back(std::move(n));
    return static_cast<int>(tree_.nodes.size() - 1);
  }
  int add_binary(binary_op op, int l, int r) {
    node n;
    n.kind = node_kind::binary;
    n.op = op;
    n.children = {l, r};
    return add(std::move(n));
  }

  // expr := or ('?' or ':' expr)?
  int expr(int depth) {
    if (depth > max_depth) {
      fail("expression nested too deeply", true);
      return -1;
    }
    const int c = logical_or(depth);
    if (!ok() || !is("?")) return c;
    advance();
    const int t = logical_or(depth);
    if (!expect(":")) return -1;
    const int f = expr(depth + 1);
    node n;
    n.kind = node_kind::conditional;
    n.children = {c, t, f};
    return add(std::move(n));
  }
  int logical_or(int depth) {
    int l = logical_and(depth);
    while (ok() && is("||")) {
      advance();
      l = add_binary(binary_op::logical_or, l, logical_and(depth));
    }
    return l;
  }
  int logical_and(int depth) {
    int l = relation(depth);
    while (ok() && is("&&")) {
      advance();
      l = add_binary(binary_op::logical_and, l, relation(depth));
    }
    return l;
  }
  int relation(int depth) {
    int l = addition(depth);
    for (;;) {
      if (!ok()) return l;
      binary_op op;
      if (is("=="))
        op = binary_op::equal;
      else if (is("!="))
        op = binary_op::not_equal;
      else if (is("<"))
        op = binary_op::less;
      else if (is("<="))
        op = binary_op::less_equal;
      else if (is(">"))
        op = binary_op::greater;
      else if (is(">="))
        op = binary_op::greater_equal;
      else if (tok_.kind == token_kind::ident && tok_.text == "in")
        op = binary_op::in;
      else
        return l;
      advance();
      l = add_binary(op, l, addition(depth));
    }
  }
  int addition(int depth) {
    int l = multiplication(depth);
    while (ok() && (is("+") || is("-"))) {
      const binary_op op = is("+") ? binary_op::add : binary_op::subtract;
      advance();
      l = add_binary(op, l, multiplication(depth));
    }
    return l;
  }
  int multiplication(int depth) {
    int l = unary(depth);
    while (ok() && (is("*") || is("/") || is("%"))) {
      const binary_op op = is("*")   ? binary_op::multiply
                           : is("/") ? binary_op::divide
                                     : binary_op::modulo;
      advance();
      l = add_binary(op, l, unary(depth));
    }
    return l;
  }
  int unary(int depth) {
    if (is("!")) {
      advance();
      node n;
      n.kind = node_kind::logical_not;
      n.children = {unary(depth + 1)};
      return add(std::move(n));
    }
    if (is("-")) {
      advance();
      // A negative integer literal (so that -9223372036854775808 is valid).
      if (tok_.kind == token_kind::integer) {
        node n;
        n.kind = node_kind::integer;
        n.i = tok_.u == (std::uint64_t{1} << 63) ? INT64_MIN : -static_cast<std::int64_t>(tok_.u);
        advance();
        return member_suffix(add(std::move(n)), depth);
      }
      node n;
      n.kind = node_kind::negate;
      n.children = {unary(depth + 1)};
      return add(std::move(n));
    }
    return member_suffix(primary(depth), depth);
  }

  std::vector<int> arguments(int depth, std::string_view close) {
    std::vector<int> args;
    if (is(close)) {
      advance();
      return args;
    }
    for (;;) {
      args.push_back(expr(depth + 1));
      if (!ok()) return args;
      if (is(",")) {
        advance();
        if (is(close)) break;  // trailing comma
        continue;
      }
      break;
    }
    expect(close);
    return args;
  }

  int member_suffix(int operand, int depth) {
    while (ok()) {
      if (is(".")) {
        advance();
        if (tok_.kind != token_kind::ident) {
          fail("expected a field or method name, found " + describe(tok_));
          return -1;
        }
        std::string name = tok_.text;
        advance();
        if (is("(")) {
          advance();
          node n;
          n.kind = node_kind::call;
          n.member = true;
          n.text = std::move(name);
          n.children.push_back(operand);
          for (int a : arguments(depth, ")")) n.children.push_back(a);
          if (is_comprehension(n.text)) {
            fail("the " + n.text + "() macro", true);
            return -1;
          }
          operand = add(std::move(n));
        } else {
          node n;
          n.kind = node_kind::select;
          n.text = std::move(name);
          n.children = {operand};
          operand = add(std::move(n));
        }
      } else if (is("[")) {
        advance();
        node n;
        n.kind = node_kind::index;
        n.children = {operand, expr(depth + 1)};
        expect("]");
        operand = add(std::move(n));
      } else if (is("{")) {
        fail("message construction", true);
        return -1;
      } else {
        return operand;
      }
    }
    return operand;
  }

  static bool is_comprehension(std::string_view name) {
    return name == "all" || name == "exists" || name == "exists_one" || name == "map" ||
           name == "filter" || name == "transformList" || name == "transformMap" ||
           name == "transformMapEntry" || name == "sortBy";
  }

  int primary(int depth) {
    if (!ok()) return -1;
    node n;
    switch (tok_.kind) {
      case token_kind::end: fail("unexpected end of expression"); return -1;
      case token_kind::integer:
        if (tok_.u == (std::uint64_t{1} << 63)) {
          fail("integer literal out of range");
          return -1;
        }
        n.kind = node_kind::integer;
        n.i = static_cast<std::int64_t>(tok_.u);
        advance();
        return add(std::move(n));
      case token_kind::uinteger:
        n.kind = node_kind::uinteger;
        n.u = tok_.u;
        advance();
        return add(std::move(n));
      case token_kind::real:
        n.kind = node_kind::real;
        n.d = tok_.d;
        advance();
        return add(std::move(n));
      case token_kind::string:
        n.kind = node_kind::string;
        n.text = tok_.text;
        advance();
        return add(std::move(n));
      case token_kind::bytes: fail("bytes literals", true); return -1;
      case token_kind::ident: return identifier(depth);
      case token_kind::punct: break;
    }
    if (is("(")) {
      advance();
      const int e = expr(depth + 1);
      expect(")");
      return e;
    }
    if (is("[")) {
      advance();
      n.kind = node_kind::list;
      n.children = arguments(depth, "]");
      return add(std::move(n));
    }
    if (is("{")) {
      fail("map literals", true);
      return -1;
    }
    if (is(".")) {
      fail("a leading '.' in an identifier", true);
      return -1;
    }
    fail("unexpected " + describe(tok_));
    return -1;
  }

  int identifier(int depth) {
    std::string name = tok_.text;
    advance();
    node n;
    if (name == "true" || name == "false") {
      n.kind = node_kind::boolean;
      n.flag = name == "true";
      return add(std::move(n));
    }
    if (name == "null") {
      n.kind = node_kind::null;
      return add(std::move(n));
    }
    static constexpr std::string_view reserved[] = {
        "as",  "break", "const",   "continue",  "else",   "for", "function", "if",    "import",
        "let", "loop",  "package", "namespace", "return", "var", "void",     "while", "in"};
    for (std::string_view r : reserved)
      if (name == r) {
        fail("reserved word '" + name + "'");
        return -1;
      }
    if (name == "cel" && is(".")) return cel_namespace(depth);
    if (!is("(")) {
      n.kind = node_kind::ident;
      n.text = std::move(name);
      return add(std::move(n));
    }
    advance();
    std::vector<int> args = arguments(depth, ")");
    if (!ok()) return -1;
    if (name == "has") {
      if (args.size() != 1 ||
          tree_.nodes[static_cast<std::size_t>(args[0])].kind != node_kind::select) {
        fail("invalid argument to has() macro");
        return -1;
      }
      tree_.nodes[static_cast<std::size_t>(args[0])].test_only = true;
      return args[0];
    }
    n.kind = node_kind::call;
    n.text = std::move(name);
    n.children = std::move(args);
    return add(std::move(n));
  }

  // cel.bind(name, init, body); other cel.* functions are not modelled.
  int cel_namespace(int depth) {
    advance();  // .
    if (tok_.kind != token_kind::ident || tok_.text != "bind") {
      fail("the cel." + (tok_.kind == token_kind::ident ? tok_.text : std::string("?")) +
               " function",
           true);
      return -1;
    }
    advance();
    if (!expect("(")) return -1;
    std::vector<int> args = arguments(depth, ")");
    if (!ok()) return -1;
    if (args.size() != 3 ||
        tree_.nodes[static_cast<std::size_t>(args[0])].kind != node_kind::ident) {
      fail("cel.bind() needs a variable name, an initializer and an expression");
      return -1;
    }
    node n;
    n.kind = node_kind::bind;
    n.text = tree_.nodes[static_cast<std::size_t>(args[0])].text;
    n.children = {args[1], args[2]};
    return add(std::move(n));
  }

  lexer lex_;
  token tok_;
  syntax_tree tree_;
};

}  // namespace detail

inline syntax_tree parse(std::string_view expression) { return detail::parser(expression).run(); }

}  // namespace kubernetes::dra::cel
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_DRA_CEL_SYNTAX_HPP
