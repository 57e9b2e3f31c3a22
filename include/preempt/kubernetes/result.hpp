// preempt/kubernetes/result.hpp - a value or an error message, for the Kubernetes adapter.
//
// The adapter parses text that comes from outside (quantities, timestamps, selectors), so its
// functions can fail on bad input. They return `result<T>`: either a T or an `error` whose message
// names the offending value (`invalid quantity "12x"`). No exceptions are thrown, so the adapter
// works with -fno-exceptions. `result<void>` carries only the error.
//
//   auto cpu = preempt::kubernetes::parse_milli("250m");
//   if (!cpu) return cpu.error_value();   // an `error`, its message naming the bad text
//   use(*cpu);
//
// Reading the value of a failed result is a contract violation (PREEMPT_ASSERT).
// Allocation: the message of a failure, and whatever T allocates. Not synchronized (a value).
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_KUBERNETES_RESULT_HPP
#define PREEMPT_KUBERNETES_RESULT_HPP

#include <optional>
#include <string>
#include <utility>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN
namespace kubernetes {

// Why an adapter function failed. The message names the value it rejected.
struct error {
  std::string message;
};

template <class T>
class result {
 public:
  result(T value) : value_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  result(error e) : error_(std::move(e.message)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const noexcept { return value_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }

  const T& value() const& {
    PREEMPT_ASSERT(ok(), "kubernetes::result::value on an error");
    return *value_;
  }
  T& value() & {
    PREEMPT_ASSERT(ok(), "kubernetes::result::value on an error");
    return *value_;
  }
  T&& value() && {
    PREEMPT_ASSERT(ok(), "kubernetes::result::value on an error");
    return std::move(*value_);
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }

  // The message ("" when ok).
  const std::string& message() const noexcept { return error_; }
  // The error, to pass on (`return r.error_value();`).
  error error_value() const { return error{error_}; }

 private:
  std::optional<T> value_;
  std::string error_;
};

template <>
class result<void> {
 public:
  result() = default;
  result(error e) : error_(std::move(e.message)), failed_(true) {}  // NOLINT

  bool ok() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return ok(); }
  const std::string& message() const noexcept { return error_; }
  error error_value() const { return error{error_}; }

 private:
  std::string error_;
  bool failed_ = false;
};

}  // namespace kubernetes
PREEMPT_NAMESPACE_END

#endif  // PREEMPT_KUBERNETES_RESULT_HPP
