# Checks the field table of examples/whatif/README.md (between <!-- field-table --> and
# <!-- /field-table -->): every field kube-scheduler v1.37's default profile reads for preemption,
# and what preempt-whatif does with it.
#
#   cmake -DTOOL=<preempt-whatif> -DREADME=<README.md> -DSCENARIOS=<scenarios folder>
#         -DWORK=<scratch folder> -P field_table.cmake
#
# Each row is | Object | Field | Read by | preempt-whatif | Checked by |. The fourth column starts
# with what the tool does:
#   modelled    the fifth column names a scenario and the input to take away, as
#               `scenario`: `file` `path` (path: JSON keys and array indices joined by dots), or to
#               change, as `scenario`: `file` `path` = `JSON value`; the scenario holds the field
#               (its own test checks upstream's answer), and the tool, run on it without that
#               input (or with it changed), must still decide (exit 0 or 3) and answer
#               differently: the field changes the answer.
#   refused     the fifth column names a scenario whose expected exit status is 3 and whose
#               expected notModelled names the field (the last component of the second column's
#               last `...`).
#   rejected    the fifth column names a scenario whose expected exit status is 2 (bad input: the
#               API server would reject the object).
#   not used, see Volumes, see Devices   nothing to check here (the other tables and issues).
# Any other row fails the test: a field the table lists is modelled, refused or rejected, or says
# why it needs neither.
#
# SPDX-License-Identifier: Apache-2.0
cmake_minimum_required(VERSION 3.21)
foreach(v TOOL README SCENARIOS WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "field_table.cmake: -D${v}=... is required")
  endif()
endforeach()

file(READ "${README}" readme)
string(FIND "${readme}" "<!-- field-table -->" begin)
string(FIND "${readme}" "<!-- /field-table -->" end)
if(begin LESS 0 OR end LESS begin)
  message(FATAL_ERROR "${README}: no <!-- field-table --> ... <!-- /field-table --> section")
endif()
math(EXPR length "${end} - ${begin}")
string(SUBSTRING "${readme}" ${begin} ${length} table)
string(REPLACE ";" "," table "${table}")  # the table holds no semicolon of its own
string(REPLACE "\n" ";" lines "${table}")

# Runs the tool on folder `dir` as run_scenario.cmake does (JSON output); sets out/rc.
function(run_tool dir out_var rc_var)
  set(cmd "${TOOL}")
  file(GLOB clusters RELATIVE "${dir}" "${dir}/cluster.json" "${dir}/cluster.yaml" "${dir}/cluster-*")
  list(SORT clusters)
  if(clusters)
    list(APPEND cmd --cluster ${clusters})
  endif()
  if(EXISTS "${dir}/pod.json")
    list(APPEND cmd --pod pod.json)
  endif()
  if(EXISTS "${dir}/args")
    file(READ "${dir}/args" extra)
    string(STRIP "${extra}" extra)
    separate_arguments(extra UNIX_COMMAND "${extra}")
    list(APPEND cmd ${extra})
  endif()
  list(APPEND cmd --output json)
  execute_process(COMMAND ${cmd} WORKING_DIRECTORY "${dir}" OUTPUT_VARIABLE out
                  ERROR_VARIABLE err RESULT_VARIABLE rc)
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()

set(failures "")
set(rows 0)
set(checked 0)
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^\\|")
    continue()
  endif()
  if(line MATCHES "^\\| *Object *\\|" OR line MATCHES "^\\|[ :-]+\\|")
    continue()  # the header and its separator
  endif()
  string(REGEX REPLACE "^\\| *" "" row "${line}")
  string(REGEX REPLACE " *\\| *$" "" row "${row}")
  string(REGEX REPLACE " *\\| *" ";" cells "${row}")
  list(LENGTH cells n)
  if(NOT n EQUAL 5)
    list(APPEND failures "a row without 5 cells: ${line}")
    continue()
  endif()
  math(EXPR rows "${rows} + 1")
  list(GET cells 0 object)
  list(GET cells 1 field)
  list(GET cells 3 does)
  list(GET cells 4 check)
  string(REPLACE "`" "" field_text "${field}")
  set(what "${object} ${field_text}")
  if(does MATCHES "^(not used|see Volumes|see Devices)")
    continue()
  endif()
  if(NOT does MATCHES "^(modelled|refused|rejected)")
    list(APPEND failures "${what}: neither modelled, refused nor rejected: ${does}")
    continue()
  endif()
  set(kind "${CMAKE_MATCH_1}")
  if(NOT check MATCHES "^`([A-Za-z0-9_.-]+)`")
    list(APPEND failures "${what}: ${kind}, but the last cell names no scenario: ${check}")
    continue()
  endif()
  set(scenario "${CMAKE_MATCH_1}")
  set(dir "${SCENARIOS}/${scenario}")
  if(NOT IS_DIRECTORY "${dir}")
    list(APPEND failures "${what}: no scenario ${scenario}")
    continue()
  endif()
  set(want_rc 0)
  if(EXISTS "${dir}/expected-exit")
    file(READ "${dir}/expected-exit" want_rc)
    string(STRIP "${want_rc}" want_rc)
  endif()
  if(kind STREQUAL "rejected")
    if(NOT want_rc STREQUAL "2")
      list(APPEND failures "${what}: rejected, but ${scenario} expects exit status ${want_rc}")
    endif()
    math(EXPR checked "${checked} + 1")
    continue()
  endif()
  if(NOT EXISTS "${dir}/expected.json")
    list(APPEND failures "${what}: ${scenario} has no expected.json")
    continue()
  endif()
  file(READ "${dir}/expected.json" expected)
  if(kind STREQUAL "refused")
    # The field as the refusal names it: the last `...` of the second cell, its last component.
    string(REGEX MATCHALL "`[^`]+`" quoted "${field}")
    list(POP_BACK quoted bare_field)
    string(REGEX REPLACE "[`]|\\[[^]]*\\]" "" bare_field "${bare_field}")
    string(REGEX REPLACE "^.*\\." "" bare_field "${bare_field}")
    string(FIND "${expected}" "notModelled" has_list)
    string(FIND "${expected}" "${bare_field}" names_field)
    if(NOT want_rc STREQUAL "3" OR has_list LESS 0 OR names_field LESS 0)
      list(APPEND failures
           "${what}: refused, but ${scenario} does not exit 3 naming ${bare_field} in notModelled")
    endif()
    math(EXPR checked "${checked} + 1")
    continue()
  endif()
  # modelled: take the input away and expect another answer.
  if(NOT check MATCHES
     "^`[A-Za-z0-9_.-]+`: `([A-Za-z0-9_.-]+)` `([A-Za-z0-9_.-]+)`( = `([^`]+)`)?")
    list(APPEND failures "${what}: modelled, but the last cell names no input to take away "
                         "(`scenario`: `file` `path`): ${check}")
    continue()
  endif()
  set(input "${CMAKE_MATCH_1}")
  set(where "${CMAKE_MATCH_2}")
  set(value "${CMAKE_MATCH_4}")
  string(REPLACE "." ";" path "${where}")
  set(copy "${WORK}/row-${rows}")
  file(REMOVE_RECURSE "${copy}")
  file(COPY "${dir}/" DESTINATION "${copy}")
  file(READ "${copy}/${input}" text)
  if(value STREQUAL "")
    string(JSON text ERROR_VARIABLE bad REMOVE "${text}" ${path})
  else()
    string(JSON text ERROR_VARIABLE bad SET "${text}" ${path} "${value}")
  endif()
  if(bad)
    list(APPEND failures "${what}: ${scenario}/${input}: cannot change ${where}: ${bad}")
    continue()
  endif()
  file(WRITE "${copy}/${input}" "${text}")
  run_tool("${copy}" got rc)
  if(NOT rc STREQUAL "0" AND NOT rc STREQUAL "3")
    list(APPEND failures "${what}: without ${input} ${where}, ${scenario} exits ${rc}")
    continue()
  endif()
  string(JSON same ERROR_VARIABLE bad EQUAL "${expected}" "${got}")
  if(bad OR same)
    list(APPEND failures
         "${what}: ${scenario} answers the same without ${input} ${where}: the field "
         "does not change the answer there")
  endif()
  math(EXPR checked "${checked} + 1")
endforeach()

if(rows EQUAL 0)
  message(FATAL_ERROR "${README}: the field table has no rows")
endif()
if(failures)
  string(REPLACE ";" "\n  " shown "${failures}")
  message(FATAL_ERROR "field table: ${rows} rows, ${checked} checked\n  ${shown}")
endif()
message(STATUS "field table: ${rows} rows, ${checked} checked")
