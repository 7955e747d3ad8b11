#!/usr/bin/env python3
"""The fast loop as a user meets it (issue #32): a warm `kwb serve`, the library as shipped (so
vector_add has its CUDA incumbent), decisions on. Measures submit -> verdict and submit -> decision
(the comparison with the incumbent, which follows the verdict: docs/library.md "Verdict first,
decision second") for sequential submissions of each kind of candidate, then candidates per
minute from several clients, each followed to its decision.

Usage: fast_loop.py KWB_BIN_DIR OUT_DIR [--backend cuda|cpu] [--op vector_add] [--n 10] [--rate-n 60]
                    [--clients 8] [--budget-ms 100] [--bench n1M,n16M] [--ops vector_add,softmax,rmsnorm]
                    [--serve-arg ARG ...] [--trials N]
Kinds: `slower` a simple honest kernel (cuda vector_add: tests/security/cuda/honest_scalar_vector_add.cu,
one config, one thread per element, ~0.8x the incumbent; otherwise the spec's template,
specs/OP/template.VARIANT.cpp|cu), `copy` the incumbent itself (kernels/OP/BACKEND/*, a comment
added: another source, the same code: `same`, never promotable). On the CPU (--backend cpu, e.g.
--op softmax --bench attn_1024x1024) it measures the 2-core machine's loop (issue #32: verdict p50
<= 0.7 s for softmax with one bench workload; docs/benchmarks/decide.md). Each
submission differs by a comment, so every one is compiled (NVRTC, cold cubin cache). For the other
ops of --ops, the throughput of copies of their shipped CUDA incumbent with their shipped bench
workloads. Writes OUT_DIR/fast_loop.json (figures) and OUT_DIR/candidates.tsv (every candidate).
With --trials N, then the soundness of decisions (a second daemon whose library's vector_add
incumbent is the shipped one slowed by ~8 % on n16M and more on n1M: an extra kernel reads a quarter
of `a` again): N copies of that incumbent (never promotable) and N of the shipped kernel (>= 5 %
faster on every bench workload: found faster). Recorded in docs/benchmarks/h200.md "Fast loop".
"""
import argparse
import glob
import json
import os
import subprocess
import tempfile
import threading
import time
import urllib.request

p = argparse.ArgumentParser()
p.add_argument("bin_dir")
p.add_argument("out_dir")
p.add_argument("--backend", default="cuda")
p.add_argument("--op", default="vector_add")
p.add_argument("--n", type=int, default=10)
p.add_argument("--rate-n", type=int, default=60)
p.add_argument("--clients", type=int, default=8)
p.add_argument("--budget-ms", default="100")
p.add_argument("--bench", default="n1M,n16M")
p.add_argument("--ops", default="vector_add")
p.add_argument("--other-rate-n", type=int, default=24)
p.add_argument("--serve-arg", action="append", default=[])
p.add_argument("--trials", type=int, default=0)
a = p.parse_args()
os.makedirs(a.out_dir, exist_ok=True)
base = None


def start_daemon(name, extra):
    global base
    ws = tempfile.mkdtemp(prefix="kwb-fast-loop-")
    log = open(os.path.join(a.out_dir, name + ".log"), "w")
    d = subprocess.Popen([os.path.join(a.bin_dir, "kwb"), "serve", "--no-auth", "--port", "0", "--port-file",
                          os.path.join(ws, "port"), "--workspace", ws, "--time-budget-ms", a.budget_ms] + a.serve_arg
                         + extra, stdout=log, stderr=subprocess.STDOUT)
    for _ in range(600):
        if os.path.exists(os.path.join(ws, "port")) and open(os.path.join(ws, "port")).read().strip():
            break
        time.sleep(0.1)
    base = "http://127.0.0.1:%s" % open(os.path.join(ws, "port")).read().strip()
    return d, ws


SLOWED = """// kwb:launch vector_add_f32 grid=(max(1, min(ceil_div(n, 4 * BLOCK), 132 * 16))) block=(BLOCK) args=(a, b, c, n)
// kwb:launch extra_reads grid=(max(1, min(ceil_div(n, 4 * BLOCK), 132 * 16))) block=(BLOCK) args=(a, n)
// kwb:tune BLOCK=256
// The shipped vectorized vector_add, slowed for decision trials: a second kernel reads the first
// quarter of `a` again (about 8 % more bytes on n16M; a second launch on n1M).
"""


def slowed_library(root):
    import shutil
    kernels = os.path.join(root, "kernels")
    shutil.copytree("kernels", kernels)
    src = open("kernels/vector_add/cuda/vectorized.cu").read()
    body = "\n".join(l for l in src.splitlines() if not l.startswith("// kwb:"))
    extra = ('extern "C" __global__ void extra_reads(const float* __restrict__ a, long long n) {\n'
             '  const long long m = n / 4, stride = (long long)gridDim.x * blockDim.x;\n'
             '  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += stride) {\n'
             '    float v = a[i];\n    asm volatile("" :: "f"(v));\n  }\n}\n')
    slowed = SLOWED + body + "\n" + extra
    open(os.path.join(kernels, "vector_add", "cuda", "vectorized.cu"), "w").write(slowed)
    return kernels, slowed


daemon, ws = start_daemon("daemon", [])


def call(method, path, body=None, timeout=120):
    req = urllib.request.Request(base + path, method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


def evaluate(op, source, bench, tag):
    """Submits and follows one candidate: its times to the verdict and to the decision."""
    body = {"op": op, "backend": a.backend, "source_name": "candidate." + ("cpp" if a.backend == "cpu" else "cu"),
            "source": source + "\n// fast loop %s %d\n" % (tag, time.time_ns())}
    if bench:
        body["bench"] = bench
    t0 = time.time()
    cid = call("POST", "/v1/candidates", body)["id"]
    t_verdict = None
    while True:  # the verdict: a long-poll that answers once it is stored
        c = call("GET", "/v1/candidates/%s?wait=60&until=verdict" % cid)
        if c["state"] in ("done", "cancelled"):
            t_verdict = time.time()
            break
    while c["state"] == "done" and c.get("comparison", {}).get("state") == "pending":
        c = call("GET", "/v1/candidates/%s?wait=60" % cid)
    t_decision = time.time()
    v = c.get("verdict") or {}
    s = v.get("summary", {})
    cmp = c.get("comparison", {})
    works = {w["name"]: w for w in v.get("workloads", []) if w.get("kind") == "bench"}
    return {"id": cid, "op": op, "tag": tag, "status": c.get("status"), "submit": t0,
            "verdict_ms": (t_verdict - t0) * 1e3, "decision_ms": (t_decision - t0) * 1e3,
            "comparison": cmp.get("state"), "promotable": cmp.get("promotable"),
            "geomean": s.get("geomean_vs_incumbent"), "decision": (s.get("decision") or {}).get("reason"),
            "labels": {n: (w.get("comparison") or {}).get("label") for n, w in works.items()},
            "blocks": {n: (w.get("comparison") or {}).get("blocks") for n, w in works.items()},
            "ratios": {n: (w.get("comparison") or {}).get("ratio") for n, w in works.items()},
            "interleaved": {n: (w.get("time") or {}).get("interleaved") for n, w in works.items()},
            "stage_ms": s.get("stage_ms", {}), "reason": v.get("reason", "")[:300]}


def pct(values, q):
    v = sorted(values)
    return round(v[min(len(v) - 1, int(q * len(v)))], 1) if v else None


def summary(rows):
    keys = ["analyze", "compile", "validate", "benchmark", "decide", "incumbent_prepare", "gpu_wait", "runner",
            "inputs", "reference_wait", "checks"]
    med = lambda k: pct([r["stage_ms"].get(k, 0) for r in rows], 0.5)
    return {"n": len(rows), "statuses": sorted({r["status"] for r in rows}),
            "verdict_ms_p50": pct([r["verdict_ms"] for r in rows], 0.5),
            "verdict_ms_p90": pct([r["verdict_ms"] for r in rows], 0.9),
            "decision_ms_p50": pct([r["decision_ms"] for r in rows], 0.5),
            "decision_ms_p90": pct([r["decision_ms"] for r in rows], 0.9),
            "promotable": sum(1 for r in rows if r["promotable"]),
            "labels": sorted({json.dumps(r["labels"], sort_keys=True) for r in rows}),
            "blocks_p50": {k: pct([r["blocks"].get(k) or 0 for r in rows], 0.5) for k in (rows[0]["blocks"] if rows else {})},
            "median_stage_ms": {k: med(k) for k in keys}}


def save(figures):  # after every phase: a run cut short keeps what it measured
    json.dump(figures, open(os.path.join(a.out_dir, "fast_loop.json"), "w"), indent=1)


def rate(op, source, bench, n, clients, kind):
    rows, lock, tags = [], threading.Lock(), iter(range(n))

    def client():
        while True:
            with lock:
                tag = next(tags, None)
            if tag is None:
                return
            r = evaluate(op, source, bench, "%s-rate-%d" % (kind, tag))
            with lock:
                rows.append(r)
    t0 = time.time()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    span = max(r["submit"] + r["decision_ms"] / 1e3 for r in rows) - t0
    out = summary(rows)
    out.update({"clients": clients, "span_s": round(span, 2), "per_minute": round(n / span * 60, 1)})
    return rows, out


try:
    bench = [b for b in a.bench.split(",") if b]
    ext = "cpp" if a.backend == "cpu" else "cu"
    if a.backend == "cuda" and a.op == "vector_add":
        slower = open("tests/security/cuda/honest_scalar_vector_add.cu").read()
    else:
        slower = open(sorted(glob.glob("specs/%s/template.*.%s" % (a.op, ext)))[0]).read()
    copy = open(sorted(glob.glob("kernels/%s/%s/*.%s" % (a.op, a.backend, ext)))[0]).read()
    figures, all_rows = {"budget_ms": a.budget_ms, "bench": bench, "serve_args": a.serve_arg}, []
    warm = evaluate(a.op, slower, bench, "warm")  # prepares the warm incumbent
    figures["warm_up"] = {k: warm[k] for k in ("status", "verdict_ms", "decision_ms", "stage_ms", "reason")}
    print("warm-up:", json.dumps(figures["warm_up"]), flush=True)
    for kind, src in (("slower", slower), ("copy", copy)):
        rows = [evaluate(a.op, src, bench, "%s-%d" % (kind, i)) for i in range(a.n)]
        all_rows += rows
        figures["sequential_" + kind] = summary(rows)
        print(kind, json.dumps(figures["sequential_" + kind]), flush=True)
        save(figures)
    if a.rate_n > 0:
        rows, figures["rate_" + a.op] = rate(a.op, slower, bench, a.rate_n, a.clients, "slower")
        all_rows += rows
        print("rate", a.op, json.dumps(figures["rate_" + a.op]), flush=True)
        save(figures)
    for op in [o for o in a.ops.split(",") if o and o != a.op]:
        found = sorted(glob.glob("kernels/%s/%s/*.%s" % (op, a.backend, ext)))
        if not found:
            continue
        src = open(found[0]).read()
        evaluate(op, src, [], "warm")
        rows, figures["rate_" + op] = rate(op, src, [], a.other_rate_n, a.clients, "copy")
        all_rows += rows
        print("rate", op, json.dumps(figures["rate_" + op]), flush=True)
        save(figures)
    if a.trials > 0:
        daemon.terminate()
        daemon.wait()
        kernels, slowed = slowed_library(tempfile.mkdtemp(prefix="kwb-trials-"))
        daemon, ws = start_daemon("trials", ["--kernels-dir", kernels])
        evaluate("vector_add", copy, bench, "trials-warm")
        for kind, src in (("trial_copy_of_incumbent", slowed), ("trial_faster", copy)):
            rows = [evaluate("vector_add", src, bench, "%s-%d" % (kind, i)) for i in range(a.trials)]
            all_rows += rows
            figures[kind] = summary(rows)
            figures[kind]["faster_found"] = sum(1 for r in rows if all(l == "faster" for l in r["labels"].values()))
            print(kind, json.dumps(figures[kind]), flush=True)
            save(figures)
    save(figures)
    with open(os.path.join(a.out_dir, "candidates.tsv"), "w") as f:
        f.write("id\top\ttag\tstatus\tverdict_ms\tdecision_ms\tcomparison\tpromotable\tgeomean\tblocks\tlabels\n")
        for r in all_rows:
            f.write("\t".join(str(x) for x in (r["id"], r["op"], r["tag"], r["status"], round(r["verdict_ms"]),
                                               round(r["decision_ms"]), r["comparison"], r["promotable"], r["geomean"],
                                               json.dumps(r["blocks"]), json.dumps(r["labels"]))) + "\n")
finally:
    daemon.terminate()
    daemon.wait()
