// tests/support/sanitizers.hpp - which sanitizer the tests run under, for tests that scale their
// work down where everything runs slower.
//
//   PREEMPT_TEST_UNDER_TSAN   1 under ThreadSanitizer, else 0
//   PREEMPT_TEST_UNDER_ASAN   1 under AddressSanitizer, else 0
// g++ defines __SANITIZE_THREAD__ / __SANITIZE_ADDRESS__; clang answers __has_feature.
#ifndef PREEMPT_TESTS_SUPPORT_SANITIZERS_HPP
#define PREEMPT_TESTS_SUPPORT_SANITIZERS_HPP

#if defined(__SANITIZE_THREAD__)
#define PREEMPT_TEST_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PREEMPT_TEST_UNDER_TSAN 1
#endif
#endif
#ifndef PREEMPT_TEST_UNDER_TSAN
#define PREEMPT_TEST_UNDER_TSAN 0
#endif

#if defined(__SANITIZE_ADDRESS__)
#define PREEMPT_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PREEMPT_TEST_UNDER_ASAN 1
#endif
#endif
#ifndef PREEMPT_TEST_UNDER_ASAN
#define PREEMPT_TEST_UNDER_ASAN 0
#endif

#endif  // PREEMPT_TESTS_SUPPORT_SANITIZERS_HPP
