#!/usr/bin/env python3
"""Validates preempt-whatif's JSON output against its schema, in every mode.

    validate_output.py TOOL SCHEMA SCENARIOS

Runs the tool in each mode (one pod, the bundled example, --all-pending, --plan, --pod-group,
--offsets all; empty lists too) on inputs from the scenario folders, and checks every
expected.json of the folders as well (each is the tool's output, pinned by its own test). Every
document must validate; every kind must have been seen; documents the schema must reject (a
missing apiVersion, another version, a field it does not know, a Plan step that is not a Decision)
must be rejected, so that the check cannot pass by accepting anything. JSON output must also hold
no raw control characters, DEL or C1 controls (they are escaped). Needs the jsonschema module
(Debian: python3-jsonschema).
"""
import copy, glob, json, os, shlex, subprocess, sys

try:
    import jsonschema
except ImportError:
    sys.exit("validate_output.py: the jsonschema module is missing (Debian: python3-jsonschema)")

tool, schema_path, scenarios = sys.argv[1:4]
schema = json.load(open(schema_path, encoding="utf-8"))
validator_class = jsonschema.validators.validator_for(schema)
validator_class.check_schema(schema)
validator = validator_class(schema)
failures = []
seen = {}


def check(doc, where):
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    for e in errors[:3]:
        failures.append(f"{where}: {'/'.join(map(str, e.path))}: {e.message[:300]}")
    if not errors and isinstance(doc, dict):
        seen.setdefault(doc.get("kind"), where)


def run(folder, *args, want_exit=(0, 3)):
    d = os.path.join(scenarios, folder)
    cmd = [tool] + list(args) + ["--output", "json"]
    r = subprocess.run(cmd, cwd=d, capture_output=True)
    where = f"{folder}: {' '.join(shlex.quote(a) for a in args)}"
    if r.returncode not in want_exit:
        failures.append(f"{where}: exit status {r.returncode}: {r.stderr.decode(errors='replace')}")
        return None
    raw = r.stdout
    bad = [b for b in raw if b < 0x20 and b not in (0x0a,)] + [b for b in raw if b == 0x7f]
    if bad or any(raw[i] == 0xc2 and 0x80 <= raw[i + 1] < 0xa0 for i in range(len(raw) - 1)):
        failures.append(f"{where}: the JSON output holds a raw control character")
    doc = json.loads(raw)
    check(doc, where)
    return doc


# Every mode, run now.
run("pod-name", "--cluster", "cluster.json", "--pod-name", "team/waiting")
run("fits", "--cluster", "cluster.json", "--pod", "pod.json")
run("pod-name", "--cluster", "cluster.json", "--pod-name", "waiting", "-n", "team")
run("bundled")  # the bundled example
run("all-pending", "--cluster", "cluster.json", "--all-pending")
run("fits", "--cluster", "cluster.json", "--all-pending")  # no pending pod: empty
run("plan", "--cluster", "cluster.json", "--plan")
run("plan-stops-where-scoring-places", "--cluster", "cluster.json", "--plan")
run("fits", "--cluster", "cluster.json", "--plan")  # nothing to plan
run("group-fits", "--cluster", "cluster.json", *shlex.split(open(os.path.join(scenarios, "group-fits", "args")).read()))
run("offsets-all", "--cluster", "cluster.json", "--pod-name", "default/p", "--offsets", "all",
    "--min-candidate-nodes-absolute", "2", "--min-candidate-nodes-percentage", "0")
run("fits", "--cluster", "cluster.json", "--pod", "pod.json", "--offsets", "all")
run("text-control-characters", "--cluster", "cluster.json", "--all-pending")
run("text-control-characters", "--cluster", "cluster.json", "--plan")
run("policy-min-cost", "--cluster", "cluster.json", "--pod", "pod.json", "--policy", "min-cost,hard-budgets",
    "--victim-reasons")
run("policy-victim-reasons", "--cluster", "cluster.json", "--pod", "pod.json", "--victim-reasons")

# Every recorded output.
for path in sorted(glob.glob(os.path.join(scenarios, "*", "expected.json"))):
    check(json.load(open(path, encoding="utf-8")), os.path.relpath(path, scenarios))

for kind in ("Decision", "PodGroupDecision", "PendingPods", "Plan", "OffsetDistribution",
             "PolicyComparison"):
    if kind not in seen:
        failures.append(f"no valid {kind} was seen")

# The schema rejects what is not the contract.
decision = run("pod-name", "--cluster", "cluster.json", "--pod-name", "team/waiting")
plan = run("plan", "--cluster", "cluster.json", "--plan")
if decision and plan:
    wrong = []
    d = copy.deepcopy(decision); del d["apiVersion"]; wrong.append(("no apiVersion", d))
    d = copy.deepcopy(decision); d["apiVersion"] = "preempt-whatif/v2"; wrong.append(("another version", d))
    d = copy.deepcopy(decision); d["extra"] = 1; wrong.append(("an unknown field", d))
    d = copy.deepcopy(decision); d["result"] = "maybe"; wrong.append(("an unknown result", d))
    d = copy.deepcopy(decision); del d["notModelled"]; wrong.append(("no notModelled", d))
    p = copy.deepcopy(plan); p["steps"][0]["decision"] = {"kind": "Decision"}; wrong.append(("a step without a decision", p))
    p = copy.deepcopy(plan); p["kind"] = "PendingPods"; wrong.append(("a plan as PendingPods", p))
    for what, doc in wrong:
        if validator.is_valid(doc):
            failures.append(f"the schema accepts {what}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"ok: {len(seen)} kinds valid, every expected.json valid, wrong documents rejected")
