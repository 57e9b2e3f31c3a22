# preemptPackageCheck.cmake - the package consumer checks, run by .ci/packages (cmake -P).
#
# 1. installs the build's library component into CHECK_DIR/stage;
# 2. builds + runs tests/consumer with find_package(preempt) against that prefix;
# 3. builds + runs tests/consumer with add_subdirectory(<repo root>) (asserts no tests etc. built);
# 4. compiles + runs tests/consumer/main.cpp with `pkg-config --cflags preempt` (if pkg-config).
# Each consumer must print "preempt <PREEMPT_VERSION>".
#
# Inputs (-D): PREEMPT_SOURCE_DIR PREEMPT_BINARY_DIR PREEMPT_VERSION CHECK_DIR CONFIG GENERATOR
#              MAKE_PROGRAM CXX_COMPILER PKG_CONFIG PKGCONFIG_DIR
#
# SPDX-License-Identifier: Apache-2.0
cmake_minimum_required(VERSION 3.21)

foreach(_var PREEMPT_SOURCE_DIR PREEMPT_BINARY_DIR PREEMPT_VERSION CHECK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "preemptPackageCheck: -D${_var}=... is required")
  endif()
endforeach()
if(NOT CONFIG)
  set(CONFIG Debug)
endif()
if(NOT PKGCONFIG_DIR)
  set(PKGCONFIG_DIR share/pkgconfig)
endif()

set(_stage "${CHECK_DIR}/stage")
set(_consumer_src "${PREEMPT_SOURCE_DIR}/tests/consumer")
set(_expected "preempt ${PREEMPT_VERSION}")
file(REMOVE_RECURSE "${CHECK_DIR}")
file(MAKE_DIRECTORY "${CHECK_DIR}")

function(_step what)
  message(STATUS "[package-check] ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "[package-check] FAILED: ${what} (exit ${_rc})\n${_out}")
  endif()
  set(_step_output "${_out}" PARENT_SCOPE)
endfunction()

function(_expect_version what)
  if(NOT _step_output MATCHES "^${_expected}\n")
    message(FATAL_ERROR "[package-check] ${what} printed '${_step_output}', expected '${_expected}'")
  endif()
endfunction()

set(_common_args -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
                 "-DCMAKE_BUILD_TYPE=${CONFIG}")
if(MAKE_PROGRAM)
  list(APPEND _common_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()

# 1. Install (library component only: headers, CMake package, .pc, license).
_step("install to ${_stage}"
      "${CMAKE_COMMAND}" --install "${PREEMPT_BINARY_DIR}" --prefix "${_stage}" --config "${CONFIG}"
      --component preempt_Development)
foreach(_f include/preempt/version.hpp "${PKGCONFIG_DIR}/preempt.pc")
  if(NOT EXISTS "${_stage}/${_f}")
    message(FATAL_ERROR "[package-check] ${_f} missing from the install")
  endif()
endforeach()

# 2. find_package consumer against the staged prefix.
set(_b "${CHECK_DIR}/find_package")
_step("configure consumer (find_package)"
      "${CMAKE_COMMAND}" -S "${_consumer_src}" -B "${_b}" ${_common_args}
      -DPREEMPT_CONSUMER_MODE=find_package "-DCMAKE_PREFIX_PATH=${_stage}"
      "-DPREEMPT_CONSUMER_EXPECT_PREFIX=${_stage}")
_step("build consumer (find_package)" "${CMAKE_COMMAND}" --build "${_b}" --config "${CONFIG}")
_step("run consumer (find_package)" "${_b}/preempt-consumer")
_expect_version("find_package consumer")

# 3. add_subdirectory consumer.
set(_b "${CHECK_DIR}/add_subdirectory")
_step("configure consumer (add_subdirectory)"
      "${CMAKE_COMMAND}" -S "${_consumer_src}" -B "${_b}" ${_common_args}
      -DPREEMPT_CONSUMER_MODE=add_subdirectory)
_step("build consumer (add_subdirectory)" "${CMAKE_COMMAND}" --build "${_b}" --config "${CONFIG}")
_step("run consumer (add_subdirectory)" "${_b}/preempt-consumer")
_expect_version("add_subdirectory consumer")

# 4. pkg-config consumer.
if(NOT PKG_CONFIG)
  message(STATUS "[package-check] pkg-config not found: skipping the pkg-config consumer")
  return()
endif()
set(ENV{PKG_CONFIG_PATH} "${_stage}/${PKGCONFIG_DIR}")
_step("pkg-config --modversion preempt" "${PKG_CONFIG}" --modversion preempt)
if(NOT _step_output STREQUAL "${PREEMPT_VERSION}\n")
  message(FATAL_ERROR "[package-check] pkg-config reports version '${_step_output}'")
endif()
_step("pkg-config --cflags preempt" "${PKG_CONFIG}" --cflags preempt)
string(STRIP "${_step_output}" _cflags)
separate_arguments(_cflags UNIX_COMMAND "${_cflags}")
file(MAKE_DIRECTORY "${CHECK_DIR}/pkg-config")
_step("compile consumer (pkg-config: ${_cflags})"
      "${CXX_COMPILER}" ${_cflags} -DPREEMPT_CONSUMER_FULL "${_consumer_src}/main.cpp"
      -o "${CHECK_DIR}/pkg-config/preempt-consumer")
_step("run consumer (pkg-config)" "${CHECK_DIR}/pkg-config/preempt-consumer")
_expect_version("pkg-config consumer")
message(STATUS "[package-check] all consumers OK (${_expected})")
