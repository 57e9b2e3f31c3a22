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

# ---- 2. Scheduling gates ---------------------------------------------------------------------------

GATES = [{'name': 'example.com/quota'}, {'name': 'example.com/approval'}]
scenario('field-gates',
         'Scheduling gates: a pod with spec.schedulingGates never leaves the queue (the '
         'SchedulingGates PreEnqueue plugin: "waiting for scheduling gates: [...]"): no decision, '
         'though preemption would otherwise nominate node-a',
         [node('node-a', cpu='1'), pod('v', 'node-a', 0, [container('app', '1', '1Gi')]),
          pod('g', None, 1000, [container('app', '1', '1Gi')], spec={'schedulingGates': GATES},
              status={'conditions': [{'type': 'PodScheduled', 'status': 'False',
                                      'reason': 'SchedulingGated'}]})],
         args='--pod-name default/g',
         expect=dict(result='gated', contains=['waiting for scheduling gates: [example.com/quota '
                                               'example.com/approval]']))

scenario('field-gates-nominated',
         'A gated pod\'s nomination still counts: the queue adds every pod to the nominator, gated '
         'or not (PriorityQueue.addPod), so g\'s 3 CPU nominated to node-a keep p (1 CPU) from '
         'fitting there and v is evicted',
         [node('node-a'), pod('v', 'node-a', 0, [container('app', '1', '1Gi')]),
          pod('g', None, 1000, [container('app', '3', '1Gi')], spec={'schedulingGates': GATES},
              status={'nominatedNodeName': 'node-a'})],
         pod('p', None, 1000, [container('app', '1', '1Gi')]),
         expect=dict(result='nominated', node='node-a', victims=['default/v']), referee=True)

scenario('field-gates-all-pending',
         '--all-pending lists a gated pod with the result "gated" and decides nothing for it',
         [node('node-a', cpu='1'), pod('v', 'node-a', 0, [container('app', '1', '1Gi')]),
          pod('g', None, 1000, [container('app', '1', '1Gi')], spec={'schedulingGates': GATES},
              meta={'creationTimestamp': '2024-01-01T00:00:01Z'}),
          pod('q', None, 1000, [container('app', '1', '1Gi')],
              meta={'creationTimestamp': '2024-01-01T00:00:02Z'})],
         args='--all-pending',
         expect=dict(result='gated'))

scenario('field-gates-pod-group',
         '--pod-group whose every pending member is gated: the SchedulingGates PreEnqueue plugin '
         'keeps them all out of the active queue, so no cycle runs for the group (result gated, '
         'the plugin\'s message); with some members gated and others not, the cycle of the '
         'others is not modelled (refused, exit 3: field-gates-pod-group-partial)',
         [node('node-a', cpu='1'), pod('v', 'node-a', 0, [container('app', '1', '1Gi')]),
          pod_group('trainer', all_mode=False, priority=1000),
          pod('t0', None, 1000, [container('app', '1', '1Gi')],
              spec={'schedulingGroup': {'podGroupName': 'trainer'}, 'schedulingGates': GATES})],
         args='--pod-group default/trainer',
         expect=dict(result='gated', contains=['waiting for scheduling gates: [example.com/quota '
                                               'example.com/approval]']),
         referee=True, gates='GenericWorkload=true')

scenario('field-gates-pod-group-partial',
         '--pod-group with one member gated and one not: the queue lets in t1 alone; the group\'s '
         'cycle with members held back is not modelled: refused (exit 3)',
         [node('node-a', cpu='1'), pod('v', 'node-a', 0, [container('app', '1', '1Gi')]),
          pod_group('trainer', all_mode=False, priority=1000),
          pod('t0', None, 1000, [container('app', '1', '1Gi')],
              spec={'schedulingGroup': {'podGroupName': 'trainer'}, 'schedulingGates': GATES}),
          pod('t1', None, 1000, [container('app', '1', '1Gi')],
              spec={'schedulingGroup': {'podGroupName': 'trainer'}})],
         args='--pod-group default/trainer',
         expect=dict(exit=3, contains=['spec.schedulingGates: a gated member']))

DELETED = {'deletionTimestamp': '2024-01-01T01:00:00Z', 'deletionGracePeriodSeconds': 0,
           'finalizers': ['example.com/cleanup']}
scenario('field-deleting',
         'A pending pod being deleted (metadata.deletionTimestamp; a finalizer keeps the object): '
         'it stays in the queue, and kube-scheduler skips it each time it leaves it '
         '(skipPodSchedule: "skip schedule deleting pod"), so nothing is decided, though '
         'preemption would otherwise nominate node-a',
         [node('node-a', cpu='1'), pod('v', 'node-a', 0, [container('app', '1', '1Gi')]),
          pod('d', None, 1000, [container('app', '1', '1Gi')], meta=DELETED)],
         args='--pod-name default/d',
         expect=dict(result='deleting', contains=['skip schedule deleting pod: default/d']),
         referee=True)

scenario('field-no-nodes',
         'A cluster without nodes: schedulePod answers ErrNoNodesAvailable ("no nodes available to '
         'schedule pods") before any filter, so preemption never runs and the pod stays pending',
         [pod('v', None, 0, [container('app', '1', '1Gi')]),
          pod('p', None, 1000, [container('app', '1', '1Gi')])],
         args='--pod-name default/p',
         expect=dict(result='unschedulable', contains=['no nodes available to schedule pods']),
         referee=True)

scenario('field-deleting-nominated',
         'A pending pod being deleted keeps its nomination in the queue\'s nominator until the '
         'object is gone: d\'s 3 CPU nominated to node-a keep p (1 CPU) from fitting there beside '
         'v, so v is evicted',
         [node('node-a'), pod('v', 'node-a', 0, [container('app', '1', '1Gi')]),
          pod('d', None, 1000, [container('app', '3', '1Gi')], meta=DELETED,
              status={'nominatedNodeName': 'node-a'})],
         pod('p', None, 1000, [container('app', '1', '1Gi')]),
         expect=dict(result='nominated', node='node-a', victims=['default/v']), referee=True)

# ---- 3. A manifest as the API server would store it ---------------------------------------------

scenario('field-running',
         'A --pod manifest that is a pod of the dump bound to a node: it runs already; nothing '
         'to decide (it is never counted twice)',
         [node('node-a'), pod('p', 'node-a', 1000, [container('app', '3', '1Gi')]),
          pod('v', 'node-a', 0, [container('app', '1', '1Gi')])],
         pod('p', None, 1000, [container('app', '3', '1Gi')]),
         expect=dict(result='running'))

scenario('field-pending-once',
         'A --pod manifest that is a pending pod of the dump, nominated to node-a: its own '
         'nomination is not counted against it (the nominator skips the pod being scheduled), '
         'so it fits node-a beside v',
         [node('node-a'), pod('v', 'node-a', 0, [container('app', '1', '1Gi')]),
          pod('p', None, 1000, [container('app', '3', '1Gi')], status={'nominatedNodeName': 'node-a'})],
         pod('p', None, 1000, [container('app', '3', '1Gi')]),
         expect=dict(result='fits'), referee=True)

HOST_PORT = [{'containerPort': 8080, 'protocol': 'TCP'}]
scenario('field-host-network',
         'v1 defaulting (SetDefaults_Pod, defaultHostNetworkPorts): with spec.hostNetwork a '
         'port\'s hostPort defaults to its containerPort, so p wants host port 8080, which h holds '
         'on node-a (NodePorts): h is evicted',
         [node('node-a'),
          pod('h', 'node-a', 0, [container('app', '100m', '100Mi', ports=HOST_PORT)],
              spec={'hostNetwork': True})],
         pod('p', None, 1000, [container('app', '100m', '100Mi', ports=HOST_PORT)],
             spec={'hostNetwork': True}),
         expect=dict(result='nominated', node='node-a', victims=['default/h']), referee=True)

GVISOR = {'apiVersion': 'node.k8s.io/v1', 'kind': 'RuntimeClass', 'metadata': {'name': 'gvisor'},
          'handler': 'runsc', 'overhead': {'podFixed': {'cpu': '500m', 'memory': '100Mi'}},
          'scheduling': {'nodeSelector': {'sandbox': 'gvisor'},
                         'tolerations': [{'key': 'sandbox', 'operator': 'Equal', 'value': 'gvisor',
                                          'effect': 'NoSchedule'}]}}
SANDBOX_NODES = [node('node-a', cpu='2'),
                 node('node-b', cpu='2', labels={'sandbox': 'gvisor'},
                      taints=[{'key': 'sandbox', 'value': 'gvisor', 'effect': 'NoSchedule'}]),
                 pod('v', 'node-b', 0, [container('app', '1', '1Gi')],
                     spec={'tolerations': [{'key': 'sandbox', 'operator': 'Exists'}]})]
scenario('field-runtime-class',
         'RuntimeClass admission: spec.overhead from the class\'s overhead.podFixed (500m), its '
         'scheduling.nodeSelector merged into spec.nodeSelector and its tolerations added: p '
         'goes to the sandbox node only, needs 1.5 CPU there, and v is evicted (as written, p '
         'fitted node-a)',
         SANDBOX_NODES + [GVISOR],
         pod('p', None, 1000, [container('app', '1', '100Mi')], spec={'runtimeClassName': 'gvisor'}),
         expect=dict(result='nominated', node='node-b', victims=['default/v']))

scenario('field-runtime-class-absent',
         'spec.runtimeClassName names a class and the dump holds no RuntimeClass object: its '
         'overhead and scheduling are not known: refused (exit 3)',
         SANDBOX_NODES,
         pod('p', None, 1000, [container('app', '1', '100Mi')], spec={'runtimeClassName': 'gvisor'}),
         expect=dict(exit=3, contains=['spec.runtimeClassName: RuntimeClass \\"gvisor\\" is not in the dump']))

scenario('field-runtime-class-unknown',
         'spec.runtimeClassName names a class the dump\'s RuntimeClasses do not hold: the API '
         'server rejects the pod (RuntimeClass admission: "pod rejected: RuntimeClass ... not '
         'found"): bad input',
         SANDBOX_NODES + [GVISOR],
         pod('p', None, 1000, [container('app', '1', '100Mi')], spec={'runtimeClassName': 'kata'}),
         expect=dict(exit=2, stderr='RuntimeClass "kata" not found'))

scenario('field-overhead-without-class',
         'spec.overhead without a RuntimeClass that defines one: the API server rejects the pod '
         '(RuntimeClass validation: "Pod Overhead set without corresponding RuntimeClass '
         'defined Overhead"): bad input',
         [node('node-a')],
         pod('p', None, 1000, [container('app', '1', '100Mi')], spec={'overhead': {'cpu': '100m'}}),
         expect=dict(exit=2, stderr='Pod Overhead set without corresponding RuntimeClass'))

scenario('field-default-tolerations',
         'DefaultTolerationSeconds admission: a pod without them gets tolerations of '
         'node.kubernetes.io/not-ready:NoExecute and node.kubernetes.io/unreachable:NoExecute '
         '(300 s), so the unreachable node-a passes TaintToleration and p fits there (as written, '
         'node-a was ruled out and v on node-b evicted)',
         [node('node-a', taints=[{'key': 'node.kubernetes.io/unreachable', 'effect': 'NoExecute',
                                  'timeAdded': T0}]),
          node('node-b', cpu='1'), pod('v', 'node-b', 0, [container('app', '1', '1Gi')])],
         pod('p', None, 1000, [container('app', '1', '1Gi')]),
         expect=dict(result='fits'))

LIMITS = {'apiVersion': 'v1', 'kind': 'LimitRange', 'metadata': {'name': 'defaults', 'namespace': 'default'},
          'spec': {'limits': [{'type': 'Container', 'default': {'cpu': '4', 'memory': '2Gi'},
                               'defaultRequest': {'cpu': '2', 'memory': '1Gi'}}]}}
scenario('field-limit-range',
         'LimitRanger admission: a container without requests gets its namespace\'s LimitRange '
         'defaultRequest (2 CPU), so p does not fit beside v (3 CPU) and v is evicted (as '
         'written, p asked nothing and fitted)',
         [node('node-a'), pod('v', 'node-a', 0, [container('app', '3', '1Gi')]), LIMITS],
         pod('p', None, 1000, [container('app', None, None)]),
         expect=dict(result='nominated', node='node-a', victims=['default/v']))

scenario('field-limit-range-absent',
         'A container without a cpu or memory request, and no LimitRange object in the dump: '
         'LimitRanger would set them from the namespace\'s LimitRanges, which are not known: '
         'refused (exit 3)',
         [node('node-a'), pod('v', 'node-a', 0, [container('app', '3', '1Gi')])],
         pod('p', None, 1000, [container('app', None, None)]),
         expect=dict(exit=3, contains=['LimitRanger sets it']))

# ---- 7. Plugins of the default profile ----------------------------------------------------------

RESTART_ALL = [{'action': 'RestartAllContainers', 'exitCodes': {'operator': 'In', 'values': [42]}}]
scenario('field-node-declared-features',
         'NodeDeclaredFeatures (GA in v1.37, appended to the default profile, so its filter runs '
         'last): p\'s restartPolicyRules action RestartAllContainers requires '
         'RestartAllContainersOnContainerExits, which node-a does not declare '
         '(status.declaredFeatures): node-a fails with UnschedulableAndUnresolvable once its '
         'victims are gone, and node-b, whose victim has the higher priority, is nominated',
         [node('node-a', cpu='1'), node('node-b', cpu='1',
                                        status={'declaredFeatures': ['RestartAllContainersOnContainerExits']}),
          pod('va', 'node-a', 0, [container('app', '1', '1Gi')]),
          pod('vb', 'node-b', 10, [container('app', '1', '1Gi')])],
         pod('p', None, 1000, [container('app', '1', '1Gi', restartPolicyRules=RESTART_ALL)]),
         expect=dict(result='nominated', node='node-b', victims=['default/vb']), referee=True)

# ---- 4. Namespaces ---------------------------------------------------------------------------------

DEV = {'matchLabels': {'tier': 'dev'}}
scenario('field-namespace-selector-own',
         'InterPodAffinity resolves a term\'s namespaceSelector against the Namespace objects '
         '(mergeAffinityTermNamespacesIfNotEmpty); the dump holds none, so which namespaces p\'s '
         'anti-affinity covers is not known: refused (exit 3), naming the pod and the term',
         [node('node-a', labels={'kubernetes.io/hostname': 'node-a'}),
          pod('cache', 'node-a', 0, labels={'app': 'cache'}, ns='team-b')],
         pod('p', None, 1000, ns='team-a', spec={'affinity': {'podAntiAffinity': {
             'requiredDuringSchedulingIgnoredDuringExecution': [{
                 'labelSelector': {'matchLabels': {'app': 'cache'}}, 'namespaceSelector': DEV,
                 'topologyKey': 'kubernetes.io/hostname'}]}}}),
         expect=dict(exit=3, contains=['podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaceSelector']))

scenario('field-namespace-selector-placed',
         'A placed pod\'s anti-affinity term with a namespaceSelector matches p\'s labels; '
         'whether it keeps p away depends on the labels of p\'s namespace, and the dump holds '
         'no Namespace objects: refused (exit 3), naming that pod and its term',
         [node('node-a', labels={'kubernetes.io/hostname': 'node-a'}),
          pod('guard', 'node-a', 0, ns='team-b', spec={'affinity': {'podAntiAffinity': {
              'requiredDuringSchedulingIgnoredDuringExecution': [{
                  'labelSelector': {'matchLabels': {'app': 'web'}}, 'namespaceSelector': DEV,
                  'topologyKey': 'kubernetes.io/hostname'}]}}})],
         pod('p', None, 1000, labels={'app': 'web'}, ns='team-a'),
         expect=dict(exit=3, contains=['Pod team-b/guard: spec.affinity.podAntiAffinity']))

# ---- 8. The field table's other modelled fields ---------------------------------------------------

scenario('field-sidecar',
         'Sidecars (initContainers with restartPolicy Always) run beside the containers, so '
         'their requests add up (PodRequests, KEP-753): p needs 2 CPU, not max(1, 1) = 1, and v '
         'is evicted',
         [node('node-a', cpu='3'), pod('v', 'node-a', 0, [container('app', '2', '1Gi')])],
         pod('p', None, 1000, [container('app', '1', '100Mi')],
             spec={'initContainers': [container('proxy', '1', '100Mi', restartPolicy='Always')]}),
         expect=dict(result='nominated', node='node-a', victims=['default/v']), referee=True)

scenario('field-pod-level-requests',
         'Pod-level resources (PodLevelResources, beta and on): spec.resources.requests replace '
         'the containers\' total for cpu and memory: p needs 3 CPU, not 500m, and v is evicted',
         [node('node-a'), pod('v', 'node-a', 0, [container('app', '2', '1Gi')])],
         pod('p', None, 1000, [container('app', '500m', '100Mi')],
             spec={'resources': {'requests': {'cpu': '3', 'memory': '1Gi'}}}),
         expect=dict(result='nominated', node='node-a', victims=['default/v']), referee=True)

scenario('field-node-selector',
         'NodeAffinity: spec.nodeSelector keeps p on node-a (disk=ssd), where v is evicted; '
         'node-b would have room',
         [node('node-a', cpu='1', labels={'disk': 'ssd'}), node('node-b', cpu='1'),
          pod('v', 'node-a', 0, [container('app', '1', '1Gi')])],
         pod('p', None, 1000, [container('app', '1', '1Gi')], spec={'nodeSelector': {'disk': 'ssd'}}),
         expect=dict(result='nominated', node='node-a', victims=['default/v']), referee=True)

scenario('field-node-affinity',
         'NodeAffinity: a required node affinity term keeps p on node-a (zone In [z1]), where v '
         'is evicted; node-b would have room',
         [node('node-a', cpu='1', labels={'zone': 'z1'}), node('node-b', cpu='1', labels={'zone': 'z2'}),
          pod('v', 'node-a', 0, [container('app', '1', '1Gi')])],
         pod('p', None, 1000, [container('app', '1', '1Gi')], spec={'affinity': {'nodeAffinity': {
             'requiredDuringSchedulingIgnoredDuringExecution': {'nodeSelectorTerms': [{
                 'matchExpressions': [{'key': 'zone', 'operator': 'In', 'values': ['z1']}]}]}}}}),
         expect=dict(result='nominated', node='node-a', victims=['default/v']), referee=True)

_global = {'apiVersion': 'scheduling.k8s.io/v1', 'kind': 'PriorityClass',
           'metadata': {'name': 'standard'}, 'value': 1000, 'globalDefault': True}
scenario('field-priority-class-default',
         'Priority admission: a pod that names no PriorityClass gets the global default class\'s '
         'value (1000), so it may preempt v (0)',
         [node('node-a', cpu='1'), pod('v', 'node-a', 0, [container('app', '1', '1Gi')]), _global],
         {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'p', 'namespace': 'default'},
          'spec': {'containers': [container('app', '1', '1Gi')]}},
         expect=dict(result='nominated', node='node-a', victims=['default/v']))

scenario('field-scheduler-name',
         'spec.schedulerName: kube-scheduler\'s default profile decides only for pods of '
         'default-scheduler; a pod of another scheduler is not its to place (no decision)',
         [node('node-a', cpu='1'), pod('v', 'node-a', 0, [container('app', '1', '1Gi')])],
         pod('p', None, 1000, [container('app', '1', '1Gi')], spec={'schedulerName': 'batch-scheduler'}),
         expect=dict(result='other-scheduler'))

def namespace(name, labels):
    return {'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': name, 'labels': labels}}


scenario('field-namespace-labels',
         'InterPodAffinity with the dump\'s Namespace objects: p\'s anti-affinity term selects '
         'namespaces labelled tier=dev, which team-b is, so its cache keeps p off node-a and is '
         'evicted',
         [namespace('team-a', {'tier': 'prod'}), namespace('team-b', {'tier': 'dev'}),
          node('node-a', labels={'kubernetes.io/hostname': 'node-a'}),
          pod('cache', 'node-a', 0, labels={'app': 'cache'}, ns='team-b')],
         pod('p', None, 1000, ns='team-a', spec={'affinity': {'podAntiAffinity': {
             'requiredDuringSchedulingIgnoredDuringExecution': [{
                 'labelSelector': {'matchLabels': {'app': 'cache'}}, 'namespaceSelector': DEV,
                 'topologyKey': 'kubernetes.io/hostname'}]}}}),
         expect=dict(result='nominated', node='node-a', victims=['team-b/cache']), referee=True)

scenario('field-limits-as-requests',
         'v1 defaulting (SetDefaults_Pod): a container that sets a limit but no request requests '
         'its limit: p asks 2 CPU and v is evicted',
         [node('node-a', cpu='3'), pod('v', 'node-a', 0, [container('app', '2', '1Gi')])],
         pod('p', None, 1000, [container('app', None, None,
                                          resources={'limits': {'cpu': '2', 'memory': '1Gi'}})]),
         expect=dict(result='nominated', node='node-a', victims=['default/v']), referee=True)

scenario('field-node-declared-features-host-users',
         'NodeDeclaredFeatures: hostNetwork with hostUsers false requires '
         'UserNamespacesHostNetworkSupport, which only node-b declares',
         [node('node-a', cpu='1'), node('node-b', cpu='1',
                                        status={'declaredFeatures': ['UserNamespacesHostNetworkSupport']}),
          pod('va', 'node-a', 0, [container('app', '1', '1Gi')]),
          pod('vb', 'node-b', 10, [container('app', '1', '1Gi')])],
         pod('p', None, 1000, [container('app', '1', '1Gi')],
             spec={'hostNetwork': True, 'hostUsers': False}),
         expect=dict(result='nominated', node='node-b', victims=['default/vb']), referee=True)

scenario('field-node-declared-features-bind-mount',
         'NodeDeclaredFeatures: a volume mount\'s bindMountOptions require VolumeBindMountOptions, '
         'which only node-b declares',
         [node('node-a', cpu='1'), node('node-b', cpu='1',
                                        status={'declaredFeatures': ['VolumeBindMountOptions']}),
          pod('va', 'node-a', 0, [container('app', '1', '1Gi')]),
          pod('vb', 'node-b', 10, [container('app', '1', '1Gi')])],
         pod('p', None, 1000, [container('app', '1', '1Gi', volumeMounts=[{
             'name': 'scratch', 'mountPath': '/scratch', 'bindMountOptions': ['rbind']}])],
             spec={'volumes': [{'name': 'scratch', 'emptyDir': {}}]}),
         expect=dict(result='nominated', node='node-b', victims=['default/vb']), referee=True)

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
         _items, pod('p', None, 1000, [container('c', '%dm' % (_total // 3), '0')]),
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


# ---- 7. Before a pod group's cycle -----------------------------------------------------------------

def trainer(*members, priority=1000):
    """Node node-a (2 CPU) full with v (priority 0), PodGroup trainer and its pods."""
    return [node('node-a', cpu='2'), pod('v', 'node-a', 0, [container('app', '2', '1Gi')]),
            pod_group('trainer', all_mode=False, priority=priority)] + list(members)


def member(name, priority=1000, node_name=None, spec=None, meta=None, cpu='1'):
    sp = {'schedulingGroup': {'podGroupName': 'trainer'}}
    sp.update(spec or {})
    return pod(name, node_name, priority, [container('app', cpu, '1Gi')], spec=sp, meta=meta)


GROUP_ARGS = '--pod-group default/trainer'
scenario('field-group-member-priority',
         'validatePodGroup (schedule_one_podgroup.go) runs before a pod group\'s cycle: every '
         'queued member must have the group\'s priority. t1 has 500, the group 1000: the cycle '
         'fails with upstream\'s error, nothing is preempted and the members\' nominations are '
         'cleared; with t1 at 1000 the group preempts v',
         trainer(member('t0'), member('t1', priority=500)),
         args=GROUP_ARGS,
         expect=dict(result='error', contains=['should have the same priority as the pod group\'s '
                                               'priority, got 500 and 1000']),
         referee=True, gates='GenericWorkload=true')

scenario('field-group-scheduled-member-priority',
         'validatePodGroup checks the members already scheduled too (validateScheduledPods): s0 '
         'runs on node-b with priority 10, not the group\'s 1000, so the group\'s cycle fails',
         trainer(node('node-b', cpu='1'), member('s0', priority=10, node_name='node-b', cpu='100m'),
                 member('t0')),
         args=GROUP_ARGS,
         expect=dict(result='error', contains=['got 10 and 1000']),
         referee=True, gates='GenericWorkload=true')

scenario('field-group-member-policy',
         'validatePodGroup with PodGroupPreemptionPolicy off (v1.37\'s default): every member has '
         'the first one\'s preemption policy; t1 says Never, t0 PreemptLowerPriority, so the '
         'cycle fails (without it the group preempts v)',
         trainer(member('t0'), member('t1', spec={'preemptionPolicy': 'Never'})),
         args=GROUP_ARGS,
         expect=dict(result='error', contains=['should have the same preemption policy, got Never '
                                               'and PreemptLowerPriority']),
         referee=True, gates='GenericWorkload=true')

scenario('field-group-scheduler-name',
         'validatePodGroup: every member has one .spec.schedulerName; s0, already scheduled, was '
         'placed by another scheduler, so the group\'s cycle fails',
         trainer(node('node-b', cpu='1'),
                 member('s0', node_name='node-b', cpu='100m', spec={'schedulerName': 'batch'}),
                 member('t0')),
         args=GROUP_ARGS,
         expect=dict(result='error', contains=['same .spec.schedulerName set, got: \\"batch\\" '
                                               'and \\"default-scheduler\\"']),
         referee=True, gates='GenericWorkload=true')

scenario('field-group-deleting-member',
         'skipPodGroupPodSchedule: a member being deleted leaves the group\'s cycle (it stays '
         'queued); t0 is, so the group places t1 alone: 1 CPU, and v is still evicted, but t0 '
         'gets no nomination',
         trainer(member('t0', meta=DELETED), member('t1')),
         args=GROUP_ARGS,
         expect=dict(result='nominated', contains=['"deletingMembers": 1']),
         referee=True, gates='GenericWorkload=true')

scenario('field-group-deleting',
         'Every pending member of the group is being deleted: kube-scheduler skips them and runs '
         'no cycle for the group (no preemption, though v would otherwise be evicted)',
         trainer(member('t0', meta=DELETED), member('t1', meta=DELETED)),
         args=GROUP_ARGS,
         expect=dict(result='deleting'),
         referee=True, gates='GenericWorkload=true')


def gang(min_count, *members):
    items = trainer(*members)
    items[2]['spec']['schedulingPolicy'] = {'gang': {'minCount': min_count}}
    return items


scenario('field-group-gang-below-min-count',
         'GangScheduling\'s PreEnqueue holds every pod of a gang until the group has minCount '
         'pods (pending or bound): 2 of 3 here, so no cycle runs ("waiting for minCount pods from '
         'a gang to appear in scheduling queue") and t1 keeps its nomination; with minCount 2 the '
         'group preempts v',
         gang(3, member('t0'), member('t1', spec={}, meta=None)),
         args=GROUP_ARGS,
         expect=dict(result='gated', contains=['waiting for minCount pods from a gang']),
         referee=True, gates='GenericWorkload=true')


scenario('group-victim-conditions',
         'Why each victim of a pod group\'s preemption, beyond resources: t0 wants host port 8080, '
         'which v holds on node-a; v\'s entry in victimConditions names the port (read against the '
         'members nominated to its node)',
         [node('node-a', cpu='2'),
          pod('v', 'node-a', 0, [container('app', '1', '1Gi', ports=[{'containerPort': 8080, 'hostPort': 8080, 'protocol': 'TCP'}])]),
          pod_group('trainer', all_mode=False, priority=1000),
          pod('t0', None, 1000, [container('app', '1', '1Gi', ports=[{'containerPort': 8080, 'hostPort': 8080, 'protocol': 'TCP'}])],
              spec={'schedulingGroup': {'podGroupName': 'trainer'}})],
         args=GROUP_ARGS,
         expect=dict(result='nominated', victims=['default/v'],
                     contains=['"victimConditions"', '"condition": "host-port", "detail": "8080/TCP"']),
         referee=True, gates='GenericWorkload=true')


def port9090(name, node_name, priority):
    return pod(name, node_name, priority, [container('app', '1', '1Gi', ports=[
        {'containerPort': 9090, 'hostPort': 9090, 'protocol': 'TCP'}])],
        spec={'schedulingGroup': {'podGroupName': 'trainer'}} if node_name is None else None)


scenario('group-host-port-held-twice',
         'A host port held twice on one node (pods bound by nodeName skip NodePorts): h '
         '(priority 2000, never a victim) and v (priority 0) both hold 9090/TCP on node-a; t0, '
         'the trainer group\'s member, wants it, and node-b is full with w. Upstream\'s pod-group '
         'evaluator removes the potential victims from each NodeInfo before it places the group, '
         'and NodeInfo keeps the ports in use as a set (HostPortInfo.Remove drops 9090 though h '
         'still holds it): t0 goes to node-a, evicting v. Rebuilding node-a from the pods left '
         'kept 9090 held by h and sent t0 to node-b, evicting w (conformance seed 5755)',
         [node('node-a', cpu='4'), node('node-b', cpu='2'),
          port9090('h', 'node-a', 2000), port9090('v', 'node-a', 0),
          pod('w', 'node-b', 0, [container('app', '2', '1Gi')]),
          pod_group('trainer', all_mode=False, priority=1000), port9090('t0', None, 1000)],
         args=GROUP_ARGS,
         expect=dict(result='nominated', victims=['default/v']),
         referee=True, gates='GenericWorkload=true')


def topology_group():
    items = trainer(member('t0'))
    items[2]['spec']['schedulingConstraints'] = {'topology': [{'key': 'topology.kubernetes.io/zone'}]}
    return items


scenario('field-group-topology',
         'A PodGroup with spec.schedulingConstraints.topology is placed by topology domain '
         '(topology-aware workload scheduling), which the tool does not model: refused (exit 3), '
         'decided without it',
         topology_group(), args=GROUP_ARGS,
         expect=dict(exit=3, result='nominated', contains=['schedulingConstraints.topology']))


def hierarchy(child_priority):
    """CompositePodGroup root (1000) over trainer (1000, pending t0) and its sibling evaluator."""
    root = {'apiVersion': 'scheduling.k8s.io/v1alpha3', 'kind': 'CompositePodGroup',
            'metadata': {'name': 'root', 'namespace': 'default'},
            'spec': {'schedulingPolicy': {'basic': {}}, 'priority': 1000}}
    items = trainer(member('t0'))
    items[2]['spec']['parentCompositePodGroupName'] = 'root'
    sibling = pod_group('evaluator', all_mode=False, priority=child_priority)
    sibling['spec']['parentCompositePodGroupName'] = 'root'
    return items + [root, sibling]


scenario('k137-group-hierarchy-priority',
         'kube-scheduler v1.37 checks a hierarchy\'s pods against the root\'s priority, not its '
         'groups: the sibling PodGroup evaluator (500, no pods) under the root (1000) changes '
         'nothing here, and the group preempts v (decided for trainer alone: a hierarchy is '
         'refused, exit 3, since kube-scheduler schedules it as one unit)',
         hierarchy(500), args=GROUP_ARGS,
         # A hierarchy is scheduled as one unit, not modelled: refused (exit 3), decided for the
         # PodGroup alone. Not against kube-whatif: with CompositePodGroup on, GangScheduling
         # holds the pods until every group of the tree has its pods (evaluator has none).
         expect=dict(exit=3, result='nominated', victims=['default/v'],
                     contains=['spec.parentCompositePodGroupName']))

scenario('k138-group-hierarchy-priority',
         '--kubernetes-version 1.38: kubernetes#141930 (merged for v1.38) checks every group of '
         'the hierarchy against the root\'s priority too: evaluator has 500, the root 1000, so '
         'the cycle fails (the message\'s wording is the PR\'s; v1.38 names the group in it, the '
         'name here is in parentheses)',
         hierarchy(500), args=GROUP_ARGS + ' --kubernetes-version 1.38',
         expect=dict(exit=3, result='error', contains=['all pod groups in a hierarchy should have the same '
                                               'priority as the root pod group\'s priority, got '
                                               '500 and 1000 (PodGroup default/evaluator)']))


def composite(name, priority, all_mode=False):
    return {'apiVersion': 'scheduling.k8s.io/v1alpha3', 'kind': 'CompositePodGroup',
            'metadata': {'name': name, 'namespace': 'default'},
            'spec': {'schedulingPolicy': {'basic': {}}, 'priority': priority,
                     'disruptionMode': {'all': {}} if all_mode else {'single': {}}}}


def hierarchy_victims(root_priority):
    """node-a (4 CPU): a1 (3 CPU) of PodGroup g1 (priority 0) under CompositePodGroup root, and
    a2 (1 CPU, no group); the preemptor p (1000) needs 2 CPU."""
    g1 = pod_group('g1', all_mode=False, priority=0)
    g1['spec']['parentCompositePodGroupName'] = 'root'
    return [node('node-a'),
            pod('a1', 'node-a', 0, [container('app', '3', '1Gi')],
                spec={'schedulingGroup': {'podGroupName': 'g1'}}),
            pod('a2', 'node-a', 0, [container('app', '1', '1Gi')]),
            g1, composite('root', root_priority)]


HIERARCHY_GATES = 'GenericWorkload=true,CompositePodGroup=true,TopologyAwareWorkloadScheduling=true'
scenario('field-group-hierarchy-priority-gate',
         'kube-scheduler v1.37 follows spec.parentCompositePodGroupName only with the '
         'CompositePodGroup feature gate (alpha, off by default): with it, a1\'s priority is the '
         'root\'s 2000 and nothing on node-a can be evicted (unschedulable, what kube-whatif '
         'answers with the gate on); with the defaults a1 keeps its group\'s 0 and is evicted. '
         'The dump does not show the scheduler\'s gates: refused (exit 3), decided as with the gate on',
         hierarchy_victims(2000), pod('p', None, 1000, [container('app', '2', '1Gi')]),
         expect=dict(exit=3, result='unschedulable', contains=['spec.parentCompositePodGroupName',
                                                              'CompositePodGroup feature gate']),
         referee=True, gates=HIERARCHY_GATES)

scenario('field-group-hierarchy-no-effect',
         'A CompositePodGroup hierarchy that changes no pod\'s priority or victim unit (the root '
         'has g1\'s priority 0, neither is in `all` mode) decides the same with the '
         'CompositePodGroup gate on or off: decided (a1 evicted, the group member outranking the '
         'plain a2 in the reprieve), as kube-whatif with v1.37\'s default gates',
         hierarchy_victims(0), pod('p', None, 1000, [container('app', '2', '1Gi')]),
         expect=dict(result='nominated', node='node-a', victims=['default/a1']),
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
    reports = got if isinstance(got, list) else got.get('decisions', [got])
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
            if field == 'victims' and 'GenericWorkload' in s['gates']:
                # upstream lists a unit's pods in Go map order (tests/conformance/README.md)
                mine, theirs = sorted(mine or []), sorted(theirs or [])
            if field == 'victims' and not mine and not theirs:
                continue  # no decision: [] here, null there
            if mine != theirs:
                failures.append(f'{name}: {field} {mine!r}, kube-scheduler {theirs!r}')

for f in failures: print(f, file=sys.stderr)
sys.exit(1 if failures else 0)
