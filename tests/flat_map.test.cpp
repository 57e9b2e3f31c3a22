// detail::flat_map (detail/flat_map.hpp): the open-addressing table under the ledgers. Insert,
// find, overwrite, erase with backward shift (colliding keys, runs that wrap around the end of the
// slot array), growth, and reserve() making later inserts allocation-free; plus a long random
// differential run against std::unordered_map at small capacities, where shifts are frequent.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "preempt/detail/flat_map.hpp"
#include "support/eviction_fakes.hpp"

namespace flat_map_test {

namespace {

using key = std::uint64_t;
using map_type = preempt::detail::flat_map<key, int>;
using counted_map =
    preempt::detail::flat_map<key, int, evf::counting_allocator<std::pair<key, int>>>;

// The home slot flat_map gives a key at `capacity` slots (same mixing as the header).
std::size_t home_of(key k, std::size_t capacity) {
  unsigned shift = 64;
  for (std::size_t c = capacity; c > 1; c /= 2) --shift;
  const std::uint64_t mixed =
      static_cast<std::uint64_t>(std::hash<key>{}(k)) * 0x9E3779B97F4A7C15ull;
  return static_cast<std::size_t>(mixed >> shift);
}

// `count` distinct keys (>= `from`) whose home slot is `slot` at `capacity` slots.
std::vector<key> keys_at(std::size_t slot, std::size_t capacity, std::size_t count, key from = 1) {
  std::vector<key> out;
  for (key k = from; out.size() < count; ++k)
    if (home_of(k, capacity) == slot) out.push_back(k);
  return out;
}

std::map<key, int> contents(const map_type& m) {
  std::map<key, int> out;
  m.for_each([&](const key& k, const int& v) { out.emplace(k, v); });
  return out;
}

}  // namespace

TEST_CASE("flat_map: empty map answers without allocating") {
  std::size_t allocations = 0;
  counted_map m{evf::counting_allocator<std::pair<key, int>>(&allocations)};
  CHECK(m.empty());
  CHECK(m.size() == 0);
  CHECK(m.find(1) == nullptr);
  CHECK_FALSE(m.contains(1));
  CHECK_FALSE(m.erase(1));
  m.clear();
  int visits = 0;
  m.for_each([&](const key&, const int&) { ++visits; });
  CHECK(visits == 0);
  CHECK(allocations == 0);
}

TEST_CASE("flat_map: insert, find, overwrite, erase") {
  map_type m;
  CHECK(m.insert_or_assign(10, 1));
  CHECK(m.insert_or_assign(20, 2));
  CHECK(m.size() == 2);
  REQUIRE(m.find(10) != nullptr);
  CHECK(*m.find(10) == 1);
  CHECK(*m.find(20) == 2);
  CHECK(m.find(30) == nullptr);

  CHECK_FALSE(m.insert_or_assign(10, 11));  // overwrite: not new
  CHECK(m.size() == 2);
  CHECK(*m.find(10) == 11);

  *m.find(20) = 22;  // find gives a mutable value
  CHECK(*m.find(20) == 22);
  const map_type& cm = m;
  CHECK(*cm.find(20) == 22);

  CHECK(m.erase(10));
  CHECK_FALSE(m.erase(10));
  CHECK(m.size() == 1);
  CHECK(m.find(10) == nullptr);
  CHECK(m.contains(20));

  int sum = 0;
  m.for_each_mut([&](const key&, int& v) { v += 1; });
  m.for_each([&](const key&, const int& v) { sum += v; });
  CHECK(sum == 23);

  m.clear();
  CHECK(m.empty());
  CHECK_FALSE(m.contains(20));
  CHECK(m.insert_or_assign(20, 5));  // usable after clear
  CHECK(*m.find(20) == 5);
}

TEST_CASE("flat_map: keys sharing one home slot, erased first, middle and last") {
  // 8 slots hold up to 4 keys (load factor 1/2).
  for (std::size_t slot : {std::size_t{2}, std::size_t{7}}) {  // 7: the run wraps to slot 0
    CAPTURE(slot);
    for (std::size_t victim = 0; victim < 4; ++victim) {
      CAPTURE(victim);
      map_type m;
      m.reserve(4);
      const std::vector<key> ks = keys_at(slot, 8, 4);
      for (std::size_t i = 0; i < ks.size(); ++i)
        CHECK(m.insert_or_assign(ks[i], static_cast<int>(i)));
      CHECK(m.erase(ks[victim]));
      CHECK(m.size() == 3);
      for (std::size_t i = 0; i < ks.size(); ++i) {
        CAPTURE(i);
        if (i == victim) {
          CHECK(m.find(ks[i]) == nullptr);
        } else {
          REQUIRE(m.find(ks[i]) != nullptr);
          CHECK(*m.find(ks[i]) == static_cast<int>(i));
        }
      }
      // The hole left no tombstone: reinserting and erasing the rest works.
      CHECK(m.insert_or_assign(ks[victim], 99));
      for (key k : ks) CHECK(m.erase(k));
      CHECK(m.empty());
    }
  }
}

TEST_CASE("flat_map: backward shift across the wrap-around keeps keys of other homes") {
  // Three keys homed at the last slot (7) occupy 7, 0, 1; a key homed at 0 lands in 2 and one
  // homed at 1 would land in 3. Erasing the first key must shift all of them back correctly,
  // and must NOT move a key before its home.
  const std::vector<key> at7 = keys_at(7, 8, 2);
  const std::vector<key> at0 = keys_at(0, 8, 1);
  const std::vector<key> at1 = keys_at(1, 8, 1);
  for (std::size_t erased = 0; erased < 4; ++erased) {
    CAPTURE(erased);
    map_type m;
    m.reserve(4);
    const std::vector<key> all{at7[0], at7[1], at0[0], at1[0]};
    for (key k : all) m.insert_or_assign(k, static_cast<int>(k % 1000));
    CHECK(m.erase(all[erased]));
    for (std::size_t i = 0; i < all.size(); ++i) {
      CAPTURE(i);
      if (i == erased) continue;
      REQUIRE(m.find(all[i]) != nullptr);
      CHECK(*m.find(all[i]) == static_cast<int>(all[i] % 1000));
    }
    // Erase the remaining ones in reverse order; each must still be found on the way.
    for (std::size_t i = all.size(); i-- > 0;) {
      if (i == erased) continue;
      CHECK(m.erase(all[i]));
    }
    CHECK(m.empty());
  }
}

TEST_CASE("flat_map: backward shift never moves a wrapped key before its home") {
  // x homed at 6 sits in 6; y and z homed at 7 sit in 7 and 0 (wrapped). Erasing x leaves a hole
  // at 6: neither y nor z may move into it (slot 6 comes before their home 7).
  const key x = keys_at(6, 8, 1)[0];
  const std::vector<key> yz = keys_at(7, 8, 2);
  map_type m;
  m.reserve(4);
  m.insert_or_assign(x, 1);
  m.insert_or_assign(yz[0], 2);
  m.insert_or_assign(yz[1], 3);
  CHECK(m.erase(x));
  REQUIRE(m.find(yz[0]) != nullptr);
  REQUIRE(m.find(yz[1]) != nullptr);
  CHECK(*m.find(yz[0]) == 2);
  CHECK(*m.find(yz[1]) == 3);
  CHECK(m.erase(yz[0]));
  REQUIRE(m.find(yz[1]) != nullptr);  // now it may (and must) move back to 7
  CHECK(m.erase(yz[1]));
  CHECK(m.empty());
}

TEST_CASE("flat_map: growth keeps every key and value") {
  map_type m;
  for (key k = 0; k < 1000; ++k) CHECK(m.insert_or_assign(k * 7919, static_cast<int>(k)));
  CHECK(m.size() == 1000);
  bool all_found = true;
  for (key k = 0; k < 1000; ++k) {
    const int* v = m.find(k * 7919);
    all_found = all_found && v != nullptr && *v == static_cast<int>(k);
  }
  CHECK(all_found);
  CHECK(contents(m).size() == 1000);
  for (key k = 0; k < 1000; k += 2) CHECK(m.erase(k * 7919));
  CHECK(m.size() == 500);
  for (key k = 0; k < 1000; ++k) CHECK(m.contains(k * 7919) == (k % 2 == 1));
}

TEST_CASE("flat_map: reserve(n) then n inserts neither allocate nor rehash") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4}, std::size_t{5},
                        std::size_t{100}, std::size_t{1000}}) {
    CAPTURE(n);
    std::size_t allocations = 0;
    counted_map m{evf::counting_allocator<std::pair<key, int>>(&allocations)};
    m.reserve(n);
    const std::size_t after_reserve = allocations;
    CHECK(after_reserve <= 1);
    if (n == 0) continue;
    m.insert_or_assign(12345, -1);
    const int* first = m.find(12345);  // a rehash would move it
    for (key k = 1; k < n; ++k) m.insert_or_assign(k, static_cast<int>(k));
    CHECK(m.size() == n);
    CHECK(allocations == after_reserve);
    CHECK(m.find(12345) == first);
    // Erasing and reinserting within the reserved size never allocates either.
    for (key k = 1; k < n; ++k) m.erase(k);
    for (key k = 1; k < n; ++k) m.insert_or_assign(k + 100000, 0);
    CHECK(allocations == after_reserve);
    // Well beyond the reserved size it grows (so the checks above could fail).
    const std::size_t before_growth = allocations;
    for (key k = 0; k <= 2 * n + 8; ++k) m.insert_or_assign(k + 500000, 0);
    CHECK(allocations > before_growth);
  }
}

TEST_CASE("flat_map: reserve below the current size keeps the table") {
  std::size_t allocations = 0;
  counted_map m{evf::counting_allocator<std::pair<key, int>>(&allocations)};
  for (key k = 0; k < 20; ++k) m.insert_or_assign(k, 1);
  const std::size_t before = allocations;
  m.reserve(3);
  m.reserve(20);
  CHECK(allocations == before);
  CHECK(m.size() == 20);
}

TEST_CASE("flat_map: string keys") {
  preempt::detail::flat_map<std::string, std::string> m;
  m.insert_or_assign("node1", "a");
  m.insert_or_assign("node2", "b");
  m.insert_or_assign("node1", "c");
  CHECK(m.size() == 2);
  REQUIRE(m.find("node1") != nullptr);
  CHECK(*m.find("node1") == "c");
  CHECK(m.erase("node2"));
  CHECK_FALSE(m.contains("node2"));
}

TEST_CASE("flat_map: random operations agree with std::unordered_map") {
  // Small key universes keep runs long and erasures frequent; seeds are fixed.
  for (std::uint64_t seed : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u}) {
    CAPTURE(seed);
    std::mt19937_64 g(seed);
    const key universe = 8 + (seed % 4) * 24;
    map_type m;
    std::unordered_map<key, int> ref;
    bool agree = true;
    for (int step = 0; step < 20000 && agree; ++step) {
      const key k = std::uniform_int_distribution<key>(0, universe)(g);
      switch (std::uniform_int_distribution<int>(0, 3)(g)) {
        case 0:
        case 1: {
          const bool fresh = m.insert_or_assign(k, step);
          agree = fresh == (ref.find(k) == ref.end());
          ref[k] = step;
          break;
        }
        case 2: agree = m.erase(k) == (ref.erase(k) == 1); break;
        default: {
          const int* v = m.find(k);
          const auto it = ref.find(k);
          agree = (v == nullptr) == (it == ref.end()) && (v == nullptr || *v == it->second);
        }
      }
      agree = agree && m.size() == ref.size();
      if (step % 97 == 0) {  // full comparison now and then
        std::map<key, int> sorted(ref.begin(), ref.end());
        agree = agree && contents(m) == sorted;
      }
      if (!agree) CAPTURE(step);
    }
    CHECK(agree);
  }
}

}  // namespace flat_map_test
