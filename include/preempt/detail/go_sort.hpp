// preempt/detail/go_sort.hpp - Go's sort.Slice, element order included.
//
// go_sort_slice(first, last, less) leaves the elements in exactly the order Go's sort.Slice
// (pdqsort_func of sort/zsortfunc.go, Go 1.19 and later) leaves them with the same less function:
// the same comparisons and swaps in the same sequence, the same insertion sort below 13 elements,
// the same pattern breaking (its xorshift seeded by the length), the same heap sort fallback.
// kube-scheduler sorts victims with sort.Slice, which is not stable; where the order of equally
// important victims shows (the victims' delete and report order), only this order is upstream's.
//
// Complexity: O(n log n) comparisons and swaps (O(n) on already sorted input); recursion depth
// O(log n). Allocation: none. Exceptions: whatever `less` or the element swap throws passes
// through. Thread-safety: sorts the caller's range in place; no shared state.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DETAIL_GO_SORT_HPP
#define PREEMPT_DETAIL_GO_SORT_HPP

#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <tuple>
#include <utility>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN

namespace detail::go_sort {

// Index-based access to the range, as Go's lessSwap: less(i, j) and swap(i, j).
template <class It, class Less>
struct data {
  It first;
  Less& less_fn;
  bool less(std::ptrdiff_t i, std::ptrdiff_t j) const { return less_fn(first[i], first[j]); }
  void swap(std::ptrdiff_t i, std::ptrdiff_t j) const {
    using std::swap;
    swap(first[i], first[j]);
  }
};

enum class hint { unknown, increasing, decreasing };

template <class D>
void insertion_sort(const D& d, std::ptrdiff_t a, std::ptrdiff_t b) {
  for (std::ptrdiff_t i = a + 1; i < b; ++i)
    for (std::ptrdiff_t j = i; j > a && d.less(j, j - 1); --j) d.swap(j, j - 1);
}

template <class D>
void sift_down(const D& d, std::ptrdiff_t lo, std::ptrdiff_t hi, std::ptrdiff_t first) {
  std::ptrdiff_t root = lo;
  for (;;) {
    std::ptrdiff_t child = 2 * root + 1;
    if (child >= hi) break;
    if (child + 1 < hi && d.less(first + child, first + child + 1)) ++child;
    if (!d.less(first + root, first + child)) return;
    d.swap(first + root, first + child);
    root = child;
  }
}

template <class D>
void heap_sort(const D& d, std::ptrdiff_t a, std::ptrdiff_t b) {
  const std::ptrdiff_t first = a;
  const std::ptrdiff_t lo = 0;
  const std::ptrdiff_t hi = b - a;
  for (std::ptrdiff_t i = (hi - 1) / 2; i >= 0; --i) go_sort::sift_down(d, i, hi, first);
  for (std::ptrdiff_t i = hi - 1; i >= 0; --i) {
    d.swap(first, first + i);
    go_sort::sift_down(d, lo, i, first);
  }
}

// bits.Len(uint(n)): the number of bits needed to represent n.
inline int bit_length(std::ptrdiff_t n) {
  return static_cast<int>(std::bit_width(static_cast<std::uint64_t>(n)));
}

template <class D>
void break_patterns(const D& d, std::ptrdiff_t a, std::ptrdiff_t b) {
  const std::ptrdiff_t length = b - a;
  if (length < 8) return;
  std::uint64_t random = static_cast<std::uint64_t>(length);  // Go's xorshift(length)
  const std::uint64_t modulus = std::uint64_t{1} << go_sort::bit_length(length);
  for (std::ptrdiff_t idx = a + (length / 4) * 2 - 1; idx <= a + (length / 4) * 2 + 1; ++idx) {
    random ^= random << 13;
    random ^= random >> 7;
    random ^= random << 17;
    auto other = static_cast<std::ptrdiff_t>(random & (modulus - 1));
    if (other >= length) other -= length;
    d.swap(idx, a + other);
  }
}

template <class D>
std::pair<std::ptrdiff_t, std::ptrdiff_t> order2(const D& d, std::ptrdiff_t a, std::ptrdiff_t b,
                                                 int& swaps) {
  if (d.less(b, a)) {
    ++swaps;
    return {b, a};
  }
  return {a, b};
}

template <class D>
std::ptrdiff_t median(const D& d, std::ptrdiff_t a, std::ptrdiff_t b, std::ptrdiff_t c,
                      int& swaps) {
  std::tie(a, b) = go_sort::order2(d, a, b, swaps);
  std::tie(b, c) = go_sort::order2(d, b, c, swaps);
  std::tie(a, b) = go_sort::order2(d, a, b, swaps);
  return b;
}

template <class D>
std::ptrdiff_t median_adjacent(const D& d, std::ptrdiff_t a, int& swaps) {
  return go_sort::median(d, a - 1, a, a + 1, swaps);
}

template <class D>
std::pair<std::ptrdiff_t, hint> choose_pivot(const D& d, std::ptrdiff_t a, std::ptrdiff_t b) {
  constexpr std::ptrdiff_t shortest_ninther = 50;
  constexpr int max_swaps = 4 * 3;
  const std::ptrdiff_t l = b - a;
  int swaps = 0;
  std::ptrdiff_t i = a + l / 4 * 1;
  std::ptrdiff_t j = a + l / 4 * 2;
  std::ptrdiff_t k = a + l / 4 * 3;
  if (l >= 8) {
    if (l >= shortest_ninther) {
      i = go_sort::median_adjacent(d, i, swaps);
      j = go_sort::median_adjacent(d, j, swaps);
      k = go_sort::median_adjacent(d, k, swaps);
    }
    j = go_sort::median(d, i, j, k, swaps);
  }
  if (swaps == 0) return {j, hint::increasing};
  if (swaps == max_swaps) return {j, hint::decreasing};
  return {j, hint::unknown};
}

template <class D>
void reverse_range(const D& d, std::ptrdiff_t a, std::ptrdiff_t b) {
  for (std::ptrdiff_t i = a, j = b - 1; i < j; ++i, --j) d.swap(i, j);
}

template <class D>
bool partial_insertion_sort(const D& d, std::ptrdiff_t a, std::ptrdiff_t b) {
  constexpr int max_steps = 5;
  constexpr std::ptrdiff_t shortest_shifting = 50;
  std::ptrdiff_t i = a + 1;
  for (int step = 0; step < max_steps; ++step) {
    while (i < b && !d.less(i, i - 1)) ++i;
    if (i == b) return true;
    if (b - a < shortest_shifting) return false;
    d.swap(i, i - 1);
    if (i - a >= 2) {
      for (std::ptrdiff_t j = i - 1; j >= 1; --j) {  // Go's bound is 1, not a: kept as is
        if (!d.less(j, j - 1)) break;
        d.swap(j, j - 1);
      }
    }
    if (b - i >= 2) {
      for (std::ptrdiff_t j = i + 1; j < b; ++j) {
        if (!d.less(j, j - 1)) break;
        d.swap(j, j - 1);
      }
    }
  }
  return false;
}

template <class D>
std::pair<std::ptrdiff_t, bool> partition(const D& d, std::ptrdiff_t a, std::ptrdiff_t b,
                                          std::ptrdiff_t pivot) {
  d.swap(a, pivot);
  std::ptrdiff_t i = a + 1;
  std::ptrdiff_t j = b - 1;
  while (i <= j && d.less(i, a)) ++i;
  while (i <= j && !d.less(j, a)) --j;
  if (i > j) {
    d.swap(j, a);
    return {j, true};
  }
  d.swap(i, j);
  ++i;
  --j;
  for (;;) {
    while (i <= j && d.less(i, a)) ++i;
    while (i <= j && !d.less(j, a)) --j;
    if (i > j) break;
    d.swap(i, j);
    ++i;
    --j;
  }
  d.swap(j, a);
  return {j, false};
}

template <class D>
std::ptrdiff_t partition_equal(const D& d, std::ptrdiff_t a, std::ptrdiff_t b,
                               std::ptrdiff_t pivot) {
  d.swap(a, pivot);
  std::ptrdiff_t i = a + 1;
  std::ptrdiff_t j = b - 1;
  for (;;) {
    while (i <= j && !d.less(a, i)) ++i;
    while (i <= j && d.less(a, j)) --j;
    if (i > j) break;
    d.swap(i, j);
    ++i;
    --j;
  }
  return i;
}

template <class D>
void pdqsort(const D& d, std::ptrdiff_t a, std::ptrdiff_t b, int limit) {
  constexpr std::ptrdiff_t max_insertion = 12;
  bool was_balanced = true;
  bool was_partitioned = true;
  for (;;) {
    const std::ptrdiff_t length = b - a;
    if (length <= max_insertion) {
      go_sort::insertion_sort(d, a, b);
      return;
    }
    if (limit == 0) {
      go_sort::heap_sort(d, a, b);
      return;
    }
    if (!was_balanced) {
      go_sort::break_patterns(d, a, b);
      --limit;
    }
    auto [pivot, h] = go_sort::choose_pivot(d, a, b);
    if (h == hint::decreasing) {
      go_sort::reverse_range(d, a, b);
      pivot = (b - 1) - (pivot - a);
      h = hint::increasing;
    }
    if (was_balanced && was_partitioned && h == hint::increasing)
      if (go_sort::partial_insertion_sort(d, a, b)) return;
    if (a > 0 && !d.less(a - 1, pivot)) {
      a = go_sort::partition_equal(d, a, b, pivot);
      continue;
    }
    const auto [mid, already_partitioned] = go_sort::partition(d, a, b, pivot);
    was_partitioned = already_partitioned;
    const std::ptrdiff_t left_len = mid - a;
    const std::ptrdiff_t right_len = b - mid;
    const std::ptrdiff_t balance_threshold = length / 8;
    if (left_len < right_len) {
      was_balanced = left_len >= balance_threshold;
      go_sort::pdqsort(d, a, mid, limit);
      a = mid + 1;
    } else {
      was_balanced = right_len >= balance_threshold;
      go_sort::pdqsort(d, mid + 1, b, limit);
      b = mid;
    }
  }
}

}  // namespace detail::go_sort

namespace detail {

// Sorts [first, last) as Go's sort.Slice(x, func(i, j int) bool { return less(x[i], x[j]) })
// does, leaving equal elements in the same order Go leaves them.
template <std::random_access_iterator It, class Less>
void go_sort_slice(It first, It last, Less less) {
  const auto length = static_cast<std::ptrdiff_t>(last - first);
  const detail::go_sort::data<It, Less> d{first, less};
  detail::go_sort::pdqsort(d, 0, length, detail::go_sort::bit_length(length));
}

}  // namespace detail

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DETAIL_GO_SORT_HPP
