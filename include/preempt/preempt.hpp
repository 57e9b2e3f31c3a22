// preempt/preempt.hpp - everything in the core library, in one include.
//
// The manual and thread-pool executors are opt-in and not included here: include
// preempt/manual_executor.hpp or preempt/thread_pool.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_PREEMPT_HPP
#define PREEMPT_PREEMPT_HPP

#include "preempt/budget.hpp"
#include "preempt/candidate.hpp"
#include "preempt/candidate_choice.hpp"
#include "preempt/cluster.hpp"
#include "preempt/config.hpp"
#include "preempt/decision.hpp"
#include "preempt/dispatcher.hpp"
#include "preempt/eligibility.hpp"
#include "preempt/evaluator.hpp"
#include "preempt/eviction.hpp"
#include "preempt/executor.hpp"
#include "preempt/extender.hpp"
#include "preempt/failure_message.hpp"
#include "preempt/filter_statuses.hpp"
#include "preempt/in_flight.hpp"
#include "preempt/in_flight_view.hpp"
#include "preempt/metrics.hpp"
#include "preempt/model/budget_table.hpp"
#include "preempt/model/resource_cluster.hpp"
#include "preempt/model/resource_fit_state.hpp"
#include "preempt/model/resource_pod.hpp"
#include "preempt/model/resources.hpp"
#include "preempt/node.hpp"
#include "preempt/node_state.hpp"
#include "preempt/nominated_fit.hpp"
#include "preempt/nomination_ledger.hpp"
#include "preempt/nominations.hpp"
#include "preempt/observer.hpp"
#include "preempt/pod.hpp"
#include "preempt/policy.hpp"
#include "preempt/sampling.hpp"
#include "preempt/status.hpp"
#include "preempt/upstream_profile.hpp"
#include "preempt/version.hpp"
#include "preempt/victim_selection.hpp"
#include "preempt/workload/build_victim_units.hpp"
#include "preempt/workload/group_decision.hpp"
#include "preempt/workload/group_dispatch.hpp"
#include "preempt/workload/group_evaluator.hpp"
#include "preempt/workload/group_metrics.hpp"
#include "preempt/workload/group_preemptor.hpp"
#include "preempt/workload/group_set.hpp"
#include "preempt/workload/placement.hpp"
#include "preempt/workload/unit_budgets.hpp"
#include "preempt/workload/unit_eligibility.hpp"
#include "preempt/workload/unit_victim_selection.hpp"
#include "preempt/workload/victim_unit.hpp"

#endif  // PREEMPT_PREEMPT_HPP
