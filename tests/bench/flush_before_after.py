#!/usr/bin/env python3
"""Before/after figures of a change to the CPU timing method (issue #35: the read-only flush),
taken on the shipped CPU kernels: every kernels/*/cpu/*.cpp with its op and variant from its
<name>.json, `kwb eval --json` with each of two kwb binaries (built before and after the change),
interleaved per kernel and alternating which goes first from round to round, so that a machine's
load drifts into both alike. Appends one line per bench workload and run to OUT.jsonl (median,
min, samples, stop reason, the 1-minute load average at the start), then prints the table of
docs/benchmarks/cpu.md: per workload the median over runs of each run's median, the change, and
the run-to-run spread ((max - min) / median of the run medians).

Usage: flush_before_after.py BEFORE_KWB AFTER_KWB SPECS_DIR KERNELS_DIR OUT.jsonl [ROUNDS] [FIRST_ROUND]
"""
import collections
import glob
import json
import os
import statistics
import subprocess
import sys


def run(before, after, specs, kernels, out_path, rounds, first):
    with open(out_path, "a") as out:
        for r in range(first, first + rounds):
            for src in sorted(glob.glob(os.path.join(kernels, "*/cpu/*.cpp"))):
                meta = json.load(open(src[:-4] + ".json"))
                for side in (["before", "after"] if r % 2 == 0 else ["after", "before"]):
                    load = os.getloadavg()[0]
                    cmd = [before if side == "before" else after, "eval", src, "--op", meta["op"], "--variant",
                           meta["variant"], "--json", "--workspace", os.path.join(os.path.dirname(out_path), "ws-" + side),
                           "--specs-dir", specs]
                    p = subprocess.run(cmd, capture_output=True, text=True)
                    try:
                        verdict = json.loads(p.stdout)
                    except ValueError:
                        print("no verdict:", side, src, p.stderr[-500:], file=sys.stderr)
                        continue
                    for w in verdict.get("workloads", []):
                        t = w.get("time")
                        if not t:
                            continue
                        out.write(json.dumps({"round": r, "side": side, "kernel": os.path.relpath(src, kernels),
                                              "status": verdict.get("status"), "workload": w.get("name"),
                                              "median_ns": t.get("median_ns"), "min_ns": t.get("min_ns"),
                                              "samples": t.get("samples"), "stop": t.get("stop_reason"),
                                              "load": load}) + "\n")
                        out.flush()
                    print(r, side, src, verdict.get("status"), file=sys.stderr)


def table(out_path):
    rows = [json.loads(line) for line in open(out_path)]
    by = collections.defaultdict(lambda: {"before": [], "after": []})
    for row in rows:
        by[(row["kernel"], row["workload"])][row["side"]].append(row["median_ns"])
    spread = lambda v: 100 * (max(v) - min(v)) / statistics.median(v)
    print("| kernel | bench workload | before | after | change | run-to-run spread (before / after) |")
    print("|---|---|---|---|---|---|")
    for (kernel, workload), v in sorted(by.items()):
        if not v["before"] or not v["after"]:
            continue
        a, b = statistics.median(v["before"]), statistics.median(v["after"])
        print(f"| {kernel.replace('/cpu/', '/')} | {workload} | {a / 1e6:.3f} ms | {b / 1e6:.3f} ms | "
              f"{100 * (b / a - 1):+.1f} % | {spread(v['before']):.0f} % / {spread(v['after']):.0f} % |")
    loads = [row["load"] for row in rows]
    print(f"\nruns: {len(rows)} workload rows; load average (1 min) min {min(loads):.1f}, "
          f"median {statistics.median(loads):.1f}, max {max(loads):.1f}")


if __name__ == "__main__":
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    rounds = int(sys.argv[6]) if len(sys.argv) > 6 else 3
    first = int(sys.argv[7]) if len(sys.argv) > 7 else 0
    if rounds > 0:
        run(*sys.argv[1:6], rounds, first)
    table(sys.argv[5])
