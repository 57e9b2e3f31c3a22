// examples/whatif/bench/repeated_evaluation.hpp - preempt::evaluator timed on a dump through
// the what-if's model (benchmarks/x_upstream.cpp): the filters run once, then the evaluation alone,
// as often as wanted.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_BENCH_REPEATED_EVALUATION_HPP
#define PREEMPT_WHATIF_BENCH_REPEATED_EVALUATION_HPP

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.hpp"
#include "preempt/thread_pool.hpp"

namespace whatif {

// The preemption evaluation alone, repeated: for timing preempt::evaluator on a dump
// (benchmarks/x_upstream.cpp). prepare() resolves the preemptor and runs the filters on every
// node once; each evaluate call then runs only the evaluator (upstream's DryRunPreemption and
// SelectCandidate) on the inline executor or on a thread pool, reusing its buffers: no
// allocation once warm. Only the decision is read, so the evaluator runs with
// report_only_chosen (branch and bound: a node that cannot beat an earlier candidate is counted
// without selecting its victims; the decision is the same). The analysis must outlive this
// object; not thread-safe.
class repeated_evaluation {
 public:
  repeated_evaluation();
  ~repeated_evaluation();
  repeated_evaluation(const repeated_evaluation&) = delete;
  repeated_evaluation& operator=(const repeated_evaluation&) = delete;

  // Errors: as analysis::decide's, and a pod that fits a node (nothing to evaluate).
  std::optional<load_error> prepare(const analysis& a, const pod_object& preemptor,
                                    const options& opts);

  // One evaluation on the inline executor; the index of the nominated node (in the dump's
  // order), or npos when preemption cannot help.
  std::size_t evaluate_inline();
  // One evaluation with `pool` (the caller and the pool's workers share the dry run).
  std::size_t evaluate_on(preempt::thread_pool& pool);

  // The last decision: the nominated node ("" when none) and the victims (namespace/name) in
  // the order they are evicted.
  std::string nominated_node() const;
  std::vector<std::string> victims() const;
  // The nodes the last decision's dry run evaluated.
  std::size_t nodes_evaluated() const;

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  struct state;
  std::unique_ptr<state> state_;
};

}  // namespace whatif

#endif  // PREEMPT_WHATIF_BENCH_REPEATED_EVALUATION_HPP
