#!/usr/bin/env python3
"""Soak test of `kwb serve` (issue 15, "Done when"): N clients (each waiting for its verdict before
the next submission, as an agent does) submit a mix of honest, wrong and hostile CPU candidates while the daemon is killed with SIGKILL every K seconds and restarted on
the same workspace, and the workspace's disk is kept near full for part of each period. It ends
by checking that every acknowledged submission (a 202, or a 200 replay of its Idempotency-Key)
holds exactly one verdict event and is done.

  full form (the lead runs it; about 30 minutes):
    sudo tests/load/soak.py --kwb build/bin/kwb --minutes 30 --clients 4 --kill-every-s 300 --tmpfs-mb 256
  short form (a few minutes):
    sudo tests/load/soak.py --kwb build/bin/kwb --short

Without --tmpfs-mb (or without root) the workspace is a plain temporary folder and the
near-full phase fills that folder's file system only when --fill is given (careful: it fills
the disk holding /tmp). Exit status 0 when every acknowledged submission holds exactly one
verdict; the summary is one JSON object on stdout (progress on stderr).

Python standard library only.
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def log(msg):
    print(f"[soak {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def load_candidates():
    """(kind, op, source) from the shipped kernels (honest), the wrong-kernel corpus and the
    hostile corpus; cases that need flags or extra daemon arguments are left out."""
    out = []
    for name in sorted(os.listdir(os.path.join(ROOT, "kernels/vector_add/cpu"))):
        if name.endswith(".cpp"):
            with open(os.path.join(ROOT, "kernels/vector_add/cpu", name)) as f:
                out.append(("honest", "vector_add", f.read()))
    for kind, folder in (("wrong", "tests/integration/cpu_cases"), ("hostile", "tests/security/cases")):
        path = os.path.join(ROOT, folder)
        for name in sorted(os.listdir(path)):
            if not name.endswith(".cpp"):
                continue
            with open(os.path.join(path, name)) as f:
                text = f.read()
            first = text.splitlines()[0] if text else ""
            m = re.search(r"kwb-expect: op=(\w+)", first)
            if not m or "flags=" in first or "args=" in first or "status=accepted" in first:
                continue
            out.append((kind, m.group(1), text))
    return out


class Daemon:
    def __init__(self, kwb, workspace, extra):
        self.kwb, self.workspace, self.extra = kwb, workspace, extra
        self.proc = None
        self.port = None
        self.lock = threading.Lock()
        self.restarts = 0

    def start(self, timeout=180):
        port_file = os.path.join(self.workspace, "soak.port")
        if os.path.exists(port_file):
            os.remove(port_file)
        logf = open(os.path.join(tempfile.gettempdir(), "kwb-soak-serve.log"), "ab")
        cmd = [self.kwb, "serve", "--port", "0", "--port-file", port_file, "--workspace", self.workspace] + self.extra
        self.proc = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"kwb serve exited with {self.proc.returncode} (log: {logf.name})")
            try:
                with open(port_file) as f:
                    port = int(f.read().strip() or 0)
                if port > 0:
                    with self.lock:
                        self.port = port
                    return
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
        raise RuntimeError("kwb serve did not come up")

    def kill9(self):
        with self.lock:
            self.port = None
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        self.restarts += 1

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def url(self):
        with self.lock:
            return None if self.port is None else f"http://127.0.0.1:{self.port}"


def request(url, method="GET", body=None, headers=None, timeout=60):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        try:
            return e.code, json.loads(e.read() or b"null")
        except ValueError:
            return e.code, None


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.acknowledged = {}  # id -> kind
        self.statuses = {}      # HTTP status -> count
        self.connection_errors = 0

    def count(self, status):
        with self.lock:
            self.statuses[str(status)] = self.statuses.get(str(status), 0) + 1


def wait_for_verdict(daemon, cid, stop):
    """An agent waits for its verdict before the next submission (kills and refusals included):
    the clients' work stays bounded, so the drain at the end is short."""
    while not stop.is_set():
        url = daemon.url()
        if url is None:
            time.sleep(0.2)
            continue
        try:
            status, rec = request(f"{url}/v1/candidates/{cid}?wait=10", timeout=30)
        except (OSError, urllib.error.URLError):
            time.sleep(0.2)
            continue
        if status == 200 and rec and rec.get("state") in ("done", "cancelled"):
            return
        if status != 200:
            time.sleep(0.5)


def client(daemon, stats, candidates, stop, seed):
    rnd = random.Random(seed)
    by_kind = {}
    for c in candidates:
        by_kind.setdefault(c[0], []).append(c)
    while not stop.is_set():
        # 40 % honest, 30 % wrong, 30 % hostile, whatever the corpus sizes.
        kind = rnd.choices(["honest", "wrong", "hostile"], weights=[4, 3, 3])[0]
        kind, op, src = rnd.choice(by_kind.get(kind) or candidates)
        key = str(uuid.uuid4())
        body = {"op": op, "source": src + f"\n// soak {key}\n", "note": f"soak {kind}"}
        # The same key until the submission is acknowledged: a retry after a lost reply or a
        # killed daemon must not create a second candidate.
        while not stop.is_set():
            url = daemon.url()
            if url is None:
                time.sleep(0.2)
                continue
            try:
                status, reply = request(url + "/v1/candidates", "POST", body, {"Idempotency-Key": key}, timeout=30)
            except (OSError, urllib.error.URLError):
                with stats.lock:
                    stats.connection_errors += 1
                time.sleep(0.2)
                continue
            stats.count(status)
            if status in (200, 202) and reply and "id" in reply:
                with stats.lock:
                    stats.acknowledged[reply["id"]] = kind
                wait_for_verdict(daemon, reply["id"], stop)
                break
            if status in (429, 503, 507):
                time.sleep(1)
                continue
            log(f"unexpected {status}: {reply}")
            break
        time.sleep(rnd.uniform(0.05, 0.5))


def fill(path, leave_bytes):
    """Writes `path` until the file system has about `leave_bytes` free."""
    st = os.statvfs(os.path.dirname(path))
    free = st.f_bavail * st.f_frsize
    want = max(0, free - leave_bytes)
    chunk = b"x" * (1 << 20)
    written = 0
    try:
        with open(path, "ab") as f:
            while written + len(chunk) <= want:
                f.write(chunk)
                written += len(chunk)
    except OSError:
        pass
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kwb", default=os.path.join(ROOT, "build/bin/kwb"))
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--kill-every-s", type=float, default=300)
    ap.add_argument("--near-full-share", type=float, default=0.3, help="share of each period with the disk near full")
    ap.add_argument("--tmpfs-mb", type=int, default=0, help="mount a tmpfs of this size as the workspace (root)")
    ap.add_argument("--fill", action="store_true", help="fill the workspace's file system even when it is not a tmpfs")
    ap.add_argument("--reserve-mb", type=int, default=8)
    ap.add_argument("--leave-kb", type=int, default=256,
                    help="free space left in the near-full phase (below the reserve: caches evicted, some writes 507)")
    ap.add_argument("--drain-s", type=float, default=900, help="bound on the wait for the last verdicts")
    ap.add_argument("--short", action="store_true", help="3 minutes, a kill every 45 s")
    a = ap.parse_args()
    if a.short:
        a.minutes, a.kill_every_s = 3, 45
        a.tmpfs_mb = a.tmpfs_mb or (128 if os.geteuid() == 0 else 0)

    base = tempfile.mkdtemp(prefix="kwb-soak-")
    mounted = False
    if a.tmpfs_mb:
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={a.tmpfs_mb}m", "tmpfs", base])
        mounted = r.returncode == 0
        if not mounted:
            log("cannot mount a tmpfs (not root?): the near-full phase is skipped")
    workspace = os.path.join(base, "ws")
    os.makedirs(workspace)
    filling = mounted or a.fill
    daemon = Daemon(a.kwb, workspace, ["--no-auth", "--time-budget-ms", "20", "--run-timeout-ms", "3000",
                                       "--reserve-mb", str(a.reserve_mb), "--queue-quota", "1000",
                                       "--rate", "100000"])
    stats = Stats()
    candidates = load_candidates()
    log(f"{len(candidates)} candidate sources; workspace {workspace} ({'tmpfs' if mounted else 'plain folder'})")
    daemon.start()
    stop = threading.Event()
    threads = [threading.Thread(target=client, args=(daemon, stats, candidates, stop, i), daemon=True)
               for i in range(a.clients)]
    for t in threads:
        t.start()
    ballast = os.path.join(base, "ballast")
    end = time.time() + a.minutes * 60
    near_full_s = 0.0
    try:
        while time.time() < end:
            period_end = min(end, time.time() + a.kill_every_s)
            full_from = period_end - a.kill_every_s * a.near_full_share
            while time.time() < period_end:
                if filling and time.time() >= full_from and not os.path.exists(ballast):
                    fill(ballast, a.leave_kb << 10)
                    log("disk near full")
                if os.path.exists(ballast):
                    near_full_s += 0.5
                time.sleep(0.5)
            if os.path.exists(ballast):
                os.remove(ballast)
            if time.time() < end:
                log(f"kill -9 (acknowledged so far: {len(stats.acknowledged)})")
                daemon.kill9()
                daemon.start()
    finally:
        stop.set()
        for t in threads:
            t.join(60)
        if os.path.exists(ballast):
            os.remove(ballast)
    # Drain: every acknowledged candidate must reach exactly one verdict.
    url = daemon.url()
    ids = dict(stats.acknowledged)
    pending = set(ids)
    deadline = time.time() + a.drain_s
    while pending and time.time() < deadline:
        for cid in list(pending):
            try:
                status, rec = request(f"{url}/v1/candidates/{cid}?wait=5", timeout=30)
            except (OSError, urllib.error.URLError):
                continue
            if status == 200 and rec and rec.get("state") in ("done", "cancelled"):
                pending.discard(cid)
    def get(path):
        for _ in range(20):  # a 429 or 503 is retried
            status, reply = request(url + path, timeout=30)
            if status not in (429, 503):
                return status, reply
            time.sleep(1)
        return status, reply

    verdicts, wrong, by_status = {}, [], {}
    for cid in ids:
        status, ev = get(f"/v1/candidates/{cid}/events?wait=0")
        n = sum(1 for e in (ev or {}).get("events", []) if e.get("kind") == "verdict") if status == 200 else -1
        verdicts[cid] = n
        _, rec = get(f"/v1/candidates/{cid}")
        st = ((rec or {}).get("verdict") or {}).get("status", "none")
        by_status[st] = by_status.get(st, 0) + 1
        if n != 1 or (rec or {}).get("state") != "done":
            wrong.append({"id": cid, "verdict_events": n, "state": (rec or {}).get("state"), "kind": ids[cid]})
    daemon.stop()
    if mounted:
        subprocess.run(["umount", "-l", base])
    shutil.rmtree(base, ignore_errors=True)
    summary = {
        "minutes": a.minutes, "clients": a.clients, "kills": daemon.restarts, "near_full_s": near_full_s,
        "acknowledged": len(ids), "by_kind": {k: list(ids.values()).count(k) for k in set(ids.values())},
        "verdict_statuses": by_status, "http_statuses": stats.statuses,
        "connection_errors": stats.connection_errors, "not_exactly_one_verdict": wrong[:50],
        "not_exactly_one_verdict_count": len(wrong), "ok": not wrong and len(ids) > 0,
    }
    print(json.dumps(summary, indent=1, sort_keys=True))
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
