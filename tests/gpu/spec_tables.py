#!/usr/bin/env python3
"""Per-spec tables for docs/benchmarks/h200.md from kwb.verdict.v1 JSON files.

Usage: spec_tables.py VERDICT.json...   (e.g. the files gpu_tests writes with KWB_TEST_VERDICTS=DIR)
Prints one markdown table per op/variant: bench workload, best tunable config, median (and its
relative stdev and sample count), % of the calibrated copy bandwidth, % of the peak flop rate
(calibrated FMA for f32, data-sheet tensor rate for bf16), and vs_baseline (> 1: faster than the
vendor baseline).
"""
import json
import sys


def fmt_time(ns):
    return f"{ns / 1e3:.2f} µs" if ns < 1e6 else f"{ns / 1e6:.3f} ms"


def pct(x):
    return "—" if x is None else f"{x:.1f} %"


def main():
    for path in sys.argv[1:]:
        v = json.load(open(path))
        head = f"### {v['op']} / {v['variant']}: {v['status']}"
        if v["summary"].get("geomean_vs_baseline") is not None:
            head += f", {v['summary']['geomean_vs_baseline']:.3f}× the baseline (geomean)"
        print(head + "\n")
        print("| bench workload | config | median | stdev | samples | % calibrated bw | % peak flops | vs baseline |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for w in v["workloads"]:
            if w["kind"] != "bench" or not w.get("time"):
                continue
            t, r = w["time"], w.get("roofline") or {}
            cfg = " ".join(f"{k}={x}" for k, x in w["params"].items() if k.isupper()) or "—"
            vb = w.get("vs_baseline")
            print(f"| {w['name']} | {cfg} | {fmt_time(t['median_ns'])} | {t['stdev_pct']:.2f} % | {t['samples']} | "
                  f"{pct(r.get('pct_bw'))} | {pct(r.get('pct_flops'))} | {'—' if vb is None else f'{vb:.3f}×'} |")
        print()


if __name__ == "__main__":
    main()
