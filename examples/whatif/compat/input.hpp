// examples/whatif/compat/input.hpp - the old path of io/input.hpp, for code outside examples/whatif
// that has not moved to the new one (benchmarks/x_upstream.cpp). Include io/input.hpp instead.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_COMPAT_INPUT_HPP
#define PREEMPT_WHATIF_COMPAT_INPUT_HPP

#include "io/input.hpp"

#endif  // PREEMPT_WHATIF_COMPAT_INPUT_HPP
