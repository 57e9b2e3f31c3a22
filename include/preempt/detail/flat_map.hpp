// preempt/detail/flat_map.hpp - an open-addressing hash map for the library's bookkeeping tables.
//
// Linear probing with backward-shift deletion (no tombstones), power-of-two capacity, load factor
// at most 1/2. After reserve(n), inserting up to n keys allocates nothing, which is what lets the
// ledgers promise no allocation per preemption in steady state. Keys need std::hash and ==.
//
// Complexity: expected O(1) per operation. Allocation: only when growing (reserve() avoids it),
// through the given allocator. Exceptions: only those of the allocator. Not synchronized.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_FLAT_MAP_HPP
#define PREEMPT_DETAIL_FLAT_MAP_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace detail {

// 2^64 divided by the golden ratio: multiplying by it (Fibonacci hashing) spreads the bits of
// std::hash, often the identity for integers, over the high bits that a slot index is taken from.
inline constexpr std::uint64_t fibonacci_hash_multiplier = 0x9E3779B97F4A7C15ull;

template <class K, class V, class Allocator = std::allocator<std::pair<K, V>>>
class flat_map {
  struct slot {
    std::optional<std::pair<K, V>> item;
  };
  using slot_alloc = typename std::allocator_traits<Allocator>::template rebind_alloc<slot>;

 public:
  flat_map() = default;
  explicit flat_map(const Allocator& alloc) : slots_(slot_alloc(alloc)) {}

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  // Makes room for n keys without further allocation.
  void reserve(std::size_t n) {
    std::size_t cap = 8;
    while (cap < 2 * n) cap *= 2;
    if (cap > slots_.size()) rehash(cap);
  }

  V* find(const K& key) noexcept {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = home(key);; i = next(i)) {
      if (!slots_[i].item) return nullptr;
      if (slots_[i].item->first == key) return &slots_[i].item->second;
    }
  }
  const V* find(const K& key) const noexcept { return const_cast<flat_map*>(this)->find(key); }
  bool contains(const K& key) const noexcept { return find(key) != nullptr; }

  // Inserts or overwrites; returns true when the key is new.
  bool insert_or_assign(const K& key, V value) {
    if (V* existing = find(key)) {
      *existing = std::move(value);
      return false;
    }
    if (2 * (size_ + 1) > slots_.size()) rehash(slots_.empty() ? 8 : slots_.size() * 2);
    std::size_t i = home(key);
    while (slots_[i].item) i = next(i);
    slots_[i].item.emplace(key, std::move(value));
    ++size_;
    return true;
  }

  // Removes the key; returns true when it was there.
  bool erase(const K& key) noexcept {
    if (slots_.empty()) return false;
    std::size_t i = home(key);
    for (;; i = next(i)) {
      if (!slots_[i].item) return false;
      if (slots_[i].item->first == key) break;
    }
    slots_[i].item.reset();
    --size_;
    // Backward shift: move later members of the probe run into the hole when that is allowed.
    for (std::size_t hole = i, j = next(i); slots_[j].item; j = next(j)) {
      const std::size_t h = home(slots_[j].item->first);
      const bool movable = hole <= j ? (h <= hole || h > j) : (h <= hole && h > j);
      if (movable) {
        slots_[hole].item = std::move(slots_[j].item);
        slots_[j].item.reset();
        hole = j;
      }
    }
    return true;
  }

  void clear() noexcept {
    for (slot& s : slots_) s.item.reset();
    size_ = 0;
  }

  template <class F>
  void for_each_mut(F&& f) {
    for (slot& s : slots_)
      if (s.item) f(std::as_const(s.item->first), s.item->second);
  }

  template <class F>
  void for_each(F&& f) const {
    for (const slot& s : slots_)
      if (s.item) f(s.item->first, s.item->second);
  }

 private:
  std::size_t home(const K& key) const noexcept {
    const std::uint64_t mixed =
        static_cast<std::uint64_t>(std::hash<K>{}(key)) * fibonacci_hash_multiplier;
    return static_cast<std::size_t>(mixed >> shift_);
  }
  std::size_t next(std::size_t i) const noexcept { return (i + 1) & (slots_.size() - 1); }

  void rehash(std::size_t cap) {
    std::vector<slot, slot_alloc> old(cap, slot_alloc(slots_.get_allocator()));
    old.swap(slots_);
    shift_ = 64;
    for (std::size_t c = cap; c > 1; c /= 2) --shift_;
    size_ = 0;
    for (slot& s : old)
      if (s.item) {
        std::size_t i = home(s.item->first);
        while (slots_[i].item) i = next(i);
        slots_[i].item = std::move(s.item);
        ++size_;
      }
  }

  std::vector<slot, slot_alloc> slots_;
  std::size_t size_ = 0;
  unsigned shift_ = 64;
};

}  // namespace detail
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_FLAT_MAP_HPP
