// preempt/status.hpp - the outcome of a feasibility check or of evaluating one node.
//
// A `status` is a code (the Kubernetes filter codes the algorithms distinguish) plus up to
// `status::max_reasons` reason strings such as "Insufficient cpu". Reasons are string views: they
// must point at storage that outlives the status (string literals, or strings owned by the caller's
// node state or resource names). That keeps a status trivially copyable and allocation-free.
//
// Complexity O(1); no allocation; no exceptions; values, so thread-safe to copy.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_STATUS_HPP
#define PREEMPT_STATUS_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "preempt/config.hpp"

PREEMPT_NAMESPACE_BEGIN

// The codes of a filter result that preemption tells apart.
enum class status_code : std::uint8_t {
  success,
  // The pod does not fit, and removing pods may help (resources, anti-affinity, spread skew).
  unschedulable,
  // The pod does not fit, and removing pods cannot help (taints, node affinity, node name).
  unschedulable_and_unresolvable,
  // Something went wrong while checking; the node is not a candidate and the error is reported.
  error,
};

// Text of a code, as used in diagnoses: "Success", "Unschedulable", ...
constexpr std::string_view to_string(status_code code) noexcept {
  switch (code) {
    case status_code::success: return "Success";
    case status_code::unschedulable: return "Unschedulable";
    case status_code::unschedulable_and_unresolvable: return "UnschedulableAndUnresolvable";
    case status_code::error: return "Error";
  }
  return "Unknown";
}

class status {
 public:
  static constexpr std::size_t max_reasons = 4;

  constexpr status() noexcept = default;
  constexpr explicit status(status_code code) noexcept : code_(code) {}
  constexpr status(status_code code, std::string_view reason) noexcept : code_(code) {
    add_reason(reason);
  }

  static constexpr status ok() noexcept { return status{}; }
  static constexpr status unschedulable(std::string_view reason) noexcept {
    return {status_code::unschedulable, reason};
  }
  static constexpr status unresolvable(std::string_view reason) noexcept {
    return {status_code::unschedulable_and_unresolvable, reason};
  }
  static constexpr status error(std::string_view reason) noexcept {
    return {status_code::error, reason};
  }

  constexpr status_code code() const noexcept { return code_; }
  constexpr bool is_success() const noexcept { return code_ == status_code::success; }
  constexpr explicit operator bool() const noexcept { return is_success(); }

  // Appends a reason; reasons beyond max_reasons are dropped (the count says how many were kept).
  constexpr status& add_reason(std::string_view reason) noexcept {
    if (count_ == 0) std::construct_at(&store_.list);  // the first reason activates the list
    if (count_ < max_reasons) store_.list[count_++] = reason;
    return *this;
  }
  constexpr std::span<const std::string_view> reasons() const noexcept {
    if (count_ == 0) return {};
    return {store_.list.data(), count_};
  }
  // The first reason, or "" when there is none.
  constexpr std::string_view reason() const noexcept {
    return count_ == 0 ? std::string_view{} : store_.list[0];
  }

  friend constexpr bool operator==(const status& a, const status& b) noexcept {
    if (a.code_ != b.code_ || a.count_ != b.count_) return false;
    for (std::size_t i = 0; i < a.count_; ++i)
      if (a.store_.list[i] != b.store_.list[i]) return false;
    return true;
  }

 private:
  // The reason list is only brought to life by the first reason, so that the common successful
  // status costs two bytes to make, however hot the loop that makes it.
  union reason_store {
    constexpr reason_store() noexcept : none() {}
    char none;
    std::array<std::string_view, max_reasons> list;
  };

  status_code code_ = status_code::success;
  std::uint8_t count_ = 0;
  reason_store store_;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_STATUS_HPP
