#!/usr/bin/env bash
# x_upstream.sh - preempt's evaluator next to kube-scheduler's own (k8s.io/kubernetes v1.37), on
# the same dumps, decision only (no parsing, no API calls). Writes x_upstream.json and
# x_upstream.md next to this script.
#
#   bash benchmarks/results/x_upstream.sh [--pdbs] [--huge] [SHAPE...]   (default: every shape below)
#
# --pdbs adds the 10,000-budget shape (pdbs-1000x30-10000): upstream tests every budget's selector
# against every pod it considers, so its one decision takes minutes here (one run, parallelism 1
# only); without the flag the table keeps that row from x_upstream.json's last run with it.
# --huge adds 100,000 nodes x 30 pods (3 million pods; a 1.3 GB dump), sampled, 3 runs: upstream's
# decoded cluster needs about 17 GB of memory (5.7 KB per pod, measured on 5000 x 110 with GOGC=25,
# which this shape runs with); without the flag the table keeps that row from the last run with
# it, as for --pdbs (a shape not run keeps its row: marked †).
#
# Builds preempt-x-upstream (the release preset, with preempt-whatif's core: build/x-upstream)
# and tests/conformance's `speed` (Go >= 1.26), writes each shape once as a dump
# (internal/gen/shapes.go; deterministic; kept in build/x-upstream/dumps/<hash of shapes.go>),
# then per shape:
# upstream's decision timed at parallelism 1 and 16 (`speed`), then preempt's on the same dump,
# inline and on a 2-worker thread pool, after checking it decides as upstream did (nominated node
# and victims). x_upstream = upstream p1 / preempt inline (wall clock, both); also in processor
# time (upstream's process, preempt's thread), which the machine's other load inflates less. Every
# figure carries the load average measured right before it (`uptime`): the machine may be
# shared. x_upstream.json also holds, per shape NxP and sampling, the ns per pod the dry run
# evaluated (time / (nodes evaluated x P)) against the node count, for both sides.
# 6.3 minutes in the last run without --pdbs (2 idle cores; 27 at load average 8-21), most of it
# upstream's decoding of the large dumps and its 5000 x 110 decisions.
# Environment: X_UPSTREAM_RUNS (timed runs per figure, default 5), X_UPSTREAM_RUN_SECONDS (0.2),
# X_UPSTREAM_MAX_SECONDS (10: upstream decisions of seconds get fewer runs, at least 3),
# X_UPSTREAM_POOL_WORKERS (the pools preempt runs on, a column each: default "2"), X_UPSTREAM_REUSE
# (non-empty: keep upstream's figures of a shape measured before, e.g. the 4 minutes of --huge's,
# and measure preempt's again).
#
# SPDX-License-Identifier: Apache-2.0
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build="$root/build/x-upstream"
dumps="$build/dumps/$(sha1sum "$root/tests/conformance/internal/gen/shapes.go" | cut -c1-12)"
runs=${X_UPSTREAM_RUNS:-5}
# The thread pools preempt runs on, one column each (the first is the "pool" of x_upstream.json's
# rows); on a 16-core machine: X_UPSTREAM_POOL_WORKERS="1 2 4 8 15".
pool_workers=${X_UPSTREAM_POOL_WORKERS:-2}
run_seconds=${X_UPSTREAM_RUN_SECONDS:-0.2}
max_seconds=${X_UPSTREAM_MAX_SECONDS:-10}
start=$(date +%s)

# shape|samplings|extra flags of `speed`
all_shapes=(
  "500x4|default,100|" "500x30|default,100|" "500x110|default,100|"
  "1000x4|default,100|" "1000x30|default,100|" "1000x110|default,100|"
  "5000x4|default,100|" "5000x30|default,100|" "5000x110|default,100|"
  # A pod within every node's allocatable that no eviction makes room for: both sides dry-run
  # every node and find no candidate.
  "infeasible-5000x4|default|"
  # Required inter-pod anti-affinity, the preemptor's and existing pods': upstream's decisions
  # take seconds at 5000 nodes, so sampled only.
  "antiaff-5000x30|default|"
)
# Upstream tests every budget's selector against every pod it considers: a decision takes
# minutes here, so one run, at parallelism 1 only (--pdbs).
pdbs_shape="pdbs-1000x30-10000|default|--runs 1 --parallelism 1"
huge_shape="100000x30|default|--runs 3"
with_pdbs=
with_huge=
while [ $# -gt 0 ]; do
  case "$1" in
    --pdbs) with_pdbs=1 ;;
    --huge) with_huge=1 ;;
    *) break ;;
  esac
  shift
done
if [ $# -gt 0 ]; then
  shapes=()
  for want in "$@"; do
    found=
    for s in "${all_shapes[@]}" "$pdbs_shape" "$huge_shape"; do
      [ "${s%%|*}" = "$want" ] && shapes+=("$s") && found=1
    done
    [ -n "$found" ] || { echo "x_upstream.sh: unknown shape $want" >&2; exit 2; }
  done
else
  shapes=("${all_shapes[@]}")
  [ -z "$with_pdbs" ] || shapes+=("$pdbs_shape")
  [ -z "$with_huge" ] || shapes+=("$huge_shape")
fi

command -v go >/dev/null || { echo "x_upstream.sh: needs Go >= 1.26 (the upstream side)" >&2; exit 2; }
cd "$root"
echo "== build" >&2
cmake --preset release -B "$build" -DPREEMPT_BUILD_EXAMPLES=ON -DPREEMPT_BUILD_WHATIF=ON >/dev/null
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
  if [ -n "${X_UPSTREAM_REUSE:-}" ] && [ -s "$dir/upstream.json" ] && [ -s "$dir/seconds_upstream" ]; then
    echo "== $shape: upstream's figures of the last run kept (X_UPSTREAM_REUSE)" >&2
  else
    echo "== $shape: upstream (load $(loadavg))" >&2
    loadavg >"$dir/load_upstream"
    t_up=$(date +%s)
    gogc=${GOGC:-100}
    case "$shape" in 100000x*) gogc=25 ;; esac  # 3 million decoded pods: collect often
    # shellcheck disable=SC2086
    GOGC=$gogc "$build/speed" --cluster "$dir/cluster.json" --pod "$dir/pod.json" \
      --sampling "$samplings" --runs "$runs" --run-seconds "$run_seconds" --max-seconds "$max_seconds" \
      $extra >"$dir/upstream.json"
    [ -s "$dir/upstream.json" ] || { echo "x_upstream.sh: $shape: speed failed" >&2; exit 1; }
    echo $(($(date +%s) - t_up)) >"$dir/seconds_upstream"
  fi
  echo "== $shape: preempt (load $(loadavg))" >&2
  loadavg >"$dir/load_preempt"
  t_pr=$(date +%s)
  first=
  for w in $pool_workers; do
    "$build/benchmarks/preempt-x-upstream" --cluster "$dir/cluster.json" --pod "$dir/pod.json" \
      --expect "$dir/upstream.json" --runs "$runs" --run-seconds "$run_seconds" \
      --pool-workers "$w" >"$dir/preempt-pool$w.json"
    [ -n "$first" ] || { first=$w; cp "$dir/preempt-pool$w.json" "$dir/preempt.json"; }
  done
  echo $(($(date +%s) - t_pr)) >"$dir/seconds_preempt"
done
end=$(date +%s)

machine=$( { uname -srm; lscpu 2>/dev/null | sed -n 's/^Model name: *//p'; echo "$(nproc) logical CPUs"; \
  go version; g++ --version | head -1; } | paste -sd ';' )
all_order=$(printf '%s;' "${all_shapes[@]}" "$pdbs_shape" "$huge_shape")
python3 - "$here" "$dumps" "$machine" "$((end - start))" "$((built - start))" "$pool_workers" "$all_order" "${shapes[@]}" <<'EOF'
import json, sys, os
here, dumps, machine, wall, build = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
workers = [int(w) for w in sys.argv[6].split()]
shapes = [s.split('|')[0] for s in sys.argv[8:]]
out_json = os.path.join(here, 'x_upstream.json')
previous = json.load(open(out_json)) if os.path.exists(out_json) else {'rows': []}
rows = []
def seconds(d, name):  # a side's whole run on one shape (loading the dump included), in s
    f = os.path.join(d, name)
    return int(open(f).read()) if os.path.exists(f) else None
for shape in shapes:
    d = os.path.join(dumps, shape)
    up = json.load(open(os.path.join(d, 'upstream.json')))
    pr = json.load(open(os.path.join(d, 'preempt.json')))
    pools = {w: json.load(open(os.path.join(d, 'preempt-pool%d.json' % w))) for w in workers}
    load_up = open(os.path.join(d, 'load_upstream')).read().strip()
    load_pr = open(os.path.join(d, 'load_preempt')).read().strip()
    for k, (u, p) in enumerate(zip(up['results'], pr['results'])):
        t = {x['parallelism']: x['nsPerDecision'] for x in u['timings']}
        cpu = {x['parallelism']: x['processCpuNsPerDecision'] for x in u['timings']}
        rows.append({
            'shape': shape, 'nodes': up['nodes'], 'pods': up['pods'], 'pdbs': up['pdbs'],
            'sampling': u['sampling'], 'nodesEvaluated': p['nodesEvaluated'],
            'nominatedNodeName': u['decision']['nominatedNodeName'], 'victims': len(u['decision']['victims']),
            'upstreamP1Ns': t.get(1), 'upstreamP16Ns': t.get(16),
            'preemptInlineNs': p['inline']['nsPerDecision'],
            'preemptInlineThreadCpuNs': p['inline']['threadCpuNsPerDecision'],
            'preemptPoolNs': p['pool']['nsPerDecision'],
            'preemptPoolNsByWorkers': {str(w): pools[w]['results'][k]['pool']['nsPerDecision'] for w in workers},
            'xUpstream': t.get(1) / p['inline']['nsPerDecision'],
            'upstreamP1ProcessCpuNs': cpu.get(1),
            'xUpstreamCpu': cpu.get(1) / p['inline']['threadCpuNsPerDecision'],
            'loadUpstream': load_up, 'loadPreempt': load_pr,
            'upstreamSeconds': seconds(d, 'seconds_upstream'), 'preemptSeconds': seconds(d, 'seconds_preempt'),
            'machine': machine,
            'upstream': u, 'preempt': p})
# A shape not run this time keeps its row from the last run that measured it (the 10,000-budget
# row takes minutes, --pdbs; the 100,000-node one a 1.3 GB dump, --huge; or SHAPE arguments).
for r in previous['rows']:
    if r['shape'] not in shapes:
        r['carriedOver'] = True
        r.setdefault('machine', previous.get('machine'))
        rows.append(r)
carried_machines = '; '.join(sorted({str(r['machine']) for r in rows
                                     if r.get('carriedOver') and not r['shape'].startswith('pdbs-')}))
order = {s.split('|')[0]: i for i, s in enumerate(sys.argv[7].split(';')) if s}
rows.sort(key=lambda r: order.get(r['shape'], len(order)))

# ns per pod evaluated against the node count (plain NxP shapes): the dry run's cost per pod.
per_pod = []
for r in rows:
    name = r['shape']
    if 'x' not in name or not name.split('x')[0].isdigit():
        continue
    p = r['pods'] // r['nodes']
    pods_evaluated = r['nodesEvaluated'] * p
    per_pod.append({'podsPerNode': p, 'sampling': r['sampling'], 'nodes': r['nodes'],
                    'nodesEvaluated': r['nodesEvaluated'],
                    'preemptInlineNsPerPod': r['preemptInlineNs'] / pods_evaluated,
                    'preemptInlineThreadCpuNsPerPod': r['preemptInlineThreadCpuNs'] / pods_evaluated,
                    'upstreamP1NsPerPod': r['upstreamP1Ns'] / pods_evaluated,
                    'upstreamP1ProcessCpuNsPerPod': r['upstreamP1ProcessCpuNs'] / pods_evaluated})
out = {'machine': machine, 'scriptSeconds': wall, 'buildSeconds': build, 'goMaxProcs': up['gomaxprocs'],
       'poolWorkers': pr['poolWorkers'], 'poolWorkerCounts': workers, 'rows': rows, 'nsPerPodByNodeCount': per_pod}
json.dump(out, open(out_json, 'w'), indent=1)

def t(ns):
    if ns is None: return '-'
    if ns >= 1e9: return '%.2f s' % (ns / 1e9)
    if ns >= 1e6: return '%.1f ms' % (ns / 1e6)
    if ns >= 1e3: return '%.0f µs' % (ns / 1e3)
    return '%.0f ns' % ns
def shape_name(r):
    per = r['pods'] // r['nodes']
    if r['shape'].startswith('infeasible'): return '%d x %d, no room for a 3500m pod ¹' % (r['nodes'], per)
    if r['shape'].startswith('antiaff'): return '%d x %d, required anti-affinity ²' % (r['nodes'], per)
    if r['shape'].startswith('pdbs'): return '%d x %d, %d PDBs ³' % (r['nodes'], per, r['pdbs'])
    if r['nodes'] >= 100000: return '%d x %d ⁴' % (r['nodes'], per)
    return '%d x %d' % (r['nodes'], per)
def row_name(r):  # a row carried over from an earlier run is marked
    return shape_name(r) + (' †' if r.get('carriedOver') and not r['shape'].startswith('pdbs-') else '')
lines = ['| cluster | sampling | nodes evaluated | upstream p1 | upstream p16 | preempt inline | ' +
         ' | '.join('preempt pool (%d)' % w for w in workers) +
         ' | x_upstream | x vs p16 | upstream p1, CPU | preempt inline, CPU | x_upstream, CPU | load avg (upstream; preempt) |',
         '|---|---|---:|---:|---:|---:|' + '---:|' * len(workers) + '---:|---:|---:|---:|---:|---|']
for r in rows:
    samp = 'sampled' if r['sampling'] == 'default' else ('full' if r['sampling'] == '100' else r['sampling'] + '%')
    x_cpu = r.get('xUpstreamCpu')
    pools = r.get('preemptPoolNsByWorkers', {})
    fastest = min([r['preemptInlineNs']] + [v for v in pools.values() if v])
    x16 = '%.0f' % (r['upstreamP16Ns'] / fastest) if r.get('upstreamP16Ns') else '-'
    lines.append('| %s | %s | %d | %s | %s | %s | %s | **%.0f** | %s | %s | %s | %s | %s; %s |' % (
        row_name(r), samp, r['nodesEvaluated'], t(r['upstreamP1Ns']), t(r['upstreamP16Ns']),
        t(r['preemptInlineNs']), ' | '.join(t(pools.get(str(w))) for w in workers), r['xUpstream'], x16,
        t(r.get('upstreamP1ProcessCpuNs')), t(r.get('preemptInlineThreadCpuNs')),
        '%.0f' % x_cpu if x_cpu else '-', r['loadUpstream'], r['loadPreempt']))
per_lines = ['| pods per node | sampling | ' + ' | '.join('%d nodes' % n for n in (500, 1000, 5000)) + ' |',
             '|---|---|---:|---:|---:|']
for p in (4, 30, 110):
    for s in ('default', '100'):
        cells = []
        for n in (500, 1000, 5000):
            m = [x for x in per_pod if x['podsPerNode'] == p and x['sampling'] == s and x['nodes'] == n]
            cells.append('%.0f / %.0f; %.0f / %.0f' % (
                m[0]['upstreamP1NsPerPod'], m[0]['preemptInlineNsPerPod'],
                m[0]['upstreamP1ProcessCpuNsPerPod'], m[0]['preemptInlineThreadCpuNsPerPod']) if m else '-')
        if any(c != '-' for c in cells):
            per_lines.append('| %d | %s | %s |' % (p, 'sampled' if s == 'default' else 'full', ' | '.join(cells)))
pdb_row = next((r for r in rows if r['shape'].startswith('pdbs-')), None)
md = ['# preempt vs kube-scheduler v1.37: one preemption decision', '',
      'Generated by `benchmarks/results/x_upstream.sh` (%d s, of which %d s building). Machine: %s.' % (wall, build, machine),
      'Wall-clock time per decision, median of runs; upstream = the DefaultPreemption evaluator (dry run + SelectCandidate) '
      'at parallelism 1 and 16 (GOMAXPROCS %d); preempt = preempt::evaluator inline and on thread pools of %s workers '
      '(the evaluator keeps a dry run with fewer than 1024 nodes to select on, evaluator_config::min_parallel_nodes, on the calling thread), '
      "behind preempt-whatif's filters (kubernetes::filter_cluster), with report_only_chosen (branch and bound: only the decision is read). Same dump, same decision (checked). "
      'x_upstream = upstream p1 / preempt inline, both wall clock; the CPU columns give the same decisions in processor '
      "time (upstream's whole process, garbage collector included; preempt's thread), which the machine's other load "
      'inflates less than the wall clock, and their ratio. '
      'x vs p16 = upstream p16 / the fastest of preempt inline and its pools. '
      'Sampled = upstream defaults (10%%, at least 100 nodes); full = minCandidateNodesPercentage 100.' % (up['gomaxprocs'], ', '.join(str(w) for w in workers)),
      '', *lines, '',
      '¹ The first pod of every node has the preemptor\'s priority 10 (never a victim); the 3500m preemptor is within '
      'every node\'s allocatable (4 CPU), so NodeResourcesFit reports Unschedulable, not UnschedulableAndUnresolvable, on '
      'both sides, and both dry-run every node: evicting every other pod frees at most 3100m, no candidate.',
      '² Pod k carries team=t-(k%8); the first pod of every node has a required anti-affinity term against app=web '
      '(the preemptor\'s label) on kubernetes.io/hostname, the preemptor one against team=t-0: InterPodAffinity\'s '
      'RemovePod/AddPod run in every reprieve. Sampled only: an upstream decision takes seconds at 5000 nodes.',
      '³ 10,000 budgets: upstream tests every budget against every pod it considers (one decision takes minutes on '
      'this machine), so one run at parallelism 1 only, and only with `x_upstream.sh --pdbs`%s.' % (
          '; this row is carried over from the last run with it (its own load averages)'
          if pdb_row is not None and pdb_row.get('carriedOver') else ''),
      '⁴ 3 million pods, a 1.3 GB dump: only with `x_upstream.sh --huge`, 3 runs, upstream with GOGC=25%s.' % (
          ''.join('; %s took %d s (loading the dump included)' % (side, r[key])
                  for r in rows if r['nodes'] >= 100000
                  for side, key in (('upstream', 'upstreamSeconds'), ('preempt', 'preemptSeconds'))
                  if r.get(key)) +
          ''),
      ('† Carried over from the last run that measured this shape (its own load averages; %s): this '
       'run measured the others.' % carried_machines if carried_machines else ''),
      '', '## ns per pod evaluated, against the node count', '',
      'Per decision, time / (nodes evaluated x pods per node), in ns: upstream p1 / preempt inline in wall-clock '
      "time; then upstream p1 / preempt inline in processor time (upstream's whole process, preempt's thread). "
      'Also in x_upstream.json (nsPerPodByNodeCount).', '', *per_lines, '']
open(os.path.join(here, 'x_upstream.md'), 'w').write('\n'.join(md))
print('\n'.join(md))
EOF
echo "x_upstream.sh: $((end - start)) s (build $((built - start)) s)" >&2
