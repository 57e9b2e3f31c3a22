// examples/whatif/io/stream_reader.cpp - see stream_reader.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "io/stream_reader.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string_view>
#include <utility>

#include "decode/decoder.hpp"
#include "io/item_prefetcher.hpp"
#include "io/json_error.hpp"
#include "io/text.hpp"
#include "output/one_line.hpp"

namespace whatif::detail {

namespace dom = simdjson::dom;
using decode::type_name;

namespace {

using steady = std::chrono::steady_clock;

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

}  // namespace

std::optional<load_error> read_stream(stream_window& w, dom::parser& parser,
                                      document_walker& walker, double& parse_seconds,
                                      std::size_t start, cluster_dump& dump, std::string& unusual) {
  stream_reader reader(w, parser, walker, parse_seconds, start, dump);
  auto error = reader.run();
  unusual = std::move(reader.unusual);
  return error;
}

}  // namespace whatif::detail
