#!/usr/bin/env python3
"""A minimal client of the kwb daemon's HTTP API for agent loops (Python standard library only).

    from kwb_client import Workbench
    wb = Workbench()                       # KWB_SERVER / KWB_TOKEN, default http://127.0.0.1:8470
    v = wb.evaluate("vector_add", open("k.cpp").read(), bench=["n1M"])
    print(v["status"], v["reason"])        # kwb.verdict.v1 (docs/verdict.md)

Command line (what tests/integration runs):  kwb_client.py OP FILE [--backend cuda] [--bench NAME]...
prints the verdict as JSON and exits 0 when accepted, 1 for any other verdict, 2 on errors.
"""
import json
import os
import sys
import urllib.error
import urllib.request


class WorkbenchError(Exception):
    def __init__(self, status, kind, message):
        super().__init__(f"HTTP {status} {kind}: {message}")
        self.status, self.kind, self.message = status, kind, message


class Workbench:
    def __init__(self, server=None, token=None, timeout=75):
        self.server = (server or os.environ.get("KWB_SERVER") or "http://127.0.0.1:8470").rstrip("/")
        self.token = token if token is not None else os.environ.get("KWB_TOKEN", "")
        self.timeout = timeout

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.server + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                return json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:  # the daemon's {error: {type, message}}
            try:
                err = json.loads(e.read())["error"]
            except Exception:
                err = {"type": "http_error", "message": str(e)}
            raise WorkbenchError(e.code, err.get("type"), err.get("message")) from None

    def spec(self, op):
        return self._call("GET", f"/v1/specs/{op}")

    def submit(self, op, source, backend="cpu", bench=None, note="", parent=None, **extra):
        body = {"op": op, "source": source, "backend": backend, "note": note, **extra}
        if bench:
            body["bench"] = list(bench)
        if parent:
            body["parent"] = parent
        return self._call("POST", "/v1/candidates", body)["id"]

    def wait(self, cid, wait_s=60):
        """Long-polls until the candidate is done or cancelled; returns the candidate object."""
        while True:
            c = self._call("GET", f"/v1/candidates/{cid}?wait={wait_s}")
            if c["state"] in ("done", "cancelled"):
                return c

    def evaluate(self, op, source, **kw):
        """Submit and wait: the kwb.verdict.v1 verdict (None when cancelled)."""
        return self.wait(self.submit(op, source, **kw)).get("verdict")

    def diff(self, cid):
        return self._call("GET", f"/v1/candidates/{cid}/diff")

    def promote(self, cid):
        return self._call("POST", f"/v1/candidates/{cid}/promote", {})

    def leaderboard(self, op):
        return self._call("GET", f"/v1/leaderboard/{op}")


def main(argv):
    args, backend, bench = [], "cpu", []
    it = iter(argv)
    for a in it:
        if a == "--backend":
            backend = next(it)
        elif a == "--bench":
            bench.append(next(it))
        else:
            args.append(a)
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    op, path = args
    try:
        verdict = Workbench().evaluate(op, open(path).read(), backend=backend, bench=bench)
    except (WorkbenchError, OSError) as e:
        print(f"kwb_client: {e}", file=sys.stderr)
        return 2
    print(json.dumps(verdict, indent=2))
    return 0 if verdict and verdict["status"] == "accepted" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
