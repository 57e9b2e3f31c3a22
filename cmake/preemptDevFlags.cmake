# preempt_dev_flags: private INTERFACE target carrying the warning set for preempt's own tests,
# examples and benchmarks. It is never installed or exported and never linked by `preempt`, so
# consumers never inherit our warnings (stdexec's `stdexec_executable_flags` idea).
#
# Sanitizers, -fno-exceptions etc. are NOT here: they come from CMakePresets.json (CMAKE_CXX_FLAGS).
#
# SPDX-License-Identifier: Apache-2.0
include_guard(GLOBAL)

add_library(preempt_dev_flags INTERFACE)

if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(
    preempt_dev_flags INTERFACE -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow
                                $<$<BOOL:${PREEMPT_WARNINGS_AS_ERRORS}>:-Werror>)
elseif(MSVC)
  target_compile_options(preempt_dev_flags INTERFACE /W4 /permissive-
                                                     $<$<BOOL:${PREEMPT_WARNINGS_AS_ERRORS}>:/WX>)
endif()
