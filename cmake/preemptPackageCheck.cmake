# preemptPackageCheck.cmake - the package consumer checks, run by .ci/packages (cmake -P).
#
# 1. installs the build's library component into CHECK_DIR/stage, and checks the installed
#    version file against the compatibility policy (before 1.0: the same minor version only);
# 2. builds + runs tests/consumer with find_package(preempt) against that prefix, as C++23;
# 3. builds + runs tests/consumer with add_subdirectory(<repo root>) (asserts no tests etc. built);
# 4. builds + runs tests/consumer/exporting_parent: a parent that takes preempt through
#    FetchContent (pointed at this checkout) and installs and exports a library linking
#    preempt::preempt, with no preempt option; then a user of the parent's install; and checks that
#    the same parent fails to generate with -DPREEMPT_INSTALL=OFF (what the default avoids);
# 5. compiles + runs tests/consumer/main.cpp with `pkg-config --cflags preempt` (if pkg-config),
#    which must carry no -std flag: once with -std=c++20, once with -std=c++23 given before them.
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

# 1b. The version file answers find_package(preempt <requested>) as the policy says. It is read the
#     way find_package reads it: PACKAGE_FIND_VERSION* in, PACKAGE_VERSION_COMPATIBLE out.
file(GLOB_RECURSE _version_file "${_stage}/*/preemptConfigVersion.cmake")
if(NOT _version_file)
  message(FATAL_ERROR "[package-check] preemptConfigVersion.cmake missing from the install")
endif()
string(REPLACE "." ";" _parts "${PREEMPT_VERSION}")
list(GET _parts 0 _major)
list(GET _parts 1 _minor)
math(EXPR _next_minor "${_minor} + 1")
math(EXPR _next_major "${_major} + 1")
# Accepted: this minor version. Refused: the next major, and a newer minor than installed.
set(_accepted "${_major}.${_minor}" "${PREEMPT_VERSION}")
set(_refused "${_next_major}.0" "${_major}.${_next_minor}")
if(_major EQUAL 0 AND _minor GREATER 0)
  math(EXPR _previous_minor "${_minor} - 1")
  list(APPEND _refused "0.${_previous_minor}") # before 1.0 an older minor version is another API
elseif(_major GREATER 0)
  list(APPEND _accepted "${_major}.0") # from 1.0 any older minor of the same major
endif()
function(_version_file_answer requested out)
  set(PACKAGE_FIND_VERSION "${requested}")
  string(REPLACE "." ";" _req "${requested}.0.0")
  list(GET _req 0 PACKAGE_FIND_VERSION_MAJOR)
  list(GET _req 1 PACKAGE_FIND_VERSION_MINOR)
  list(GET _req 2 PACKAGE_FIND_VERSION_PATCH)
  set(PACKAGE_FIND_VERSION_COUNT 2)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
  include("${_version_file}")
  set(${out} "${PACKAGE_VERSION_COMPATIBLE}" PARENT_SCOPE)
endfunction()
foreach(_requested IN LISTS _accepted)
  _version_file_answer("${_requested}" _ok)
  if(NOT _ok)
    message(FATAL_ERROR "[package-check] find_package(preempt ${_requested}) refuses ${PREEMPT_VERSION}")
  endif()
endforeach()
foreach(_requested IN LISTS _refused)
  _version_file_answer("${_requested}" _ok)
  if(_ok)
    message(FATAL_ERROR "[package-check] find_package(preempt ${_requested}) accepts ${PREEMPT_VERSION}")
  endif()
endforeach()
message(STATUS "[package-check] version ${PREEMPT_VERSION} accepted for ${_accepted}, refused for ${_refused}")

# 2. find_package consumer against the staged prefix.
set(_b "${CHECK_DIR}/find_package")
_step("configure consumer (find_package, C++23)"
      "${CMAKE_COMMAND}" -S "${_consumer_src}" -B "${_b}" ${_common_args}
      -DPREEMPT_CONSUMER_MODE=find_package "-DCMAKE_PREFIX_PATH=${_stage}"
      "-DPREEMPT_CONSUMER_EXPECT_PREFIX=${_stage}" -DCMAKE_CXX_STANDARD=23)
_step("build consumer (find_package, C++23)" "${CMAKE_COMMAND}" --build "${_b}" --config "${CONFIG}")
_step("run consumer (find_package, C++23)" "${_b}/preempt-consumer")
_expect_version("find_package consumer")

# 3. add_subdirectory consumer.
set(_b "${CHECK_DIR}/add_subdirectory")
_step("configure consumer (add_subdirectory)"
      "${CMAKE_COMMAND}" -S "${_consumer_src}" -B "${_b}" ${_common_args}
      -DPREEMPT_CONSUMER_MODE=add_subdirectory)
_step("build consumer (add_subdirectory)" "${CMAKE_COMMAND}" --build "${_b}" --config "${CONFIG}")
_step("run consumer (add_subdirectory)" "${_b}/preempt-consumer")
_expect_version("add_subdirectory consumer")

# 4. A parent that exports its own targets, preempt through FetchContent with no option given.
set(_parent_src "${_consumer_src}/exporting_parent")
set(_b "${CHECK_DIR}/exporting_parent")
set(_parent_stage "${CHECK_DIR}/exporting_parent-stage")
set(_parent_args -S "${_parent_src}" ${_common_args} "-DPREEMPT_VERSION=${PREEMPT_VERSION}"
                 "-DFETCHCONTENT_SOURCE_DIR_PREEMPT=${PREEMPT_SOURCE_DIR}")
_step("configure parent (FetchContent, exports its own targets)"
      "${CMAKE_COMMAND}" ${_parent_args} -B "${_b}")
_step("build parent" "${CMAKE_COMMAND}" --build "${_b}" --config "${CONFIG}")
_step("install parent to ${_parent_stage}"
      "${CMAKE_COMMAND}" --install "${_b}" --prefix "${_parent_stage}" --config "${CONFIG}")
set(_b "${CHECK_DIR}/exporting_parent-user")
_step("configure the parent's user (find_package(scheduler))"
      "${CMAKE_COMMAND}" -S "${_parent_src}/downstream" -B "${_b}" ${_common_args}
      "-DCMAKE_PREFIX_PATH=${_parent_stage}" "-DPREEMPT_CONSUMER_EXPECT_PREFIX=${_parent_stage}")
_step("build the parent's user" "${CMAKE_COMMAND}" --build "${_b}" --config "${CONFIG}")
_step("run the parent's user" "${_b}/scheduler-user")
_expect_version("the exporting parent's user")
# The control: without preempt's export set the same parent cannot generate.
execute_process(COMMAND "${CMAKE_COMMAND}" ${_parent_args} -B "${CHECK_DIR}/exporting_parent-off"
                        -DPREEMPT_INSTALL=OFF
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(_rc EQUAL 0 OR NOT _out MATCHES "not in (any|the) export set")
  message(FATAL_ERROR "[package-check] the exporting parent with -DPREEMPT_INSTALL=OFF was expected "
                      "to fail for want of preempt's export set (exit ${_rc}):\n${_out}")
endif()
message(STATUS "[package-check] with -DPREEMPT_INSTALL=OFF the parent fails as expected")

# 5. pkg-config consumer.
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
if(_cflags MATCHES "-std=")
  message(FATAL_ERROR "[package-check] pkg-config --cflags preempt sets the standard: ${_cflags}")
endif()
separate_arguments(_cflags UNIX_COMMAND "${_cflags}")
file(MAKE_DIRECTORY "${CHECK_DIR}/pkg-config")
# As a makefile writes it: $(CXX) $(CXXFLAGS) $(shell pkg-config --cflags preempt) ...
foreach(_std c++20 c++23)
  set(_define "")
  if(_std STREQUAL "c++23")
    set(_define -DPREEMPT_CONSUMER_EXPECT_CXX23)
  endif()
  _step("compile consumer (pkg-config: -std=${_std} ${_cflags})"
        "${CXX_COMPILER}" -std=${_std} ${_cflags} -DPREEMPT_CONSUMER_FULL ${_define}
        "${_consumer_src}/main.cpp" -o "${CHECK_DIR}/pkg-config/preempt-consumer-${_std}")
  _step("run consumer (pkg-config, ${_std})" "${CHECK_DIR}/pkg-config/preempt-consumer-${_std}")
  _expect_version("pkg-config consumer (${_std})")
endforeach()
message(STATUS "[package-check] all consumers OK (${_expected})")
