#!/usr/bin/env python3
"""Writes the scenario folders of preempt-whatif's opt-in policies and release profiles.

    policy_scenarios.py TOOL [SCENARIOS]

`policy-*`: --policy spare-reschedulable / min-cost / hard-budgets, --victim-cost,
--min-runtime and --victim-reasons, each on a cluster built so that the policy decides otherwise
than kube-scheduler (the comparison view shows both), and `policy-same-*` where it has nothing to
decide. `k137-*` / `k138-*`: the same dump decided as kube-scheduler v1.37 and v1.38
(--kubernetes-version). `bad-policy-*`: bad flags and values, exit 2 with one line.

Each folder gets cluster.json, pod.json, args and README; the expected output is the tool's,
recorded after the checks below (each expectation written here, from the README's reasoning,
before the tool runs): a scenario whose output does not say what its README says stops the script.
"""
import json, os, shlex, subprocess, sys

tool = sys.argv[1]
root = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "scenarios")


def node(name, cpu="1", pods="110", labels=None, taints=None):
    n = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}},
         "status": {"allocatable": {"cpu": cpu, "memory": "1Gi", "pods": pods}}}
    if taints:
        n["spec"] = {"taints": taints}
    return n


def pod(name, node_name, cpu, priority, start="1970-01-01T00:00:00Z", labels=None,
        annotations=None, node_selector=None, ns="default", host_port=None):
    meta = {"name": name, "namespace": ns}
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    spec = {"priority": priority,
            "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "1Mi"}}}]}
    if host_port:
        spec["containers"][0]["ports"] = [{"containerPort": host_port, "hostPort": host_port}]
    if node_name:
        spec["nodeName"] = node_name
    if node_selector:
        spec["nodeSelector"] = node_selector
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if node_name:
        p["status"] = {"phase": "Running", "startTime": start}
    return p


def pdb(name, allowed, selector, ns="default"):
    spec = {} if selector is None else {"selector": selector}
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": ns}, "spec": spec,
            "status": {"disruptionsAllowed": allowed}}


def write(folder, readme, items, preemptor, args, check=None, exit_code=0, text=False):
    d = os.path.join(root, folder)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "cluster.json"), "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": items}, f, indent=2)
        f.write("\n")
    with open(os.path.join(d, "pod.json"), "w") as f:
        json.dump(preemptor, f, indent=2)
        f.write("\n")
    with open(os.path.join(d, "args"), "w") as f:
        f.write(args + "\n")
    with open(os.path.join(d, "README"), "w") as f:
        f.write(readme.strip() + "\n")
    for stale in ("expected.json", "expected.txt", "expected-exit", "expected-stderr"):
        if os.path.exists(os.path.join(d, stale)):
            os.remove(os.path.join(d, stale))
    cmd = [tool, "--cluster", "cluster.json", "--pod", "pod.json"] + shlex.split(args)
    if not text and exit_code == 0:
        cmd += ["--output", "json"]
    r = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
    if r.returncode != exit_code:
        sys.exit(f"{folder}: exit status {r.returncode}, expected {exit_code}: {r.stderr}")
    if exit_code != 0:
        with open(os.path.join(d, "expected-exit"), "w") as f:
            f.write(f"{exit_code}\n")
        with open(os.path.join(d, "expected-stderr"), "w") as f:
            f.write(r.stderr)
        if check:
            check(r.stderr)
        return
    if text:
        with open(os.path.join(d, "expected.txt"), "w") as f:
            f.write(r.stdout)
        if check:
            check(r.stdout)
        return
    doc = json.loads(r.stdout)
    if check:
        check(doc)
    with open(os.path.join(d, "expected.json"), "w") as f:
        f.write(r.stdout)


def expect(cond, folder, what):
    if not cond:
        sys.exit(f"{folder}: {what}")


def victims(decision):
    return sorted(decision["victims"])


preemptor = pod("p", None, "400m", 1000)

# --- min-cost --------------------------------------------------------------------------------
# a (priority 30, 400m) and b, c (priority 10, 200m each) fill node-a's 800m; the preemptor asks
# 400m. kube-scheduler gives a back first (most important), then neither b nor c fits: two victims.
# Minimum cost (one per pod) evicts a alone.
min_cost_items = [node("node-a", cpu="800m"),
                  pod("a", "node-a", "400m", 30, "1970-01-01T00:00:01Z", labels={"cost": "5"},
                      annotations={"example.com/cost": "5"}),
                  pod("b", "node-a", "200m", 10, "1970-01-01T00:00:02Z"),
                  pod("c", "node-a", "200m", 10, "1970-01-01T00:00:03Z")]


def check_min_cost(doc):
    f = "policy-min-cost"
    expect(doc["kind"] == "PolicyComparison", f, "not a comparison")
    expect(victims(doc["default"]) == ["default/b", "default/c"], f, "default victims")
    expect(victims(doc["withPolicies"]) == ["default/a"], f, "min-cost victims")
    expect(doc["difference"]["victims"] == {"default": 2, "withPolicies": 1}, f, "counts")


write("policy-min-cost", """
--policy min-cost: a (priority 30, 400m), b and c (priority 10, 200m each) fill node-a; the pod
asks 400m. kube-scheduler gives a back first and then neither b nor c fits: it evicts b and c.
The fewest victims (cost one per pod) is a alone. The comparison shows both decisions.
""", min_cost_items, preemptor, "--policy min-cost", check_min_cost)


def check_cost_label(doc):
    f = "policy-min-cost-label"
    expect(victims(doc["withPolicies"]) == ["default/b", "default/c"], f, "victims")
    expect(doc["difference"]["cost"] == {"default": 2, "withPolicies": 2}, f, "costs")
    expect(doc["difference"]["sameVictims"], f, "same victims")


write("policy-min-cost-label", """
--policy min-cost --victim-cost label:cost: as policy-min-cost, but a's label cost=5 makes it
dearer than b and c together (1 each, no label): the cheapest set is kube-scheduler's, b and c.
""", min_cost_items, preemptor, "--policy min-cost --victim-cost label:cost", check_cost_label)


def check_cost_annotation(doc):
    f = "policy-min-cost-annotation"
    expect(victims(doc["withPolicies"]) == ["default/b", "default/c"], f, "victims")
    expect(doc["difference"]["cost"] == {"default": 2, "withPolicies": 2}, f, "costs")


write("policy-min-cost-annotation", """
--victim-cost annotation:example.com/cost: the cost read from an annotation (only that key is
kept by the loader); a costs 5, so b and c (1 each) are the cheapest, as kube-scheduler chose.
""", min_cost_items, preemptor, "--policy min-cost --victim-cost annotation:example.com/cost",
      check_cost_annotation)

# --- hard budgets ----------------------------------------------------------------------------
hard_items = [node("node-a", cpu="400m"),
              pod("v", "node-a", "400m", 10, labels={"app": "db"}),
              pdb("db", 0, {"matchLabels": {"app": "db"}})]


def check_hard(doc):
    f = "policy-hard-budgets"
    expect(doc["default"]["result"] == "nominated", f, "default nominates")
    expect(doc["default"]["pdbViolations"] == 1, f, "default violates")
    expect(doc["withPolicies"]["result"] == "unschedulable", f, "hard: unschedulable")
    expect("Preemption would violate a PodDisruptionBudget" in doc["withPolicies"]["message"], f,
           "hard: message")


write("policy-hard-budgets", """
--policy hard-budgets: the only victim is protected by a budget with no disruption left.
kube-scheduler nominates node-a anyway (one PDB violation, the least it can do); with hard
budgets no candidate may violate a budget: unschedulable, the node's reason saying why.
""", hard_items, preemptor, "--policy hard-budgets", check_hard)

other_set_items = [node("node-a", cpu="1200m"),
                   pod("a", "node-a", "200m", 30, "1970-01-01T00:00:01Z", labels={"app": "db"}),
                   pod("v1", "node-a", "600m", 20, "1970-01-01T00:00:02Z", labels={"app": "db"}),
                   pod("v2", "node-a", "200m", 20, "1970-01-01T00:00:03Z", labels={"app": "db"}),
                   pod("d", "node-a", "200m", 10, "1970-01-01T00:00:04Z"),
                   pdb("db", 1, {"matchLabels": {"app": "db"}})]


def check_other_set(doc):
    f = "policy-hard-budgets-other-set"
    expect(victims(doc["default"]) == ["default/a", "default/d", "default/v2"], f, "default")
    expect(doc["default"]["pdbViolations"] == 1, f, "default violation")
    expect(doc["difference"]["budgetsExceeded"] == {"default": 1, "withPolicies": 0}, f,
           "exceeded")
    expect(victims(doc["withPolicies"]) == ["default/v1"], f, "hard victims")


write("policy-hard-budgets-other-set", """
--policy hard-budgets: a budget allowing one disruption covers a (priority 30, 200m), v1
(priority 20, 600m) and v2 (priority 20, 200m); d (priority 10, 200m) has none; the pod asks
600m of a full 1200m node. kube-scheduler gives v1 back first (it violates), then nothing else
fits: a, v2 and d are evicted, two of the budget's pods for one allowed. Evicting v1 alone takes
the one disruption allowed and makes room: the hard-budget answer.
""", other_set_items, pod("p", None, "600m", 1000), "--policy hard-budgets", check_other_set)

# --- spare reschedulable ---------------------------------------------------------------------
spare_items = [node("node-a", cpu="400m", labels={"kubernetes.io/hostname": "node-a"}),
               node("node-b", cpu="400m", labels={"kubernetes.io/hostname": "node-b"}),
               pod("free", "node-a", "200m", 10, "1970-01-01T00:00:01Z"),
               pod("pinned", "node-a", "200m", 10, "1970-01-01T00:00:05Z",
                   node_selector={"kubernetes.io/hostname": "node-a"}),
               pod("guard", "node-b", "400m", 2000)]


def check_spare(doc):
    f = "policy-spare-reschedulable"
    expect(victims(doc["default"]) == ["default/pinned"], f, "default evicts the later pod")
    expect(victims(doc["withPolicies"]) == ["default/free"], f, "spare evicts the free pod")


write("policy-spare-reschedulable", """
--policy spare-reschedulable: free and pinned (both priority 10) share node-a; either eviction
makes room for the pod (node-b is held by a higher-priority pod). kube-scheduler evicts pinned,
the later started; but pinned's nodeSelector names node-a, so its replacement could run nowhere
else, while free could run on node-b. The policy gives pinned back first and evicts free.
""", spare_items, pod("p", None, "200m", 1000), "--policy spare-reschedulable", check_spare)

# --- min runtime -----------------------------------------------------------------------------
runtime_items = [node("node-a", cpu="400m"),
                 pod("old", "node-a", "200m", 10, "1970-01-01T00:00:01Z"),
                 pod("young", "node-a", "200m", 10, "2099-01-01T00:00:00Z")]


def check_runtime(doc):
    f = "policy-min-runtime"
    expect(victims(doc["default"]) == ["default/young"], f, "default evicts the later pod")
    expect(victims(doc["withPolicies"]) == ["default/old"], f, "min-runtime spares young")


write("policy-min-runtime", """
--min-runtime 10m: young started after the decision's clock (it has not run at all), old in
1970. kube-scheduler evicts the later started, young; with a minimum runtime young may not be a
victim, so old goes.
""", runtime_items, pod("p", None, "200m", 1000), "--min-runtime 10m", check_runtime)


def check_same(doc):
    f = "policy-same-decision"
    expect(doc["difference"]["sameNode"] and doc["difference"]["sameVictims"], f, "same")


write("policy-same-decision", """
--policy spare-reschedulable,min-cost,hard-budgets with nothing to decide: one victim, no budget,
every pod can run elsewhere (no selector): the policies' decision is kube-scheduler's.
""", [node("node-a", cpu="400m"), node("node-b", cpu="400m"),
      pod("v", "node-a", "400m", 10), pod("guard", "node-b", "400m", 2000)],
      preemptor, "--policy spare-reschedulable,min-cost,hard-budgets", check_same)

# --- why each victim -------------------------------------------------------------------------


def check_reasons(out):
    f = "policy-victim-reasons"
    expect("Evicted for" in out, f, "no reasons")
    expect("default/b: Insufficient cpu; cpu: 400m asked, 200m left (200m short)" in out, f,
           "b's reason")


write("policy-victim-reasons", """
--victim-reasons: per victim, what keeping it alone (the other victims still gone) would leave
the pod short of: b or c back beside a leaves 200m of the 400m asked. No policy: kube-scheduler's
decision, with the reasons.
""", min_cost_items, preemptor, "--victim-reasons", check_reasons, text=True)



def check_port_reason(out):
    f = "policy-victim-reasons-ports"
    expect("default/web: node(s) didn't have free ports for the requested pod ports; host port "
           "8080/TCP held by this victim" in out, f, "the port")


write("policy-victim-reasons-ports", """
--victim-reasons: the victim holds host port 8080, which the pod asks for; resources are not short.
Its reason names the filter's (NodePorts) and the port.
""", [node("node-a", cpu="4"), pod("web", "node-a", "100m", 10, host_port=8080)],
      pod("p", None, "100m", 1000, host_port=8080), "--victim-reasons", check_port_reason,
      text=True)

# --- kubernetes 1.37 / 1.38 ------------------------------------------------------------------
empty_selector_items = [node("node-a", cpu="400m"), node("node-b", cpu="400m"),
                        pod("unlabelled", "node-a", "400m", 10, ns="team-a"),
                        pod("other", "node-b", "400m", 20, ns="team-b"),
                        pdb("everything", 0, {}, ns="team-a")]


def check_137(doc):
    expect(doc["nominatedNodeName"] == "node-a", "k137-pdb-empty-selector", "v1.37 picks node-a")


def check_138(doc):
    expect(doc["nominatedNodeName"] == "node-b", "k138-pdb-empty-selector", "v1.38 picks node-b")


write("k137-pdb-empty-selector", """
kube-scheduler v1.37 (the default): a PodDisruptionBudget with `selector: {}` matches no pod in
preemption (and an unlabelled pod matches no budget), so evicting the unlabelled pod on node-a
violates nothing and its lower priority wins: node-a. (k138-pdb-empty-selector: the same dump
as v1.38 decides it.)
""", empty_selector_items, pod("p", None, "400m", 1000, ns="team-a"), "", check_137)
write("k138-pdb-empty-selector", """
--kubernetes-version 1.38 (kubernetes/kubernetes#141785): `selector: {}` selects every pod of the
budget's namespace, the unlabelled one included, and none of its disruptions is left: evicting it
violates the budget, so node-b, whose victim violates nothing, wins.
""", empty_selector_items, pod("p", None, "400m", 1000, ns="team-a"), "--kubernetes-version 1.38",
      check_138)

# --- bad flags -------------------------------------------------------------------------------
bad_items = [node("node-a", cpu="400m"), pod("v", "node-a", "400m", 10, labels={"cost": "cheap"})]


def check_bad(expected):
    def c(err):
        expect(err.strip() == expected, "bad-policy", f"stderr {err!r}")
    return c


write("bad-policy-name", "--policy cheapest: not a policy; one line names the flag and the choices.",
      bad_items, preemptor, "--policy cheapest",
      check_bad("preempt-whatif: --policy cheapest: expected spare-reschedulable, min-cost or "
                "hard-budgets (see --help)"), exit_code=2)
write("bad-policy-victim-cost-value", """
--victim-cost label:cost where a victim's label is not a non-negative integer: bad input, naming
the file, the pod and the field.
""", bad_items, preemptor, "--policy min-cost --victim-cost label:cost",
      check_bad("preempt-whatif: cluster.json: Pod default/v: metadata.labels[cost]: victim cost "
                "\"cheap\" is not a non-negative integer (--victim-cost)"), exit_code=2)
write("bad-policy-min-runtime", "--min-runtime soon: not a duration.", bad_items, preemptor,
      "--min-runtime soon",
      check_bad("preempt-whatif: --min-runtime soon: expected a duration such as 90s, 10m or "
                "1h30m (see --help)"), exit_code=2)
write("bad-policy-kubernetes-version", "--kubernetes-version 1.36: only 1.37 and 1.38.",
      bad_items, preemptor, "--kubernetes-version 1.36",
      check_bad("preempt-whatif: --kubernetes-version 1.36: expected 1.37 or 1.38 (see --help)"),
      exit_code=2)
print("policy scenarios written")
