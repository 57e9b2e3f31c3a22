# Install + export rules for preempt (included from the top-level CMakeLists.txt when
# PREEMPT_INSTALL is ON).
#
# Layout (arch-independent: everything under DATADIR, nothing under LIBDIR, as nlohmann/json):
#   ${CMAKE_INSTALL_INCLUDEDIR}/preempt/...                 headers
#   ${CMAKE_INSTALL_DATADIR}/cmake/preempt/                 preemptConfig*.cmake, preemptTargets.cmake
#   ${CMAKE_INSTALL_DATADIR}/pkgconfig/preempt.pc           pkg-config file (relocatable)
#   ${CMAKE_INSTALL_DOCDIR}/LICENSE
#
# SPDX-License-Identifier: Apache-2.0
include_guard(GLOBAL)

include(CMakePackageConfigHelpers)

set(PREEMPT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_DATADIR}/cmake/preempt"
    CACHE STRING "Install directory (relative to the prefix) of preempt's CMake package files")
set(PREEMPT_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_DATADIR}/pkgconfig"
    CACHE STRING "Install directory (relative to the prefix) of preempt.pc")
mark_as_advanced(PREEMPT_INSTALL_CMAKEDIR PREEMPT_INSTALL_PKGCONFIGDIR)

# --- Headers and target --------------------------------------------------------------------------
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        COMPONENT preempt_Development)
install(TARGETS preempt EXPORT preemptTargets)
install(EXPORT preemptTargets NAMESPACE preempt:: DESTINATION "${PREEMPT_INSTALL_CMAKEDIR}"
        COMPONENT preempt_Development)
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" DESTINATION "${CMAKE_INSTALL_DOCDIR}"
        COMPONENT preempt_Development)

# --- CMake package config ------------------------------------------------------------------------
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/preemptConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/preemptConfig.cmake"
  INSTALL_DESTINATION "${PREEMPT_INSTALL_CMAKEDIR}")
# The compatibility policy (README, "Versions and compatibility"; Semantic Versioning): before 1.0
# a minor release may break the API, so find_package(preempt 0.2) accepts 0.2.x only; from 1.0 a
# minor release only adds, so find_package(preempt 1.2) accepts any 1.y.z >= 1.2.
# ARCH_INDEPENDENT: header-only, no 32/64-bit check.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_preempt_compatibility SameMinorVersion)
else()
  set(_preempt_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/preemptConfigVersion.cmake"
  COMPATIBILITY ${_preempt_compatibility} ARCH_INDEPENDENT)
unset(_preempt_compatibility)
install(FILES "${PROJECT_BINARY_DIR}/preemptConfig.cmake"
              "${PROJECT_BINARY_DIR}/preemptConfigVersion.cmake"
        DESTINATION "${PREEMPT_INSTALL_CMAKEDIR}" COMPONENT preempt_Development)

# Build-tree export (fmt): preemptConfig.cmake + preemptTargets.cmake side by side in the build
# directory, so `find_package(preempt CONFIG)` with `preempt_DIR=<build dir>` works without
# installing, and so projects embedding preempt can export their own targets.
export(EXPORT preemptTargets NAMESPACE preempt:: FILE "${PROJECT_BINARY_DIR}/preemptTargets.cmake")

# --- pkg-config ----------------------------------------------------------------------------------
# Relocatable: prefix is computed from the .pc file's own location, so `cmake --install --prefix X`
# (a staging prefix) yields a working .pc. No Requires: the headers need only the standard library.
if(IS_ABSOLUTE "${PREEMPT_INSTALL_PKGCONFIGDIR}")
  set(PREEMPT_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _preempt_pc_up "/__prefix__/${PREEMPT_INSTALL_PKGCONFIGDIR}" "/__prefix__")
  string(REGEX REPLACE "/$" "" _preempt_pc_up "${_preempt_pc_up}")
  set(PREEMPT_PC_PREFIX "\${pcfiledir}/${_preempt_pc_up}")
  unset(_preempt_pc_up)
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(PREEMPT_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(PREEMPT_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file("${PROJECT_SOURCE_DIR}/cmake/preempt.pc.in" "${PROJECT_BINARY_DIR}/preempt.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/preempt.pc" DESTINATION "${PREEMPT_INSTALL_PKGCONFIGDIR}"
        COMPONENT preempt_Development)
