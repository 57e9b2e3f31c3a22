// examples/whatif/compat/whatif.hpp - the old path of analysis/analysis.hpp and
// bench/repeated_evaluation.hpp, for code outside examples/whatif that has not moved to the new
// ones (benchmarks/x_upstream.cpp). Include those instead.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_COMPAT_WHATIF_HPP
#define PREEMPT_WHATIF_COMPAT_WHATIF_HPP

#include "analysis/analysis.hpp"
#include "bench/repeated_evaluation.hpp"

#endif  // PREEMPT_WHATIF_COMPAT_WHATIF_HPP
