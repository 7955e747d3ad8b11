#!/usr/bin/env python3
"""Timing fidelity of the workbench against Nsight Compute (issue #5), recorded in
docs/benchmarks/h200.md.

Usage: ncu_fidelity.py KWB_BIN_DIR OUT_DIR [REPEATS] [CASE,...]
(all six cases x 10 repeats take about 6 minutes on the H200; CASE picks cases by substring)

For each case (a shipped cuda kernel and one of its bench workloads, each at least 10 us):
  1. `kwb eval --bench W --json` REPEATS times (separate processes, one workspace per case, so
     the device is calibrated once and the cubin compiled once): the workbench's medians (the
     spread of those medians is the "10 repeated evaluations" figure);
  2. the cubin the workbench compiled for the winning config (found by its cache key, which
     lists every NVRTC option) is launched with the same grid/block/smem on buffers of the same
     sizes under `ncu --clock-control none --cache-control all` (ncu flushes caches before every
     kernel as the workbench flushes L2 before every sample), and the median of ncu's
     gpu__time_duration.sum over 30 launches is taken.
Writes fidelity.tsv: case, workbench median of medians, spread (max-min)/median of the REPEATS
medians, ncu median, workbench/ncu - 1, and the same if each tool's reading of an empty kernel
(the workbench's time.launch_overhead_ns; ncu's median over 30 launches of an empty kernel) were
subtracted from its time, the SM clock range the workbench's NVML read (time.sm_clock_min/max_mhz)
and the SM and DRAM clocks ncu measured during the kernels, and fidelity_verdicts.json (each case's last verdict).
KWB_NCU_REPEATS=N runs ncu in N fresh processes per case and prints the spread of its own medians
(is a kernel's run-to-run variation the workbench's or the kernel's?).
KWB_GPU_CLOCK=events in the environment measures the CUDA-event clock instead of the default
CUPTI timestamps (each verdict's time.clock says which one was used).
The launch geometry is restated here per kernel (it must match the kernels' kwb:launch lines).
"""
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile


def cdiv(a, b):
    return (a + b - 1) // b


# name: (kernel file, op, bench workload, kernel function, dims(params) -> (grid, block, smem),
#        buffers(params) -> [(kind, bytes or value)] in argument order)
CASES = {
    "vector_add n16M": (
        "kernels/vector_add/cuda/vectorized.cu", "vector_add", "n16M", "vector_add_f32",
        lambda p: ((max(1, min(cdiv(p["n"], 4 * p["BLOCK"]), 132 * 16)), 1, 1), (p["BLOCK"], 1, 1), 0),
        lambda p: [("f32", p["n"]), ("f32", p["n"]), ("f32", p["n"]), ("i64", p["n"])]),
    "transpose 4096x4096": (
        "kernels/transpose/cuda/tiled_smem.cu", "transpose", "4096x4096", "transpose_f32",
        lambda p: ((cdiv(p["cols"], 32), cdiv(p["rows"], 32), 1), (32, 8, 1), 0),
        lambda p: [("f32", p["rows"] * p["cols"]), ("f32", p["rows"] * p["cols"]), ("i64", p["rows"]),
                   ("i64", p["cols"])]),
    "softmax attn_8192x8192": (
        "kernels/softmax/cuda/block_row.cu", "softmax", "attn_8192x8192", "softmax_f32",
        lambda p: ((p["rows"], 1, 1), (p["BLOCK"], 1, 1), 4 * p["cols"] * (1 - min(1, p["cols"] // 12289))),
        lambda p: [("f32", p["rows"] * p["cols"]), ("f32", p["rows"] * p["cols"]), ("i64", p["rows"]),
                   ("i64", p["cols"])]),
    "rmsnorm 4096x4096": (
        "kernels/rmsnorm/cuda/block_row.cu", "rmsnorm", "4096x4096", "rmsnorm_f32",
        lambda p: ((p["rows"], 1, 1), (p["BLOCK"], 1, 1), 4 * p["cols"] * (1 - min(1, p["cols"] // 12289))),
        lambda p: [("f32", p["rows"] * p["cols"]), ("f32", p["cols"]), ("f32", p["rows"] * p["cols"]),
                   ("i64", p["rows"]), ("i64", p["cols"])]),
    "layernorm 4096x4096": (
        "kernels/layernorm/cuda/block_row.cu", "layernorm", "4096x4096", "layernorm_f32",
        lambda p: ((p["rows"], 1, 1), (p["BLOCK"], 1, 1), 4 * p["cols"] * (1 - min(1, p["cols"] // 12289))),
        lambda p: [("f32", p["rows"] * p["cols"]), ("f32", p["cols"]), ("f32", p["cols"]),
                   ("f32", p["rows"] * p["cols"]), ("i64", p["rows"]), ("i64", p["cols"])]),
    "row_sum 16384x16384": (
        "kernels/row_sum/cuda/split_rows.cu", "row_sum", "16384x16384", "row_sum_f32",
        lambda p: ((p["rows"], cdiv(p["cols"], p["CHUNK"]), 1), (256, 1, 1), 0),
        lambda p: [("f32", p["rows"] * p["cols"]), ("f32", p["rows"]), ("i64", p["rows"]), ("i64", p["cols"]),
                   ("u8", 4 * p["rows"] * cdiv(p["cols"], p["CHUNK"]) + 4 * p["rows"])]),
}

LAUNCHER = r'''
import json, sys
import cupy as cp, numpy as np
spec = json.loads(sys.argv[1])
if spec.get("empty"):  # the empty kernel, for ncu's floor
    fn = cp.RawKernel('extern "C" __global__ void kwb_noop() {}', "kwb_noop")
    for _ in range(spec["launches"]):
        fn((1,), (32,), ())
    cp.cuda.runtime.deviceSynchronize()
    sys.exit(0)
mod = cp.RawModule(path=spec["cubin"])
fn = mod.get_function(spec["kernel"])
if spec["smem"] > 48 * 1024:
    fn.max_dynamic_shared_size_bytes = spec["smem"]
args = []
rng = cp.random.default_rng(1)
for kind, v in spec["args"]:
    if kind == "f32": args.append(rng.standard_normal(v, dtype=cp.float32))
    elif kind == "u8": args.append(cp.zeros(v, dtype=cp.uint8))
    else: args.append(np.int64(v))
for _ in range(spec["launches"]):
    fn(tuple(spec["grid"]), tuple(spec["block"]), tuple(args), shared_mem=spec["smem"])
cp.cuda.runtime.deviceSynchronize()
'''


def evaluate(bin_dir, path, op, bench, ws):
    env = dict(os.environ, KWB_WORKSPACE=ws)
    out = subprocess.run([os.path.join(bin_dir, "kwb"), "eval", path, "--op", op, "--backend", "cuda", "--bench", bench,
                          "--json"], env=env, capture_output=True, text=True)
    v = json.loads(out.stdout)
    if v["status"] != "accepted":
        raise SystemExit(f"{path} {bench}: {v['status']}: {v['reason']}")
    w = next(w for w in v["workloads"] if w["name"] == bench and w.get("time"))
    return v, w["time"]["median_ns"], w["time"].get("launch_overhead_ns", 0), w["params"]


def find_cubin(ws, params, tunables):
    for key in glob.glob(os.path.join(ws, "**", "*.key"), recursive=True):
        text = open(key).read()
        if all(f"-D{k}={params[k]}" in text for k in tunables):
            return key[:-4] + ".cubin"
    raise SystemExit(f"no cubin in {ws} for {tunables}")


CLOCKS = ["gpc__cycles_elapsed.avg.per_second", "dram__cycles_elapsed.avg.per_second"]


def ncu_median(spec, out_dir, name, kernel=None):
    """Median gpu__time_duration (ns) over the launches after the first five, and the median SM
    (GPC) and DRAM clocks ncu saw during them (MHz), to compare with the clocks the workbench saw."""
    report = os.path.join(tempfile.mkdtemp(prefix="kwb-ncu-"), "report.csv")
    cmd = ["ncu", "--clock-control", "none", "--cache-control", "all", "--metrics",
           ",".join(["gpu__time_duration.sum"] + CLOCKS),
           "-k", kernel or spec["kernel"], "--csv", "--log-file", report, sys.executable, "-c", LAUNCHER, json.dumps(spec)]
    subprocess.run(cmd, check=True, capture_output=True)
    values = {}
    scales = {"nsecond": 1, "usecond": 1e3, "msecond": 1e6, "ns": 1, "us": 1e3, "ms": 1e6,
              "cycle/nsecond": 1e3, "cycle/usecond": 1, "cycle/second": 1e-6, "Ghz": 1e3, "Mhz": 1, "hz": 1e-6}
    for line in open(report):
        cells = [c.strip('"') for c in line.rstrip("\n").split('","')]
        if len(cells) > 3 and cells[-3] in ["gpu__time_duration.sum"] + CLOCKS:
            unit, value = cells[-2], float(cells[-1].replace(",", ""))
            values.setdefault(cells[-3], []).append(value * scales.get(unit, float("nan")))
    with open(os.path.join(out_dir, "ncu_reports.csv"), "a") as f:
        f.write(f"# {name}\n" + open(report).read())
    if not values.get("gpu__time_duration.sum"):
        raise SystemExit(f"ncu reported no gpu__time_duration for {name}: see {report}")
    med = {k: statistics.median(v[5:] if len(v) > 10 else v) for k, v in values.items()}  # skip warm-up launches
    return med["gpu__time_duration.sum"], med.get(CLOCKS[0], 0), med.get(CLOCKS[1], 0)


def main():
    bin_dir, out_dir = sys.argv[1], sys.argv[2]
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    only = sys.argv[4].split(",") if len(sys.argv) > 4 else None
    rows, verdicts = [], {}
    ncu_empty, _, _ = ncu_median({"empty": True, "launches": 30}, out_dir, "empty kernel", "kwb_noop")
    print(f"ncu empty kernel: {ncu_empty:.0f} ns", flush=True)
    for name, (path, op, bench, kernel, dims, buffers) in CASES.items():
        if only and not any(o in name for o in only):
            continue
        ws = tempfile.mkdtemp(prefix="kwb-fid-")
        medians, overhead, params = [], 0, None
        for _ in range(repeats):
            v, median, overhead, params = evaluate(bin_dir, path, op, bench, ws)
            medians.append(median)
        verdicts[name] = v
        tunables = [k for k in params if k.isupper()]
        grid, block, smem = dims(params)
        spec = {"cubin": find_cubin(ws, params, tunables), "kernel": kernel, "grid": grid, "block": block, "smem": smem,
                "args": buffers(params), "launches": 30}
        # KWB_NCU_REPEATS=N: ncu in N fresh processes (fresh buffers each), its median of their
        # medians and their spread, to compare the workbench's repeatability with ncu's own.
        runs = [ncu_median(spec, out_dir, name) for _ in range(int(os.environ.get("KWB_NCU_REPEATS", "1")))]
        ncu_medians = [r[0] for r in runs]
        ncu, ncu_sm, ncu_dram = statistics.median(ncu_medians), runs[0][1], runs[0][2]
        if len(runs) > 1:
            print(f"{name}: ncu over {len(runs)} processes: {','.join(f'{m:.0f}' for m in ncu_medians)} "
                  f"(spread {(max(ncu_medians) - min(ncu_medians)) / ncu * 100:.2f} %)", flush=True)
        t = next(w for w in v["workloads"] if w["name"] == bench and w.get("time"))["time"]
        clocks = f"SM clock: kwb {t.get('sm_clock_min_mhz', 0)}-{t.get('sm_clock_max_mhz', 0)} MHz, ncu {ncu_sm:.0f} MHz (DRAM {ncu_dram:.0f} MHz)"
        kwb = statistics.median(medians)
        spread = (max(medians) - min(medians)) / kwb
        raw = kwb - overhead  # what subtracting each tool's empty-kernel reading would give
        rows.append((name, " ".join(f"{k}={params[k]}" for k in tunables), kwb, spread, ncu, kwb / ncu - 1, overhead,
                     raw / (ncu - ncu_empty) - 1, medians, clocks))
        print(f"{name} [{[w for w in v['workloads'] if w.get('time')][-1]['time']['clock']}]: kwb {kwb / 1e3:.2f} us (spread {spread * 100:.2f} % over {repeats}), ncu {ncu / 1e3:.2f} us, "
              f"diff {(kwb / ncu - 1) * 100:+.2f} % (empty kernel: kwb {overhead:.0f} ns, ncu {ncu_empty:.0f} ns; "
              f"both minus theirs: {(raw / (ncu - ncu_empty) - 1) * 100:+.2f} %; {clocks})", flush=True)
    with open(os.path.join(out_dir, "fidelity.tsv"), "w") as f:
        f.write(f"# ncu empty kernel: {ncu_empty:.0f} ns\n")
        f.write("case\tconfig\tkwb_median_ns\tspread_pct\tncu_median_ns\tdiff_pct\tlaunch_overhead_ns\tdiff_minus_empty_pct\tmedians\tclocks\n")
        for name, cfg, kwb, spread, ncu, diff, overhead, rawdiff, medians, clocks in rows:
            f.write(f"{name}\t{cfg}\t{kwb:.0f}\t{spread * 100:.2f}\t{ncu:.0f}\t{diff * 100:+.2f}\t{overhead:.0f}\t"
                    f"{rawdiff * 100:+.2f}\t{','.join(f'{m:.0f}' for m in medians)}\t{clocks}\n")
    with open(os.path.join(out_dir, "fidelity_verdicts.json"), "w") as f:
        json.dump(verdicts, f)


if __name__ == "__main__":
    main()
