// preempt/failure_message.hpp - the message of a preemption attempt that nominated no node,
// worded as upstream's DefaultPreemption PostFilter words it (every message starts with
// "preemption: ", as the plugin prefixes it).
//
// failure_message keeps one message buffer and composes, into it:
//   fit_error(diagnosis, total_nodes)   no candidate: upstream's FitError over all nodes,
//       "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found
//       for incoming pod." Each reason of each failed node is counted; every node that did not
//       fail (not tried, or a candidate dropped because the candidate lists were full) counts as
//       "Preemption is not helpful for scheduling", as upstream's status map has no entry for
//       it. The "<count> <reason>" parts are sorted as strings.
//   aggregate_error(diagnosis, nodes)   the dry run's errors with no candidate: one error as is,
//       several as "[a, b]" in evaluation order, duplicates once; "expected at least one victim
//       pod on node" names its node.
//   no_victims_on(node_name)            an extender returned a node without victims.
//   prefixed(text)                      any other message, e.g. PodEligibleToPreemptOthers' reason.
// Each returns a view of the buffer, valid until the next call.
//
// Complexity: fit_error visits the diagnosis' distinct outcomes with their counts, not every node:
// O(reasons of the distinct outcomes · distinct reasons); O(nodes + errors²) for aggregate_error.
// Allocation: the buffers (the message and one line per distinct reason or error) grow to the
// longest message seen, then are reused: composing a message no longer than an earlier one
// allocates nothing, on the error path too. No exceptions of its own. Not synchronized.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_FAILURE_MESSAGE_HPP
#define PREEMPT_FAILURE_MESSAGE_HPP

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/config.hpp"
#include "preempt/decision.hpp"
#include "preempt/node.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN

// Upstream's texts.
inline constexpr std::string_view not_helpful_reason = "Preemption is not helpful for scheduling";
inline constexpr std::string_view zero_victims_reason = "expected at least one victim pod on node";
inline constexpr std::string_view no_candidate_message =
    "preemption: no candidate node for preemption";
inline constexpr std::string_view no_nodes_message = "preemption: no nodes available";
// The caller's mistakes the evaluator reports rather than reading out of bounds or acting on.
inline constexpr std::string_view statuses_too_short_message =
    "preemption: the filter statuses cover fewer nodes than the cluster has";
inline constexpr std::string_view preemptor_among_victims_message =
    "preemption: the preemptor is among the victims (a running pod has the preemptor's uid)";

class failure_message {
 public:
  std::string_view prefixed(std::string_view text) {
    message_ = prefix;
    message_ += text;
    return message_;
  }

  std::string_view no_victims_on(std::string_view node_name) {
    message_ = prefix;
    append_zero_victims(message_, node_name);
    return message_;
  }

  std::string_view fit_error(const diagnosis_view& diagnosis, std::size_t total_nodes) {
    histogram_.clear();
    std::size_t failed = 0;
    const std::span<const status> outcomes = diagnosis.outcomes();
    const std::span<const std::size_t> counts = diagnosis.counts();
    for (std::size_t k = 0; k < outcomes.size(); ++k) {
      if (outcomes[k].is_success() || counts[k] == 0) continue;
      failed += counts[k];
      for (std::string_view reason : outcomes[k].reasons()) count(reason, counts[k]);
    }
    if (total_nodes > failed) count(not_helpful_reason, total_nodes - failed);
    used_ = 0;
    for (const auto& [reason, times] : histogram_) {
      std::string& line = next_line();
      append_number(line, times);
      line += ' ';
      line += reason;
    }
    std::sort(lines_.begin(), lines_.begin() + static_cast<std::ptrdiff_t>(used_));
    message_ = prefix;
    message_ += "0/";
    append_number(message_, total_nodes);
    message_ += " nodes are available: ";
    append_joined();
    message_ += '.';
    return message_;
  }

  // `nodes[i].name()` is the name of node i (a preempt::cluster, for instance).
  template <class Nodes>
  std::string_view aggregate_error(const diagnosis_view& diagnosis, const Nodes& nodes) {
    used_ = 0;
    const std::span<const status> outcomes = diagnosis.outcomes();
    for (const diagnosis_view::entry& e : diagnosis.entries()) {
      const status& outcome = outcomes[e.outcome];
      if (outcome.code() != status_code::error) continue;
      std::string& line = next_line();
      if (outcome.reason() == zero_victims_reason)
        append_zero_victims(line, ::preempt::name_of(nodes[e.node_index]));
      else
        line = outcome.reason();
      const auto seen = lines_.begin() + static_cast<std::ptrdiff_t>(used_ - 1);
      if (std::find(lines_.begin(), seen, line) != seen) --used_;  // a duplicate: drop it
    }
    message_ = prefix;
    if (used_ > 1) message_ += '[';
    append_joined();
    if (used_ > 1) message_ += ']';
    return message_;
  }

 private:
  static constexpr std::string_view prefix = "preemption: ";

  static void append_zero_victims(std::string& out, std::string_view node_name) {
    out += zero_victims_reason;
    out += " \"";
    out += node_name;
    out += '"';
  }

  void count(std::string_view reason, std::size_t times) {
    // Reasons are mostly the same interned texts: the same characters at the same address
    // answer without comparing them.
    for (auto& [r, c] : histogram_)
      if ((r.data() == reason.data() && r.size() == reason.size()) || r == reason) {
        c += times;
        return;
      }
    histogram_.emplace_back(reason, times);
  }

  // The next line of the current message, empty; its buffer is kept from earlier messages.
  std::string& next_line() {
    if (used_ == lines_.size()) lines_.emplace_back();
    std::string& line = lines_[used_++];
    line.clear();
    return line;
  }

  // Appends n in decimal, without a temporary string.
  static void append_number(std::string& out, std::size_t n) {
    char digits[24];
    std::size_t len = 0;
    do {
      digits[len++] = static_cast<char>('0' + n % 10);
      n /= 10;
    } while (n != 0);
    while (len != 0) out += digits[--len];
  }

  void append_joined() {
    for (std::size_t i = 0; i < used_; ++i) {
      if (i != 0) message_ += ", ";
      message_ += lines_[i];
    }
  }

  std::vector<std::pair<std::string_view, std::size_t>> histogram_;
  std::vector<std::string> lines_;  // the first used_ are the current message's
  std::size_t used_ = 0;
  std::string message_;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_FAILURE_MESSAGE_HPP
