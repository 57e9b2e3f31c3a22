// preempt/evaluator_config.hpp - what an evaluator is configured with (evaluator_config) and what
// each evaluation is given besides its inputs (attempt).
//
// evaluator_config: the sampling arguments (preempt/sampling.hpp), the workers of a parallel dry
// run and how it batches nodes, the seed of the start offsets, and the branch and bound
// (report_only_chosen), the rejection index. attempt: where the dry run starts, and the node the
// preemptor is currently nominated to.
//
// Plain values; no allocation; no exceptions.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_EVALUATOR_CONFIG_HPP
#define PREEMPT_EVALUATOR_CONFIG_HPP

#include <cstddef>
#include <cstdint>
#include <optional>

#include "preempt/config.hpp"
#include "preempt/sampling.hpp"

PREEMPT_NAMESPACE_BEGIN

struct evaluator_config {
  sampling_args sampling;
  // Workers per dry run, the calling thread included. 1 evaluates sequentially.
  std::size_t parallelism = 1;
  // Nodes per worker in a parallel batch that may reach beyond the sequential stop: larger
  // batches mean fewer hand-offs and more nodes evaluated past the stop (their results are
  // discarded). Batches that cannot reach the stop are larger, up to max_batch nodes.
  std::size_t chunk = 8;
  // The most nodes one parallel batch evaluates (at least parallelism * chunk): their results,
  // about 170 bytes each, are held until the batch is merged; each batch wakes the helpers and
  // waits for the last of them once, so a full dry run is fastest in one batch.
  std::size_t max_batch = 8192;
  // Seeds the dry run's start offsets (preempt::offset_sequence: the same on every standard
  // library and target).
  std::uint64_t seed = 0;
  // Branch and bound: the caller reads the chosen candidate only, not every candidate's victims
  // (see preempt/detail/branch_and_bound.hpp).
  bool report_only_chosen = false;
  // Where the cluster offers a rejection index (preempt/rejection_index.hpp), the dry run gives
  // the runs of nodes it rules out their outcome without selecting their victims: the same
  // decision, diagnosis and observer calls. Off: every potential node is selected on.
  bool rejection_index = true;
  // With more than one worker, the dry run goes to the helpers when it has at least
  // min_parallel_nodes nodes to select on (the potential nodes the rejection index leaves open, at
  // most the candidates sampling wants), or nodes carrying at least min_parallel_pods pods
  // (estimated from the first 16 in candidate order: a dry run's work is mostly one look at each
  // pod, so a few hundred large nodes are worth handing out; 0: the node count alone decides).
  // Smaller dry runs stay on the calling thread, and so does one under the branch and bound
  // (report_only_chosen), where a node costs less than handing it out. min_parallel_nodes 0:
  // every dry run goes to the helpers.
  std::size_t min_parallel_nodes = 1024;
  std::size_t min_parallel_pods = 10000;
  // A dry run handed out lends at most std::thread::hardware_concurrency() - 1 helpers (the
  // calling thread works too): more workers than the machine runs at once only wait for each
  // other. false: every one of the parallelism's workers takes part (an executor that runs tasks
  // elsewhere, or a test of many workers on a small machine).
  bool workers_within_hardware = true;
};

// Per-attempt inputs.
struct attempt {
  // Where the dry run starts among the potential nodes (upstream draws it at random).
  std::optional<std::size_t> offset;
  // The node the preemptor is currently nominated to, if any.
  std::optional<std::size_t> nominated_node;
};

PREEMPT_NAMESPACE_END

#endif  // PREEMPT_EVALUATOR_CONFIG_HPP
