// examples/whatif/io/item_prefetcher.hpp - the items of a List in a mapped file, delimited and
// parsed ahead on a second thread while the loader decodes them (stream_reader.cpp).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_IO_ITEM_PREFETCHER_HPP
#define PREEMPT_WHATIF_IO_ITEM_PREFETCHER_HPP

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string_view>
#include <thread>

#include <simdjson.h>

#include "io/text.hpp"

namespace whatif::detail {

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
    simdjson::dom::element root;
  };

  // `text`: from the first item on to the end of the input, with simdjson's padding readable.
  // The second thread's processor time (scanning and parsing), and the wall time of the parses
  // the caller makes, are added to `cpu_seconds` when it ends.
  item_prefetcher(std::string_view text, double& cpu_seconds)
      : text_(text), cpu_seconds_(cpu_seconds), thread_([this] { run(); }) {}
  item_prefetcher(const item_prefetcher&) = delete;
  item_prefetcher& operator=(const item_prefetcher&) = delete;
  ~item_prefetcher();

  // The next item, or nullptr when the thread stopped before it. Valid until the next call.
  const item* next();

 private:
  using steady_clock = std::chrono::steady_clock;
  // Items in flight (delimited, not yet released by the caller), and how many the thread
  // delimits ahead of the oldest one not yet being parsed.
  static constexpr std::size_t slots = 64, lead = 8, batch = 16;
  struct slot {
    simdjson::dom::parser parser;
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

  void run();

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

}  // namespace whatif::detail

#endif  // PREEMPT_WHATIF_IO_ITEM_PREFETCHER_HPP
