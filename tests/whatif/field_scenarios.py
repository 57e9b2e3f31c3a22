#!/usr/bin/env python3
"""Writes the field-* scenarios of tests/whatif/scenarios/ (a developer aid; the tests never run it).

    python3 tests/whatif/field_scenarios.py <repo root> <built preempt-whatif> [<kube-whatif>]

Each scenario is a cluster (and a pod) that carries one input kube-scheduler v1.37 reads before or
during preemption: an in-place resize, scheduling gates, a manifest the API server would default
or admit, namespaces, missing start times, pod groups across nodes, and the fields the tool
refuses. The script writes the inputs and the README (which names the upstream behaviour each
follows), runs the tool, checks the expectations written here (result, node, victims, exit
status, a text the output must contain) and only then records the tool's output as expected.json
and expected-exit. With kube-whatif (tests/conformance/cmd/kube-whatif, upstream's own code) it
also decides each scenario marked `referee` there and checks result, node and victims agree.
make_scenarios.py leaves the field-* folders alone.
"""
import json, os, shutil, subprocess, sys

ROOT, TOOL = sys.argv[1], os.path.abspath(sys.argv[2])
REFEREE = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None
OUT = os.path.join(ROOT, 'tests/whatif/scenarios')

T0 = '2024-01-01T00:00:00Z'


def node(name, cpu='4', mem='8Gi', pods='110', labels=None, taints=None, status=None):
    n = {'apiVersion': 'v1', 'kind': 'Node', 'metadata': {'name': name}, 'spec': {},
         'status': {'allocatable': {'cpu': cpu, 'memory': mem, 'pods': pods}}}
    if labels: n['metadata']['labels'] = labels
    if taints: n['spec']['taints'] = taints
    if status: n['status'].update(status)
    return n


def container(name='c', cpu='100m', mem='100Mi', **extra):
    c = {'name': name, 'image': 'registry.example/app:1'}
    req = {}
    if cpu: req['cpu'] = cpu
    if mem: req['memory'] = mem
    if req: c['resources'] = {'requests': req}
    c.update(extra)
    return c


def pod(name, node_name=None, priority=0, containers=None, labels=None, ns='default', start=T0,
        spec=None, status=None, meta=None):
    p = {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': name, 'namespace': ns},
         'spec': {'priority': priority, 'containers': containers or [container()]}, 'status': {}}
    if labels: p['metadata']['labels'] = labels
    if meta: p['metadata'].update(meta)
    if node_name:
        p['spec']['nodeName'] = node_name
        p['status']['phase'] = 'Running'
        if start: p['status']['startTime'] = start
    else:
        p['status']['phase'] = 'Pending'
    if spec: p['spec'].update(spec)
    if status: p['status'].update(status)
    return p


def pod_group(name, all_mode=True, priority=0, ns='default'):
    return {'apiVersion': 'scheduling.k8s.io/v1beta1', 'kind': 'PodGroup',
            'metadata': {'name': name, 'namespace': ns},
            'spec': {'schedulingPolicy': {'basic': {}}, 'priority': priority,
                     'disruptionMode': {'all': {}} if all_mode else {'single': {}}}}


def listing(items):
    return {'apiVersion': 'v1', 'kind': 'List', 'items': items, 'metadata': {'resourceVersion': ''}}


scenarios = {}


def scenario(name, readme, items, preemptor=None, args='', expect=None, referee=False, gates=''):
    scenarios[name] = dict(readme=readme, items=items, pod=preemptor, args=args,
                           expect=expect or {}, referee=referee, gates=gates)


# ---- 1. In-place resize --------------------------------------------------------------------------

scenario('field-resize-allocated',
         'In-place resize (component-helpers PodRequests with UseStatusResources, as '
         'PodInfo.CalculateResource counts a pod on a node): v asks 1 CPU in its spec but '
         'status.containerStatuses[].allocatedResources and .resources say 3 (scaled up by VPA); '
         'upstream counts max(spec, actuated, allocated) = 3, so the 2-CPU pod does not fit '
         'node-a and v is evicted',
         [node('node-a'),
          pod('v', 'node-a', 0, [container('app', '1', '1Gi')],
              status={'containerStatuses': [{
                  'name': 'app', 'ready': True, 'restartCount': 0, 'image': 'x', 'imageID': '',
                  'allocatedResources': {'cpu': '3', 'memory': '1Gi'},
                  'resources': {'requests': {'cpu': '3', 'memory': '1Gi'}}}]})],
         pod('p', None, 1000, [container('app', '2', '1Gi')]),
         expect=dict(result='nominated', node='node-a', victims=['default/v']), referee=True)

scenario('field-resize-infeasible',
         'In-place resize, Infeasible (IsPodResizeInfeasible: the first PodResizePending condition '
         'has reason Infeasible): v\'s spec asks 3 CPU, but the resize cannot be admitted and the '
         'node still runs it with 1 (allocated and actuated); upstream counts max(actuated, '
         'allocated) = 1, so the 2-CPU pod fits node-a as it is',
         [node('node-a'),
          pod('v', 'node-a', 0, [container('app', '3', '1Gi')],
              status={'conditions': [
                  {'type': 'Ready', 'status': 'True'},
                  {'type': 'PodResizePending', 'status': 'True', 'reason': 'Infeasible',
                   'message': 'Node didn\'t have enough capacity'}],
                  'containerStatuses': [{
                      'name': 'app', 'allocatedResources': {'cpu': '1', 'memory': '1Gi'},
                      'resources': {'requests': {'cpu': '1', 'memory': '1Gi'}}}]})],
         pod('p', None, 1000, [container('app', '2', '1Gi')]),
         expect=dict(result='fits'), referee=True)

scenario('field-resize-pod-level',
         'In-place resize of pod-level resources (InPlacePodLevelResourcesVerticalScaling, on by '
         'default in v1.37): status.allocatedResources and status.resources.requests, when both '
         'are present, stand for the containers\' totals, and the pod-level request is max(spec, '
         'status.resources.requests, status.allocatedResources): v counts 3 CPU, not its spec\'s 1',
         [node('node-a'),
          pod('v', 'node-a', 0, [container('app', '500m', '1Gi')],
              spec={'resources': {'requests': {'cpu': '1', 'memory': '1Gi'}}},
              status={'allocatedResources': {'cpu': '3', 'memory': '1Gi'},
                      'resources': {'requests': {'cpu': '3', 'memory': '1Gi'}}})],
         pod('p', None, 1000, [container('app', '2', '1Gi')]),
         expect=dict(result='nominated', node='node-a', victims=['default/v']), referee=True)

# ---- 5. Bound pods without status.startTime ------------------------------------------------------


def start_time_order():
    # 20 pods without a start time, listed with priorities 0, 1, 0, 1, ... and sizes that make the
    # victims depend on their order; the node is full and the preemptor needs a third of it.
    n, items, total = 20, [], 0
    for i in range(n):
        cpu = 100 + 37 * ((i * 7) % n)
        total += cpu
        items.append(pod('v%02d' % (n - i), 'node-a', i % 2, [container('c', '%dm' % cpu, None)],
                         start=None))
    want, used, order = [], 0, sorted(range(n), key=lambda i: -(i % 2))
    for i in order:
        cpu = 100 + 37 * ((i * 7) % n)
        if used + cpu + total // 3 <= total: used += cpu
        else: want.append('default/v%02d' % (n - i))
    return total, [node('node-a', cpu='%dm' % total)] + items, want


_total, _items, _want = start_time_order()
scenario('field-start-time-order',
         'Bound pods without status.startTime: v1.37 builds each victim once per node\'s dry run '
         '(preemption.NewVictim), in the node\'s pod order (here the dump\'s), reading a missing '
         'start time as time.Now() then (util.GetPodStartTime): such pods are ordered by '
         'construction, the one listed earlier counting as started earlier, not tied at one '
         'instant (with 20 tied pods Go\'s pdqsort chose other victims)',
         _items, pod('p', None, 1000, [container('c', '%dm' % (_total // 3), None)]),
         # Not against kube-whatif: it stamps every missing start time with one instant (its
         # whatif.go), which is what this scenario shows upstream does not do.
         expect=dict(result='nominated', node='node-a', victims=_want))

# ---- 6. Pod groups across nodes --------------------------------------------------------------------

scenario('field-group-across-nodes',
         'Pod groups across nodes: a unit in `all` disruption mode removed in node-a\'s dry run; '
         'upstream (SelectVictimsOnNode, removeVictim) runs RemovePod for its member on node-b '
         'too, so InterPodAffinity\'s count for zone z1 falls to 0 and p fits node-a; counting '
         'node-a\'s member alone left one app=g pod in the zone (unschedulable)',
         [node('node-a', labels={'zone': 'z1'}),
          node('node-b', labels={'zone': 'z1'},
               taints=[{'key': 'dedicated', 'value': 'x', 'effect': 'NoSchedule'}]),
          pod('g1', 'node-a', 0, labels={'app': 'g'}, spec={'schedulingGroup': {'podGroupName': 'gang'}}),
          pod('g2', 'node-b', 0, labels={'app': 'g'}, spec={'schedulingGroup': {'podGroupName': 'gang'}}),
          pod_group('gang')],
         pod('p', None, 1000, spec={'affinity': {'podAntiAffinity': {
             'requiredDuringSchedulingIgnoredDuringExecution': [{
                 'labelSelector': {'matchLabels': {'app': 'g'}}, 'topologyKey': 'zone'}]}}}),
         expect=dict(result='nominated', node='node-a', victims=['default/g1', 'default/g2']),
         referee=True, gates='GenericWorkload=true')


# ---- Writing and checking -------------------------------------------------------------------------

def run(cmd, d):
    r = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def tool_command(d, s, tool, json_output=True):
    cmd = [tool, '--cluster', 'cluster.json']
    if s['pod'] is not None: cmd += ['--pod', 'pod.json']
    cmd += s['args'].split()
    if json_output and '--output' not in s['args'] and '-o' not in s['args'].split():
        cmd += ['--output', 'json']
    return cmd


failures = []
for name, s in sorted(scenarios.items()):
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, 'cluster.json'), 'w') as f:
        json.dump(listing(s['items']), f, indent=2)
        f.write('\n')
    if s['pod'] is not None:
        with open(os.path.join(d, 'pod.json'), 'w') as f:
            json.dump(s['pod'], f, indent=2)
            f.write('\n')
    if s['args']:
        with open(os.path.join(d, 'args'), 'w') as f: f.write(s['args'] + '\n')
    with open(os.path.join(d, 'README'), 'w') as f: f.write(s['readme'] + '\n')
    rc, out, err = run(tool_command(d, s, TOOL), d)
    e = s['expect']
    want_rc = e.get('exit', 0)
    if rc != want_rc:
        failures.append(f'{name}: exit {rc}, expected {want_rc}: {err.strip()}')
        continue
    if rc == 2:
        with open(os.path.join(d, 'expected-stderr'), 'w') as f: f.write(err)
        with open(os.path.join(d, 'expected-exit'), 'w') as f: f.write('2\n')
        if 'stderr' in e and e['stderr'] not in err:
            failures.append(f'{name}: stderr lacks {e["stderr"]!r}: {err.strip()}')
        continue
    got = json.loads(out)
    reports = got if isinstance(got, list) else [got]
    first = reports[0]
    for key, field in (('result', 'result'), ('node', 'nominatedNodeName'), ('victims', 'victims')):
        if key in e and first.get(field) != e[key]:
            failures.append(f'{name}: {field} {first.get(field)!r}, expected {e[key]!r}')
    for text in e.get('contains', []):
        if text not in out:
            failures.append(f'{name}: output lacks {text!r}')
    with open(os.path.join(d, 'expected.json'), 'w') as f: f.write(out)
    if rc != 0:
        with open(os.path.join(d, 'expected-exit'), 'w') as f: f.write(f'{rc}\n')
    if REFEREE and s['referee']:
        cmd = tool_command(d, s, REFEREE)
        if s['gates']: cmd += ['--feature-gates', s['gates']]
        rrc, rout, rerr = run(cmd, d)
        if rrc != 0:
            failures.append(f'{name}: kube-whatif exit {rrc}: {rerr.strip()}')
            continue
        up = json.loads(rout)
        for field in ('result', 'nominatedNodeName', 'victims'):
            mine = first.get(field)
            theirs = up.get(field)
            if field == 'nominatedNodeName' and up.get('mayNominate') and mine in up['mayNominate']:
                continue
            if mine != theirs:
                failures.append(f'{name}: {field} {mine!r}, kube-scheduler {theirs!r}')

for f in failures: print(f, file=sys.stderr)
sys.exit(1 if failures else 0)
