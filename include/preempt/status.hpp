// preempt/status.hpp - the outcome of a feasibility check or of evaluating one node.
//
// A `status` is a code (the Kubernetes filter codes the algorithms distinguish) plus any number of
// reason strings such as "Insufficient cpu", in the order they were added (kube-scheduler keeps
// every reason: NodeResourcesFit lists pods, cpu, memory, ephemeral storage and each extended
// resource it lacks). Reasons are string views: they must point at storage that outlives the
// status (string literals, or strings owned by the caller's node state or resource names). Up to
// `status::inline_reasons` are held in the status itself; a longer list is interned in a
// process-wide table (detail/reason_lists.hpp) that keeps its own copy of the texts, each distinct
// list once, so that a status stays a small trivially copyable value.
//
// Complexity O(1) per reason up to inline_reasons; past that, a lock and a hash of the list per
// added reason. Allocation: none up to inline_reasons; past that, only the first time a distinct
// list is seen (none in steady state). No exceptions (an allocation failure of the table
// terminates, as everywhere under -fno-exceptions). Values, so thread-safe to copy; the table is
// synchronized.
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
#include "preempt/detail/reason_lists.hpp"

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
  // Reasons held in the status itself; longer lists are interned (detail::reason_lists).
  static constexpr std::size_t inline_reasons = 4;

  constexpr status() noexcept = default;
  constexpr explicit status(status_code code) noexcept : code_(code) {}
  // One reason, held in the status itself (never the interning path of add_reason).
  constexpr status(status_code code, std::string_view reason) noexcept : code_(code), count_(1) {
    std::construct_at(&store_.list);
    store_.list[0] = reason;
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

  // Appends a reason (every one is kept; past inline_reasons the list is interned).
  constexpr status& add_reason(std::string_view reason) noexcept {
    if (count_ == 0) std::construct_at(&store_.list);  // the first reason activates the list
    if (count_ < inline_reasons) {
      store_.list[count_++] = reason;
      return *this;
    }
    const std::span<const std::string_view> head = reasons();
    const std::string_view* interned = detail::reason_lists::instance().intern(head, reason);
    if (count_ == inline_reasons)
      std::construct_at(&store_.interned, interned);
    else
      store_.interned = interned;
    ++count_;
    return *this;
  }
  constexpr std::span<const std::string_view> reasons() const noexcept {
    if (count_ == 0) return {};
    if (count_ <= inline_reasons) return {store_.list.data(), count_};
    return {store_.interned, count_};
  }
  // The first reason, or "" when there is none.
  constexpr std::string_view reason() const noexcept {
    return count_ == 0 ? std::string_view{} : reasons()[0];
  }

  friend constexpr bool operator==(const status& a, const status& b) noexcept {
    if (a.code_ != b.code_ || a.count_ != b.count_) return false;
    if (a.count_ == 0) return true;
    if (a.count_ == 1) {  // the common case, without building the lists
      const std::string_view x = a.store_.list[0], y = b.store_.list[0];
      return (x.data() == y.data() && x.size() == y.size()) || x == y;
    }
    const auto ra = a.reasons(), rb = b.reasons();
    for (std::size_t i = 0; i < ra.size(); ++i)  // the same text at the same address: equal
      if ((ra[i].data() != rb[i].data() || ra[i].size() != rb[i].size()) && ra[i] != rb[i])
        return false;
    return true;
  }

 private:
  // The reason list is only brought to life by the first reason, so that the common successful
  // status costs a few bytes to make, however hot the loop that makes it.
  union reason_store {
    constexpr reason_store() noexcept : none() {}
    char none;
    std::array<std::string_view, inline_reasons> list;  // count_ <= inline_reasons
    const std::string_view* interned;                   // count_ > inline_reasons
  };

  status_code code_ = status_code::success;
  std::uint32_t count_ = 0;
  reason_store store_;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_STATUS_HPP
