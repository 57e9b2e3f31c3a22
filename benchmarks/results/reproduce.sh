#!/usr/bin/env bash
# benchmarks/results/reproduce.sh - regenerate every file in benchmarks/results/ from one run.
#
#   bash benchmarks/results/reproduce.sh [build-dir]      (default: build/release)
#
# Configures and builds the `release` preset (benchmarks ON), runs each benchmark executable once
# with JSON output, runs the scheduling-loop simulation (table and JSON), then writes the summary
# tables (summarize.py: results.md, and the README's results table between its
# `results-table` markers) and the plots (gnuplot, Debian package gnuplot-nox; upstream's curve
# in ns_per_pod.png comes from x_upstream.json, written by x_upstream.sh). Timings depend on the
# machine and its load; the simulation does not (virtual time).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/release}
cd "$root"
if [[ "$build" == "$root/build/release" ]]; then
  cmake --preset release
  cmake --build --preset release -j2
else
  cmake --preset release -B "$build"
  cmake --build "$build" -j2
fi
# Read before machine.txt is rewritten (its own rewrite is not a change of the tree).
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $commit"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') x $(nproc)"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "compiler: $(${CXX:-g++} --version | head -1)"
} > "$here/machine.txt"
for b in victim_selection dry_run infeasible budgets nominations memory; do
  "$build/benchmarks/preempt_bench_$b" --benchmark_out="$here/$b.json" --benchmark_out_format=json
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$here/machine.txt"
"$build/benchmarks/preempt-async-loop-sim" > "$here/async_loop.txt"
"$build/benchmarks/preempt-async-loop-sim" --output json > "$here/async_loop.json"
python3 "$here/summarize.py" "$here" --readme "$root/README.md" > "$here/results.md"
(cd "$here" && gnuplot async_loop.gp && gnuplot ns_per_pod.gp && gnuplot decision_time.gp)
echo "written: $here/{*.json,async_loop.txt,results.md,async_loop.png,ns_per_pod.dat,ns_per_pod.png,decision_time.dat,decision_time.png,machine.txt} and README.md's results table"
