// detail::go_sort_slice: Go's sort.Slice, element order included. The conformance suite compares
// it with Go itself on thousands of arrays (`conform gosort`); these cases pin a few of Go 1.26's
// answers (indices sorted by ascending key) so that a regression shows without Go.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "preempt/detail/go_sort.hpp"

namespace go_sort_test {

namespace {

std::vector<int> go_order(const std::vector<int>& keys) {
  std::vector<int> idx(keys.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int>(i);
  preempt::detail::go_sort_slice(idx.begin(), idx.end(), [&](int a, int b) {
    return keys[static_cast<std::size_t>(a)] < keys[static_cast<std::size_t>(b)];
  });
  return idx;
}

}  // namespace

TEST_CASE("go_sort_slice: up to 12 elements, an insertion sort: ties keep their order") {
  CHECK(go_order({1, 0, 1, 0, 0}) == std::vector<int>{1, 3, 4, 0, 2});
  CHECK(go_order({}).empty());
  CHECK(go_order({5}) == std::vector<int>{0});
}

TEST_CASE("go_sort_slice: 20 alternating keys, Go's pdqsort order") {
  CHECK(go_order({1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0}) ==
        std::vector<int>{15, 1, 19, 3, 17, 5, 13, 7, 9, 11, 12, 8, 10, 6, 14, 0, 16, 4, 18, 2});
}

TEST_CASE("go_sort_slice: 60 elements, three keys (ninther pivots)") {
  std::vector<int> keys(60);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<int>((i * 7) % 3);
  CHECK(go_order(keys) == std::vector<int>{21, 57, 54, 3,  51, 48, 6,  45, 42, 9,  39, 36,
                                           12, 33, 0,  15, 30, 27, 18, 24, 31, 10, 22, 58,
                                           19, 25, 1,  55, 28, 52, 16, 4,  49, 13, 34, 46,
                                           7,  37, 43, 40, 50, 41, 8,  38, 44, 11, 35, 47,
                                           32, 5,  29, 14, 20, 53, 2,  17, 56, 26, 23, 59});
}

TEST_CASE("go_sort_slice: 40 descending keys with ties (the reversed run)") {
  std::vector<int> keys(40);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<int>((40 - i) / 4);
  CHECK(go_order(keys) == std::vector<int>{39, 38, 37, 33, 36, 35, 34, 32, 31, 30, 29, 28, 27, 26,
                                           25, 21, 24, 23, 22, 20, 19, 18, 17, 13, 16, 15, 14, 10,
                                           12, 11, 9,  8,  7,  6,  5,  4,  3,  2,  1,  0});
}

TEST_CASE("go_sort_slice: sorts 5000 elements with many ties") {
  std::vector<int> keys(5000);
  unsigned x = 12345;
  for (int& k : keys) k = static_cast<int>((x = x * 1103515245u + 12345u) >> 16) % 7;
  const std::vector<int> idx = go_order(keys);
  CHECK(std::is_sorted(idx.begin(), idx.end(), [&](int a, int b) {
    return keys[static_cast<std::size_t>(a)] < keys[static_cast<std::size_t>(b)];
  }));
  std::vector<int> sorted = idx;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) CHECK(sorted[i] == static_cast<int>(i));
}

}  // namespace go_sort_test
