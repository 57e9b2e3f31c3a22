// examples/whatif/compat/loader.hpp - the old path of io/loader.hpp, for code outside
// examples/whatif that has not moved to the new one (benchmarks/x_upstream.cpp). Include
// io/loader.hpp instead.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_WHATIF_COMPAT_LOADER_HPP
#define PREEMPT_WHATIF_COMPAT_LOADER_HPP

#include "io/loader.hpp"

#endif  // PREEMPT_WHATIF_COMPAT_LOADER_HPP
