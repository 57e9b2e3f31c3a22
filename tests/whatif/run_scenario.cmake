# Runs preempt-whatif on one scenario folder and compares the outcome with the expectations there.
#
#   cmake -DTOOL=<preempt-whatif> -DDIR=<scenario folder> -DWORK=<scratch folder> -P run_scenario.cmake
#
# A scenario folder holds (all optional):
#   cluster.json, cluster.yaml, cluster-*   passed as --cluster (in name order); none = no --cluster
#   pod.json or pod.yaml           passed as --pod
#   args                           more arguments, one line, shell syntax (e.g. --offset 4)
#   stdin.json or stdin.yaml       fed to standard input (use '-' in args)
#   expected.json                  the JSON output, compared as JSON (key order and spacing do not
#                                  matter); `--output json` is added unless args choose an output
#   expected.txt                   the exact standard output
#   expected-exit                  the exit status (default 0)
#   expected-stderr                the exact standard error (trailing newline ignored)
# The tool runs in the scenario folder, so file names in messages are relative ("cluster.json").
# On a mismatch the actual output is kept in WORK for inspection.
#
# SPDX-License-Identifier: Apache-2.0
cmake_minimum_required(VERSION 3.21)
foreach(v TOOL DIR WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_scenario.cmake: -D${v}=... is required")
  endif()
endforeach()
if(NOT EXISTS "${TOOL}")
  message(FATAL_ERROR "preempt-whatif not built: ${TOOL}")
endif()

set(cmd "${TOOL}")
file(GLOB clusters RELATIVE "${DIR}" "${DIR}/cluster.json" "${DIR}/cluster.yaml" "${DIR}/cluster-*")
list(SORT clusters)
if(clusters)
  list(APPEND cmd --cluster ${clusters})
endif()
foreach(pod pod.json pod.yaml)
  if(EXISTS "${DIR}/${pod}")
    list(APPEND cmd --pod ${pod})
  endif()
endforeach()
set(extra "")
if(EXISTS "${DIR}/args")
  file(READ "${DIR}/args" extra_text)
  string(STRIP "${extra_text}" extra_text)
  separate_arguments(extra UNIX_COMMAND "${extra_text}")
endif()
list(APPEND cmd ${extra})
if(EXISTS "${DIR}/expected.json" AND NOT extra MATCHES "(^|;)(--output|-o)(;|$)")
  list(APPEND cmd --output json)
endif()
set(input_args "")
foreach(stdin stdin.json stdin.yaml)
  if(EXISTS "${DIR}/${stdin}")
    set(input_args INPUT_FILE "${DIR}/${stdin}")
  endif()
endforeach()

execute_process(COMMAND ${cmd} WORKING_DIRECTORY "${DIR}" ${input_args}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
file(MAKE_DIRECTORY "${WORK}")
file(WRITE "${WORK}/stdout" "${out}")
file(WRITE "${WORK}/stderr" "${err}")
string(REPLACE ";" " " shown "${cmd}")

set(want_rc 0)
if(EXISTS "${DIR}/expected-exit")
  file(READ "${DIR}/expected-exit" want_rc)
  string(STRIP "${want_rc}" want_rc)
endif()
if(NOT rc STREQUAL want_rc)
  message(FATAL_ERROR "exit status ${rc}, expected ${want_rc}\n  command: ${shown}\n"
                      "  stderr: ${err}\n  stdout: ${out}")
endif()

if(EXISTS "${DIR}/expected-stderr")
  file(READ "${DIR}/expected-stderr" want_err)
  string(REGEX REPLACE "\n$" "" want_err "${want_err}")
  string(REGEX REPLACE "\n$" "" got_err "${err}")
  if(NOT got_err STREQUAL want_err)
    message(FATAL_ERROR "standard error differs\n  command: ${shown}\n  expected: ${want_err}\n"
                        "  actual:   ${got_err}")
  endif()
endif()

if(EXISTS "${DIR}/expected.json")
  file(READ "${DIR}/expected.json" want_json)
  string(JSON kind ERROR_VARIABLE parse_error TYPE "${out}")
  if(parse_error)
    message(FATAL_ERROR "the output is not JSON (${parse_error})\n  command: ${shown}\n${out}")
  endif()
  string(JSON same EQUAL "${want_json}" "${out}")
  if(NOT same)
    message(FATAL_ERROR "JSON output differs from expected.json\n  command: ${shown}\n"
                        "  compare: diff ${DIR}/expected.json ${WORK}/stdout\n${out}")
  endif()
endif()

if(EXISTS "${DIR}/expected.txt")
  file(READ "${DIR}/expected.txt" want_txt)
  if(NOT out STREQUAL want_txt)
    message(FATAL_ERROR "text output differs from expected.txt\n  command: ${shown}\n"
                        "  compare: diff ${DIR}/expected.txt ${WORK}/stdout\n${out}")
  endif()
endif()
message(STATUS "ok: ${shown}")
