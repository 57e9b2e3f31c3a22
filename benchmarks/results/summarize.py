#!/usr/bin/env python3
"""Markdown tables from one run's Google Benchmark JSON files and the simulation's JSON.

    python3 benchmarks/results/summarize.py benchmarks/results > benchmarks/results/results.md

Also writes async_loop.dat (the plot's data, from async_loop.json) next to the JSON files.
"""
import json
import os
import sys


def load(d, name):
    path = os.path.join(d, name + ".json")
    if not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            return json.load(f)
    except json.JSONDecodeError:  # a run still writing it
        return None


def rows(doc):
    return [b for b in doc["benchmarks"] if b.get("run_type") == "iteration"] if doc else []


def fmt(x, digits=1):
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15):
        return f"{int(x):,}"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) >= 100:
        return f"{x:.0f}"
    return f"{x:.{digits}f}"


def table(header, lines):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(fmt(c) if not isinstance(c, str) else c for c in line) + " |" for line in lines]
    return "\n".join(out)


def write_ns_per_pod(d, dr):
    """ns_per_pod.dat (plot ns_per_pod.gp): ns per pod read against the node count, for the inline
    dry runs (one block per sampling and pods per node). The upstream column comes from
    upstream_ns_per_pod.dat when it exists: lines "<sampling> <pods per node> <nodes> <ns per pod>"
    (sampling "full" or "sampled", the dumps of the same shapes, kube-scheduler at parallelism 1);
    "-" (missing) otherwise."""
    upstream = {}
    up_path = os.path.join(d, "upstream_ns_per_pod.dat")
    if os.path.exists(up_path):
        with open(up_path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 4 and not line.startswith("#"):
                    upstream[(parts[0], int(parts[1]), int(parts[2]))] = float(parts[3])
    series = {}
    for b in dr:
        parts = b["name"].replace("/real_time", "").split("/")  # dry_run/<sampling>/<exec>/pods:P/nodes:N
        if len(parts) != 5 or parts[2] != "inline":
            continue
        pods = int(parts[3].split(":")[1])
        nodes = int(parts[4].split(":")[1])
        series.setdefault((parts[1], pods), []).append((nodes, b["ns_per_pod"]))
    with open(os.path.join(d, "ns_per_pod.dat"), "w") as f:
        f.write("# one block per (sampling, pods per node), in the order full/4, full/30, full/110, sampled/4, "
                "sampled/30, sampled/110\n# nodes preempt_ns_per_pod upstream_ns_per_pod\n")
        for sampling in ("full", "sampled"):
            for pods in (4, 30, 110):
                f.write(f"# {sampling} pods:{pods}\n")
                for nodes, ns in sorted(series.get((sampling, pods), [])):
                    up = upstream.get((sampling, pods, nodes))
                    f.write(f"{nodes} {ns:.2f} {'-' if up is None else f'{up:.2f}'}\n")
                f.write("\n\n")


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    out = []
    machine = os.path.join(d, "machine.txt")
    if os.path.exists(machine):
        with open(machine) as f:
            out.append("```\n" + f.read().strip() + "\n```\n")

    vs = rows(load(d, "victim_selection"))
    if vs:
        out.append("### W1 - victim selection on one node (inline, thread CPU time)\n")
        lines = []
        for b in vs:
            if "ns_per_pod" not in b or "x_reference" not in b:
                continue
            lines.append([b["name"], b.get("victims"), b["cpu_time"] if b["time_unit"] == "ns" else None,
                          b["ns_per_pod"], b["x_plain_scan"], b["x_reference"], b["allocs_per_op"]])
        out.append(table(["benchmark", "victims", "ns/op", "ns/pod", "x_plain_scan", "x_reference",
                          "allocs/op"], lines) + "\n")

    dr = rows(load(d, "dry_run"))
    if dr:
        out.append("### W1 - full decision (evaluator::evaluate)\n")
        out.append("`us/op`: thread CPU time for inline, wall time for the pools (2 or 3 workers on a "
                   "shared 2-core machine).\n")
        lines = []
        for b in dr:
            lines.append([b["name"].replace("/real_time", ""), b.get("nodes_evaluated"), b.get("victims"),
                          b["us_per_op"], b["ns_per_pod"], b["x_plain_scan"], b["x_reference"],
                          b["allocs_per_op"]])
        out.append(table(["benchmark", "nodes read", "victims", "us/op", "ns/pod", "x_plain_scan",
                          "x_reference", "allocs/op"], lines) + "\n")

        write_ns_per_pod(d, dr)

    inf = rows(load(d, "infeasible"))
    if inf:
        out.append("### W2 - infeasible proof (5000 nodes, 9-CPU pod, every node evaluated)\n")
        lines = [[b["name"], b["us_per_op"], b["ns_per_node"], b["ns_per_pod"], b["x_upstream_20ms"],
                  b["x_plain_scan"], b["x_reference"], b["allocs_per_op"]] for b in inf]
        out.append(table(["benchmark", "us/op", "ns/node", "ns/pod", "x_upstream_20ms", "x_plain_scan",
                          "x_reference", "allocs/op"], lines) + "\n")

    bu = rows(load(d, "budgets"))
    if bu:
        out.append("### W3 - budgets (1000 nodes x 30 pods, sampled)\n")
        lines = [[b["name"], b["nodes_evaluated"], b["candidates_violating"], b["us_per_op"], b["ns_per_pod"],
                  b["x_no_budgets"], b["x_no_budgets_per_op"], b["x_reference"], b["allocs_per_op"]] for b in bu]
        out.append(table(["benchmark", "nodes read", "violating cands", "us/op", "ns/pod", "x_no_budgets (per pod)",
                          "x_no_budgets (per op)", "x_reference", "allocs/op"], lines) + "\n")

    no = rows(load(d, "nominations"))
    if no:
        out.append("### W5 - nominations (5000 nodes x 4 pods, nomination_ledger reader)\n")
        lines = [[b["name"], b["nodes_evaluated"], b["victims"], b["us_per_op"], b["ns_per_pod"],
                  b["x_no_nominations"], b["x_plain_scan"], b["x_reference"], b["allocs_per_op"]] for b in no]
        out.append(table(["benchmark", "nodes read", "victims", "us/op", "ns/pod", "x_no_nominations",
                          "x_plain_scan", "x_reference", "allocs/op"], lines) + "\n")

    me = rows(load(d, "memory"))
    if me:
        out.append("### Memory of the default model (1000 nodes)\n")
        lines = [[b["name"], b["sizeof_pod"], b["bytes_per_pod"], b["bytes_per_pod_reserved"], b["bytes_per_node"],
                  b["eval_bytes_per_node"], b["ledger_bytes_per_node"], b["budget_bytes_per_member"],
                  b["ns_per_pod"]] for b in me]
        out.append(table(["benchmark", "sizeof(pod)", "bytes/pod", "bytes/pod (reserved)", "bytes/node",
                          "evaluator bytes/node", "ledger bytes/node", "budget bytes/member",
                          "build ns/pod"], lines) + "\n")

    sim = load(d, "async_loop")
    if sim:
        with open(os.path.join(d, "async_loop.dat"), "w") as f:
            f.write("# rate_per_s latency_ms baseline inline async inline_model (regular pods/s)\n")
            for rate in sorted({s["rate"] for s in sim["summary"]}):
                for s in sorted((s for s in sim["summary"] if s["rate"] == rate), key=lambda s: s["latency_ms"]):
                    f.write(f"{s['rate']:g} {s['latency_ms']:g} {s['baseline']:.2f} {s['inline']:.2f} "
                            f"{s['async']:.2f} {s['inline_predicted']:.2f}\n")
                f.write("\n\n")  # one gnuplot data block per rate
        c = sim["config"]
        out.append("### Scheduling-loop simulation (virtual time)\n")
        out.append(f"{c['nodes']} nodes, {c['regular_pods']} regular pods, cycle {c['cycle_cost_ms']} ms, "
                   f"evaluation {c['eval_cost_ms']} ms ({c['eval_cost_source']}; measured "
                   f"{c['measured_eval_ms']:.3f} ms), jitter {c['jitter']}, failure rate {c['failure_rate']}, "
                   f"QPS {c['qps']:.0f}/burst {c['burst']:.0f}.\n")
        lines = [[fmt(s["rate"], 0), fmt(s["latency_ms"], 0), s["baseline"], s["inline"], s["async"],
                  f"{s['async_over_baseline']:.3f}", f"{s['inline_over_baseline']:.3f}", s["inline_predicted"],
                  f"{100 * s['inline_prediction_error']:+.1f}%"] for s in sim["summary"]]
        out.append(table(["r (/s)", "L (ms)", "baseline pods/s", "inline pods/s", "async pods/s", "async/baseline",
                          "inline/baseline", "inline model pods/s", "model error"], lines) + "\n")
        lines = []
        for r in sim["runs"]:
            if r["mode"] == "baseline":
                continue
            lines.append([r["mode"], fmt(r["rate"], 0), fmt(r["latency_ms"], 0), r["throughput"],
                          r["to_nominate_ms"]["p50"], r["to_victims_gone_ms"]["p50"], r["to_bind_ms"]["p50"],
                          r["evictions_per_s"], r["eviction_calls"], r["failed_calls"],
                          r["api_ms_per_eviction"], "yes" if r["capped"] else ""])
        out.append(table(["mode", "r", "L", "pods/s", "nominate p50 ms", "victims gone p50 ms", "bound p50 ms",
                          "evictions/s", "calls", "failed calls", "API ms/eviction", "capped"], lines) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
