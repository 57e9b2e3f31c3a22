// preempt/workload/victim_units.hpp - the former name of preempt/workload/build_victim_units.hpp
// (the victim units of a whole cluster: build_victim_units and its unit_scratch). One victim unit
// and the importance order are in preempt/workload/victim_unit.hpp.
//
// Kept for 0.2.x users; will be removed in 0.4. Include preempt/workload/build_victim_units.hpp
// instead.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WORKLOAD_VICTIM_UNITS_HPP
#define PREEMPT_WORKLOAD_VICTIM_UNITS_HPP

#include "preempt/workload/build_victim_units.hpp"

#endif  // PREEMPT_WORKLOAD_VICTIM_UNITS_HPP
