// tests/support/counting_new.hpp - replaces the global operator new with one that counts calls.
// Include it in exactly one translation unit of an executable.
#ifndef PREEMPT_TESTS_SUPPORT_COUNTING_NEW_HPP
#define PREEMPT_TESTS_SUPPORT_COUNTING_NEW_HPP

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

// The replaced operators pair malloc with free on purpose; g++ cannot see that they match.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace counting {
inline std::atomic<std::size_t> allocations{0};
inline std::size_t count() noexcept { return allocations.load(std::memory_order_relaxed); }
}  // namespace counting

void* operator new(std::size_t n) {
  counting::allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  std::abort();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  counting::allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

#endif  // PREEMPT_TESTS_SUPPORT_COUNTING_NEW_HPP
