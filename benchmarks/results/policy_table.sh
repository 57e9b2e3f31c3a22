#!/usr/bin/env bash
# benchmarks/results/policy_table.sh - writes benchmarks/results/policies.md: the opt-in preemption
# policies against the default decision.
#
#   bash benchmarks/results/policy_table.sh [build-dir]      (default: build/release)
#
# Builds the `release` preset's preempt-policy-table and preempt_bench_policies, then writes
# policies.md: the table of 2,000 generated clusters (victims, cost and pinned victims per
# preemption, PDB violations, budgets exceeded, decisions that differ, time per decision) and the
# benchmark rows at 5000 nodes (policies.json, Google Benchmark's JSON), with the machine and its
# load. The counts depend on the code only; the times on the machine and its load.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/release}
cd "$root"
if [[ "$build" == "$root/build/release" ]]; then
  [[ -f "$build/CMakeCache.txt" ]] || cmake --preset release
  cmake --build --preset release -j2 --target preempt-policy-table preempt_bench_policies
else
  [[ -f "$build/CMakeCache.txt" ]] || cmake --preset release -B "$build"
  cmake --build "$build" -j2 --target preempt-policy-table preempt_bench_policies
fi
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
table=$("$build/benchmarks/preempt-policy-table" --clusters 2000 --nodes 40 --seed 1)
"$build/benchmarks/preempt_bench_policies" --benchmark_out="$here/policies.json" \
  --benchmark_out_format=json --benchmark_min_time=2 > /dev/null
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
  echo "# The opt-in preemption policies against the default decision"
  echo
  echo "Written by \`bash benchmarks/results/policy_table.sh\`: commit $commit, $(date -u +%Y-%m-%d),"
  echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') x $(nproc), load average $load_before"
  echo "before and $load_after after. Policies: \`include/preempt/policy_options.hpp\`; clusters:"
  echo "\`benchmarks/bench/policy_clusters.hpp\`. Per preemption: means over the decisions that nominate."
  echo "PDB violations: as kube-scheduler counts them (victims its classification marks violating);"
  echo "budgets exceeded: victims that take a budget below zero when only the victims are evicted (what"
  echo "the API server's eviction check would refuse). Pinned: victims whose own constraints let them run"
  echo "on no other node. Decided otherwise: clusters where node or victims differ from the default."
  echo "Counts depend on the code only; times on the machine and its load."
  echo
  echo "## 2,000 generated clusters"
  echo
  echo "$table"
  echo
  echo "## One 5000-node cluster (\`preempt_bench_policies\`, thread CPU time per decision)"
  echo
  python3 - "$here/policies.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = [b for b in doc["benchmarks"] if b.get("run_type", "iteration") == "iteration"]
base = next((b for b in rows if b["name"] == "policies/default"), None)
print("| policy | µs / decision | × default | nodes evaluated | victims | cost | PDB violations | budgets exceeded | allocations / decision |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for b in rows:
    us = b["us_per_decision"]
    ratio = us / base["us_per_decision"] if base else float("nan")
    print(f"| {b['name'].split('/', 1)[1]} | {us:.0f} | {ratio:.2f} | {b['nodes_evaluated']:.0f} | "
          f"{b['victims']:.0f} | {b['cost']:.0f} | {b['pdb_violations']:.0f} | "
          f"{b['budgets_exceeded']:.0f} | {b['allocs_per_op']:.1f} |")
PY
} > "$here/policies.md"
echo "wrote $here/policies.md"
