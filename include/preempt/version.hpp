// preempt/version.hpp - the library's version, checked in so that a copy of include/ needs no
// configure step. CMake reads these three macros to set the project version.
//
// SPDX-License-Identifier: Apache-2.0
#ifndef PREEMPT_VERSION_HPP
#define PREEMPT_VERSION_HPP

#define PREEMPT_VERSION_MAJOR 0
#define PREEMPT_VERSION_MINOR 2
#define PREEMPT_VERSION_PATCH 0

// One number for preprocessor comparisons: major * 10000 + minor * 100 + patch.
#define PREEMPT_VERSION \
  (PREEMPT_VERSION_MAJOR * 10000 + PREEMPT_VERSION_MINOR * 100 + PREEMPT_VERSION_PATCH)

#endif  // PREEMPT_VERSION_HPP
