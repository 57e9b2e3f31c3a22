// preempt/decision.hpp - the outcome of one preemption evaluation, as the dispatcher and the
// caller read it.
//
// decision<P> says what upstream's PostFilter (DefaultPreemption, Evaluator.Preempt) would
// return for the preemptor:
//   nominated      a node and its victims were chosen: evict them, nominate the preemptor there
//                  (status Success with the node's name);
//   not_eligible   PodEligibleToPreemptOthers said no: keep the current nomination (a nil result
//                  with status Unschedulable);
//   unschedulable  preemption cannot help; with clear_nomination (no candidate at all: upstream's
//                  empty nominated node name in Override mode) the nomination must be removed,
//                  without it (the extenders dropped every candidate) it is kept;
//   error          something failed: keep the nomination and retry later (status Error).
// It also carries what the evaluation saw: every node it tried with its outcome (a diagnosis_view:
// one small entry per node naming one of the few distinct outcomes), the candidates, which one won
// and why, the number of potential nodes, the start offset and the sample size.
//
// A decision is a view into the evaluator that produced it (its buffers) and into the caller's
// cluster (the victims): valid until the evaluator's next evaluate call or a change of the cluster.
// So it is not copyable: evaluate returns a reference to the evaluator's own decision, which its
// next evaluate call overwrites in place (`const auto& d = ev.evaluate(...)`); a copy would keep
// views into buffers that call reuses or frees, so `auto d = ev.evaluate(...)` does not compile.
// Copy out what must outlive the next evaluation (the node index, the victims' uids).
//
// No allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_DECISION_HPP
#define PREEMPT_DECISION_HPP

#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <ranges>
#include <span>
#include <string_view>

#include "preempt/candidate.hpp"
#include "preempt/config.hpp"
#include "preempt/status.hpp"

PREEMPT_NAMESPACE_BEGIN

enum class decision_kind : std::uint8_t {
  nominated,      // a node and its victims were chosen
  not_eligible,   // the pod may not preempt now; keep its current nomination
  unschedulable,  // preemption cannot help (see clear_nomination)
  error,          // something failed; keep the current nomination and retry later
};

constexpr std::string_view to_string(decision_kind k) noexcept {
  switch (k) {
    case decision_kind::nominated: return "nominated";
    case decision_kind::not_eligible: return "not-eligible";
    case decision_kind::unschedulable: return "unschedulable";
    case decision_kind::error: return "error";
  }
  return "unknown";
}

// The outcome of one node in the dry run.
struct node_diagnosis {
  std::size_t node_index;
  status outcome;
};

// What a diagnosis_view yields: node_diagnosis's fields as references into the view's storage,
// valid as long as that storage. Its members are references, so a member-pointer projection
// (`transform(&node_diagnosis::outcome)`, which would refer into a temporary) does not compile;
// project through a lambda. Converts to node_diagnosis (a copy).
struct node_diagnosis_ref {
  const std::size_t& node_index;
  const status& outcome;

  constexpr operator node_diagnosis() const noexcept {  // NOLINT(google-explicit-constructor)
    return {node_index, outcome};
  }
};

// Every node a dry run kept, in evaluation order, each with its outcome, stored compactly: an
// entry per node names one of a few distinct outcomes (most nodes fail for the same reasons), and
// each distinct outcome carries how many entries name it. Reading element i yields a
// node_diagnosis_ref (references to its index and outcome); outcomes() and counts() let a reader
// that only tallies outcomes (upstream's FitError histogram) visit the distinct outcomes instead of
// every node. An outcome may appear more than once among the distinct ones (the producer interns
// against its recent outcomes only); counts() then splits its nodes between them.
//
// A view: valid as long as the storage it was made from. O(1) per access; no allocation.
class diagnosis_view {
 public:
  struct entry {
    std::size_t node_index;
    std::size_t outcome;  // into outcomes()
  };

  class iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using iterator_concept = std::random_access_iterator_tag;
    using value_type = node_diagnosis;
    using difference_type = std::ptrdiff_t;
    using reference = node_diagnosis_ref;
    using pointer = void;

    constexpr iterator() noexcept = default;
    constexpr iterator(const entry* at, const status* outcomes) noexcept
        : at_(at), outcomes_(outcomes) {}

    constexpr node_diagnosis_ref operator*() const noexcept {
      return {at_->node_index, outcomes_[at_->outcome]};
    }
    constexpr node_diagnosis_ref operator[](difference_type k) const noexcept {
      return *(*this + k);
    }
    constexpr iterator& operator++() noexcept { return ++at_, *this; }
    constexpr iterator operator++(int) noexcept { return {at_++, outcomes_}; }
    constexpr iterator& operator--() noexcept { return --at_, *this; }
    constexpr iterator operator--(int) noexcept { return {at_--, outcomes_}; }
    constexpr iterator& operator+=(difference_type k) noexcept { return at_ += k, *this; }
    constexpr iterator& operator-=(difference_type k) noexcept { return at_ -= k, *this; }
    friend constexpr iterator operator+(iterator it, difference_type k) noexcept { return it += k; }
    friend constexpr iterator operator+(difference_type k, iterator it) noexcept { return it += k; }
    friend constexpr iterator operator-(iterator it, difference_type k) noexcept { return it -= k; }
    friend constexpr difference_type operator-(const iterator& a, const iterator& b) noexcept {
      return a.at_ - b.at_;
    }
    friend constexpr bool operator==(const iterator& a, const iterator& b) noexcept {
      return a.at_ == b.at_;
    }
    friend constexpr auto operator<=>(const iterator& a, const iterator& b) noexcept {
      return a.at_ <=> b.at_;
    }

   private:
    const entry* at_ = nullptr;
    const status* outcomes_ = nullptr;
  };

  constexpr diagnosis_view() noexcept = default;
  // `counts[k]` is the number of entries whose outcome is k (one per outcome).
  constexpr diagnosis_view(std::span<const entry> entries, std::span<const status> outcomes,
                           std::span<const std::size_t> counts) noexcept
      : entries_(entries), outcomes_(outcomes), counts_(counts) {}

  constexpr std::size_t size() const noexcept { return entries_.size(); }
  constexpr bool empty() const noexcept { return entries_.empty(); }
  constexpr iterator begin() const noexcept { return {entries_.data(), outcomes_.data()}; }
  constexpr iterator end() const noexcept {
    return {entries_.data() + entries_.size(), outcomes_.data()};
  }
  constexpr node_diagnosis_ref operator[](std::size_t i) const noexcept {
    return {entries_[i].node_index, outcomes_[entries_[i].outcome]};
  }
  constexpr node_diagnosis_ref front() const noexcept { return (*this)[0]; }
  constexpr node_diagnosis_ref back() const noexcept { return (*this)[size() - 1]; }

  constexpr std::span<const entry> entries() const noexcept { return entries_; }
  // The distinct outcomes, and how many entries name each.
  constexpr std::span<const status> outcomes() const noexcept { return outcomes_; }
  constexpr std::span<const std::size_t> counts() const noexcept { return counts_; }

 private:
  std::span<const entry> entries_;
  std::span<const status> outcomes_;
  std::span<const std::size_t> counts_;
};

static_assert(std::random_access_iterator<diagnosis_view::iterator>);
static_assert(std::ranges::random_access_range<diagnosis_view>);
static_assert(std::ranges::sized_range<diagnosis_view>);

template <class P>
struct decision {
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  decision() = default;
  // Not copyable: bind the evaluator's decision by reference (see the header comment).
  decision(const decision&) = delete;  // bind it: const auto& d = ev.evaluate(...)
  decision& operator=(const decision&) = delete;
  decision(decision&&) noexcept = default;
  decision& operator=(decision&&) noexcept = default;

  decision_kind kind = decision_kind::error;
  // The nominated node (kind == nominated).
  std::size_t node_index = npos;
  std::string_view node_name;
  std::span<const P* const> victims;  // descending importance
  std::int64_t pdb_violations = 0;
  // Upstream's "nominated node name = '' with override": the pod's nomination must be cleared.
  // True only when the dry run found no candidate.
  bool clear_nomination = false;
  // "" when nominated; otherwise the upstream status message.
  std::string_view message;
  // Every node the dry run kept, in evaluation order, with its outcome.
  diagnosis_view diagnosis;
  // The candidates after the extenders, in the order they were found. With
  // evaluator_config::report_only_chosen, only those whose victims were selected.
  std::span<const candidate<P>> candidates;
  // Which candidate won (an index into `candidates`) and which score settled it among them.
  best_candidate choice;
  // Candidates found whose victims were not selected (evaluator_config::report_only_chosen):
  // a bound on their scores showed that they could not beat a candidate found before them.
  std::size_t candidates_bounded = 0;
  std::size_t potential_nodes = 0;
  std::size_t offset = 0;
  std::size_t candidates_wanted = 0;

  // The status code upstream's PostFilter returns with this decision.
  constexpr status_code code() const noexcept {
    switch (kind) {
      case decision_kind::nominated: return status_code::success;
      case decision_kind::error: return status_code::error;
      default: return status_code::unschedulable;
    }
  }
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_DECISION_HPP
