// preempt/config.hpp - build configuration shared by every header.
//
// Detects whether exceptions are enabled (PREEMPT_HAS_EXCEPTIONS, which a user may predefine),
// defines the contract check PREEMPT_ASSERT and the ABI-versioned inline namespace in which
// everything lives: preempt::v<major>_<minor> (preempt::v0_2 for 0.2.x), made from
// PREEMPT_VERSION_MAJOR and PREEMPT_VERSION_MINOR. Code names preempt::x; the symbols carry the
// version, so two copies of different minor versions (vendored by two libraries) link into one
// binary without clashing, each with its own code, and their types are distinct (an object of one
// cannot be handed to code built against the other). Patch releases keep the namespace: they keep
// the ABI (layouts and signatures). README's "Versions and compatibility" states the policy.
//
// PREEMPT_NO_THREADS: the configuration without threads, for targets whose standard library has
// none (newlib on bare metal; detected from libstdc++'s _GLIBCXX_HAS_GTHREADS and libc++'s
// _LIBCPP_HAS_NO_THREADS) or by defining it. The library then includes no <mutex>, <thread>,
// <shared_mutex> or <condition_variable>: its locks are preempt::null_mutex, the evaluator runs
// on always-inline executors only (no helper crew), and the dispatcher dispatches inline only.
//
// detail::prefetch_for_read(address) hints the processor to fetch a cache line about to be read
// (__builtin_prefetch with g++ and clang, nothing elsewhere); it never changes a result.
//
// A user may provide `preempt_user_config.hpp` on the include path; it is included first and may
// predefine PREEMPT_ASSERT_HANDLER (a function `void(const char* expr, const char* file, int line,
// const char* msg)`) or PREEMPT_NO_CHECKS. The default handler prints the violation to stderr and
// aborts; on bare metal (PREEMPT_NO_THREADS and no operating system; PREEMPT_ASSERT_USES_STDIO
// overrides) it uses no stdio, which would cost the firmware newlib's printf: it records the
// violation in detail::last_contract_violation, for a debugger or a fault handler, and aborts.
//
// No allocation, no exceptions, no RTTI, no global state.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_CONFIG_HPP
#define PREEMPT_CONFIG_HPP

#if defined(__has_include)
#if __has_include(<preempt_user_config.hpp>)
#include <preempt_user_config.hpp>
#endif
#endif

#include <cstdlib>
#include <version>

#include "preempt/version.hpp"

#if !defined(PREEMPT_NO_THREADS)
#if (defined(__GLIBCXX__) && !defined(_GLIBCXX_HAS_GTHREADS)) || defined(_LIBCPP_HAS_NO_THREADS)
#define PREEMPT_NO_THREADS 1
#endif
#endif

// Whether the default assertion handler prints (hosted) or only records the violation (bare metal).
#if !defined(PREEMPT_ASSERT_USES_STDIO)
#if defined(PREEMPT_NO_THREADS) && !defined(__unix__) && !defined(__APPLE__) && !defined(_WIN32)
#define PREEMPT_ASSERT_USES_STDIO 0
#else
#define PREEMPT_ASSERT_USES_STDIO 1
#endif
#endif
#if PREEMPT_ASSERT_USES_STDIO
#include <cstdio>
#endif

// PREEMPT_HAS_STOP_TOKEN: std::stop_token is there (C++20's <stop_token>; libc++ before 17 lacks
// it), so the dispatcher takes one for its outstanding work and for wait_idle.
#if !defined(PREEMPT_HAS_STOP_TOKEN)
#if !defined(PREEMPT_NO_THREADS) && defined(__cpp_lib_jthread)
#define PREEMPT_HAS_STOP_TOKEN 1
#else
#define PREEMPT_HAS_STOP_TOKEN 0
#endif
#endif

#ifndef PREEMPT_HAS_EXCEPTIONS
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define PREEMPT_HAS_EXCEPTIONS 1
#else
#define PREEMPT_HAS_EXCEPTIONS 0
#endif
#endif

// PREEMPT_ABI_NAMESPACE: v<major>_<minor>, pasted from the version macros.
#define PREEMPT_ABI_NAMESPACE_PASTE(major, minor) v##major##_##minor
#define PREEMPT_ABI_NAMESPACE_OF(major, minor) PREEMPT_ABI_NAMESPACE_PASTE(major, minor)
#define PREEMPT_ABI_NAMESPACE PREEMPT_ABI_NAMESPACE_OF(PREEMPT_VERSION_MAJOR, PREEMPT_VERSION_MINOR)

#define PREEMPT_NAMESPACE_BEGIN \
  namespace preempt {           \
  inline namespace PREEMPT_ABI_NAMESPACE {
#define PREEMPT_NAMESPACE_END \
  }                           \
  }

PREEMPT_NAMESPACE_BEGIN
namespace detail {

// The last contract violation, as the bare-metal handler records it (read it from a debugger or a
// fault handler: the program aborts right after).
struct contract_violation {
  const char* expr;
  const char* file;
  int line;
  const char* msg;
};
inline volatile contract_violation last_contract_violation{};

// Reports a broken contract and stops the program. Never throws.
[[noreturn]] inline void assertion_failed(const char* expr, const char* file, int line,
                                          const char* msg) noexcept {
#if PREEMPT_ASSERT_USES_STDIO
  std::fprintf(stderr, "%s:%d: preempt: contract violated: %s (%s)\n", file, line, msg, expr);
#else
  last_contract_violation.expr = expr;
  last_contract_violation.file = file;
  last_contract_violation.line = line;
  last_contract_violation.msg = msg;
#endif
  std::abort();
}

// Asks for the cache line holding `address`, to be read soon (a hint: no fault, no effect on any
// value, nothing at all where the compiler offers no prefetch).
inline void prefetch_for_read(const void* address) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(address, 0, 3);
#else
  static_cast<void>(address);
#endif
}

}  // namespace detail
PREEMPT_NAMESPACE_END

#ifndef PREEMPT_ASSERT_HANDLER
#define PREEMPT_ASSERT_HANDLER ::preempt::detail::assertion_failed
#endif

// PREEMPT_ASSERT(cond, msg): checks a precondition of the library's API. On by default, also in
// release builds (the checks are O(1) and sit outside inner loops); PREEMPT_NO_CHECKS removes them.
#ifdef PREEMPT_NO_CHECKS
#define PREEMPT_ASSERT(cond, msg) static_cast<void>(0)
#else
#define PREEMPT_ASSERT(cond, msg) \
  ((cond) ? static_cast<void>(0) : PREEMPT_ASSERT_HANDLER(#cond, __FILE__, __LINE__, msg))
#endif

#endif  // PREEMPT_CONFIG_HPP
