// examples/whatif/io/loader.cpp - inputs → documents → objects → cluster_dump (see loader.hpp); the
// objects themselves are decoded by kinds.cpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "io/loader.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <ctime>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "decode/decoder.hpp"
#include "decode/kinds.hpp"
#include "io/json_error.hpp"
#include "io/json_stream.hpp"
#include "io/sniff.hpp"
#include "io/yaml_json.hpp"
#include "output/one_line.hpp"

namespace whatif {

namespace dom = simdjson::dom;
using decode::type_name;

namespace {

// ---- Text encoding ---------------------------------------------------------------------------

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

// The UTF-8 text of a source: its bytes without a UTF-8 byte-order mark, or their conversion
// from UTF-16 into `converted`. UTF-16 is recognized by its byte-order mark, or, without one, by
// the zero bytes of ASCII text (RFC 4627's rule).
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

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_space(std::string_view text, std::size_t pos) {
  while (pos < text.size() && is_space(text[pos])) ++pos;
  return pos;
}

// JSON when the text starts with '{' or '[' (or is empty: the JSON path names that); YAML else.
bool is_json(std::string_view text) {
  const std::size_t pos = skip_space(text, 0);
  return pos == text.size() || text[pos] == '{' || text[pos] == '[';
}

// After a document of `kubectl cluster-info dump`: the container logs it writes between the
// JSON documents, from "==== START logs for container C of pod NS/P ====" to the matching END
// line. Returns where the next document may start.
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

// ---- Documents ------------------------------------------------------------------------------

std::string malformed_json(const source& src, std::string_view text,
                           std::optional<json_error> located, simdjson::error_code code) {
  std::string m = src.name + ": malformed JSON";
  if (located) {
    m += " at ";
    m += format_json_error(text, *located);
    // kubectl's standard error written into the dump between its lines (`2>&1`).
    const std::size_t at = std::min(located->offset, text.size());
    const std::size_t begin = text.rfind('\n', at == 0 ? 0 : at - 1);
    std::string_view line = text.substr(begin == std::string_view::npos ? 0 : begin + 1);
    line = line.substr(0, line.find('\n'));
    if (is_kubectl_message(line))
      m += " (the line there is kubectl's standard error: write it elsewhere, `kubectl get ... "
           "2>/dev/null`)";
  } else {
    m += ": ";
    m += simdjson::error_message(code);
  }
  return one_line(m);
}

bool can_start_value(char c) {
  return c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' ||
         c == 'f' || c == 'n';
}

}  // namespace

namespace {

// Walks one document: lists (nested too) down to their objects.
class document_walker {
 public:
  document_walker(const source& src, std::string_view fallback_kind, detail::object_visitor& visit)
      : src_(src), fallback_kind_(fallback_kind), visit_(visit) {}

  // `label` names the document when the input holds several ("document 2"), else "".
  std::optional<load_error> walk_document(dom::element root, const std::string& label) {
    dom::array a;
    if (root.get_array().get(a) == simdjson::SUCCESS) {
      std::size_t i = 0;
      for (dom::element e : a)
        if (auto err = walk(e, "", child(label, index_step("", i++)))) return err;
      return std::nullopt;
    }
    if (!root.is_object())
      return load_error{src_.name + ": " + (label.empty() ? "" : label + ": ") +
                        "expected a Kubernetes object or List, found " +
                        std::string(type_name(root.type()))};
    return walk(root, "", label);
  }

  // One value of a document read piece by piece: an item of a top-level list or array.
  std::optional<load_error> walk_item(dom::element v, std::string_view implied_kind,
                                      std::string position) {
    return walk(v, implied_kind, std::move(position));
  }

  // "items[2]", "items[2].items[0]", "document 2, items[2]".
  static std::string child(const std::string& position, const std::string& step) {
    if (position.empty()) return step;
    return position + (position.back() == ']' ? "." : ", ") + step;
  }

  static std::string index_step(std::string_view name, std::size_t i) {
    std::string s(name);
    s += '[';
    s += std::to_string(i);
    s += ']';
    return s;
  }

 private:
  std::string where(const std::string& position) const {
    return src_.name + ": " + (position.empty() ? std::string("document") : position);
  }

  std::optional<load_error> walk(dom::element v, std::string_view implied_kind,
                                 std::string position) {
    dom::object obj;
    if (v.get_object().get(obj) != simdjson::SUCCESS)
      return load_error{where(position) + ": expected a Kubernetes object, found " +
                        std::string(type_name(v.type()))};
    std::string_view kind;
    dom::element items;
    bool has_items = false;
    for (dom::key_value_pair kv : obj) {  // the last of a repeated key wins
      if (kv.key == "kind") {
        if (kv.value.is_null()) {
          kind = {};
        } else if (kv.value.get_string().get(kind) != simdjson::SUCCESS) {
          return load_error{where(position) + ": kind: expected a string, found " +
                            std::string(type_name(kv.value.type()))};
        }
      } else if (kv.key == "items") {
        items = kv.value;
        has_items = true;
      }
    }
    if (kind.empty()) kind = !implied_kind.empty() ? implied_kind : fallback_kind_;
    if (kind.empty()) return load_error{where(position) + ": kind: missing"};
    constexpr std::string_view list_suffix = "List";
    if (kind.size() < list_suffix.size() ||
        kind.substr(kind.size() - list_suffix.size()) != list_suffix)
      return visit_.object(kind, v, position);
    // A List (items carry their kind) or a <Kind>List (items may leave it out).
    if (!has_items || items.is_null()) return std::nullopt;
    dom::array a;
    if (items.get_array().get(a) != simdjson::SUCCESS)
      return load_error{src_.name + ": " + (position.empty() ? "" : position + ": ") + clip(kind) +
                        ": items: expected an array, found " +
                        std::string(type_name(items.type()))};
    const std::string_view item_kind = kind.substr(0, kind.size() - list_suffix.size());
    std::size_t i = 0;
    for (dom::element e : a)
      if (auto err = walk(e, item_kind, child(position, index_step("items", i++)))) return err;
    return std::nullopt;
  }

  const source& src_;
  std::string_view fallback_kind_;
  detail::object_visitor& visit_;
};

}  // namespace

namespace {

using steady = std::chrono::steady_clock;

// The items of a List in a mapped file, delimited and parsed ahead on a second thread while the
// caller decodes them. The second thread delimits a few items ahead of the parsing and parses the
// oldest delimited item no one has taken; the caller, when the item it wants is not parsed yet,
// parses the oldest delimited item itself instead of waiting. So the scanning, simdjson and the
// decoding share two cores, whichever of them takes longer. A ring of parsers, one per item in
// flight, each item's DOM kept until the caller takes the next. The thread stops delimiting at the
// first item it cannot delimit or that is not followed by ',' (the caller reads on from there by
// itself, with its messages), or when the caller is done.
class item_prefetcher {
 public:
  struct item {
    std::size_t begin = 0, size = 0;  // offsets into the text
    simdjson::error_code error = simdjson::SUCCESS;
    dom::element root;
  };

  // `text`: from the first item on to the end of the input, with simdjson's padding readable.
  // The second thread's processor time (scanning and parsing), and the wall time of the parses
  // the caller makes, are added to `cpu_seconds` when it ends.
  item_prefetcher(std::string_view text, double& cpu_seconds)
      : text_(text), cpu_seconds_(cpu_seconds), thread_([this] { run(); }) {}
  item_prefetcher(const item_prefetcher&) = delete;
  item_prefetcher& operator=(const item_prefetcher&) = delete;
  ~item_prefetcher() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
    cpu_seconds_ += thread_cpu_ + caller_parse_seconds_;
  }

  // The next item, or nullptr when the thread stopped before it. Valid until the next call.
  const item* next() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (taken_) {
      ++consumed_;  // the previous item's parser is free again
      // The thread, waiting for free parsers, is woken once a batch is free: a thread switch per
      // item would cost more than the item.
      if (producer_waits_ && delimited_ - consumed_ + batch <= slots) changed_.notify_all();
    }
    taken_ = false;
    const std::size_t want = consumed_;
    while (!(want < delimited_ && slots_[want % slots].parsed)) {
      if (next_claim_ < delimited_) {
        // The item wanted, or a later one: parse it here rather than wait.
        const std::size_t k = next_claim_++;
        lock.unlock();
        const auto t0 = steady_clock::now();
        parse(k);
        caller_parse_seconds_ += std::chrono::duration<double>(steady_clock::now() - t0).count();
        lock.lock();
        slots_[k % slots].parsed = true;
        continue;
      }
      if (want >= delimited_ && scan_done_) return nullptr;
      consumer_waits_ = true;
      changed_.wait(lock);
      consumer_waits_ = false;
    }
    taken_ = true;
    return &slots_[want % slots].it;
  }

 private:
  using steady_clock = std::chrono::steady_clock;
  // Items in flight (delimited, not yet released by the caller), and how many the thread
  // delimits ahead of the oldest one not yet being parsed.
  static constexpr std::size_t slots = 64, lead = 8, batch = 16;
  struct slot {
    dom::parser parser;
    item it;
    bool parsed = false;
  };

  std::size_t skip(std::size_t p) const {
    while (p < text_.size() && is_space(text_[p])) ++p;
    return p;
  }

  void parse(std::size_t k) {
    slot& s = slots_[k % slots];
    s.it.error = s.parser.parse(text_.data() + s.it.begin, s.it.size, false).get(s.it.root);
  }

  void run() {
    std::size_t p = skip(0);
    bool scanning = true;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (stop_) break;
      const bool room = scanning && delimited_ - consumed_ < slots;
      if (room && delimited_ - next_claim_ < lead) {
        // Delimit the next item, outside the lock (its slot is free: no one reads it).
        const std::size_t k = delimited_;
        lock.unlock();
        const std::size_t n = p < text_.size() ? find_value_end(text_.substr(p)) : 0;
        bool ok = n != std::string_view::npos && n != 0;
        if (ok) {
          slot& s = slots_[k % slots];
          s.it.begin = p;
          s.it.size = n;
          s.parsed = false;
          p = skip(p + n);
          if (p < text_.size() && text_[p] == ',')
            p = skip(p + 1);
          else
            scanning = false;  // the last item, or the caller's own path reads on
        } else {
          scanning = false;
        }
        lock.lock();
        if (ok) ++delimited_;
        if (!scanning) scan_done_ = true;
        if (consumer_waits_) changed_.notify_all();
        continue;
      }
      if (next_claim_ < delimited_) {
        const std::size_t k = next_claim_++;
        lock.unlock();
        parse(k);
        lock.lock();
        slots_[k % slots].parsed = true;
        if (consumer_waits_ && k == consumed_) changed_.notify_all();
        continue;
      }
      if (!room && !scanning) break;  // everything delimited is parsed: nothing left to do
      producer_waits_ = true;
      changed_.wait(lock);
      producer_waits_ = false;
    }
    lock.unlock();
    timespec t{};
    if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0)
      thread_cpu_ = static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
  }

  std::string_view text_;
  double& cpu_seconds_;
  double thread_cpu_ = 0, caller_parse_seconds_ = 0;
  std::array<slot, slots> slots_;
  std::mutex mutex_;
  std::condition_variable changed_;
  // Items [0, delimited_) are delimited; those before next_claim_ are parsed or being parsed;
  // those before consumed_ are released by the caller (their slots free again).
  std::size_t delimited_ = 0, next_claim_ = 0, consumed_ = 0;
  bool taken_ = false, stop_ = false, scan_done_ = false;
  bool consumer_waits_ = false, producer_waits_ = false;
  std::thread thread_;  // last: starts once the rest is built
};

// A JSON input read a window at a time (json_stream.hpp): the documents one after the other,
// a top-level array's values and a List's items each parsed on their own, every other value of
// a List (apiVersion, kind, metadata) parsed to check it. Shapes that need a document whole are
// left to the caller, with `unusual` saying why: a single object larger than the window, `items`
// of an object that is no List, a repeated `items`, and items without `kind` before the list's
// `kind` (kubectl and the API server write it before them or give every item its own).
class stream_reader {
 public:
  stream_reader(stream_window& w, dom::parser& parser, document_walker& walker,
                double& parse_seconds, std::size_t start, cluster_dump& dump)
      : w_(w),
        parser_(parser),
        walker_(walker),
        parse_seconds_(parse_seconds),
        pos_(start),
        dump_(dump) {}

  std::string unusual;

  std::optional<load_error> run() {
    for (std::size_t doc = 0;; ++doc) {
      bool have = false;
      if (auto e = skip_space(have)) return e;
      if (doc > 0 && have) {
        if (auto e = skip_logs()) return e;
        if (auto e = skip_space(have)) return e;
      }
      if (!have) return std::nullopt;
      const char c = w_.data()[pos_];
      if (c != '{' && c != '[') return malformed(pos_, "unexpected text after the JSON value");
      const std::string label = doc > 0 ? "document " + std::to_string(doc + 1) : "";
      if (auto e = c == '[' ? array_document(label) : object_document(label)) return e;
      if (!unusual.empty()) return std::nullopt;
    }
  }

 private:
  const char* at() const { return w_.data() + pos_; }

  std::string name() const { return w_.name(); }

  load_error malformed(std::size_t pos, std::string_view what) const {
    return load_error{one_line(name() + ": malformed JSON at byte " +
                               std::to_string(w_.offset(pos)) + ": " + std::string(what))};
  }

  // Reads on (keeping the bytes from pos_) until `n` bytes from pos_ are in, or the input ends.
  std::optional<load_error> want(std::size_t n) {
    while (w_.size() - pos_ < n && !w_.at_end()) {
      if (auto e = w_.refill(pos_)) return e;
      pos_ = 0;
    }
    return std::nullopt;
  }

  std::optional<load_error> skip_space(bool& have) {
    for (;;) {
      while (pos_ < w_.size() && is_space(w_.data()[pos_])) ++pos_;
      if (pos_ < w_.size() || w_.at_end()) {
        have = pos_ < w_.size();
        return std::nullopt;
      }
      if (auto e = want(1)) return e;
    }
  }

  // After a document: the container logs of `kubectl cluster-info dump` (see skip_container_logs).
  std::optional<load_error> skip_logs() {
    constexpr std::string_view start = "==== START logs for ";
    constexpr std::string_view end = "==== END logs for ";
    for (;;) {
      bool have = false;
      if (auto e = skip_space(have)) return e;
      if (!have) return std::nullopt;
      if (auto e = want(start.size())) return e;
      if (w_.view(pos_).substr(0, start.size()) != start) return std::nullopt;
      std::size_t eol = std::string_view::npos;
      while ((eol = w_.view(pos_).find('\n')) == std::string_view::npos && !w_.at_end())
        if (auto e = want(w_.size() - pos_ + 1)) return e;
      if (eol == std::string_view::npos) {
        pos_ = w_.size();
        return std::nullopt;
      }
      const std::string closing =
          "\n" + std::string(end) +
          std::string(w_.view(pos_).substr(start.size(), eol - start.size()));
      pos_ += eol;
      for (;;) {
        const std::size_t found = w_.view(pos_).find(closing);
        if (found != std::string_view::npos) {
          pos_ += found + closing.size();
          break;
        }
        if (w_.at_end()) {
          pos_ = w_.size();
          return std::nullopt;
        }
        // Keep what could be the start of the closing line.
        pos_ = w_.size() - std::min(w_.size() - pos_, closing.size());
        if (auto e = want(w_.size() - pos_ + 1)) return e;
      }
    }
  }

  // The end of the value at pos_ (reading on as needed).
  std::optional<load_error> value_end(const std::string& position, std::size_t& end) {
    for (;;) {
      end = find_value_end(w_.view(pos_));
      if (end != std::string_view::npos) return std::nullopt;
      if (w_.at_end()) {
        const char c = *at();
        if (c != '{' && c != '[' && c != '"') {
          end = w_.size() - pos_;
          return std::nullopt;
        }
        return load_error{name() + ": " + (position.empty() ? "document" : position) +
                          ": the input ends inside this value (at byte " +
                          std::to_string(w_.offset(w_.size())) + "): truncated?"};
      }
      if (auto e = want(w_.size() - pos_ + 1)) return e;
    }
  }

  // Parses the value [pos_, pos_ + n).
  std::optional<load_error> parse(std::size_t n, const std::string& position, dom::element& v) {
    const auto t0 = steady::now();
    const auto err = parser_.parse(at(), n, false).get(v);
    parse_seconds_ += std::chrono::duration<double>(steady::now() - t0).count();
    if (err == simdjson::SUCCESS) return std::nullopt;
    const std::string_view text(at(), n);
    const json_value_scan scan = scan_json_value(text);
    std::string m = name() + ": " + (position.empty() ? "document" : position) + ": malformed JSON";
    if (scan.error)
      m += " at byte " + std::to_string(w_.offset(pos_ + scan.error->offset)) + ": " +
           std::string(scan.error->what);
    else
      m += std::string(": ") + simdjson::error_message(err);
    return load_error{one_line(m)};
  }

  // Expects `c` at pos_ (after whitespace) and steps over it.
  std::optional<load_error> expect(char c, std::string_view what) {
    bool have = false;
    if (auto e = skip_space(have)) return e;
    if (!have)
      return load_error{name() + ": malformed JSON at byte " + std::to_string(w_.offset(pos_)) +
                        ": the input ends where " + std::string(what) + " was expected"};
    if (*at() != c) return malformed(pos_, "expected " + std::string(what));
    ++pos_;
    return std::nullopt;
  }

  // Steps to element i of an array whose '[' is behind: over the ',' after element i - 1, or
  // the closing ']' (then `more` is false). `inside` and `after` name the array and its
  // elements in messages.
  std::optional<load_error> next_element(std::size_t i, std::string_view inside,
                                         std::string_view after, bool& more) {
    more = false;
    bool have = false;
    if (i > 0) {
      if (auto e = skip_space(have)) return e;
      if (!have) return malformed(pos_, "the input ends inside " + std::string(inside));
      if (*at() == ']') {
        ++pos_;
        return std::nullopt;
      }
      if (*at() != ',') return malformed(pos_, "expected ',' or ']' after " + std::string(after));
      ++pos_;
    }
    if (auto e = skip_space(have)) return e;
    if (have && i == 0 && *at() == ']') {
      ++pos_;
      return std::nullopt;
    }
    if (!have) return malformed(pos_, "the input ends inside " + std::string(inside));
    more = true;
    return std::nullopt;
  }

  std::optional<load_error> array_document(const std::string& label) {
    ++pos_;  // '['
    for (std::size_t i = 0;; ++i) {
      bool more = false;
      if (auto e = next_element(i, "an array", "an array value", more)) return e;
      if (!more) return std::nullopt;
      const std::string position =
          document_walker::child(label, document_walker::index_step("", i));
      dom::element v;
      std::size_t n = 0;
      if (auto e = value_end(position, n)) return e;
      if (auto e = parse(n, position, v)) return e;
      if (auto e = walker_.walk_item(v, "", position)) return e;
      pos_ += n;
    }
  }

  static bool is_list(std::string_view kind) {
    constexpr std::string_view suffix = "List";
    return kind.size() >= suffix.size() && kind.substr(kind.size() - suffix.size()) == suffix;
  }

  // Whether an item names its own kind (the last `kind` key, a non-empty string).
  static bool names_kind(dom::element v) {
    dom::object obj;
    if (v.get_object().get(obj) != simdjson::SUCCESS) return true;  // the walker names the error
    std::string_view kind;
    for (dom::key_value_pair kv : obj)
      if (kv.key == "kind") kind = kv.value.is_string() ? std::string_view(kv.value) : "";
    return !kind.empty();
  }

  // A mapped file (all in view): before the pods outgrow their vector, room for as many as the
  // rest of the file will hold at the rate read so far, and a sixteenth more. The vector then
  // grows once or twice instead of doubling some eighteen times, each time moving every pod into
  // fresh pages (the largest share of the loader's page faults, and of its peak memory).
  void reserve_pods() {
    auto& pods = dump_.pods;
    if (!first_pod_) {
      if (!pods.empty()) first_pod_.emplace(w_.offset(pos_), pods.size());
      return;
    }
    if (pods.size() < pods.capacity() || pods.size() - first_pod_->second < 1024) return;
    const std::uint64_t read = w_.offset(pos_) - first_pod_->first;
    const std::uint64_t rest = w_.offset(w_.size()) - w_.offset(pos_);
    const std::uint64_t per_pod =
        std::max<std::uint64_t>(1, read / (pods.size() - first_pod_->second));
    const std::uint64_t projected = pods.size() + rest / per_pod;
    if (projected > pods.capacity())
      pods.reserve(static_cast<std::size_t>(projected + projected / 16));
  }

  std::optional<load_error> items(const std::string& label, const std::string& kind,
                                  std::optional<std::string>& implied) {
    ++pos_;  // '['
    // A mapped file is all in view: its items are parsed ahead on a second thread.
    std::optional<item_prefetcher> ahead;
    std::size_t ahead_base = 0;  // the buffer position of the prefetcher's offset 0
    if (w_.view_all()) {
      ahead_base = pos_;
      ahead.emplace(w_.view(pos_), parse_seconds_);
    }
    for (std::size_t i = 0;; ++i) {
      bool more = false;
      if (auto e = next_element(i, "the items array", "an item", more)) return e;
      if (!more) return std::nullopt;
      const std::string position =
          document_walker::child(label, document_walker::index_step("items", i));
      dom::element v;
      std::size_t n = 0;
      const item_prefetcher::item* it = ahead ? ahead->next() : nullptr;
      if (it != nullptr && ahead_base + it->begin == pos_ && it->error == simdjson::SUCCESS) {
        n = it->size;
        v = it->root;
        if (i % 256 == 0) w_.give_back(pos_);
      } else {
        ahead.reset();
        if (auto e = value_end(position, n)) return e;
        if (auto e = parse(n, position, v)) return e;
      }
      std::string item_kind;
      if (!kind.empty()) {
        if (!is_list(kind)) {
          unusual = "items of a " + clip(kind);
          return std::nullopt;
        }
        item_kind = kind.substr(0, kind.size() - 4);
      } else if (!names_kind(v)) {
        unusual = "items without kind before the list's kind";
        return std::nullopt;
      }
      if (implied && *implied != item_kind) {
        unusual = "kind given twice";
        return std::nullopt;
      }
      implied = item_kind;
      if (auto e = walker_.walk_item(v, item_kind, position)) return e;
      pos_ += n;
      if (ahead) reserve_pods();
    }
  }

  std::optional<load_error> object_document(const std::string& label) {
    ++pos_;  // '{'
    std::string kind;
    std::optional<std::string> implied;  // the kind items without one were given
    bool items_seen = false;
    const std::string where = name() + ": " + (label.empty() ? "document" : label);
    for (std::size_t member = 0;; ++member) {
      bool have = false;
      if (auto e = skip_space(have)) return e;
      if (!have) return malformed(pos_, "the input ends inside an object");
      if (member == 0 && *at() == '}') {
        unusual = "an empty object";
        return std::nullopt;
      }
      if (*at() != '"') return malformed(pos_, "expected a string as the member's name");
      std::size_t n = 0;
      if (auto e = value_end(label, n)) return e;
      std::string key(at() + 1, n - 2);
      if (key.find('\\') != std::string::npos) {
        dom::element k;
        if (auto e = parse(n, label, k)) return e;
        key = std::string(std::string_view(k));
      }
      pos_ += n;
      if (auto e = expect(':', "':' after a member's name")) return e;
      if (auto e = skip_space(have)) return e;
      if (!have) return malformed(pos_, "the input ends where a value was expected");
      if (key == "items" && *at() == '[') {
        if (items_seen) {
          unusual = "items given twice";
          return std::nullopt;
        }
        items_seen = true;
        if (auto e = items(label, kind, implied)) return e;
        if (!unusual.empty()) return std::nullopt;
      } else {
        if (auto e = value_end(label, n)) return e;
        dom::element v;
        if (auto e = parse(n, label, v)) return e;
        if (key == "kind") {
          std::string_view k;
          if (v.is_null())
            k = {};
          else if (v.get_string().get(k) != simdjson::SUCCESS)
            return load_error{where + ": kind: expected a string, found " +
                              std::string(type_name(v.type()))};
          kind = std::string(k);
        } else if (key == "items") {
          if (items_seen || !v.is_null()) {
            unusual = "items that are not an array";
            return std::nullopt;
          }
          items_seen = true;
        }
        pos_ += n;
      }
      if (auto e = skip_space(have)) return e;
      if (!have) return malformed(pos_, "the input ends inside an object");
      if (*at() == '}') {
        ++pos_;
        break;
      }
      if (*at() != ',') return malformed(pos_, "expected ',' or '}' after an object member");
      ++pos_;
    }
    if (!is_list(kind)) {
      unusual = kind.empty() ? "an object without kind" : "a single " + clip(kind);
      return std::nullopt;
    }
    if (implied && *implied != kind.substr(0, kind.size() - 4)) unusual = "kind given twice";
    return std::nullopt;
  }

  stream_window& w_;
  dom::parser& parser_;
  document_walker& walker_;
  double& parse_seconds_;
  std::size_t pos_;
  cluster_dump& dump_;
  // Where the first pod was read (input offset, pods before it), for reserve_pods().
  std::optional<std::pair<std::uint64_t, std::size_t>> first_pod_;
};

// What a cluster_dump held before an input was added, to take the input back out.
struct dump_mark {
  std::size_t files, nodes, pods, pdbs, namespaces, classes, class_files, groups, workloads;
  std::map<std::string, std::size_t> ignored;

  explicit dump_mark(const cluster_dump& d)
      : files(d.files.size()),
        nodes(d.nodes.size()),
        pods(d.pods.size()),
        pdbs(d.pdbs.size()),
        namespaces(d.namespaces.size()),
        classes(d.classes.size()),
        class_files(d.class_files.size()),
        groups(d.groups.size()),
        workloads(d.workloads),
        ignored(d.ignored) {}

  void restore(cluster_dump& d) const {
    const auto cut = [](auto& v, std::size_t n) {
      v.erase(v.begin() + static_cast<std::ptrdiff_t>(n), v.end());
    };
    cut(d.files, files);
    cut(d.nodes, nodes);
    cut(d.pods, pods);
    cut(d.pdbs, pdbs);
    cut(d.namespaces, namespaces);
    cut(d.classes, classes);
    cut(d.class_files, class_files);
    cut(d.groups, groups);
    d.workloads = workloads;
    d.ignored = ignored;
  }
};

}  // namespace

std::optional<load_error> loader::for_each_object(const source& src, std::string_view top_kind,
                                                  detail::object_visitor& visit) {
  if (auto why = not_text(src.bytes.view())) return load_error{src.name + ": " + *why};
  text_buffer converted;
  std::string_view text;
  if (auto e = utf8_text(src, converted, text)) return e;
  document_walker walker(src, top_kind, visit);
  const auto timed_parse = [&](const char* p, std::size_t n, dom::element& root) {
    const std::clock_t c0 = std::clock();
    const auto err = parser_.parse(p, n, false).get(root);
    parse_cpu_seconds_ += static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    return err;
  };

  if (!is_json(text)) {
    text_buffer json;
    std::vector<json_document> docs;
    const std::clock_t c0 = std::clock();
    auto converted_error = yaml_to_json(src.name, text, json, docs);
    parse_cpu_seconds_ += static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    if (converted_error) return converted_error;
    if (docs.empty()) return load_error{src.name + ": holds no YAML document"};
    for (std::size_t d = 0; d < docs.size(); ++d) {
      dom::element root;
      if (const auto err =
              timed_parse(json.data() + docs[d].begin, docs[d].end - docs[d].begin, root))
        return load_error{src.name + ": YAML document at line " + std::to_string(docs[d].line) +
                          ": " + simdjson::error_message(err)};
      const std::string label = docs.size() > 1 ? "document " + std::to_string(d + 1) : "";
      if (auto e = walker.walk_document(root, label)) return e;
    }
    return std::nullopt;
  }

  // One JSON document: the common case, parsed at once.
  dom::element root;
  const auto whole = timed_parse(text.data(), text.size(), root);
  if (whole == simdjson::SUCCESS) return walker.walk_document(root, "");
  if (whole == simdjson::CAPACITY)
    return load_error{src.name + ": a JSON document larger than simdjson's limit of 4 GiB"};
  // Several concatenated documents, or a malformed one: the checker finds where the first
  // value ends, or its first error.
  std::size_t pos = 0;
  for (std::size_t d = 0;; ++d) {
    const json_value_scan scan = scan_json_value(text.substr(pos));
    if (scan.error)
      return load_error{
          malformed_json(src, text, json_error{pos + scan.error->offset, scan.error->what}, whole)};
    if (d == 0 && scan.end == text.size())
      return load_error{malformed_json(src, text, std::nullopt, whole)};
    if (const auto err = timed_parse(text.data() + pos, scan.end, root))
      return load_error{malformed_json(src, text, std::nullopt, err) + " (document " +
                        std::to_string(d + 1) + ")"};
    if (auto e = walker.walk_document(root, "document " + std::to_string(d + 1))) return e;
    pos = skip_container_logs(text, pos + scan.end);
    if (pos == text.size()) return std::nullopt;
    if (!can_start_value(text[pos]))
      return load_error{malformed_json(
          src, text, json_error{pos, "unexpected text after the JSON value"}, whole)};
  }
}

namespace {

struct cluster_visitor : detail::object_visitor {
  const source& src;
  cluster_dump& dump;
  std::uint32_t file;
  std::size_t item = 0;

  cluster_visitor(const source& s, cluster_dump& d, std::uint32_t f) : src(s), dump(d), file(f) {}

  std::optional<load_error> object(std::string_view kind, dom::element obj,
                                   const std::string& position) override {
    const std::size_t index = item++;
    if (!kinds::is_read(kind)) {
      ++dump.ignored[std::string(kind)];
      return std::nullopt;
    }
    return kinds::add_object(kind, obj, kinds::origin{src.name, file, index, position}, dump);
  }
};

struct pod_visitor : detail::object_visitor {
  const source& src;
  pod_object& out;
  std::size_t count = 0;

  pod_visitor(const source& s, pod_object& o) : src(s), out(o) {}

  std::optional<load_error> object(std::string_view kind, dom::element obj,
                                   const std::string& position) override {
    if (count++ > 0) return std::nullopt;
    if (kind != "Pod") return load_error{src.name + ": expected a Pod, found kind " + clip(kind)};
    return kinds::read_preemptor(obj, kinds::origin{src.name, 0, 0, position}, out);
  }
};

}  // namespace

std::optional<load_error> loader::add_cluster(const source& src, cluster_dump& dump) {
  const auto file = static_cast<std::uint32_t>(dump.files.size());
  dump.files.push_back(src.name);
  cluster_visitor visit(src, dump, file);
  return for_each_object(src, "", visit);
}

std::optional<load_error> loader::add_cluster(open_input& in, cluster_dump& dump,
                                              std::uint64_t max_size) {
  // Named at once: a compressed or binary file is not read whole first.
  if (auto why = not_text(in.head.bytes.view())) return load_error{in.head.name + ": " + *why};
  if (in.complete) return add_cluster(in.head, dump);
  // A UTF-8 JSON text (a byte-order mark skipped) is read a window at a time; anything else
  // (UTF-16, YAML) whole.
  const std::string_view head = in.head.bytes.view();
  std::size_t start = head.substr(0, 3) == "\xef\xbb\xbf" ? 3 : 0;
  start = skip_space(head, start);
  const bool utf16 =
      head.size() >= 2 && (head[0] == 0 || head[1] == 0 || head.substr(0, 2) == "\xff\xfe" ||
                           head.substr(0, 2) == "\xfe\xff");
  if (utf16 || start == head.size() || (head[start] != '{' && head[start] != '[')) {
    if (auto e = read_rest(in, max_size)) return e;
    return add_cluster(in.head, dump);
  }

  const dump_mark mark(dump);
  const auto file = static_cast<std::uint32_t>(dump.files.size());
  dump.files.push_back(in.head.name);
  cluster_visitor visit(in.head, dump, file);
  document_walker walker(in.head, "", visit);
  stream_window window(in.head.name, in.fd, std::move(in.head.bytes), max_size, window_);
  if (in.seekable) {
    struct stat st {};
    if (::fstat(in.fd, &st) == 0) (void)window.map_file(static_cast<std::uint64_t>(st.st_size));
  }
  stream_reader reader(window, parser_, walker, parse_cpu_seconds_, start, dump);
  auto error = reader.run();
  ++streamed_;
  if (!error && reader.unusual.empty()) return std::nullopt;
  if (in.seekable) {
    // A regular file is read again, whole: the same answer and the same messages (with line and
    // column) as any input that fits one window.
    mark.restore(dump);
    if (auto e = read_again(in, max_size)) return e;
    return add_cluster(in.head, dump);
  }
  if (error) return error;
  return load_error{in.head.name + ": holds " + reader.unusual +
                    ", which is read whole, and is larger than the stream window: save it to a "
                    "file and name the file"};
}

std::optional<load_error> loader::read_pod(const source& src, pod_object& out) {
  out = pod_object{};
  pod_visitor visit(src, out);
  if (auto e = for_each_object(src, "Pod", visit)) return e;
  if (visit.count != 1)
    return load_error{src.name + ": expected one Pod, found " + std::to_string(visit.count) +
                      " objects"};
  return std::nullopt;
}

}  // namespace whatif
