#!/usr/bin/env python3
"""Candidates per minute through one GPU of a warm daemon (issue #21 point 5).

Usage: daemon_throughput.py KWB_BIN_DIR OUT_DIR [N] [BUDGET_MS] [BENCH,...] [CLIENTS]
Environment: KWB_THROUGHPUT_SERVE_ARGS (more `kwb serve` flags, e.g. --gpu-lane-depth 1),
KWB_THROUGHPUT_SOURCE (the candidate's source; kernels/vector_add/cuda/vectorized.cu tunes two
configs, each timed in full), KWB_THROUGHPUT_NO_INCUMBENT=1 (the library without vector_add's cuda kernel: no decide-stage
comparison, as in the 65-per-minute figure of issue #21).

Starts `kwb serve --no-auth` on a fresh workspace, warms it with one submission, then CLIENTS
threads submit N variants of tests/security/cuda/honest_scalar_vector_add.cu (one config, as in
issue #21's figure; a distinct comment each, so every one is compiled by NVRTC, cold cubin cache) at once and each follows its
candidates to their verdicts with long-polls. Prints and writes (OUT_DIR/throughput.tsv) every
candidate's submit and verdict times and stage times, then the rate: N / (last verdict - first
submit) and, in steady state, (N - 1) / (last verdict - first verdict). Recorded in
docs/benchmarks/h200.md "Candidates per minute".
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

bin_dir, out_dir = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 60
budget = sys.argv[4] if len(sys.argv) > 4 else "100"
bench = [b for b in (sys.argv[5] if len(sys.argv) > 5 else "n1M,n16M").split(",") if b]
clients = int(sys.argv[6]) if len(sys.argv) > 6 else 8
extra = os.environ.get("KWB_THROUGHPUT_SERVE_ARGS", "").split()


class CpuSampler(threading.Thread):
    """Where the host's CPU time goes during the run: busy fraction of all cores (/proc/stat) and
    CPU seconds and minor page faults per process name (/proc/PID/stat, processes that ended
    between two samples are missed: the per-name figures are lower bounds), and what the daemon's
    threads are doing at each sample (running, or the kernel function they sleep in: wchan)."""

    def __init__(self, daemon_pid):
        super().__init__(daemon=True)
        self.halt = threading.Event()
        self.daemon_pid = daemon_pid
        self.states = {}  # "R" or the wchan of a sleeping daemon thread -> samples
        self.ticks = {}  # pid -> (comm, utime + stime, minor faults)
        self.first = self.last = None
        self.hz = os.sysconf("SC_CLK_TCK")

    @staticmethod
    def total():
        f = open("/proc/stat").readline().split()[1:]
        v = [int(x) for x in f]
        return sum(v), v[3] + v[4]  # all, idle + iowait

    def sample(self):
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                raw = open("/proc/%s/stat" % pid).read()
            except OSError:
                continue
            comm = raw[raw.index("(") + 1:raw.rindex(")")]
            rest = raw[raw.rindex(")") + 2:].split()
            self.ticks[pid] = (comm, int(rest[11]) + int(rest[12]), int(rest[7]))
        task_dir = "/proc/%d/task" % self.daemon_pid
        for tid in os.listdir(task_dir) if os.path.isdir(task_dir) else []:
            try:
                raw = open("%s/%s/stat" % (task_dir, tid)).read()
                state = raw[raw.rindex(")") + 2]
                what = "running" if state == "R" else open("%s/%s/wchan" % (task_dir, tid)).read() or state
            except OSError:
                continue
            self.states[what] = self.states.get(what, 0) + 1

    def run(self):
        self.first = self.total()
        self.sample()
        self.base = dict(self.ticks)
        while not self.halt.wait(0.1):
            self.sample()
        self.last = self.total()

    def stop(self):
        self.halt.set()
        self.join()

    def report(self):
        per, faults = {}, {}
        for pid, (comm, t, f) in self.ticks.items():
            t0, f0 = self.base[pid][1:] if pid in self.base else (0, 0)
            per[comm] = per.get(comm, 0) + (t - t0) / self.hz
            faults[comm] = faults.get(comm, 0) + f - f0
        all_t = self.last[0] - self.first[0]
        idle = self.last[1] - self.first[1]
        return {"cores": os.cpu_count(), "affinity": len(os.sched_getaffinity(0)),
                "busy_fraction": round(1 - idle / all_t, 3) if all_t else None,
                "cpu_s_by_process": {k: round(v, 1) for k, v in sorted(per.items(), key=lambda kv: -kv[1]) if v >= 0.1},
                "minor_faults_by_process": {k: v for k, v in sorted(faults.items(), key=lambda kv: -kv[1]) if v >= 1000},
                "daemon_threads": dict(sorted(self.states.items(), key=lambda kv: -kv[1])[:12])}


ws = tempfile.mkdtemp(prefix="kwb-throughput-")
if os.environ.get("KWB_THROUGHPUT_NO_INCUMBENT"):  # a library without vector_add's cuda kernel: no comparison
    import shutil
    shutil.copytree("kernels", os.path.join(ws, "kernels"))
    shutil.rmtree(os.path.join(ws, "kernels", "vector_add", "cuda"))
    extra += ["--kernels-dir", os.path.join(ws, "kernels")]
log = open(os.path.join(out_dir, "daemon.log"), "w")
daemon = subprocess.Popen([os.path.join(bin_dir, "kwb"), "serve", "--no-auth", "--port", "0", "--port-file",
                           os.path.join(ws, "port"), "--workspace", ws, "--time-budget-ms", budget] + extra,
                          stdout=log, stderr=subprocess.STDOUT)
try:
    for _ in range(600):
        if os.path.exists(os.path.join(ws, "port")) and open(os.path.join(ws, "port")).read().strip():
            break
        time.sleep(0.1)
    base = "http://127.0.0.1:%s" % open(os.path.join(ws, "port")).read().strip()
    src = open(os.environ.get("KWB_THROUGHPUT_SOURCE", "tests/security/cuda/honest_scalar_vector_add.cu")).read()

    def call(method, path, body=None):
        req = urllib.request.Request(base + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=120) as r:
            return json.loads(r.read())

    def evaluate(tag):
        t0 = time.time()
        body = {"op": "vector_add", "backend": "cuda", "source_name": "candidate.cu",
                "source": src + "\n// throughput probe %s %d\n" % (tag, time.time_ns())}
        if bench:
            body["bench"] = bench
        cid = call("POST", "/v1/candidates", body)["id"]
        while True:
            c = call("GET", "/v1/candidates/%s?wait=60" % cid)
            if c["state"] in ("done", "cancelled"):
                v = c.get("verdict") or {}
                stage_ms = dict(v.get("summary", {}).get("stage_ms", {}))
                # The decide stage's interleaved timing, apart from preparing the incumbent.
                stage_ms["compare"] = sum((w.get("comparison") or {}).get("ms", 0) for w in v.get("workloads", []))
                return {"id": cid, "submit": t0, "done": time.time(), "status": c.get("status"),
                        "stage_ms": stage_ms,
                        "wall_ms": (c.get("verdict") or {}).get("summary", {}).get("wall_ms", 0)}

    warm = evaluate("warm")
    print("warm-up:", warm["status"], "%.0f ms" % ((warm["done"] - warm["submit"]) * 1e3), flush=True)

    results, lock, next_tag = [], threading.Lock(), iter(range(n))

    def client():
        while True:
            with lock:
                tag = next(next_tag, None)
            if tag is None:
                return
            r = evaluate(tag)
            with lock:
                results.append(r)

    sampler = CpuSampler(daemon.pid)
    sampler.start()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sampler.stop()

    results.sort(key=lambda r: r["done"])
    first_submit = min(r["submit"] for r in results)
    keys = ["analyze", "compile", "validate", "benchmark", "decide", "compare", "gpu_wait", "runner", "runner_setup", "runner_calls",
            "runner_timing", "inputs", "reference_wait", "checks", "lane_wait"]
    with open(os.path.join(out_dir, "throughput.tsv"), "w") as f:
        f.write("\t".join(["id", "status", "submit_s", "done_s", "wall_ms"] + [k + "_ms" for k in keys]) + "\n")
        for r in results:
            f.write("\t".join([r["id"], str(r["status"]), "%.3f" % (r["submit"] - first_submit),
                               "%.3f" % (r["done"] - first_submit), "%.0f" % r["wall_ms"]]
                              + ["%.0f" % r["stage_ms"].get(k, 0) for k in keys]) + "\n")
    statuses = {}
    for r in results:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    span = results[-1]["done"] - first_submit
    steady = results[-1]["done"] - results[0]["done"]
    med = lambda k: sorted(r["stage_ms"].get(k, 0) for r in results)[len(results) // 2]
    summary = {"n": n, "clients": clients, "budget_ms": budget, "bench": bench, "statuses": statuses,
               "span_s": round(span, 2), "per_minute": round(n / span * 60, 1),
               "steady_per_minute": round((n - 1) / steady * 60, 1) if steady > 0 else None,
               "median_stage_ms": {k: med(k) for k in keys}, "cpu": sampler.report()}
    json.dump(summary, open(os.path.join(out_dir, "throughput.json"), "w"), indent=1)
    print(json.dumps(summary, indent=1))
finally:
    daemon.terminate()
    daemon.wait()
