// preempt/kubernetes/dra/regex.hpp - the subset of RE2 that CEL's `matches` needs in device
// selectors: does the pattern match anywhere in the text (RE2's partial match)?
//
// Modelled: literals, `.` (any character but newline), escapes of punctuation, `\d \D \w \W \s
// \S`, `\t \n \r \f \v`, bracket classes with ranges and negation (`[a-z0-9_-]`, `[^/]`, those
// escapes inside), `^` and `$` (start and end of the text), groups `(...)` and `(?:...)`,
// alternation `|`, and the quantifiers `* + ? {n} {n,} {n,m}` with their lazy forms. Whether a
// match exists does not depend on greediness, so a backtracking search answers as RE2 does.
// The text is read as UTF-8, a character at a time, as RE2 does.
// Anything else (flags such as `(?i)`, `\b`, `\p{..}`, `[[:alpha:]]`, named groups) compiles to
// `not_modelled` with the construct named, and a pattern RE2 rejects is `invalid`, never a
// guess. A search of more than `step_limit` steps reports `not_modelled` as well.
//
// Complexity: compile O(pattern); match O(steps), bounded. Allocation: the compiled pattern.
// No exceptions; a compiled regex is read-only and thread-safe.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_DRA_REGEX_HPP
#define PREEMPT_KUBERNETES_DRA_REGEX_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes::dra {

class regex {
 public:
  enum class status : std::uint8_t { ok, invalid, not_modelled };
  enum class match_result : std::uint8_t { match, no_match, too_long };

  static constexpr std::size_t step_limit = 1'000'000;

  static regex compile(std::string_view pattern) {
    regex r;
    parser p{pattern, 0, &r};
    const int root = p.alternation();
    if (r.status_ == status::ok && p.pos != pattern.size()) {
      r.fail(pattern[p.pos] == ')' ? status::invalid : status::not_modelled,
             pattern[p.pos] == ')' ? "unexpected )" : "unsupported syntax");
    }
    r.root_ = root;
    return r;
  }

  status state() const noexcept { return status_; }
  const std::string& message() const noexcept { return message_; }

  // Whether the pattern matches somewhere in `text` (state() must be ok).
  match_result search(std::string_view text) const {
    search_state s{text};
    const auto done = [](std::size_t) { return true; };
    for (std::size_t start = 0;;) {
      if (match_node(root_, s, start, next(done))) return match_result::match;
      if (s.exhausted) return match_result::too_long;
      if (start >= text.size()) return match_result::no_match;
      start += char_length(text, start);
    }
  }

 private:
  enum class kind : std::uint8_t { empty, chars, start, end, concat, alternate, repeat };
  struct range {
    char32_t lo, hi;
  };
  struct node {
    kind k = kind::empty;
    std::vector<range> ranges;  // chars
    bool negated = false;       // chars
    std::vector<int> children;  // concat, alternate; repeat: one
    int min = 0, max = -1;      // repeat; max -1: unbounded
  };

  std::vector<node> nodes_;
  int root_ = 0;
  status status_ = status::ok;
  std::string message_;

  void fail(status s, std::string why) {
    if (status_ != status::ok) return;
    status_ = s;
    message_ = std::move(why);
  }
  int add(node n) {
    nodes_.push_back(std::move(n));
    return static_cast<int>(nodes_.size() - 1);
  }

  static std::size_t char_length(std::string_view s, std::size_t i) noexcept {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    return i + n <= s.size() ? n : 1;
  }
  static char32_t decode(std::string_view s, std::size_t i, std::size_t n) noexcept {
    const auto c = static_cast<unsigned char>(s[i]);
    if (n == 1) return c;
    char32_t v = n == 2 ? (c & 0x1Fu) : n == 3 ? (c & 0x0Fu) : (c & 0x07u);
    for (std::size_t k = 1; k < n; ++k)
      v = (v << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
    return v;
  }

  struct parser {
    std::string_view p;
    std::size_t pos;
    regex* r;

    bool at_end() const { return pos >= p.size(); }

    int alternation() {
      std::vector<int> alts{concatenation()};
      while (!at_end() && p[pos] == '|') {
        ++pos;
        alts.push_back(concatenation());
      }
      if (alts.size() == 1) return alts.front();
      node n;
      n.k = kind::alternate;
      n.children = std::move(alts);
      return r->add(std::move(n));
    }

    int concatenation() {
      node n;
      n.k = kind::concat;
      while (!at_end() && p[pos] != '|' && p[pos] != ')' && r->status_ == status::ok)
        n.children.push_back(repetition());
      return r->add(std::move(n));
    }

    int repetition() {
      int atom_index = atom();
      bool quantified = false;
      while (!at_end() && r->status_ == status::ok) {
        int min = 0, max = -1;
        const char c = p[pos];
        if (c == '*') {
          ++pos;
        } else if (c == '+') {
          min = 1;
          ++pos;
        } else if (c == '?') {
          max = 1;
          ++pos;
        } else if (c == '{' && counted(min, max)) {
        } else {
          break;
        }
        if (quantified) {
          r->fail(status::invalid, "bad repetition operator");
          break;
        }
        if (!at_end() && p[pos] == '?') ++pos;  // lazy: the same matches exist
        const kind ak = r->nodes_[static_cast<std::size_t>(atom_index)].k;
        if (ak == kind::start || ak == kind::end) {
          r->fail(status::not_modelled, "repetition of an anchor");
          break;
        }
        if (max > 1000 || min > 1000) {
          r->fail(status::invalid, "bad repetition operator");
          break;
        }
        node n;
        n.k = kind::repeat;
        n.children.push_back(atom_index);
        n.min = min;
        n.max = max;
        atom_index = r->add(std::move(n));
        quantified = true;
      }
      return atom_index;
    }

    // {n}, {n,}, {n,m}: RE2 reads a brace that does not form one as a literal.
    bool counted(int& min, int& max) {
      std::size_t i = pos + 1;
      const auto number = [&](int& out) {
        const std::size_t b = i;
        long v = 0;
        while (i < p.size() && p[i] >= '0' && p[i] <= '9' && v <= 100000)
          v = v * 10 + (p[i++] - '0');
        out = static_cast<int>(v);
        return i > b;
      };
      if (!number(min)) return false;
      if (i < p.size() && p[i] == '}') {
        max = min;
      } else if (i < p.size() && p[i] == ',') {
        ++i;
        if (i < p.size() && p[i] == '}') {
          max = -1;
        } else if (!number(max) || i >= p.size() || p[i] != '}') {
          return false;
        }
      } else {
        return false;
      }
      if (max != -1 && max < min) {
        r->fail(status::invalid, "bad repetition operator");
        return false;
      }
      pos = i + 1;
      return true;
    }

    int chars(std::vector<range> ranges, bool negated) {
      node n;
      n.k = kind::chars;
      n.ranges = std::move(ranges);
      n.negated = negated;
      return r->add(std::move(n));
    }

    // \d \w \s and their negations as ranges; false for another escape.
    static bool perl_class(char c, std::vector<range>& out, bool& negated) {
      negated = c == 'D' || c == 'W' || c == 'S';
      switch (c) {
        case 'd':
        case 'D': out = {{U'0', U'9'}}; return true;
        case 'w':
        case 'W': out = {{U'0', U'9'}, {U'A', U'Z'}, {U'_', U'_'}, {U'a', U'z'}}; return true;
        case 's':
        case 'S': out = {{U'\t', U'\n'}, {U'\f', U'\r'}, {U' ', U' '}}; return true;
        default: return false;
      }
    }

    // A single escaped character (after the backslash), or -1.
    long escaped_char(char c) {
      switch (c) {
        case 't': return '\t';
        case 'n': return '\n';
        case 'r': return '\r';
        case 'f': return '\f';
        case 'v': return '\v';
        default: break;
      }
      const bool punct = (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) ||
                         (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
      if (punct) return static_cast<unsigned char>(c);
      return -1;
    }

    char32_t next_char() {
      const std::size_t n = char_length(p, pos);
      const char32_t c = decode(p, pos, n);
      pos += n;
      return c;
    }

    int atom() {
      const char c = p[pos];
      switch (c) {
        case '(': {
          ++pos;
          if (p.substr(pos, 2) == "?:") {
            pos += 2;
          } else if (!at_end() && p[pos] == '?') {
            r->fail(status::not_modelled, "group flags or named groups");
            return r->add(node{});
          }
          const int inner = alternation();
          if (at_end() || p[pos] != ')') {
            r->fail(status::invalid, "missing )");
            return inner;
          }
          ++pos;
          return inner;
        }
        case '*':
        case '+':
        case '?': r->fail(status::invalid, "missing argument to repetition operator"); return 0;
        case '.': ++pos; return chars({{U'\n', U'\n'}}, true);
        case '^': ++pos; return r->add(node{kind::start, {}, false, {}, 0, -1});
        case '$': ++pos; return r->add(node{kind::end, {}, false, {}, 0, -1});
        case '[': return bracket();
        case '\\': {
          if (pos + 1 >= p.size()) {
            r->fail(status::invalid, "trailing \\");
            return 0;
          }
          const char e = p[pos + 1];
          pos += 2;
          std::vector<range> ranges;
          bool negated = false;
          if (perl_class(e, ranges, negated)) return chars(std::move(ranges), negated);
          const long ch = escaped_char(e);
          if (ch < 0) {
            r->fail(status::not_modelled, std::string("escape \\") + e);
            return 0;
          }
          return chars({{static_cast<char32_t>(ch), static_cast<char32_t>(ch)}}, false);
        }
        default: {
          const char32_t ch = next_char();
          return chars({{ch, ch}}, false);
        }
      }
    }

    int bracket() {
      ++pos;  // [
      bool negated = false;
      if (!at_end() && p[pos] == '^') {
        negated = true;
        ++pos;
      }
      std::vector<range> ranges;
      bool first = true;
      while (!at_end() && (p[pos] != ']' || first)) {
        first = false;
        if (p.substr(pos, 2) == "[:") {
          r->fail(status::not_modelled, "POSIX character classes");
          return 0;
        }
        char32_t lo = 0;
        if (!one(lo, ranges)) {
          if (r->status_ != status::ok) return 0;
          continue;  // a class escape, added
        }
        char32_t hi = lo;
        if (pos + 1 < p.size() && p[pos] == '-' && p[pos + 1] != ']') {
          ++pos;
          std::vector<range> unused;
          if (!one(hi, unused)) {
            if (r->status_ == status::ok) r->fail(status::invalid, "bad character class range");
            return 0;
          }
          if (hi < lo) {
            r->fail(status::invalid, "bad character class range");
            return 0;
          }
        }
        ranges.push_back({lo, hi});
      }
      if (at_end()) {
        r->fail(status::invalid, "missing ]");
        return 0;
      }
      ++pos;  // ]
      return chars(std::move(ranges), negated);
    }

    // One class member: a character (true, in `c`) or a class escape added to `ranges` (false).
    bool one(char32_t& c, std::vector<range>& ranges) {
      if (p[pos] != '\\') {
        c = next_char();
        return true;
      }
      if (pos + 1 >= p.size()) {
        r->fail(status::invalid, "trailing \\");
        return false;
      }
      const char e = p[pos + 1];
      pos += 2;
      std::vector<range> cls;
      bool negated = false;
      if (perl_class(e, cls, negated)) {
        if (negated) {
          r->fail(status::not_modelled, "negated class escape in brackets");
          return false;
        }
        ranges.insert(ranges.end(), cls.begin(), cls.end());
        return false;
      }
      const long ch = escaped_char(e);
      if (ch < 0) {
        r->fail(status::not_modelled, std::string("escape \\") + e);
        return false;
      }
      c = static_cast<char32_t>(ch);
      return true;
    }
  };

  bool char_matches(const node& n, char32_t c) const noexcept {
    bool in = false;
    for (const range& rg : n.ranges)
      if (c >= rg.lo && c <= rg.hi) in = true;
    return in != n.negated;
  }

  // A continuation: what must match after a node, given where the node ended.
  class next {
   public:
    template <class F>
    explicit next(const F& f) noexcept
        : f_(&f),
          call_([](const void* g, std::size_t end) { return (*static_cast<const F*>(g))(end); }) {}
    bool operator()(std::size_t end) const { return call_(f_, end); }

   private:
    const void* f_;
    bool (*call_)(const void*, std::size_t);
  };

  struct search_state {
    std::string_view text;
    std::size_t steps = 0;
    bool exhausted = false;
  };

  // Matches node i at text[at], then calls k(end) for each way it can end, until k succeeds.
  bool match_node(int i, search_state& s, std::size_t at, const next& k) const {
    if (++s.steps > step_limit) s.exhausted = true;
    if (s.exhausted) return false;
    const node& n = nodes_[static_cast<std::size_t>(i)];
    const std::string_view t = s.text;
    switch (n.k) {
      case kind::empty: return k(at);
      case kind::start: return at == 0 && k(at);
      case kind::end: return at == t.size() && k(at);
      case kind::chars: {
        if (at >= t.size()) return false;
        const std::size_t len = char_length(t, at);
        return char_matches(n, decode(t, at, len)) && k(at + len);
      }
      case kind::alternate:
        for (int c : n.children)
          if (match_node(c, s, at, k)) return true;
        return false;
      case kind::concat: return match_sequence(n, 0, s, at, k);
      case kind::repeat: return match_repeat(n, 0, s, at, static_cast<std::size_t>(-1), k);
    }
    return false;
  }

  bool match_sequence(const node& n, std::size_t j, search_state& s, std::size_t at,
                      const next& k) const {
    if (j == n.children.size()) return k(at);
    const auto rest = [&](std::size_t end) { return match_sequence(n, j + 1, s, end, k); };
    return match_node(n.children[j], s, at, next(rest));
  }

  // `count` repetitions done; `last` where the previous one started (an empty repetition ends).
  bool match_repeat(const node& n, int count, search_state& s, std::size_t at, std::size_t last,
                    const next& k) const {
    if (s.exhausted) return false;
    if ((n.max == -1 || count < n.max) && (at != last || count < n.min)) {
      const auto again = [&](std::size_t end) {
        if (end == at && count >= n.min) return false;  // an empty repetition adds nothing
        return match_repeat(n, count + 1, s, end, at, k);
      };
      if (match_node(n.children.front(), s, at, next(again))) return true;
    }
    return count >= n.min && k(at);
  }
};

}  // namespace kubernetes::dra
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_DRA_REGEX_HPP
