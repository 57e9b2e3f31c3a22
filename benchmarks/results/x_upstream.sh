#!/usr/bin/env bash
# x_upstream.sh - preempt's evaluator next to kube-scheduler's own (k8s.io/kubernetes v1.37), on
# the same dumps, decision only (no parsing, no API calls). Writes x_upstream.json and
# x_upstream.md next to this script.
#
#   bash benchmarks/results/x_upstream.sh [SHAPE...]      (default: every shape below)
#
# Builds preempt-x-upstream (the release preset, with preempt-whatif's core: build/x-upstream)
# and tests/conformance's `speed` (Go >= 1.26), writes each shape once as a dump
# (internal/gen/shapes.go; deterministic; kept in build/x-upstream/dumps), then per shape:
# upstream's decision timed at parallelism 1 and 16 (`speed`), then preempt's on the same dump,
# inline and on a 2-worker thread pool, after checking it decides as upstream did (nominated node
# and victims). x_upstream = upstream p1 / preempt inline. Every figure carries the load average
# measured right before it (`uptime`): the machine may be shared.
# Environment: X_UPSTREAM_RUNS (timed runs per figure, default 5), X_UPSTREAM_RUN_SECONDS (0.2),
# X_UPSTREAM_MAX_SECONDS (20: upstream decisions of seconds get fewer runs, at least 3).
#
# SPDX-License-Identifier: Apache-2.0
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build="$root/build/x-upstream"
dumps="$build/dumps"
runs=${X_UPSTREAM_RUNS:-5}
run_seconds=${X_UPSTREAM_RUN_SECONDS:-0.2}
max_seconds=${X_UPSTREAM_MAX_SECONDS:-20}
start=$(date +%s)

# shape|samplings|extra flags of `speed`
all_shapes=(
  "500x4|default,100|" "500x30|default,100|" "500x110|default,100|"
  "1000x4|default,100|" "1000x30|default,100|" "1000x110|default,100|"
  "5000x4|default,100|" "5000x30|default,100|" "5000x110|default,100|"
  # v1.37's NodeResourcesFit rejects a request above the node's allocatable as
  # UnschedulableAndUnresolvable, so its evaluator sees no potential node at all (the "as is"
  # figure, upstream only); with --shortage-resolvable it dry-runs every node, as preempt-whatif
  # (which keeps the plain rule) does: the compared figure.
  "infeasible-5000x4|default|--shortage-resolvable"
  # Upstream tests every budget's selector against every pod it considers: a decision takes about
  # minutes here, so one run, at parallelism 1 only.
  "pdbs-1000x30-10000|default|--runs 1 --parallelism 1"
)
if [ $# -gt 0 ]; then
  shapes=()
  for want in "$@"; do
    found=
    for s in "${all_shapes[@]}"; do [ "${s%%|*}" = "$want" ] && shapes+=("$s") && found=1; done
    [ -n "$found" ] || { echo "x_upstream.sh: unknown shape $want" >&2; exit 2; }
  done
else
  shapes=("${all_shapes[@]}")
fi

command -v go >/dev/null || { echo "x_upstream.sh: needs Go >= 1.26 (the upstream side)" >&2; exit 2; }
cd "$root"
echo "== build" >&2
cmake --preset release -B "$build" -DPREEMPT_BUILD_WHATIF=ON >/dev/null
cmake --build "$build" -j2 --target preempt-x-upstream >/dev/null
(cd tests/conformance && go build -o "$build/speed" ./cmd/speed)
built=$(date +%s)

loadavg() { uptime | sed 's/.*load average: //'; }
mkdir -p "$dumps"
for entry in "${shapes[@]}"; do
  IFS='|' read -r shape samplings extra <<<"$entry"
  dir="$dumps/$shape"
  if [ ! -s "$dir/cluster.json" ]; then
    echo "== $shape: writing the dump" >&2
    "$build/speed" --write-shape "$shape" --out "$dir"
  fi
  echo "== $shape: upstream (load $(loadavg))" >&2
  loadavg >"$dir/load_upstream"
  # shellcheck disable=SC2086
  "$build/speed" --cluster "$dir/cluster.json" --pod "$dir/pod.json" --sampling "$samplings" \
    --runs "$runs" --run-seconds "$run_seconds" --max-seconds "$max_seconds" $extra >"$dir/upstream.json"
  [ -s "$dir/upstream.json" ] || { echo "x_upstream.sh: $shape: speed failed" >&2; exit 1; }
  if [ "${shape#infeasible-}" != "$shape" ]; then
    "$build/speed" --cluster "$dir/cluster.json" --pod "$dir/pod.json" --sampling "$samplings" \
      --runs "$runs" --run-seconds "$run_seconds" --parallelism 1 >"$dir/upstream_as_is.json"
  fi
  echo "== $shape: preempt (load $(loadavg))" >&2
  loadavg >"$dir/load_preempt"
  "$build/benchmarks/preempt-x-upstream" --cluster "$dir/cluster.json" --pod "$dir/pod.json" \
    --expect "$dir/upstream.json" --runs "$runs" --run-seconds "$run_seconds" >"$dir/preempt.json"
done
end=$(date +%s)

machine=$( { uname -srm; lscpu 2>/dev/null | sed -n 's/^Model name: *//p'; echo "$(nproc) logical CPUs"; \
  go version; g++ --version | head -1; } | paste -sd ';' )
python3 - "$here" "$dumps" "$machine" "$((end - start))" "$((built - start))" "${shapes[@]}" <<'EOF'
import json, sys, os
here, dumps, machine, wall, build = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
shapes = [s.split('|')[0] for s in sys.argv[6:]]
rows = []
for shape in shapes:
    d = os.path.join(dumps, shape)
    up = json.load(open(os.path.join(d, 'upstream.json')))
    pr = json.load(open(os.path.join(d, 'preempt.json')))
    load_up = open(os.path.join(d, 'load_upstream')).read().strip()
    load_pr = open(os.path.join(d, 'load_preempt')).read().strip()
    for u, p in zip(up['results'], pr['results']):
        t = {x['parallelism']: x['nsPerDecision'] for x in u['timings']}
        rows.append({
            'shape': shape, 'nodes': up['nodes'], 'pods': up['pods'], 'pdbs': up['pdbs'],
            'sampling': u['sampling'], 'nodesEvaluated': p['nodesEvaluated'],
            'nominatedNodeName': u['decision']['nominatedNodeName'], 'victims': len(u['decision']['victims']),
            'upstreamShortageResolvable': up['shortageResolvable'],
            'upstreamP1Ns': t.get(1), 'upstreamP16Ns': t.get(16),
            'preemptInlineNs': p['inline']['nsPerDecision'], 'preemptPoolNs': p['pool']['nsPerDecision'],
            'xUpstream': t.get(1) / p['inline']['nsPerDecision'],
            'upstreamAsIsP1Ns': (json.load(open(os.path.join(d, 'upstream_as_is.json')))['results'][0]['timings'][0]['nsPerDecision']
                                 if os.path.exists(os.path.join(d, 'upstream_as_is.json')) else None),
            'loadUpstream': load_up, 'loadPreempt': load_pr,
            'upstream': u, 'preempt': p})
out = {'machine': machine, 'scriptSeconds': wall, 'buildSeconds': build, 'goMaxProcs': up['gomaxprocs'],
       'poolWorkers': pr['poolWorkers'], 'rows': rows,
       'notMeasured': [{'shape': 'anti-affinity-heavy cluster',
                        'reason': 'preempt-whatif does not model inter-pod anti-affinity yet (it ignores it with a warning)'}]}
json.dump(out, open(os.path.join(here, 'x_upstream.json'), 'w'), indent=1)

def t(ns):
    if ns is None: return '-'
    if ns >= 1e9: return '%.2f s' % (ns / 1e9)
    if ns >= 1e6: return '%.1f ms' % (ns / 1e6)
    if ns >= 1e3: return '%.0f µs' % (ns / 1e3)
    return '%.0f ns' % ns
def shape_name(r):
    if r['shape'].startswith('infeasible'): return '%d nodes, %d pods, 9-CPU pod' % (r['nodes'], r['pods'])
    if r['shape'].startswith('pdbs'): return '%d x %d, %d PDBs' % (r['nodes'], r['pods'] // r['nodes'], r['pdbs'])
    return '%d x %d' % (r['nodes'], r['pods'] // r['nodes'])
lines = ['| cluster | sampling | nodes evaluated | upstream p1 | upstream p16 | preempt inline | preempt pool (2) | x_upstream | load avg (upstream; preempt) |',
         '|---|---|---:|---:|---:|---:|---:|---:|---|']
for r in rows:
    samp = 'sampled' if r['sampling'] == 'default' else ('full' if r['sampling'] == '100' else r['sampling'] + '%')
    note = ' ¹' if r['upstreamShortageResolvable'] else (' ²' if r['pdbs'] else '')
    lines.append('| %s%s | %s | %d | %s | %s | %s | %s | **%.0f** | %s; %s |' % (
        shape_name(r), note, samp, r['nodesEvaluated'], t(r['upstreamP1Ns']), t(r['upstreamP16Ns']),
        t(r['preemptInlineNs']), t(r['preemptPoolNs']), r['xUpstream'], r['loadUpstream'], r['loadPreempt']))
lines.append('| anti-affinity-heavy cluster | - | - | not measured | not measured | not measured | not measured | - | preempt-whatif does not model inter-pod anti-affinity yet |')
md = ['# preempt vs kube-scheduler v1.37: one preemption decision', '',
      'Generated by `benchmarks/results/x_upstream.sh` (%d s, of which %d s building). Machine: %s.' % (wall, build, machine),
      'Wall-clock time per decision, median of runs; upstream = the DefaultPreemption evaluator (dry run + SelectCandidate) '
      'at parallelism 1 and 16 (GOMAXPROCS %d); preempt = preempt::evaluator inline and on a thread pool of %d workers; '
      'same dump, same decision (checked). x_upstream = upstream p1 / preempt inline. '
      'Sampled = upstream defaults (10%%, at least 100 nodes); full = minCandidateNodesPercentage 100.' % (up['gomaxprocs'], pr['poolWorkers']),
      '', *lines, '',
      '¹ upstream run with NodeResourcesFit reporting the shortage as Unschedulable: v1.37 rejects a request above '
      "the node's allocatable as UnschedulableAndUnresolvable, leaving its evaluator no node to dry-run "
      '(as is: %s per decision at parallelism 1; preempt-whatif keeps the plain rule and dry-runs every node).'
      % ', '.join(t(r['upstreamAsIsP1Ns']) for r in rows if r['upstreamAsIsP1Ns'] is not None),
      '² 10,000 budgets: upstream tests every budget against every pod it considers (one decision takes '
      'minutes on this machine), so one run at parallelism 1 only.', '']
open(os.path.join(here, 'x_upstream.md'), 'w').write('\n'.join(md))
print('\n'.join(md))
EOF
echo "x_upstream.sh: $((end - start)) s (build $((built - start)) s)" >&2
