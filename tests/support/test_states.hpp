// tests/support/test_states.hpp - a cluster whose node state plays upstream's test plugins.
//
// `tst::test_cluster` wraps a fx::named_cluster (model::resource_cluster nodes and pods, pod names)
// and models preempt::cluster with its own state_type, `tst::test_state`, which delegates to
// model::resource_fit_state and adds, per the upstream test plugins (TestPostFilter,
// TestDryRunPreemption):
//   * nodes flagged "error" (upstream: label error=true): remove_pod fails with the TestPlugin's
//     RemovePod error (PF11, PF12);
//   * a filter chain for fits(), checked in this order:
//       fake_unschedulable  FakeFilter returning Unschedulable for every node
//       false_filter        FalseFilter: rejects every pod
//       match_filter        MatchFilter: the pod fits only on the node with the pod's name
//       resources           NodeResourcesFit (model::resource_fit_state)
//   * fit-check counting per node (upstream's "filter calls"), with atomics: the dry run may
//     evaluate nodes on several threads.
// Nodes evaluated ahead by a parallel dry run and then discarded also count; `kept_fit_checks`
// sums only the nodes a decision kept (its diagnosis), which is what a sequential dry run, and
// upstream's expected filter calls, count.
#ifndef PREEMPT_TESTS_SUPPORT_TEST_STATES_HPP
#define PREEMPT_TESTS_SUPPORT_TEST_STATES_HPP

#include <atomic>
#include <concepts>
#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "preempt/preempt.hpp"
#include "support/fixtures.hpp"

namespace tst {

using pod = preempt::model::resource_pod;
using preempt::status;

// Upstream TestPlugin's RemovePod error as the scheduler wraps it (TestPostFilter, PF11).
inline constexpr std::string_view remove_pod_error =
    "running RemovePod on PreFilter plugin \"test-plugin\": failed to remove pod: p";
// Upstream ErrReasonFake (FalseFilter, MatchFilter).
inline constexpr std::string_view fake_reason = "Nodes failed the fake plugin";
// Upstream FakeFilterPlugin's failure (which also names the pod; the name is left out here).
inline constexpr std::string_view injected_reason = "injecting failure for pod";

struct filter_chain {
  bool fake_unschedulable = false;
  bool false_filter = false;
  bool match_filter = false;
  bool resources = true;
};

class test_cluster;

class test_state {
 public:
  status remove_pod(const pod& p);
  status add_pod(const pod& p) { return inner_.add_pod(p); }
  status fits(const pod& p);

 private:
  friend class test_cluster;
  test_state(const test_cluster* owner, preempt::model::resource_fit_state inner)
      : owner_(owner), inner_(std::move(inner)) {}

  const test_cluster* owner_;
  std::size_t node_ = static_cast<std::size_t>(-1);
  preempt::model::resource_fit_state inner_;
};

class test_cluster {
 public:
  using state_type = test_state;

  // `c` must outlive this object and not change while it is used.
  explicit test_cluster(const fx::named_cluster& c, filter_chain f = {})
      : filters(f), named_(&c), error_(c.cluster.size(), false), fit_checks_(c.cluster.size()) {}
  test_cluster(const test_cluster&) = delete;
  test_cluster& operator=(const test_cluster&) = delete;

  std::size_t size() const noexcept { return named_->cluster.size(); }
  const preempt::model::resource_node& operator[](std::size_t i) const noexcept {
    return named_->cluster[i];
  }
  test_state make_state() const { return test_state(this, named_->cluster.make_state()); }
  void prepare_state(std::size_t i, test_state& s) const {
    named_->cluster.prepare_state(i, s.inner_);
    s.node_ = i;
  }

  // Upstream: the node has the label error=true.
  void flag_error(std::size_t node) { error_.at(node) = true; }
  bool is_error_node(std::size_t node) const { return error_.at(node); }

  int fit_checks(std::size_t node) const { return fit_checks_.at(node).load(); }
  int total_fit_checks() const {
    int sum = 0;
    for (const auto& n : fit_checks_) sum += n.load();
    return sum;
  }
  // Fit checks on the nodes a decision kept (its diagnosis).
  template <class Decision>
  int kept_fit_checks(const Decision& d) const {
    int sum = 0;
    for (const auto& diag : d.diagnosis) sum += fit_checks(diag.node_index);
    return sum;
  }
  void reset_counts() {
    for (auto& n : fit_checks_) n.store(0);
  }

  const fx::named_cluster& named() const noexcept { return *named_; }

  filter_chain filters;

 private:
  friend class test_state;
  const fx::named_cluster* named_;
  std::vector<bool> error_;
  mutable std::vector<std::atomic<int>> fit_checks_;
};

inline status test_state::remove_pod(const pod& p) {
  if (owner_->is_error_node(node_)) return status::error(remove_pod_error);
  return inner_.remove_pod(p);
}

inline status test_state::fits(const pod& p) {
  owner_->fit_checks_.at(node_).fetch_add(1, std::memory_order_relaxed);
  const filter_chain& f = owner_->filters;
  if (f.fake_unschedulable) return status::unschedulable(injected_reason);
  if (f.false_filter) return status::unschedulable(fake_reason);
  if (f.match_filter) {
    const auto& names = owner_->named().pod_names;
    const auto it = names.find(p.uid());
    if (it == names.end() || it->second != (*owner_)[node_].name())
      return status::unschedulable(fake_reason);
  }
  if (f.resources) return inner_.fits(p);
  return status::ok();
}

static_assert(preempt::node_state<test_state, pod>);
static_assert(preempt::cluster<test_cluster>);
static_assert(std::same_as<preempt::cluster_pod_t<test_cluster>, pod>);

}  // namespace tst

#endif  // PREEMPT_TESTS_SUPPORT_TEST_STATES_HPP
