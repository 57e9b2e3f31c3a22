#!/usr/bin/env python3
"""Regenerates tests/whatif/scenarios/ (a developer aid; the tests never run it).

    python3 tests/whatif/make_scenarios.py <repo root> <built preempt-whatif>

Writes every scenario's inputs (cluster.json, pod.json, args, ...) as specified below, runs the
tool on them, checks the expectations written here (from upstream's TestPostFilter,
TestDryRunPreemption and TestSelectBestCandidate for the PF/DR/SB scenarios: result, nominated node, victims, budget violations, messages, the candidate
set of each dry run), and only then records the tool's output as expected.json (or expected.txt,
expected-stderr + expected-exit). Any failed expectation is reported and the script exits 1.
It deletes and rewrites the scenario folders it specifies and leaves every other folder alone
(field_scenarios.py's, policy_scenarios.py's, the hand-written ones); the hand-written ones listed
in HAND_WRITTEN below are checked: the tool's output on them must still be their expected output.
"""
import json, os, shlex, subprocess, sys, shutil
import yaml  # python3-yaml: the YAML scenarios' inputs

ROOT = sys.argv[1]          # repo root
TOOL = sys.argv[2]          # built preempt-whatif
OUT = os.path.join(ROOT, 'tests/whatif/scenarios')

neg, low, mid, high, very_high = -100, 0, 100, 1000, 10000
small, medium, large, very_large = (100, 100), (200, 200), (300, 300), (500, 500)

def t(k):
    return None if k is None else '1970-01-01T00:00:00.%09dZ' % k

def node(name, cpu=500, mem=500, pods=32, taints=None, labels=None, unschedulable=False):
    n = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}
    if labels: n["metadata"]["labels"] = labels
    spec = {}
    if taints: spec["taints"] = taints
    if unschedulable: spec["unschedulable"] = True
    if spec: n["spec"] = spec
    n["status"] = {"allocatable": {"cpu": f"{cpu}m", "memory": str(mem), "pods": str(pods)}}
    return n

def pod(name, node_name, prio, req, start=0, labels=None, ns="default", extra_spec=None, status=None, meta=None):
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns}}
    if labels: p["metadata"]["labels"] = labels
    if meta: p["metadata"].update(meta)
    spec = {}
    if node_name: spec["nodeName"] = node_name
    if prio is not None: spec["priority"] = prio
    c = {"name": "c"}
    if req: c["resources"] = {"requests": {"cpu": f"{req[0]}m", "memory": str(req[1])}}
    spec["containers"] = [c]
    if extra_spec: spec.update(extra_spec)
    p["spec"] = spec
    st = {"phase": "Running" if node_name else "Pending"}
    if start is not None and node_name: st["startTime"] = t(start)
    if status: st.update(status)
    p["status"] = st
    return p

def pdb(name, match, allowed, disrupted=None, ns="default"):
    b = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": ns},
         "spec": {"selector": {"matchLabels": match}}, "status": {"disruptionsAllowed": allowed}}
    if disrupted: b["status"]["disruptedPods"] = {d: "1970-01-01T00:00:00Z" for d in disrupted}
    return b

def lst(items):
    return {"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}}

def to_yaml(obj):
    """kubectl's -o yaml layout: block style, keys sorted, sequences not indented."""
    if isinstance(obj, list): return '---\n'.join(yaml.safe_dump(o, sort_keys=True) for o in obj)
    return yaml.safe_dump(obj, sort_keys=True)

def preemptor(prio=high, req=large, name="p", extra_spec=None, status=None, meta=None):
    p = pod(name, None, prio, req, extra_spec=extra_spec, status=status, meta=meta)
    del p["status"]
    if status: p["status"] = status
    return p

scenarios = {}

def scenario(name, note, cluster=None, pod_obj=None, args="", expect=None, files=None, raw=None, exit_code=0, stderr=None, stdin=None):
    scenarios[name] = dict(note=note, cluster=cluster, pod=pod_obj, args=args, expect=expect, files=files or {}, raw=raw or {}, exit=exit_code, stderr=stderr, stdin=stdin)

one_pod = dict(pods=1)
node_res = dict(cpu=200, mem=400)
taint_x = [{"key": "x", "value": "y", "effect": "NoSchedule"}]

# ---- PostFilter (upstream TestPostFilter) ----
scenario("PF1", "higher priority can be made schedulable",
         lst([node("node1", **one_pod), pod("p1", "node1", 0, small)]), preemptor(high, small),
         expect=dict(result="nominated", node="node1", victims=["default/p1"]))
scenario("PF2", "tied priority is still unschedulable",
         lst([node("node1", **one_pod), pod("p1", "node1", 0, small)]), preemptor(0, small),
         expect=dict(result="unschedulable", node="", message="preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."))
scenario("PF3", "respects filter statuses (node1 UnschedulableAndUnresolvable through a taint)",
         lst([node("node1", taints=taint_x, **one_pod), pod("p1", "node1", 0, small)]), preemptor(high, small),
         expect=dict(result="unschedulable", node="", message="preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."))
scenario("PF5", "schedulable on one node",
         lst([node("node1", **one_pod), pod("p1", "node1", high, small), node("node2", **one_pod), pod("p2", "node2", low, small)]),
         preemptor(mid, small), expect=dict(result="nominated", node="node2", victims=["default/p2"]))
# A request above a node's allocatable amount is UnschedulableAndUnresolvable in NodeResourcesFit
# (kube-whatif confirms it), so PF8-PF10 and extended-resources read "Preemption is not helpful".
scenario("PF8", "not enough resource after removal",
         lst([node("node1", **node_res), node("node2", **node_res), pod("p1", "node1", 0, small), pod("p2", "node2", 0, small)]),
         preemptor(high, large), expect=dict(result="unschedulable", message="preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."))
scenario("PF9", "mixed reasons",
         lst([node("node1", **one_pod), node("node2", **node_res), node("node3", **one_pod),
              pod("p1", "node1", high, small), pod("p2", "node2", 0, small), pod("p3", "node3", high, small)]),
         preemptor(high, large), expect=dict(result="unschedulable", message="preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."))
scenario("PF10", "mixed with unresolvable (node3, node4 tainted)",
         lst([node("node1", **node_res), node("node2", **node_res), node("node3", taints=taint_x, **node_res), node("node4", taints=taint_x, **node_res),
              pod("p1", "node1", 0, small), pod("p2", "node2", 0, small)]),
         preemptor(high, large), expect=dict(result="unschedulable", message="preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."))

# ---- DryRunPreemption (upstream TestDryRunPreemption) ----
two_mid_large = [node("node1"), node("node2"), pod("p1", "node1", mid, large), pod("p2", "node2", mid, large)]
scenario("DR4", "both nodes after preempting", lst(two_mid_large), preemptor(high, large),
         expect=dict(result="nominated", node="node1", candidates={"node1": ["default/p1"], "node2": ["default/p2"]}))
scenario("DR5", "running pods have higher priority", lst(two_mid_large), preemptor(low, large),
         expect=dict(result="unschedulable", candidates={}, message="preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."))
scenario("DR6", "mid preempted, small low stays",
         lst([node("node1"), node("node2"), pod("p1.1", "node1", low, small), pod("p1.2", "node1", mid, large), pod("p2", "node2", mid, large)]),
         preemptor(high, large), expect=dict(result="nominated", candidates={"node1": ["default/p1.2"], "node2": ["default/p2"]}))
scenario("DR7", "mixed priorities",
         lst([node("node1"), node("node2"), pod("p1.1", "node1", mid, small), pod("p1.2", "node1", low, small),
              pod("p1.3", "node1", mid, medium), pod("p1.4", "node1", high, small), pod("p2", "node2", high, large)]),
         preemptor(high, large), expect=dict(result="nominated", node="node1", candidates={"node1": ["default/p1.3", "default/p1.2"]}))
dr12 = [node("node1"), pod("p1.1", "node1", mid, medium, labels={"app": "foo"}), pod("p1.2", "node1", mid, medium, labels={"app": "foo"})]
scenario("DR12", "same PDB violated", lst(dr12 + [pdb("pdb", {"app": "foo"}, 1)]), preemptor(high, very_large),
         expect=dict(result="nominated", node="node1", victims=["default/p1.1", "default/p1.2"], violations=1))
scenario("DR13", "disruptedPods names an unrelated pod", lst(dr12 + [pdb("pdb", {"app": "foo"}, 1, ["p2"])]), preemptor(high, very_large),
         expect=dict(result="nominated", node="node1", violations=1))
scenario("DR14", "disruptedPods names victim p1.2", lst(dr12 + [pdb("pdb", {"app": "foo"}, 1, ["p1.2"])]), preemptor(high, very_large),
         expect=dict(result="nominated", node="node1", violations=0))
five = [node(f"node{i}") for i in range(1, 6)]
scenario("DR16", "limit 2 (40%, absolute 1), offset 4",
         lst(five + [pod(f"p{i}", f"node{i}", mid, large) for i in range(1, 6)]), preemptor(high, large),
         args="--offset 4 --min-candidate-nodes-percentage 40 --min-candidate-nodes-absolute 1",
         expect=dict(result="nominated", candidates={"node1": ["default/p1"], "node5": ["default/p5"]}, order=["node5", "node1"]))
scenario("DR17", "some nodes not possible, limit 2",
         lst(five + [pod(f"p{i}", f"node{i}", very_high if i in (2, 5) else mid, large) for i in range(1, 6)]), preemptor(high, large),
         args="--offset 4 --min-candidate-nodes-percentage 40 --min-candidate-nodes-absolute 1",
         expect=dict(result="nominated", candidates={"node1": ["default/p1"], "node3": ["default/p3"]}, order=["node5", "node1", "node2", "node3"]))
for suffix, off, want in (("a", 4, ["node5", "node1"]), ("b", 1, ["node2", "node3"]), ("c", 3, ["node4", "node5"])):
    scenario(f"DR18{suffix}", f"offsets across cycles: offset {off}",
             lst(five + [pod(f"p{i}", f"node{i}", mid, large) for i in range(1, 6)]), preemptor(high, large),
             args=f"--offset {off} --min-candidate-nodes-percentage 40 --min-candidate-nodes-absolute 1",
             expect=dict(result="nominated", candidates={n: ["default/p" + n[-1]] for n in want}, order=want))
scenario("DR19", "look past the candidate limit for a node without PDB violations",
         lst(five + [pod(f"p{i}", f"node{i}", mid, large, labels={"app": "foo"} if i in (1, 2, 5) else None) for i in range(1, 6)]
             + [pdb("pdb", {"app": "foo"}, 0)]), preemptor(high, large),
         args="--offset 4 --min-candidate-nodes-percentage 40 --min-candidate-nodes-absolute 2",
         expect=dict(result="nominated", node="node3", violations=0, candidates={"node1": ["default/p1"], "node3": ["default/p3"], "node5": ["default/p5"]},
                     order=["node5", "node1", "node2", "node3"], dropped=["node2"]))

# ---- Node selection (upstream TestSelectBestCandidate) ----
def sb(name, note, layout, want, req=very_large):
    items = [node(f"node{i}") for i in range(1, len(layout) + 1)]
    k = 0
    for i, pods_ in enumerate(layout, 1):
        for prio, size, start in pods_:
            k += 1
            items.append(pod(f"p{i}.{k}", f"node{i}", prio, size, start=start))
    scenario(name, note, lst(items), preemptor(high, req), expect=dict(result="nominated", node=want))
sb("SB1", "fits on both nodes (first candidate wins)", [[(mid, large, 0)], [(mid, large, 0)]], "node1", req=large)
sb("SB2", "lowest highest-priority victim", [[(mid, medium, 0), (mid, large, 0)], [(mid, medium, 0), (low, medium, 0)], [(low, medium, 0), (low, medium, 0)]], "node3")
sb("SB3", "smallest priority sum", [[(mid, medium, 0), (mid, large, 0)], [(mid, large, 0), (low, medium, 0)], [(mid, medium, 0), (mid, medium, 0)]], "node2")
sb("SB4", "fewest pods (decided by the shifted sum)", [[(mid, small, 0), (neg, small, 0), (mid, small, 0), (neg, small, 0)], [(mid, large, 0), (neg, medium, 0)], [(mid, medium, 0), (neg, small, 0), (low, small, 0)]], "node2")
sb("SB5", "shifted sum (a raw sum would pick node1)", [[(mid, small, 0), (neg, small, 0), (neg, small, 0)], [(mid, large, 0), (neg, medium, 0)], [(mid, medium, 0), (neg, small, 0), (low, small, 0)]], "node2")
sb("SB7", "start time per node", [[(mid, medium, 2), (mid, medium, 2)], [(mid, medium, 3), (mid, medium, 3)], [(mid, medium, 1), (mid, medium, 1)]], "node2")
sb("SB8", "start time over all pods", [[(mid, medium, 4), (mid, medium, 2)], [(mid, medium, 5), (mid, medium, 1)], [(mid, medium, 3), (mid, medium, 6)]], "node3")

# ---- Beyond upstream's scenarios: the tool's own behaviour ----
scenario("fits", "no preemption needed: nodes listed are the feasible ones",
         lst([node("node1"), node("node2"), node("node3"), pod("a", "node1", low, large), pod("b", "node2", low, very_large)]),
         preemptor(high, medium), expect=dict(result="fits"))
scenario("EL3-policy-never", "preemptionPolicy Never is not eligible",
         lst([node("node1", **one_pod), pod("p1", "node1", 0, small)]),
         preemptor(high, small, extra_spec={"preemptionPolicy": "Never"}),
         expect=dict(result="not-eligible", message="preemption: not eligible due to preemptionPolicy=Never."))
terminating_meta = {"deletionTimestamp": "2024-05-01T00:00:00Z"}
preempted_cond = {"conditions": [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]}
scenario("EL4-terminating-victim", "a victim of an earlier preemption is still terminating on the nominated node",
         lst([node("node1"), pod("v1", "node1", low, very_large, meta=terminating_meta, status=preempted_cond)]),
         preemptor(high, small, status={"nominatedNodeName": "node1"}),
         expect=dict(result="not-eligible", message="preemption: not eligible due to a terminating pod on the nominated node."))
scenario("EL5-terminating-not-preempted", "a terminating pod without the DisruptionTarget condition does not block",
         lst([node("node1"), pod("v1", "node1", low, very_large, meta=terminating_meta)]),
         preemptor(high, small, status={"nominatedNodeName": "node1"}),
         expect=dict(result="nominated", node="node1", victims=["default/v1"]))
scenario("nominated-pods", "two-pass fit with nominated pods; lower-priority nominations on the chosen node are cleared",
         lst([node("node1"), node("node2"),
              pod("v1", "node1", mid, medium), pod("v2", "node2", low, medium), pod("w2", "node2", mid, small),
              pod("n-high", None, very_high, medium, status={"nominatedNodeName": "node1"}),
              pod("n-low", None, low, small, status={"nominatedNodeName": "node2"})]),
         preemptor(high, large),
         expect=dict(result="nominated", node="node2", victims=["default/v2"], cleared=["default/n-low"]))
scenario("filters", "taints, cordons, nodeSelector, node affinity and nodeName rule nodes out",
         lst([node("tainted", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoExecute"}], labels={"disk": "ssd"}),
              node("cordoned", unschedulable=True, labels={"disk": "ssd"}),
              node("hdd", labels={"disk": "hdd"}),
              node("small-ssd", labels={"disk": "ssd", "zone": "b"}, cpu=350),
              node("ssd", labels={"disk": "ssd", "zone": "a"}),
              node("tolerated", taints=[{"key": "soft", "value": "", "effect": "PreferNoSchedule"}, {"key": "team", "value": "pay", "effect": "NoSchedule"}], labels={"disk": "ssd", "zone": "a"}),
              pod("a", "ssd", low, large), pod("b", "tolerated", mid, large), pod("c", "small-ssd", low, small)]),
         preemptor(high, large, extra_spec={"nodeSelector": {"disk": "ssd"},
                                             "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                                                 {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "c"]}]},
                                                 {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["small-ssd"]}]}]}}},
                                             "tolerations": [{"key": "team", "operator": "Equal", "value": "pay", "effect": "NoSchedule"}]}),
         expect=dict(result="nominated", node="small-ssd", victims=["default/c"]))
scenario("node-name", "spec.nodeName set in a --pod manifest: the pod is created bound, kube-scheduler never queues it (only unassigned pods enter its queue): no decision",
         lst([node("node1"), node("node2"), pod("a", "node1", low, large), pod("b", "node2", low, large)]),
         preemptor(high, large, extra_spec={"nodeName": "node2"}),
         expect=dict(result="bound"))
classes = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "batch"}, "value": 50, "preemptionPolicy": "Never"},
           {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "default-a"}, "value": 500, "globalDefault": True},
           {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "default-b"}, "value": 400, "globalDefault": True}]
def classed(name, node_name, cls, req):
    p = pod(name, node_name, None, req)
    if cls: p["spec"]["priorityClassName"] = cls
    return p
scenario("priority-classes", "priorities from PriorityClasses: named, global default (lowest of two), none",
         lst([node("node1", **one_pod), node("node2", **one_pod), node("node3", **one_pod),
              classed("batch-pod", "node1", "batch", small), classed("default-pod", "node2", None, small),
              classed("critical-pod", "node3", "system-node-critical", small)] + classes),
         classed("p", None, None, small),  # global default: 400
         expect=dict(result="nominated", node="node1", victims=["default/batch-pod"]))
scenario("priority-class-policy", "the preemption policy comes from the class",
         lst([node("node1", **one_pod), classed("v", "node1", None, small)] + classes),
         classed("p", None, "batch", small), expect=dict(result="not-eligible"))
init_pod = preemptor(high, None, extra_spec={
    "initContainers": [{"name": "sidecar", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m", "memory": "0"}}},
                       {"name": "init", "resources": {"requests": {"cpu": "350m", "memory": "0"}}}],
    "containers": [{"name": "a", "resources": {"requests": {"cpu": "100m", "memory": "0"}}}, {"name": "b", "resources": {"limits": {"cpu": "50m", "memory": "1"}}}],
    "runtimeClassName": "kata"})
kata = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata"}, "handler": "kata", "overhead": {"podFixed": {"cpu": "30m"}}}
scenario("init-containers-overhead", "requests with a sidecar, an init container floor, a limit as request, and overhead (480m) from the RuntimeClass (RuntimeClass admission)",
         lst([node("node1"), pod("big", "node1", low, (300, 1)), pod("tiny", "node1", mid, (20, 1)), kata]), init_pod,
         expect=dict(result="nominated", node="node1", victims=["default/big"]))
scenario("extended-resources", "extended resources: Insufficient example.com/gpu",
         lst([node("node1"), node("node2"), pod("g", "node2", low, small)]),
         preemptor(high, small, extra_spec={"containers": [{"name": "c", "resources": {"requests": {"cpu": "0", "memory": "0", "example.com/gpu": "1"}}}]}),
         expect=dict(result="unschedulable", message="preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."))
scenario("pod-name", "--pod-name takes the pending pod from the dump (its own nomination is not counted against it)",
         lst([node("node1"), node("node2"), pod("a", "node1", low, large), pod("b", "node2", mid, large),
              pod("waiting", None, high, large, status={"nominatedNodeName": "node1"}, ns="team")]),
         None, args="--pod-name team/waiting",
         expect=dict(result="nominated", node="node1", victims=["default/a"]))
scenario("multiple-files", "several --cluster files; a pod file given as a List of one Pod",
         None, None, files={"cluster-1-nodes.json": lst([node("node1"), node("node2")]),
                             "cluster-2-pods.json": lst([pod("a", "node1", mid, large), pod("b", "node2", low, large)]),
                             "pod.json": lst([preemptor(high, large)])},
         expect=dict(result="nominated", node="node2", victims=["default/b"]))
scenario("stdin", "the cluster read from standard input",
         None, preemptor(high, large), args="--cluster -", stdin=lst([node("node1"), pod("a", "node1", low, large)]),
         expect=dict(result="nominated", node="node1"))
scenario("warnings", "preferred and empty pod (anti-)affinity and a spread constraint without whenUnsatisfiable filter nothing and warn of nothing; pods on unknown nodes; an invalid budget selector",
         lst([node("node1"), pod("a", "node1", low, large, labels={"app": "a"}), pod("ghost", "node9", low, large),
              {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "bad", "namespace": "default"},
               "spec": {"selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": []}]}}, "status": {"disruptionsAllowed": 0}},
              {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ignored"}}]),
         preemptor(high, large, extra_spec={"affinity": {"podAntiAffinity": {}}, "topologySpreadConstraints": [{"maxSkew": 1}]}),
         expect=dict(result="nominated", node="node1"))

scenario("bundled", "no arguments: the bundled example (examples/data), as JSON", None, None, args="--output json",
         expect=dict(result="nominated", node="node-a", victims=["batch/report-20240520"], cleared=["reports/nightly-rollup"]))
scenario("bundled-text", "no arguments: the bundled example explained (pins the text output)", None, None,
         expect=dict(text=True))

# ---- Pod groups (KEP-5710 workload-aware preemption; upstream's podgrouppreemption_test.go) ----
# Capacity in pods (node pods=N; every pod requests 100m of 500m), as upstream's mock Filter
# counts slots. Group priorities are spec.priority.
def pg(name, mode=None, prio=None, policy=None, gang=None, parent=None, ns="default", cls=None, topology=False):
    spec = {"schedulingPolicy": {"gang": {"minCount": gang}} if gang is not None else {"basic": {}}}
    if mode: spec["disruptionMode"] = {mode: {}}
    if prio is not None: spec["priority"] = prio
    if cls: spec["priorityClassName"] = cls
    if policy: spec["preemptionPolicy"] = policy
    if parent: spec["parentCompositePodGroupName"] = parent
    if topology: spec["schedulingConstraints"] = {"topology": [{"key": "zone"}]}
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": name, "namespace": ns}, "spec": spec}

def cpg(name, mode=None, prio=None, parent=None, ns="default"):
    spec = {"schedulingPolicy": {"basic": {}}}
    if mode: spec["disruptionMode"] = {mode: {}}
    if prio is not None: spec["priority"] = prio
    if parent: spec["parentCompositePodGroupName"] = parent
    return {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup", "metadata": {"name": name, "namespace": ns}, "spec": spec}

def gpod(name, node_name, prio, group, start=0, labels=None, status=None, meta=None):
    return pod(name, node_name, prio, small, start=start, labels=labels, status=status, meta=meta,
               extra_spec={"schedulingGroup": {"podGroupName": group}} if group else None)

def slots(name, n): return node(name, pods=n)

# Single-pod preemption with groups as victims (v1.37 SelectVictimsOnNode).
scenario("WG-single-prefer-plain-pod", "single-pod preemption: a plain pod goes before an all-mode group of equal priority (WG25)",
         lst([slots("node1", 3), pod("p1", "node1", low, small), gpod("g1-1", "node1", low, "pg1"), gpod("g1-2", "node1", low, "pg1"),
              pg("pg1", "all", low)]),
         preemptor(high, small), expect=dict(result="nominated", node="node1", victims=["default/p1"]))
scenario("WG-single-group-across-nodes", "single-pod preemption: an all-mode group is evicted whole, on every node; the node with fewer victims wins",
         lst([slots("node1", 1), slots("node2", 1), slots("node3", 1),
              gpod("g1", "node1", low, "gang"), gpod("g2", "node2", low, "gang"), pod("p3", "node3", low, small),
              pg("gang", "all", low)]),
         preemptor(high, small),
         expect=dict(result="nominated", node="node3", victims=["default/p3"],
                     candidates={"node1": ["default/g1", "default/g2"], "node2": ["default/g1", "default/g2"], "node3": ["default/p3"]}))
scenario("WG-single-group-priority", "single-pod preemption: a pod's priority is its group's (low pod in a high group is untouchable)",
         lst([slots("node1", 1), gpod("inverted", "node1", low, "important"), pg("important", "single", very_high)]),
         preemptor(high, small),
         expect=dict(result="unschedulable", message="preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."))
scenario("WG-single-missing-group", "single-pod preemption: a pod naming a PodGroup that is not in the dump is its own unit, ranked as a group member (WG1, WG6)",
         lst([slots("node1", 2), gpod("p2", "node1", low, "absent"), pod("p1", "node1", low, small)]),
         preemptor(high, small), expect=dict(result="nominated", node="node1", victims=["default/p1"]))
scenario("WG-single-composite", "single-pod preemption: PodGroups under an all-mode CompositePodGroup are one unit (WG65, "
         "upstream's test with the CompositePodGroup gate on); v1.37's default gates ignore the hierarchy (pga and pgb "
         "would each be a unit of their own), so the decision is refused (exit 3), decided as with the gate on",
         lst([slots("node1", 2), slots("node2", 2),
              gpod("a1", "node1", low, "pga"), gpod("a2", "node2", low, "pga"), gpod("b1", "node1", low, "pgb"), gpod("b2", "node2", low, "pgb"),
              pg("pga", "all", low, parent="root"), pg("pgb", "all", low, parent="root"), cpg("root", "all", low)]),
         preemptor(high, small),
         expect=dict(refused=True, result="nominated", node="node1", victims=["default/a1", "default/a2", "default/b1", "default/b2"]))
scenario("WG-single-text", "single-pod preemption with groups, explained (the GROUP column)",
         lst([slots("node1", 2), gpod("g1", "node1", low, "gang"), gpod("g2", "node1", low, "gang"), gpod("s1", "node1", low, "solo"),
              pg("gang", "all", low), pg("solo", "single", mid)]),
         preemptor(high, small, name="p-big"), args="--output text", expect=dict(text=True))

# A pending pod group as the preemptor (--pod-group; the tool places first fit).
def member(name, group, prio=high, status=None):
    return gpod(name, None, prio, group, status=status)
scenario("WG15-group-single-lower-pod", "pod group preemption: a single lower pod (WG15)",
         lst([slots("node1", 1), pod("p1", "node1", low, small), pg("preemptor-pg", prio=high), member("p", "preemptor-pg")]),
         False, args="--pod-group default/preemptor-pg",
         expect=dict(group=True, result="nominated", victims=["default/p1"], members={"default/p": "node1"},
                     message="pod group preemption: found a placement for podgroup, preempting 1 victims"))
scenario("WG3-group-all-mode-victim", "pod group preemption: an all-mode group is not reprieved; it goes whole (WG3)",
         lst([slots("node1", 1), slots("node2", 1), gpod("p1", "node1", low, "pg1"), gpod("p2", "node2", low, "pg1"),
              pg("pg1", "all", low), pg("preemptor-pg", prio=high), member("p", "preemptor-pg")]),
         False, args="--pod-group default/preemptor-pg",
         expect=dict(group=True, result="nominated", victims=["default/p1", "default/p2"], pgd=1, members={"default/p": "node1"}))
scenario("WG33-group-gang-as-many-as-possible", "pod group preemption: a gang places as many members as it can; the third stays unplaced (WG33)",
         lst([slots("node1", 1), slots("node2", 1), slots("node3", 1), slots("node4", 1),
              pod("p1", "node1", low, small), pod("p2", "node2", low, small), pod("p3", "node3", high, small), pod("p4", "node4", high, small),
              pg("preemptor-pg", prio=high, gang=1), member("p-a", "preemptor-pg"), member("p-b", "preemptor-pg"), member("p-c", "preemptor-pg")]),
         False, args="--pod-group default/preemptor-pg",
         expect=dict(group=True, result="nominated", victims=["default/p1", "default/p2"],
                     members={"default/p-a": "node1", "default/p-b": "node2", "default/p-c": ""}))
scenario("WG8-group-policy-never",
         "pod group preemption: the group's spec.preemptionPolicy Never (upstream's WG8 row, which runs with\nPodGroupPreemptionPolicy on). kube-scheduler v1.37's default feature gates leave that alpha gate\noff: resolvePreemptionPolicy then ignores the group's field and reads the members' policies\n(PreemptLowerPriority here), so the group preempts p1 on node1 (checked with tests/conformance's\nkube-whatif --pod-group). The API server stores the field only with the gate on, so the dump's\ncluster may run kube-scheduler with it on: the tool decides with the default gates and refuses\n(exit 3), naming the field.",
         lst([slots("node1", 1), pod("p1", "node1", low, small), pg("preemptor-pg", prio=high, policy="Never"), member("p", "preemptor-pg")]),
         False, args="--pod-group default/preemptor-pg",
         expect=dict(group=True, refused=True, result="nominated", victims=["default/p1"], members={"default/p": "node1"},
                     message="pod group preemption: found a placement for podgroup, preempting 1 victims"))
scenario("WG28-group-only-higher", "pod group preemption: only higher-priority pods (WG28)",
         lst([slots("node1", 1), pod("p1", "node1", high, small), pg("preemptor-pg", prio=mid), member("p", "preemptor-pg", mid)]),
         False, args="--pod-group default/preemptor-pg",
         expect=dict(group=True, result="unschedulable", message="pod group preemption: No preemption victims found for incoming preemptor"))
scenario("WG9-group-ongoing", "pod group preemption: a lower pod terminating by preemption on a member's nominated node (WG9; v1.37: ongoing, nominations kept)",
         lst([slots("node1", 1), pod("victim", "node1", low, small, meta=terminating_meta, status=preempted_cond),
              pg("preemptor-pg", prio=high), member("p1", "preemptor-pg"), member("p2", "preemptor-pg", status={"nominatedNodeName": "node1"})]),
         False, args="--pod-group default/preemptor-pg",
         expect=dict(group=True, result="ongoing", members={"default/p1": "", "default/p2": "node1"},
                     message="pod group preemption: ongoing preemption on nominated nodes"))
scenario("WG27-group-pdb-unit", "pod group preemption: a unit violates its budget if any member does, and is reprieved first (WG27)",
         lst([slots("node1", 3), gpod("g1-1", "node1", low, "pg1", labels={"app": "foo"}), gpod("g1-2", "node1", low, "pg1"), pod("p1", "node1", low, small),
              pg("pg1", "all", low), pdb("pdb", {"app": "foo"}, 0), pg("preemptor-pg", prio=high), member("p", "preemptor-pg")]),
         False, args="--pod-group default/preemptor-pg",
         expect=dict(group=True, result="nominated", victims=["default/p1"], violations=0))
scenario("group-fits", "pod group: fits without preemption (the pod-group cycle succeeds, no preemption runs)",
         lst([slots("node1", 2), pod("p1", "node1", low, small), pg("preemptor-pg", prio=high), member("p", "preemptor-pg")]),
         False, args="--pod-group default/preemptor-pg",
         expect=dict(group=True, result="fits", members={"default/p": "node1"}))
scenario("group-text", "pod group preemption, explained (placement stated)",
         lst([slots("node1", 1), slots("node2", 1), gpod("v1", "node1", low, "victim-pg"), gpod("v2", "node2", low, "victim-pg"),
              pg("victim-pg", "all", mid), pg("preemptor-pg", prio=high, gang=2), member("p-a", "preemptor-pg"), member("p-b", "preemptor-pg")]),
         False, args="--pod-group default/preemptor-pg --output text", expect=dict(text=True))

# ---- Bad input: exit 2, one message ----
good_cluster = lst([node("node1"), pod("p1", "node1", low, small)])
def bad(name, note, stderr, cluster=good_cluster, pod_obj=None, args="", raw=None, stdin=None):
    scenario(name, note, cluster, pod_obj if pod_obj is not None else preemptor(high, small), args=args, raw=raw, exit_code=2, stderr=stderr, stdin=stdin)
text = json.dumps(good_cluster, indent=2)
bad("bad-truncated-json", "a truncated dump names the position", None, cluster=None, raw={"cluster.json": text[: len(text) // 2]})
bad("bad-empty-file", "an empty file", None, cluster=None, raw={"cluster.json": ""})
bad("bad-json-missing-comma", "a missing comma in the middle of the dump names its line and column", None, cluster=None,
    raw={"cluster.json": text.replace('"kind": "Pod",', '"kind": "Pod"', 1)})
bad("bad-json-escape", "an invalid escape in a string", None, cluster=None,
    raw={"cluster.json": text.replace('"p1"', '"p\\q1"', 1)})
bad("bad-json-utf8", "invalid UTF-8 in a string", None, cluster=None,
    raw={"cluster.json": text.replace('"p1"', '"p\udcff1"', 1)})
bad("bad-json-depth", "nesting deeper than simdjson accepts", None, cluster=None,
    raw={"cluster.json": "[" * 1100 + "]" * 1100 + "\n"})
bad("bad-json-pod-file", "a malformed pod file is named as such", None,
    pod_obj=False, raw={"pod.json": '{"kind": "Pod", "metadata": {"name": "p"},}\n'})
bad("bad-not-an-object", "a JSON document that is not an object", None, cluster=None, raw={"cluster.json": "42\n"})
bad("bad-trailing-garbage", "JSON followed by more text", None, cluster=None, raw={"cluster.json": '{"kind": "List", "items": []} x\n'})
bad("bad-quantity", "an invalid quantity names the object and the field", None,
    cluster=lst([node("node1"), pod("p1", "node1", low, small, extra_spec={"containers": [{"name": "c", "resources": {"requests": {"cpu": "12x"}}}]})]))
bad("bad-negative-quantity", "a negative request", None,
    cluster=lst([node("node1"), pod("p1", "node1", low, small, extra_spec={"containers": [{"name": "c", "resources": {"requests": {"memory": "-1Gi"}}}]})]))
bad("bad-missing-name", "an object without metadata.name", None, cluster=lst([{"kind": "Node", "metadata": {}}]))
bad("bad-missing-kind", "an item without kind", None, cluster=lst([{"metadata": {"name": "x"}}]))
bad("bad-wrong-type-priority", "a string where an integer belongs", None,
    cluster=lst([node("node1"), pod("p1", "node1", low, small, extra_spec={"priority": "high"})]))
bad("bad-wrong-type-labels", "a label value that is not a string", None,
    cluster=lst([node("node1", labels={"zone": 1})]))
bad("bad-wrong-type-items", "items that are not an array", None, cluster={"kind": "List", "items": {}})
bad("bad-time", "an unparsable startTime", None,
    cluster=lst([node("node1"), pod("p1", "node1", low, small, status={"startTime": "yesterday"})]))
bad("bad-priority-out-of-range", "a priority beyond 32 bits", None,
    cluster=lst([node("node1"), pod("p1", "node1", low, small, extra_spec={"priority": 3000000000})]))
bad("bad-unknown-priority-class", "the pod names a PriorityClass that does not exist", None,
    pod_obj=classed("p", None, "gold", small))
bad("bad-preemption-policy", "an unknown preemptionPolicy", None,
    pod_obj=preemptor(high, small, extra_spec={"preemptionPolicy": "Sometimes"}))
bad("bad-node-affinity", "an invalid node affinity operator in the pod", None,
    pod_obj=preemptor(high, small, extra_spec={"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "Is", "values": ["a"]}]}]}}}}))
bad("bad-pod-two-objects", "the pod file holds two objects", None, pod_obj=lst([preemptor(high, small), preemptor(high, small, name="q")]))
bad("bad-pod-kind", "the pod file holds a Node", None, pod_obj=node("n"))
bad("bad-duplicate-node", "two nodes with one name", None, cluster=lst([node("node1"), node("node1")]))
bad("bad-duplicate-pod", "two pods with one name", None, cluster=lst([node("node1"), pod("p1", "node1", low, small), pod("p1", "node1", low, small)]))
# Several errors in one dump: the one a single pass over nodes, classes, pods (names, then
# priorities) meets first, though the model is built on two threads.
_gold = lambda value: {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "gold"}, "value": value}
_unknown_class = pod("p0", "node1", None, small, extra_spec={"priorityClassName": "missing"})
bad("bad-build-order-classes-first", "a duplicate PriorityClass, a duplicate pod and a pod of an unknown class: the classes are named first", None,
    cluster=lst([node("node1"), _unknown_class, pod("p1", "node1", low, small), pod("p1", "node1", low, small), _gold(1000), _gold(2000)]))
bad("bad-build-order-duplicate-pod-first", "a duplicate pod and a pod of an unknown class: the duplicate is named first (names before priorities)", None,
    cluster=lst([node("node1"), _unknown_class, pod("p1", "node1", low, small), pod("p1", "node1", low, small), _gold(1000)]))
bad("bad-sampling", "sampling arguments are validated as upstream does", None, args="--min-candidate-nodes-percentage 101")
bad("bad-sampling-zero", "both sampling arguments zero", None, args="--min-candidate-nodes-percentage 0 --min-candidate-nodes-absolute 0")
bad("bad-offset", "a negative offset", None, args="--offset -1")
bad("bad-output", "an unknown output format", None, args="--output yaml")
bad("bad-missing-file", "a cluster file that does not exist", None, cluster=None, args="--cluster missing.json")
bad("bad-pod-name", "--pod-name of a pod not in the dump", None, pod_obj=False, args="--pod-name default/nope")
bad("bad-pod-name-bound", "--pod-name of a running pod", None, pod_obj=False, args="--pod-name default/p1")
bad("bad-missing-pod", "--cluster without --pod or --pod-name", None, pod_obj=False)
bad("bad-two-stdin", "standard input used twice", None, cluster=None, pod_obj=False, args="--cluster - --pod -")
bad("bad-unknown-option", "an unknown option", None, args="--frobnicate")
bad("bad-pod-group-unknown", "--pod-group names no PodGroup of the dump", None, pod_obj=False, args="--pod-group default/nope")
bad("bad-pod-group-no-members", "--pod-group names a PodGroup without pending members", None, pod_obj=False,
    cluster=lst([slots("node1", 1), pg("empty", prio=high)]), args="--pod-group default/empty")
_bad_mode = pg("pg1", prio=high); _bad_mode["spec"]["disruptionMode"] = "all"
bad("bad-pod-group-disruption-mode", "a PodGroup's disruptionMode is not an object", None, pod_obj=False,
    cluster=lst([slots("node1", 1), _bad_mode]), args="--pod-group default/pg1")
_bad_ref = gpod("m", None, high, "pg1"); _bad_ref["spec"]["schedulingGroup"] = {"podGroupName": 7}
bad("bad-scheduling-group", "a pod's spec.schedulingGroup.podGroupName is not a string", None, pod_obj=False,
    cluster=lst([slots("node1", 1), pg("pg1", prio=high), _bad_ref]), args="--pod-group default/pg1")
bad("bad-pod-group-class", "a PodGroup names an unknown PriorityClass", None, pod_obj=False,
    cluster=lst([slots("node1", 1), pg("pg1", cls="gold")]), args="--pod-group default/pg1")

# ---- Input shapes real tools write ----
def bare(obj):
    """The object without its kind, as items of a <Kind>List come from client-go."""
    o = dict(obj); del o["kind"]; return o
def typed_list(kind, items):
    return {"apiVersion": "v1", "kind": kind + "List", "metadata": {"resourceVersion": "1"}, "items": items}
shape_nodes = [node("node1"), node("node2")]
shape_pods = [pod("a", "node1", low, large, labels={"app": "a"}), pod("b", "node2", low, large, labels={"app": "b"})]
shape_pdb = pdb("protect-a", {"app": "a"}, 0)
shape_class = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "urgent"}, "value": 1000}
shape_pod = classed("p", None, "urgent", large)
scenario("shape-typed-lists", "NodeList, PodList, PodDisruptionBudgetList and PriorityClassList items without kind take it from their list",
         None, shape_pod, files={"cluster-1-nodes.json": typed_list("Node", [bare(n) for n in shape_nodes]),
                                 "cluster-2-pods.json": typed_list("Pod", [bare(p) for p in shape_pods]),
                                 "cluster-3-pdbs.json": typed_list("PodDisruptionBudget", [bare(shape_pdb)]),
                                 "cluster-4-classes.json": typed_list("PriorityClass", [bare(shape_class)])},
         expect=dict(result="nominated", node="node2", victims=["default/b"], violations=0))
scenario("shape-items-null", "\"items\": null is an empty list",
         lst([typed_list("Node", [bare(n) for n in shape_nodes]), {"apiVersion": "v1", "kind": "PodList", "items": None},
              typed_list("PodDisruptionBudget", None)]), preemptor(high, large),
         expect=dict(result="fits", warnings=[]))
scenario("shape-nested-lists", "a List of lists (and of kinds the tool does not read, named in warnings)",
         lst([typed_list("Node", [bare(n) for n in shape_nodes]), typed_list("Pod", [bare(p) for p in shape_pods]),
              typed_list("Service", [{"metadata": {"name": "s1"}}, {"metadata": {"name": "s2"}}]),
              {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}},
              typed_list("Event", [{"metadata": {"name": "e1"}}, {"metadata": {"name": "e2"}}, {"metadata": {"name": "e3"}}]),
              lst([shape_pdb])]),
         preemptor(high, large),
         expect=dict(result="nominated", node="node2", victims=["default/b"],
                     warnings=["ignored 3 Event, 2 Service, 1 ConfigMap (kinds preempt-whatif does not read)"]))
def dump_doc(obj): return json.dumps(obj, indent=4) + "\n"
cluster_info_dump = (dump_doc(typed_list("Node", [bare(n) for n in shape_nodes])) +
                     dump_doc(typed_list("Event", [])) +
                     dump_doc(typed_list("Pod", [bare(p) for p in shape_pods])) +
                     "==== START logs for container c of pod default/a ====\n{ \"not\": json at all\n[INFO] started\n"
                     "==== END logs for container c of pod default/a ====\n"
                     "==== START logs for container c of pod default/b ====\n"
                     "==== END logs for container c of pod default/b ====\n" +
                     dump_doc(typed_list("Service", [{"metadata": {"name": "kubernetes"}}])))
scenario("shape-concatenated", "kubectl cluster-info dump: concatenated documents with container logs between them",
         None, preemptor(high, large), raw={"cluster.json": cluster_info_dump},
         expect=dict(result="nominated", node="node1", warnings=["ignored 1 Service (kinds preempt-whatif does not read)"]))
scenario("shape-json-array", "a JSON array of objects", shape_nodes + shape_pods, preemptor(high, large),
         expect=dict(result="nominated", node="node1"))
scenario("yaml-list", "kubectl get -o yaml: a List in YAML, and the pod in YAML",
         None, None, files={"cluster.yaml": lst(shape_nodes + shape_pods + [shape_pdb, shape_class]), "pod.yaml": shape_pod},
         expect=dict(result="nominated", node="node2", victims=["default/b"]))
scenario("yaml-multi-document", "several YAML documents (---), an empty one, comments, anchors and merge keys",
         None, None, raw={"cluster.yaml": """# written by hand
apiVersion: v1
kind: Node
metadata: {name: node1, labels: {zone: a}}
status:
  allocatable: {cpu: 500m, memory: "500", pods: "32"}
---
apiVersion: v1
kind: NodeList
items:
- metadata:
    name: node2
    labels: &zone {zone: a}
  status: {allocatable: &small {cpu: 500m, memory: "500", pods: "32"}}
- metadata:
    name: node3
    labels:
      <<: *zone
      disk: ssd
  status: {allocatable: *small}
---
---
kind: PodList
items:
- metadata: {name: a, namespace: default}
  spec: &spec
    nodeName: node1
    priority: 0
    containers:
    - name: c
      resources: {requests: {cpu: 300m, memory: 300}}
- metadata: {name: b, namespace: default}
  spec:
    <<: *spec
    nodeName: node3
    priority: 5
...
""", "pod.yaml": to_yaml(preemptor(high, large, extra_spec={"nodeSelector": {"disk": "ssd", "zone": "a"}}))},
         expect=dict(result="nominated", node="node3", victims=["default/b"]))
scenario("yaml-stdin", "a YAML dump on standard input",
         None, preemptor(high, large), args="--cluster -", stdin=("stdin.yaml", to_yaml(lst(shape_nodes + shape_pods))),
         expect=dict(result="nominated", node="node1"))
good_text = json.dumps(lst(shape_nodes + shape_pods), indent=2) + "\n"
scenario("encoding-utf8-bom", "a UTF-8 byte-order mark is skipped", None, preemptor(high, large),
         raw={"cluster.json": b"\xef\xbb\xbf" + good_text.encode()}, expect=dict(result="nominated", node="node1"))
scenario("encoding-utf16-le", "UTF-16 LE with a byte-order mark (Windows PowerShell's >) is converted",
         None, preemptor(high, large), raw={"cluster.json": b"\xff\xfe" + good_text.encode("utf-16-le")},
         expect=dict(result="nominated", node="node1"))
scenario("encoding-utf16-be-yaml", "UTF-16 BE without a byte-order mark, in YAML, is converted",
         None, preemptor(high, large), raw={"cluster.yaml": to_yaml(lst(shape_nodes + shape_pods)).encode("utf-16-be")},
         expect=dict(result="nominated", node="node1"))
dup_cluster = ('{"kind": "List", "items": [\n'
               ' {"kind": "Node", "metadata": {"name": "node1"}, "metadata": {"labels": {"zone": "a"}},\n'
               '  "status": {"allocatable": {"cpu": "100m", "cpu": "500m", "memory": "500", "pods": "32"}}},\n'
               ' {"kind": "Node", "metadata": {"name": "node2"}, "status": {"allocatable": {"cpu": "500m", "memory": "500", "pods": "32"}}},\n'
               ' {"kind": "Pod", "metadata": {"name": "a", "namespace": "default"}, "spec": {"nodeName": "node1", "priority": 900, "priority": 0,\n'
               '  "containers": [{"name": "x", "resources": {"requests": {"cpu": "50m"}}}], "containers": [{"name": "c", "resources": {"requests": {"cpu": "300m"}}}]}},\n'
               ' {"kind": "Pod", "metadata": {"name": "b", "namespace": "default"}, "spec": {"nodeName": "node2", "priority": 0, "priority": 900,\n'
               '  "containers": [{"name": "c", "resources": {"requests": {"cpu": "300m"}}}]}}]}\n')
scenario("duplicate-keys", "a key given twice: the last wins (scalars and lists replace, objects merge), as in Go",
         None, preemptor(high, large, extra_spec={"nodeSelector": {"zone": "b"}, "nodeSelector": {"zone": "a"}}),
         raw={"cluster.json": dup_cluster}, expect=dict(result="nominated", node="node1", victims=["default/a"]))
scenario("duplicate-keys-yaml", "a YAML key given twice: the last value wins whole (nothing merges), as sigs.k8s.io/yaml does",
         None, None, raw={"cluster.yaml": """kind: List
items:
- kind: Node
  metadata: {name: node1, labels: {zone: a, disk: ssd}}
  metadata: {name: node1, labels: {zone: a}}
  status: {allocatable: {cpu: 500m, memory: "500", pods: "32"}}
- kind: Node
  metadata: {name: node2, labels: {zone: a, disk: ssd}}
  status: {allocatable: {cpu: 500m, memory: "500", pods: "32"}}
- kind: Pod
  metadata: {name: b, namespace: default}
  spec: {nodeName: node2, priority: 0, containers: [{name: c, resources: {requests: {cpu: 300m}}}]}
""", "pod.yaml": to_yaml(preemptor(high, large, extra_spec={"nodeSelector": {"disk": "ssd"}}))},
         expect=dict(result="nominated", node="node2", victims=["default/b"]))
ancient = [node("node1", **one_pod), node("node2", **one_pod), node("node3", **one_pod),
           pod("ancient", "node1", low, small, status={"startTime": "1600-01-01T00:00:00Z"}),
           pod("recent", "node2", low, small, status={"startTime": "2024-05-01T10:00:00Z"}),
           pod("future", "node3", low, small, status={"startTime": "2300-01-01T00:00:00Z"})]
scenario("start-before-1677", "start times before 1677 and after 2262 are valid (held at the ends of the nanosecond range)",
         lst(ancient), preemptor(high, small), expect=dict(result="nominated", node="node3", victims=["default/future"]))
scenario("start-before-1677-text", "the same, explained: the victims' start times beyond the range are shown as such",
         lst(ancient), preemptor(high, small), expect=dict(text=True))
queue = [node("node1", **one_pod), node("node2", **one_pod), pod("v1", "node1", low, small), pod("v2", "node2", mid, small),
         pod("late", None, high, small, meta={"creationTimestamp": "2024-05-01T10:00:02Z"}),
         pod("early", None, high, small, meta={"creationTimestamp": "2024-05-01T10:00:01Z"}),
         pod("small-fry", None, neg, small, meta={"creationTimestamp": "2024-05-01T09:00:00Z"}),
         pod("done", None, very_high, small, status={"phase": "Succeeded"})]
scenario("all-pending", "--all-pending: every pending pod in queue order (priority, then creation time), each on its own",
         lst(queue), None, args="--all-pending",
         expect=dict(array=[("default/early", "nominated", "node1"), ("default/late", "nominated", "node1"),
                            ("default/small-fry", "unschedulable", "")]))
scenario("all-pending-text", "--all-pending as a table", lst(queue), None, args="--all-pending", expect=dict(text=True))

# ---- Why each victim: the conditions beyond resources its presence triggers ----
# node1 (zone a) is full: hp holds host port 8080, db is what the preemptor's anti-affinity
# rejects, web is counted by its zone spread (zone b, on the tainted node2, has none), plain and
# keep only take cpu. The preemptor (400m, app=web) wants port 8080, rejects app=db on the same
# host and spreads app=web over zones with maxSkew 1. keep (mid) is given back; plain is evicted
# for cpu alone (no condition); hp, db, web each for the condition they trigger.
conditions_cluster = lst([
    node("node1", labels={"kubernetes.io/hostname": "node1", "topology.kubernetes.io/zone": "a"}),
    node("node2", taints=taint_x, labels={"kubernetes.io/hostname": "node2", "topology.kubernetes.io/zone": "b"}),
    pod("hp", "node1", low, small, start=1, extra_spec={"containers": [
        {"name": "c", "resources": {"requests": {"cpu": "100m", "memory": "100"}},
         "ports": [{"containerPort": 8080, "hostPort": 8080}]}]}),
    pod("db", "node1", low, small, start=2, labels={"app": "db"}),
    pod("web", "node1", low, small, start=3, labels={"app": "web"}),
    pod("plain", "node1", low, small, start=4),
    pod("keep", "node1", mid, small, start=5)])
conditions_preemptor = preemptor(high, (400, 100), meta={"labels": {"app": "web"}}, extra_spec={
    "containers": [{"name": "c", "resources": {"requests": {"cpu": "400m", "memory": "100"}},
                    "ports": [{"containerPort": 8080, "hostPort": 8080}]}],
    "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}},
    "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                   "whenUnsatisfiable": "DoNotSchedule",
                                   "labelSelector": {"matchLabels": {"app": "web"}}}]})
scenario("victim-conditions", "per victim, the preemptor's conditions beyond resources it triggers: a host port, the preemptor's anti-affinity, the zone spread; none for a victim evicted for cpu",
         conditions_cluster, conditions_preemptor,
         expect=dict(result="nominated", node="node1", victims=["default/hp", "default/db", "default/web", "default/plain"],
                     conditions={"default/web": [{"condition": "topology-spread", "detail": "topology.kubernetes.io/zone"}],
                                 "default/plain": [],
                                 "default/db": [{"condition": "preemptor-anti-affinity", "detail": "kubernetes.io/hostname"}],
                                 "default/hp": [{"condition": "host-port", "detail": "8080/TCP"}]}))
scenario("victim-conditions-text", "the same, explained: the blocking conditions listed under the victims",
         conditions_cluster, conditions_preemptor, args="--output text", expect=dict(text=True))
# The victim's own anti-affinity against the preemptor (the other direction).
scenario("victim-conditions-existing-anti-affinity", "a victim whose required anti-affinity rejects the preemptor: victim-anti-affinity",
         lst([node("node1", labels={"kubernetes.io/hostname": "node1"}),
              pod("loner", "node1", low, small, extra_spec={"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                  {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}})]),
         preemptor(high, small, meta={"labels": {"app": "web"}}),
         expect=dict(result="nominated", node="node1", victims=["default/loner"],
                     conditions={"default/loner": [{"condition": "victim-anti-affinity", "detail": "kubernetes.io/hostname"}]}))

# ---- Bad input shapes ----
bad("bad-directory", "a directory given as the cluster", None, cluster=None, args="--cluster .")
bad("bad-character-device", "a character device that is not a stream", None, cluster=None, args="--cluster /dev/null")
bad("bad-over-size", "an input over --max-input-size", None, args="--max-input-size 100")
bad("bad-max-input-size", "an invalid --max-input-size", None, args="--max-input-size 12x")
bad("bad-utf32", "UTF-32 text is named", None, cluster=None, raw={"cluster.json": good_text.encode("utf-32")})
bad("bad-utf16-surrogate", "UTF-16 with an unpaired surrogate", None, cluster=None,
    raw={"cluster.json": b"\xff\xfe" + '{"kind": "List", "items": []}'.encode("utf-16-le") + b"\x00\xd8"})
bad("bad-utf16-odd", "UTF-16 with an odd number of bytes", None, cluster=None,
    raw={"cluster.json": b"\xff\xfe" + '{"kind": "List", "items": []}'.encode("utf-16-le") + b"\x0a"})
bad("bad-yaml-syntax", "malformed YAML names line and column", None, cluster=None,
    raw={"cluster.yaml": "kind: List\nitems:\n- kind: Node\n  metadata: {name: n1\n  status: x\n"})
bad("bad-yaml-nan", "a YAML .nan where a number belongs", None, cluster=None,
    raw={"cluster.yaml": "kind: Pod\nmetadata: {name: p1}\nspec: {nodeName: n1, priority: .nan}\n"})
bad("bad-yaml-merge", "a merge key with a scalar", None, cluster=None, raw={"cluster.yaml": "kind: Node\nmetadata:\n  <<: 5\n"})
bad("bad-yaml-alias", "an alias of an unknown anchor", None, cluster=None, raw={"cluster.yaml": "kind: Node\nmetadata: *nowhere\n"})
bad("bad-yaml-empty", "a YAML input with no document", None, cluster=None, raw={"cluster.yaml": "# nothing here\n"})
bad("bad-yaml-pod-two-documents", "a YAML pod file with two documents", None,
    pod_obj=False, raw={"pod.yaml": to_yaml([preemptor(high, small), preemptor(high, small, name="q")])})
bad("bad-concatenated-second", "the second of concatenated documents is malformed: its line and column in the file", None,
    cluster=None, raw={"cluster.json": dump_doc(typed_list("Node", [bare(n) for n in shape_nodes])) + '{"kind": "PodList", "items": [}\n'})
bad("bad-kind-type", "a kind that is not a string", None, cluster=lst([{"kind": 5, "metadata": {"name": "x"}}]))
bad("bad-list-item-kind", "a plain List's items must carry their kind", None,
    cluster=lst([typed_list("Node", [bare(shape_nodes[0])]), bare(shape_nodes[1])]))
bad("bad-long-value", "a long value is cut in the message", None,
    cluster=lst([node("node1"), pod("p1", "node1", low, small, extra_spec={"containers": [{"name": "c", "resources": {"requests": {"cpu": "1" * 5000 + "x"}}}]})]))
bad("bad-control-characters", "control characters in names and values are escaped: the message stays one line", None,
    cluster=lst([node("node\n1", labels={"zone\u0007": 7})]))
bad("bad-offset-range", "--offset beyond the nodes", None, args="--offset 1")
bad("bad-offset-huge", "--offset beyond 64 bits", None, args="--offset 99999999999999999999")
bad("bad-offset-text", "--offset that is not a number", None, args="--offset two")
bad("bad-all-pending-with-pod", "--all-pending and --pod together", None, args="--all-pending")

def write(path, obj):
    if isinstance(obj, bytes):
        with open(path, 'wb') as f: f.write(obj)
        return
    with open(path, 'w', encoding='utf-8', errors='surrogateescape') as f:
        if isinstance(obj, str): f.write(obj)
        elif path.endswith('.yaml'): f.write(to_yaml(obj))
        else: f.write(json.dumps(obj, indent=2) + "\n")

# Scenarios written by hand (their inputs checked against kube-whatif, tests/conformance): kept
# as they are, and the tool's output on them is checked against their expected files.
HAND_WRITTEN = {"bad-host-port", "bad-spread-policy", "bad-spread-when-unsatisfiable",
                "filter-existing-anti-affinity", "filter-host-ports", "filter-namespace-selector",
                "filter-pod-affinity", "filter-spread",
                # inputs that are not text, and names that would move a terminal
                "bad-gzip", "bad-gzip-pod", "bad-nul", "bad-nul-later", "bad-kubectl-warning",
                "bad-kubectl-klog", "bad-kubectl-warning-inside", "text-control-characters",
                "text-control-characters-table",
                # the decision at every start offset; the plan
                "offsets-all", "offsets-all-text", "offsets-all-not-sampled", "sampled-decision-text",
                "plan", "plan-text", "plan-stops-where-scoring-places", "plan-nominated-node-first",
                "plan-budget-recount", "plan-stops-at-pod-group", "pod-name-namespace-flag",
                "group-namespace-flag",
                # checked against kube-whatif (tests/conformance) when written
                "group-assumed-member-nomination"}
assert not HAND_WRITTEN & set(scenarios), "a hand-written scenario is also generated"

def run_tool(d, args='', stdin_name=None, json_output=True):
    cmd = [TOOL]
    clusters = sorted(f for f in os.listdir(d) if f in ('cluster.json', 'cluster.yaml') or f.startswith('cluster-'))
    if clusters: cmd += ['--cluster'] + clusters
    for pod_file in ('pod.json', 'pod.yaml'):
        if os.path.exists(os.path.join(d, pod_file)): cmd += ['--pod', pod_file]
    cmd += shlex.split(args)
    if json_output and '--output' not in args: cmd += ['--output', 'json']
    stdin = open(os.path.join(d, stdin_name), 'rb') if stdin_name else subprocess.DEVNULL
    r = subprocess.run(cmd, cwd=d, stdin=stdin, capture_output=True)
    r.stdout = r.stdout.decode('utf-8', 'surrogateescape')
    r.stderr = r.stderr.decode('utf-8', 'surrogateescape')
    return r

failures = []
for name in sorted(os.listdir(OUT)) if os.path.isdir(OUT) else []:
    # Only the folders written here are rewritten: field-* are field_scenarios.py's, policy-* and
    # k13*-* policy_scenarios.py's, and the others (volumes, DRA, ...) were written by hand.
    if name in scenarios: shutil.rmtree(os.path.join(OUT, name))
for name in sorted(HAND_WRITTEN):
    d = os.path.join(OUT, name)
    if not os.path.isdir(d):
        failures.append(f"{name}: hand-written scenario missing")
        continue
    args = open(os.path.join(d, 'args')).read().strip() if os.path.exists(os.path.join(d, 'args')) else ''
    r = run_tool(d, args, json_output=os.path.exists(os.path.join(d, 'expected.json')))
    want_exit = int(open(os.path.join(d, 'expected-exit')).read()) if os.path.exists(os.path.join(d, 'expected-exit')) else 0
    if os.path.exists(os.path.join(d, 'expected-stderr')):
        want = (want_exit, open(os.path.join(d, 'expected-stderr')).read())
        if (r.returncode, r.stderr) != want: failures.append(f"{name}: got exit {r.returncode}: {r.stderr}")
    elif os.path.exists(os.path.join(d, 'expected.txt')):
        if r.returncode != want_exit or r.stdout != open(os.path.join(d, 'expected.txt'), encoding='utf-8', errors='surrogateescape').read():
            failures.append(f"{name}: the output differs from expected.txt (exit {r.returncode})")
    elif r.returncode != want_exit or json.loads(r.stdout) != json.load(open(os.path.join(d, 'expected.json'))):
        failures.append(f"{name}: the output differs from expected.json (exit {r.returncode})")
    print(f"{name}: hand-written, checked")
for name, s in scenarios.items():
    d = os.path.join(OUT, name)
    os.makedirs(d)
    write(os.path.join(d, 'README'), s['note'] + "\n")
    if s['cluster'] is not None: write(os.path.join(d, 'cluster.json'), s['cluster'])
    if s['pod'] not in (None, False): write(os.path.join(d, 'pod.json'), s['pod'])
    for fn, obj in s['files'].items(): write(os.path.join(d, fn), obj)
    for fn, txt in s['raw'].items(): write(os.path.join(d, fn), txt)
    stdin_name = None
    if s['stdin'] is not None:
        stdin_name = s['stdin'][0] if isinstance(s['stdin'], tuple) else 'stdin.json'
        write(os.path.join(d, stdin_name), s['stdin'][1] if isinstance(s['stdin'], tuple) else s['stdin'])
    if s['args']: write(os.path.join(d, 'args'), s['args'] + "\n")
    r = run_tool(d, s['args'], stdin_name, s['exit'] == 0 and not (s['expect'] or {}).get('text'))
    # A refused decision (exit 3) is still a decision in JSON, its notModelled naming why.
    want_exit = 3 if (s['expect'] or {}).get('refused') else s['exit']
    if r.returncode != want_exit:
        failures.append(f"{name}: exit {r.returncode} (want {want_exit}): {r.stderr}{r.stdout[:300]}")
        continue
    if want_exit == 3:
        write(os.path.join(d, 'expected-exit'), "3\n")
    if s['exit'] != 0:
        write(os.path.join(d, 'expected-exit'), f"{s['exit']}\n")
        write(os.path.join(d, 'expected-stderr'), r.stderr)
        print(f"{name}: {r.stderr.strip()}")
        continue
    e = s['expect'] or {}
    if e.get('text'):
        write(os.path.join(d, 'expected.txt'), r.stdout)
        print(f"{name}: text, {len(r.stdout.splitlines())} lines")
        continue
    out = json.loads(r.stdout)
    if e.get('refused') and not out.get('notModelled'):
        failures.append(f"{name}: exit 3 without notModelled")
    def check(cond, what):
        if not cond: failures.append(f"{name}: {what}: got {json.dumps(out)[:600]}")
    if 'array' in e:
        check(out['kind'] == 'PendingPods' and out['mode'] == 'independent', "an independent PendingPods list")
        check([(o['preemptor'], o['result'], o['nominatedNodeName']) for o in out['decisions']] == e['array'], "decisions in queue order")
        write(os.path.join(d, 'expected.json'), r.stdout)
        print(f"{name}: {[(o['preemptor'], o['result']) for o in out['decisions']]}")
        continue
    if e.get('group'):
        check(out['result'] == e['result'], "result")
        if 'victims' in e: check(sorted(out['victims']) == sorted(e['victims']), "victims")
        if 'members' in e: check({m['name']: m['nominatedNodeName'] for m in out['members']} == e['members'], "members")
        if 'message' in e: check(out['message'] == e['message'], "message")
        if 'pgd' in e: check(out['podGroupDisruptions'] == e['pgd'], "podGroupDisruptions")
        if 'violations' in e: check(out['pdbViolations'] == e['violations'], "pdbViolations")
        write(os.path.join(d, 'expected.json'), r.stdout)
        print(f"{name}: {out['result']} {out['victims']} {out['message']}")
        continue
    if 'warnings' in e: check(out['warnings'] == e['warnings'], "warnings")
    check(out['result'] == e['result'], "result")
    if 'node' in e: check(out['nominatedNodeName'] == e['node'], "nominatedNodeName")
    if 'victims' in e: check(sorted(out['victims']) == sorted(e['victims']), "victims")
    if 'violations' in e: check(out['pdbViolations'] == e['violations'], "pdbViolations")
    if 'message' in e: check(out['message'] == e['message'], "message")
    if 'cleared' in e: check(out['clearedNominations'] == e['cleared'], "clearedNominations")
    if 'conditions' in e: check(out.get('victimConditions') == e['conditions'], "victimConditions")
    if 'candidates' in e:
        got = {n['name']: n['victims'] for n in out['nodes'] if n['evaluated'] and n['status'] == 'Success' and not n['reason']}
        check({k: sorted(v) for k, v in got.items()} == {k: sorted(v) for k, v in e['candidates'].items()}, "candidates")
    if 'dropped' in e:
        got = [n['name'] for n in out['nodes'] if n['evaluated'] and n['status'] == 'Success' and n['reason']]
        check(got == e['dropped'], "dropped candidates")
    if e['result'] == 'fits':
        check(all(n['status'] == 'Success' for n in out['nodes']), "fits lists feasible nodes")
    write(os.path.join(d, 'expected.json'), r.stdout)
    print(f"{name}: {out['result']} {out['nominatedNodeName']} {out['victims']} {out['message']}")
if failures:
    print("\nFAILURES:\n" + "\n".join(failures))
    sys.exit(1)
