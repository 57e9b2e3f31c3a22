# .ci/lib.sh - what .ci/test and .ci/matrix share (sourced, not run): timed steps, ctest runs with
# their pass/fail counts, and the summary that ends with "N passed, M failed".
#
#   ci_init <name>            start a run (cd to the repository root, open build/ci-logs/)
#   step <name> <command...>  run a command; a non-zero exit is one failure, except 77: the
#                             command skipped itself (it says why), recorded as "skip"
#   run_preset <preset>       configure, build (PREEMPT_CI_JOBS, default 2) and ctest one preset
#   ci_selected <name>        whether PREEMPT_CI_STEPS (a space-separated list; empty: all)
#                             selects the step called <name>
#   ci_finish                 print the summary, save it for .ci/run (build/ci-logs/<name>.summary
#                             and <name>.counts), return non-zero if anything failed
#
# Counting: each ctest run adds its passed and failed tests; a configure, build or other step that
# fails counts as one failed test, and so does a ctest run that reports no result line.
#
# SPDX-License-Identifier: Apache-2.0

ci_init() {
  ci_name=$1
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  ci_root=$PWD
  ci_jobs=${PREEMPT_CI_JOBS:-2}
  ci_logs=$ci_root/build/ci-logs
  ci_passed=0
  ci_failed=0
  ci_summary=()
  ci_failed_steps=()
  ci_t0=$SECONDS
  mkdir -p "$ci_logs"
}

banner() { printf '\n==== %s ====\n' "$*"; }

ci_selected() {
  [[ -z ${PREEMPT_CI_STEPS:-} || " $PREEMPT_CI_STEPS " == *" $1 "* ]]
}

# _record <name> <seconds> <ok|FAIL> [detail]
_record() {
  ci_summary+=("$(printf '  %-44s %-4s %5ss  %s' "$1" "$3" "$2" "${4:-}")")
  if [[ $3 != ok ]]; then ci_failed_steps+=("$1"); fi
}

step() {
  local name=$1 t0=$SECONDS rc=0
  shift
  banner "$name"
  echo "+ $*"
  "$@" || rc=$?
  if ((rc == 0)); then
    _record "$name" $((SECONDS - t0)) ok
  elif ((rc == 77)); then  # the step says why it skipped itself (a tool this machine lacks)
    ci_summary+=("$(printf '  %-44s %-4s %5ss  %s' "$name" skip $((SECONDS - t0)) "(exit 77: skipped)")")
    rc=0
  else
    _record "$name" $((SECONDS - t0)) FAIL "(exit $rc)"
    ci_failed=$((ci_failed + 1))
  fi
  return "$rc"
}

# ctest_step <preset>: ctest --preset <preset>, its counts added to the totals.
ctest_step() {
  local preset=$1 log="$ci_logs/ctest-$1.log" t0=$SECONDS rc=0 line passed=0 failed=0 total=0
  banner "ctest --preset $preset"
  ctest --preset "$preset" --parallel "$ci_jobs" 2>&1 | tee "$log" || rc=$?
  line=$(grep -E '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1 || true)
  if [[ $line =~ ([0-9]+)\ tests?\ failed\ out\ of\ ([0-9]+) ]]; then
    failed=${BASH_REMATCH[1]}
    total=${BASH_REMATCH[2]}
    passed=$((total - failed))
  fi
  ci_passed=$((ci_passed + passed))
  ci_failed=$((ci_failed + failed))
  if ((rc == 0 && failed == 0 && total > 0)); then
    _record "ctest $preset" $((SECONDS - t0)) ok "($passed passed)"
  else
    _record "ctest $preset" $((SECONDS - t0)) FAIL "($passed passed, $failed failed, exit $rc)"
    if ((failed == 0)); then ci_failed=$((ci_failed + 1)); fi
  fi
}

run_preset() {
  local preset=$1
  step "configure $preset" cmake --preset "$preset" &&
    step "build $preset" cmake --build --preset "$preset" --parallel "$ci_jobs" &&
    ctest_step "$preset"
}

ci_finish() {
  local all_ok=0
  if ((${#ci_failed_steps[@]} == 0 && ci_failed == 0)); then all_ok=1; fi
  banner "$ci_name summary ($((SECONDS - ci_t0))s total; ctest logs in build/ci-logs/)"
  printf '%s\n' "${ci_summary[@]}" | tee "$ci_logs/$ci_name.summary"
  if ((${#ci_failed_steps[@]})); then echo "FAILED steps: ${ci_failed_steps[*]}"; fi
  echo "$ci_passed $ci_failed $((SECONDS - ci_t0))" >"$ci_logs/$ci_name.counts"
  echo "${ci_passed} passed, ${ci_failed} failed"
  ((all_ok))
}

print_toolchain() {
  banner "toolchain"
  local tool pkg
  for tool in g++ clang++ cmake ninja pkg-config; do
    printf '%-17s %s\n' "$tool" "$("$tool" --version 2>/dev/null | head -n 1 || echo missing)"
  done
  for pkg in doctest-dev libbenchmark-dev libsimdjson-dev libcli11-dev librange-v3-dev; do
    printf '%-17s %s\n' "$pkg" "$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo missing)"
  done
}
