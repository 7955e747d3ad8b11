#!/usr/bin/env python3
"""Per-spec tables for docs/benchmarks/h200.md from kwb.verdict.v1 JSON files.

Usage: spec_tables.py VERDICT.json...   (e.g. the files gpu_tests writes with KWB_TEST_VERDICTS=DIR)
Prints one markdown table per op/variant: bench workload, best tunable config, median (and its
relative stdev and sample count), % of the calibrated copy bandwidth, % of the peak flop rate
(calibrated FMA for f32, data-sheet tensor rate for bf16), and vs_baseline (> 1: faster than the
vendor baseline), plus % of the data-sheet bandwidth and flop rate (roofline.pct_*_sheet).

Verdicts recorded before the data-sheet fields existed: --sheet=BYTES_PER_S,F32_FLOPS,BF16_FLOPS
(e.g. the H200's 4.8e12,67e12,989e12) computes them from roofline.bytes/flops and the median.
"""
import json
import sys


def fmt_time(ns):
    return f"{ns / 1e3:.2f} µs" if ns < 1e6 else f"{ns / 1e6:.3f} ms"


def pct(x):
    return "—" if x is None else f"{x:.1f} %"


def sheet_pcts(v, w, sheet):
    r, t = w.get("roofline") or {}, w["time"]
    bw, fl = r.get("pct_bw_sheet"), r.get("pct_flops_sheet")
    if sheet and bw is None and t["median_ns"] > 0:
        s = t["median_ns"] * 1e-9
        low = any(d in ("bf16", "f16") for d in v["variant"].split("_"))
        bw = r.get("bytes", 0) / s / sheet[0] * 100
        fl = r.get("flops", 0) / s / (sheet[2] if low else sheet[1]) * 100 if r.get("flops") else None
    return bw, fl


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--sheet=")]
    sheet = next((tuple(float(x) for x in a[8:].split(",")) for a in sys.argv[1:] if a.startswith("--sheet=")), None)
    for path in args:
        v = json.load(open(path))
        head = f"### {v['op']} / {v['variant']}: {v['status']}"
        if v["summary"].get("geomean_vs_baseline") is not None:
            head += f", {v['summary']['geomean_vs_baseline']:.3f}× the baseline (geomean)"
        print(head + "\n")
        print("| bench workload | config | median | stdev | samples | % calibrated bw | % peak flops | % sheet bw "
              "| % sheet flops | vs baseline |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for w in v["workloads"]:
            if w["kind"] != "bench" or not w.get("time"):
                continue
            t, r = w["time"], w.get("roofline") or {}
            cfg = " ".join(f"{k}={x}" for k, x in w["params"].items() if k.isupper()) or "—"
            vb = w.get("vs_baseline")
            sheet_bw, sheet_flops = sheet_pcts(v, w, sheet)
            print(f"| {w['name']} | {cfg} | {fmt_time(t['median_ns'])} | {t['stdev_pct']:.2f} % | {t['samples']} | "
                  f"{pct(r.get('pct_bw'))} | {pct(r.get('pct_flops'))} | {pct(sheet_bw)} | {pct(sheet_flops)} | "
                  f"{'—' if vb is None else f'{vb:.3f}×'} |")
        print()


if __name__ == "__main__":
    main()
