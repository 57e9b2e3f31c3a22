# readme_pieces.cmake - ctest test `readme.pieces`: README.md's table of pieces names every header
# under include/preempt/ (a new header must be added to it). Run with
#   cmake -DSOURCE_DIR=<repository root> -P tests/readme_pieces.cmake
#
# SPDX-License-Identifier: Apache-2.0
cmake_minimum_required(VERSION 3.21)
file(READ "${SOURCE_DIR}/README.md" _readme)
string(FIND "${_readme}" "## The pieces" _start)
if(_start EQUAL -1)
  message(FATAL_ERROR "README.md has no '## The pieces' section")
endif()
string(SUBSTRING "${_readme}" ${_start} -1 _pieces)
file(GLOB_RECURSE _headers RELATIVE "${SOURCE_DIR}/include/preempt" "${SOURCE_DIR}/include/preempt/*.hpp")
list(SORT _headers)
set(_missing "")
foreach(_h IN LISTS _headers)
  string(FIND "${_pieces}" "`${_h}`" _at)
  if(_at EQUAL -1)
    list(APPEND _missing "${_h}")
  endif()
endforeach()
if(_missing)
  list(JOIN _missing ", " _missing)
  message(FATAL_ERROR "README.md's table of pieces does not list: ${_missing}")
endif()
list(LENGTH _headers _count)
message(STATUS "README.md lists all ${_count} headers")
