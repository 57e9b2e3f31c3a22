// preempt/config.hpp - build configuration shared by every header.
//
// Detects whether exceptions are enabled (PREEMPT_HAS_EXCEPTIONS, which a user may predefine),
// defines the contract check PREEMPT_ASSERT and the ABI-versioned namespace in which everything
// lives (preempt::v0), so that two vendored copies of different versions can link into one binary.
//
// A user may provide `preempt_user_config.hpp` on the include path; it is included first and may
// predefine PREEMPT_ASSERT_HANDLER (a function `void(const char* expr, const char* file, int line,
// const char* msg)`) or PREEMPT_NO_CHECKS.
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

#include <cstdio>
#include <cstdlib>

#include "preempt/version.hpp"

#ifndef PREEMPT_HAS_EXCEPTIONS
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define PREEMPT_HAS_EXCEPTIONS 1
#else
#define PREEMPT_HAS_EXCEPTIONS 0
#endif
#endif

#define PREEMPT_NAMESPACE_BEGIN \
  namespace preempt {           \
  inline namespace v0 {
#define PREEMPT_NAMESPACE_END \
  }                           \
  }

PREEMPT_NAMESPACE_BEGIN
namespace detail {

// Reports a broken contract and stops the program. Never throws.
[[noreturn]] inline void assertion_failed(const char* expr, const char* file, int line,
                                          const char* msg) noexcept {
  std::fprintf(stderr, "%s:%d: preempt: contract violated: %s (%s)\n", file, line, msg, expr);
  std::abort();
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
