# PREEMPT_TEST_LAUNCHER: an optional command prefix (a ;-list) for running test executables, both
# for ctest and for doctest's build-time test discovery. It is applied through the target property
# CROSSCOMPILING_EMULATOR, which CMake (policy CMP0158 OLD, i.e. cmake_minimum_required < 3.29)
# and doctest_discover_tests both honour.
#
# Why: ThreadSanitizer in GCC 12 / Clang 14 fails at startup with
#   "FATAL: ThreadSanitizer: unexpected memory mapping 0x...-0x..."
# on kernels whose ASLR entropy (sysctl vm.mmap_rnd_bits) is higher than its shadow-memory layout
# expects (32 on recent Ubuntu/Fedora kernels; 28 works). Running the binary with ASLR disabled
# (`setarch -R`) avoids it. On this project's machines (vm.mmap_rnd_bits = 28) TSan works as is.
#
# If PREEMPT_TEST_LAUNCHER is empty and CMAKE_CXX_FLAGS contain -fsanitize=thread, a tiny threaded
# TSan program is compiled and run at configure time; only if it dies AND passes under
# `setarch -R` is the launcher set to `setarch;-R` (cached in PREEMPT_TEST_LAUNCHER_DETECTED).
# Set PREEMPT_TEST_LAUNCHER yourself to override (e.g. "valgrind;--error-exitcode=1").
#
# Usage: preempt_apply_test_launcher(<target>...)
#
# SPDX-License-Identifier: Apache-2.0
include_guard(GLOBAL)

set(PREEMPT_TEST_LAUNCHER "" CACHE STRING
    "Command prefix (;-list) to run test executables with, e.g. 'setarch;-R'. Empty: auto (TSan only)")

function(_preempt_detect_tsan_launcher out_var)
  set(${out_var} "" PARENT_SCOPE)
  if(CMAKE_CROSSCOMPILING OR NOT CMAKE_CXX_FLAGS MATCHES "-fsanitize=([a-z,]*,)?thread")
    return()
  endif()
  # Cache the verdict per flag set: the probe costs a compile + link.
  string(SHA1 _key "${CMAKE_CXX_COMPILER};${CMAKE_CXX_FLAGS}")
  if(DEFINED CACHE{PREEMPT_TEST_LAUNCHER_DETECTED} AND "${_PREEMPT_TSAN_PROBE_KEY}" STREQUAL "${_key}")
    set(${out_var} "${PREEMPT_TEST_LAUNCHER_DETECTED}" PARENT_SCOPE)
    return()
  endif()

  set(_dir "${CMAKE_BINARY_DIR}/CMakeFiles/preempt_tsan_probe")
  file(WRITE "${_dir}/probe.cpp" [=[
#include <thread>
int main() {
  int value = 0;
  std::thread t([&value] { value = 1; });
  t.join();
  return value == 1 ? 0 : 1;
}
]=])
  find_package(Threads REQUIRED)
  try_compile(_compiled "${_dir}/build" "${_dir}/probe.cpp"
              CXX_STANDARD 20
              LINK_LIBRARIES Threads::Threads
              OUTPUT_VARIABLE _compile_log
              COPY_FILE "${_dir}/probe")
  set(_launcher "")
  if(NOT _compiled)
    message(WARNING "preempt: could not build the ThreadSanitizer probe; tests run without launcher")
  else()
    execute_process(COMMAND "${_dir}/probe" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_VARIABLE _err)
    if(_rc EQUAL 0)
      message(STATUS "preempt: ThreadSanitizer probe runs fine, no test launcher needed")
    else()
      find_program(PREEMPT_SETARCH_EXECUTABLE setarch)
      mark_as_advanced(PREEMPT_SETARCH_EXECUTABLE)
      if(PREEMPT_SETARCH_EXECUTABLE)
        execute_process(COMMAND "${PREEMPT_SETARCH_EXECUTABLE}" -R "${_dir}/probe"
                        RESULT_VARIABLE _rc2 OUTPUT_QUIET ERROR_QUIET)
      else()
        set(_rc2 1)
      endif()
      if(_rc2 EQUAL 0)
        set(_launcher "${PREEMPT_SETARCH_EXECUTABLE};-R")
        message(STATUS "preempt: ThreadSanitizer needs ASLR off on this kernel "
                       "(vm.mmap_rnd_bits too high); tests will run under `setarch -R`")
      else()
        message(WARNING "preempt: the ThreadSanitizer probe fails (rc=${_rc}), even under "
                        "`setarch -R`; TSan tests will likely fail too:\n${_err}")
      endif()
    endif()
  endif()
  set(PREEMPT_TEST_LAUNCHER_DETECTED "${_launcher}" CACHE INTERNAL "auto-detected TSan test launcher")
  set(_PREEMPT_TSAN_PROBE_KEY "${_key}" CACHE INTERNAL "flags the TSan probe ran with")
  set(${out_var} "${_launcher}" PARENT_SCOPE)
endfunction()

if(PREEMPT_TEST_LAUNCHER)
  set(_launcher "${PREEMPT_TEST_LAUNCHER}")
else()
  _preempt_detect_tsan_launcher(_launcher)
endif()
set_property(GLOBAL PROPERTY PREEMPT_EFFECTIVE_TEST_LAUNCHER "${_launcher}")
unset(_launcher)

function(preempt_apply_test_launcher)
  get_property(_launcher GLOBAL PROPERTY PREEMPT_EFFECTIVE_TEST_LAUNCHER)
  if(_launcher)
    set_target_properties(${ARGN} PROPERTIES CROSSCOMPILING_EMULATOR "${_launcher}")
  endif()
endfunction()
