"""The SDK's review, library, daemon, spec, token and command-line calls against a real daemon: the
tests of these calls, a part of test_sdk.AgentSdk (which mixes them in and holds the daemon and the
clients: ``daemon``, ``admin``, ``agent``, ``reviewer``).
"""
import json
import os
import subprocess
import sys
import uuid

from daemon import SDK_DIR, SOURCE_DIR, Daemon
from sdk_sources import VECTORIZED, WRONG

import kwb


class SdkCallTests:
    """Mixed into test_sdk.AgentSdk, a unittest.TestCase whose setUpClass makes these."""
    daemon: Daemon
    admin: kwb.Client
    agent: kwb.Client
    reviewer: kwb.Client

    def test_review_and_library_calls(self) -> None:
        tweaked = VECTORIZED.replace("// ", f"// tweaked {uuid.uuid4().hex[:8]}: ", 1)
        v = self.agent.evaluate("vector_add", tweaked, bench=["n1M"], timeout=300)
        cid = v["candidate"]
        self.assertEqual(v["status"], "accepted", v["reason"])
        twin_verdict = self.agent.evaluate("vector_add", tweaked, bench=["n1M"], timeout=300)
        self.assertEqual(twin_verdict["status"], "accepted", twin_verdict["reason"])
        twin = twin_verdict["candidate"]
        d = self.agent.diff(cid)
        self.assertEqual((d["id"], d["op"]), (cid, "vector_add"))
        # The reviewer's evidence: author, bench subset, identical sources, per-workload ± and samples.
        self.assertEqual((d["author"], d["bench"], d["bench_subset"]), ("sdk-agent", ["n1M"], True))
        self.assertEqual([o["id"] for o in d["same_source"]], [twin])
        board = self.agent.leaderboard("vector_add", limit=500)
        rows = {row["id"]: row for row in board["candidates"]}
        self.assertIn(cid, rows, board)
        self.assertIn(twin, rows, board)
        self.assertEqual({rows[cid]["author"], rows[twin]["author"]}, {"sdk-agent"})
        self.assertTrue(rows[cid]["bench_subset"])
        self.assertEqual(sorted([rows[cid]["same_source_as"] is None, rows[twin]["same_source_as"] is None]),
                         [False, True])
        self.assertEqual([w["workload"] for w in rows[cid]["workloads"]], ["n1M"])
        self.assertGreater(rows[cid]["workloads"][0]["samples"], 0)
        with self.assertRaises(kwb.ForbiddenError):
            self.agent.review()
        queue = self.reviewer.review(op="vector_add")
        self.assertGreaterEqual(queue["pending"], len(queue["candidates"]))
        for row in queue["candidates"]:
            self.assertTrue(row["beats_incumbent"], row)
        self.reviewer.reject(twin, "sdk test: the twin")
        self.assertEqual(d["incumbent"]["kernel"], "vector_add/cpu/vectorized.cpp")
        self.assertIn("+// tweaked ", d["diff"])
        self.assertEqual(self.agent.diff_text(cid), d["diff"])
        self.assertIn(cid, [row["id"] for row in self.agent.leaderboard("vector_add", limit=500)["candidates"]])
        lib = self.agent.library()
        self.assertRegex(lib["commit"], r"^[0-9a-f]{40}$")
        self.assertIn("row_sum", {e["op"] for e in lib["entries"]})
        one = self.agent.library("vector_add")
        self.assertEqual(one["op"], "vector_add")
        self.assertTrue(one["history"])
        inc = self.agent.incumbent("vector_add")
        self.assertEqual(inc["kernel"], "vector_add/cpu/vectorized.cpp")

        rejected = self.reviewer.reject(cid, "sdk test")
        self.assertEqual((rejected["id"], rejected["decision"], rejected["reason"]), (cid, "rejected", "sdk test"))
        with self.assertRaises(kwb.ConflictError) as cm:
            self.reviewer.reject(cid, "again")
        self.assertEqual(cm.exception.type, "conflict")

        with self.assertRaises(kwb.ForbiddenError):
            self.agent.retime("vector_add")
        queued = self.reviewer.retime("vector_add", backend="cpu")
        self.assertEqual(queued["op"], "vector_add")
        self.assertEqual([q["backend"] for q in queued["candidates"]], ["cpu"])
        for q in queued["candidates"]:
            self.reviewer.cancel(q["id"])

    def test_daemon_and_spec_calls(self) -> None:
        h = self.agent.health()
        self.assertEqual((h["status"], h["auth"]), ("ok", True))
        self.assertIn("cpu", h["backends"])
        self.assertEqual(self.agent.devices()[0]["kind"], "cpu")
        device_ids = {d["id"] for d in self.agent.devices()}
        for gpu in self.agent.gpus():  # none on a machine without a GPU
            self.assertIn(gpu["device_id"], device_ids | {""})
        classes = self.agent.device_classes()  # the local machine's: its CPU class first
        self.assertEqual(classes[0]["kind"], "cpu")
        self.assertTrue(classes[0]["device_class"].startswith("cpu-"), classes)
        with self.assertRaises(kwb.ApiError) as refused:
            self.agent.submit("vector_add", "int x;", device_class="cuda-sm_1000")
        self.assertEqual(refused.exception.status, 422)
        self.assertIn(classes[0]["device_class"], str(refused.exception))
        self.assertIn("entry-signature", [r["id"] for r in self.agent.analysis_rules()["rules"]])
        self.assertIn("/v1/candidates", self.agent.openapi()["paths"])
        self.assertIn("kwb_queue_depth", self.agent.metrics())
        ops = [s["op"] for s in self.agent.specs()]
        self.assertIn("vector_add", ops)
        spec = self.agent.spec("vector_add")
        self.assertEqual(spec["variants"][0]["entry"], "kwb_vector_add_f32")
        with self.assertRaises(kwb.ForbiddenError):
            self.agent.add_spec_dir(SOURCE_DIR / "specs" / "vector_add")
        added = self.reviewer.add_spec_dir(SOURCE_DIR / "specs" / "vector_add")  # the shipped meaning: no change
        self.assertEqual(added["op"], "vector_add")
        self.assertIn(added["status"], ("added", "unchanged"))
        with self.assertRaises(kwb.BadRequestError) as cm:
            self.reviewer.add_spec({"spec.json": "{", "reference.cpp": ""})
        self.assertEqual(cm.exception.type, "invalid_spec")
        self.assertEqual(cm.exception.body.get("file"), "spec.json")

    def test_tokens(self) -> None:
        made = self.admin.create_token("agent", "sdk-short-lived")
        self.assertEqual((made["role"], made["name"]), ("agent", "sdk-short-lived"))
        listed = [t for t in self.admin.tokens() if t["name"] == "sdk-short-lived"]
        self.assertEqual(len(listed), 1)
        user = kwb.Client(self.daemon.url, made["token"])
        self.assertTrue(user.specs())
        with self.assertRaises(kwb.ForbiddenError):
            user.tokens()
        revoked = self.admin.revoke_token(listed[0]["id"])
        self.assertTrue(revoked["revoked"])
        with self.assertRaises(kwb.UnauthorizedError):
            user.specs()
        with self.assertRaises(kwb.UnprocessableError) as cm:
            self.admin.create_token("god")
        self.assertEqual(cm.exception.type, "invalid_field")

    # --- the command line -------------------------------------------------------------------

    def cli(self, *args: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "PYTHONPATH": str(SDK_DIR), "KWB_SERVER": self.daemon.url,
               "KWB_TOKEN": self.agent._http.token}
        return subprocess.run([sys.executable, "-m", "kwb", *args], env=env, capture_output=True, text=True, timeout=600)

    def test_cli(self) -> None:
        ok = self.cli("eval", "vector_add", str(SOURCE_DIR / "kernels/vector_add/cpu/vectorized.cpp"), "--bench", "n1M")
        self.assertEqual(ok.returncode, 0, ok.stderr)
        v = json.loads(ok.stdout)
        self.assertEqual((v["status"], v["op"]), ("accepted", "vector_add"))
        self.assertIn("compile", ok.stderr)  # the progress lines
        wrong_file = self.daemon.root / "wrong.cpp"
        wrong_file.write_text(WRONG)
        wrong = self.cli("eval", "vector_add", str(wrong_file), "--bench", "n1M", "--quiet")
        self.assertEqual(wrong.returncode, 1, wrong.stderr)
        self.assertEqual(json.loads(wrong.stdout)["status"], "incorrect")
        unknown = self.cli("eval", "vector_add", str(wrong_file), "--bench", "n3")
        self.assertEqual(unknown.returncode, 2)
        self.assertIn("HTTP 422 unknown_workload", unknown.stderr)
        spec = self.cli("specs", "vector_add")
        self.assertEqual(json.loads(spec.stdout)["op"], "vector_add")
        events = self.cli("events", v["candidate"])
        lines = [json.loads(x) for x in events.stdout.splitlines()]
        self.assertEqual(lines[-1]["data"]["state"], "done")
        missing = self.cli("status", "c-0123456789abcdef")
        self.assertEqual(missing.returncode, 2)
        self.assertIn("HTTP 404 not_found", missing.stderr)
        self.assertEqual(self.cli("frobnicate").returncode, 2)
