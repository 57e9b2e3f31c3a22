// examples/whatif/io/item_prefetcher.cpp - see item_prefetcher.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "io/item_prefetcher.hpp"

#include <ctime>

#include "io/json_stream.hpp"

namespace whatif::detail {

item_prefetcher::~item_prefetcher() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
  cpu_seconds_ += thread_cpu_ + caller_parse_seconds_;
}

const item_prefetcher::item* item_prefetcher::next() {
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

void item_prefetcher::run() {
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

}  // namespace whatif::detail
