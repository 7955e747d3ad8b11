"""agents/examples/tune_loop.py against a real `kwb serve` whose library holds a deliberately
slow row_sum (tests/agents/slow_row_sum.cpp, seeded through --kernels-dir as `kwb serve` seeds
any library): the loop, run as a user runs it, generates variants from its template, submits
them in parallel with an agent token, and promotes the fastest with a reviewer token; the test
checks the commit in the library repository and the new dispatch entry. Run again with the
winner's grid point alone (now the incumbent's source), it beats nothing and promotes nothing.

The row_sum spec is the shipped one with CI-sized bench workloads (tests/agents/fixtures.py):
a promotion needs every bench workload timed and compared interleaved with the incumbent (a
`bench` subset verdict is never promotable), so the workload sizes set the test's length.

Run by ctest (tests/CMakeLists.txt: AgentTuneLoop); by hand:
    KWB_TEST_BIN_DIR=build/bin python3 -m unittest discover -s tests/agents -p 'test_tune_loop.py' -v
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

from daemon import SOURCE_DIR, Daemon
from fixtures import slow_row_sum_kernels, small_row_sum_specs

import kwb

TUNE_LOOP = SOURCE_DIR / "agents" / "examples" / "tune_loop.py"
sys.path.insert(0, str(TUNE_LOOP.parent))
import tune_loop  # noqa: E402  (the example's template renders the sources the test expects)

GRID = ["--grid", "LANES=8,32", "--grid", "BLOCK=1024", "--grid", "UNROLL=4"]


def grid_of(knobs: Dict[str, int]) -> List[str]:
    return [arg for k, v in sorted(knobs.items()) for arg in ("--grid", f"{k}={v}")]


class AgentTuneLoop(unittest.TestCase):
    def setUp(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="kwb-tune-loop-"))
        # The decide budget lets a noisy machine take more block pairs before the workbench
        # gives up on a decision (it stops as soon as each workload is settled).
        self.daemon = Daemon(["--specs-dir", str(small_row_sum_specs(self.root)),
                              "--kernels-dir", str(slow_row_sum_kernels(self.root)),
                              "--time-budget-ms", "100", "--decide-budget-ms", "2000"], root=self.root)
        self.addCleanup(self._cleanup)
        admin = kwb.Client(self.daemon.url, self.daemon.admin_token)
        self.agent_token = admin.create_token("agent", "tune-loop")["token"]
        self.reviewer_token = admin.create_token("reviewer", "tune-loop-reviewer")["token"]
        self.wb = kwb.Client(self.daemon.url, self.agent_token)

    def _cleanup(self) -> None:
        self.daemon.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def tune(self, grid: Sequence[str]) -> Tuple[int, Dict[str, Any], str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KWB_TOKEN", "KWB_REVIEWER_TOKEN")}
        r = subprocess.run([sys.executable, str(TUNE_LOOP), "--server", self.daemon.url, "--token", self.agent_token,
                            "--reviewer-token", self.reviewer_token, "--op", "row_sum", *grid, "--json"],
                           env=env, capture_output=True, text=True, timeout=900)
        if os.environ.get("KWB_TEST_TUNE_LOG"):  # for whoever tunes this test's budget
            with open(os.environ["KWB_TEST_TUNE_LOG"], "a") as f:
                f.write(r.stderr)
        try:
            report = json.loads(r.stdout)
        except ValueError:
            self.fail(f"tune_loop.py exited {r.returncode} without a JSON report:\n{r.stdout}\n{r.stderr}\n{self.daemon.log()[-4000:]}")
        return r.returncode, report, r.stderr

    def git(self, *args: str) -> str:
        return subprocess.run(["git", "-C", str(self.daemon.workspace / "library"), *args],
                              capture_output=True, text=True, check=True).stdout.strip()

    def test_finds_and_promotes_a_faster_variant(self) -> None:
        code, report, log = self.tune(GRID)
        self.assertEqual(code, 0, log)
        self.assertEqual(report["incumbent"]["kernel"], "row_sum/cpu/slow.cpp")
        variants: List[Dict[str, Any]] = report["variants"]
        self.assertEqual(sorted(v["name"] for v in variants), ["B1024_L32_U4", "B1024_L8_U4"])
        for v in variants:
            self.assertEqual(v["status"], "accepted", v["reason"])
            self.assertEqual(sorted(v["workloads"]), ["1024x1024", "16x65536"], "every bench workload was timed")
        winners = [v for v in variants if v["promotable"]]
        self.assertTrue(winners, log)
        best = report["best"]
        self.assertEqual(best, winners[0]["id"])
        self.assertEqual(best, max(winners, key=lambda v: v["geomean_vs_incumbent"])["id"])
        best_v = winners[0]
        self.assertGreater(best_v["geomean_vs_incumbent"], 1.03)
        self.assertTrue(all(w["label"] in ("faster", "same") for w in best_v["workloads"].values()), best_v)
        self.assertIn("faster", [w["label"] for w in best_v["workloads"].values()])
        # Progress was followed: every variant's stages, and its verdict line.
        for v in variants:
            self.assertIn(f"[{v['name']}]  decide    done", log)
            self.assertIn(f"[{v['name']}]  verdict   accepted", log)

        promotion = report["promotion"]
        self.assertEqual(promotion["id"], best)
        commit = promotion["commit"]
        library = self.wb.library("row_sum")  # the daemon's view of the repository's head
        self.assertEqual(library["commit"], commit)
        self.assertIn(best, [e["candidate"] for e in library["entries"]])
        self.assertIn(promotion["kernel"], [e["kernel"] for e in library["entries"]])
        head = next(h for h in library["history"] if h["commit"] == commit)
        self.assertEqual(head["trailers"].get("Kwb-Candidate"), best)
        self.assertEqual(head["trailers"].get("Kwb-Replaces"), "row_sum/cpu/slow.cpp")
        self.assertEqual(head["trailers"].get("Kwb-Reviewer"), "tune-loop-reviewer")
        if shutil.which("git"):  # and the repository itself, read by git
            self.assertEqual(self.git("cat-file", "-t", commit), "commit")
            self.assertEqual(self.git("rev-parse", "HEAD"), commit)
            self.assertIn(f"Kwb-Candidate: {best}", self.git("log", "-1", "--format=%B", commit))
            dispatch = json.loads(self.git("show", f"{commit}:dispatch.json"))
            self.assertIn(promotion["kernel"], [e["kernel"] for e in dispatch["entries"]
                                                if e["op"] == "row_sum" and e["backend"] == "cpu"])
            self.assertEqual(self.git("show", f"{commit}:{promotion['kernel']}"),
                             tune_loop.TEMPLATES["row_sum"].render(best_v["knobs"]).strip())

        # Again with the winner's grid point alone: its source is now the incumbent's (such a
        # candidate is not timed and never beats it), so nothing is promoted.
        code2, report2, log2 = self.tune(grid_of(best_v["knobs"]))
        self.assertEqual(code2, 1, log2)
        self.assertIsNone(report2["best"])
        self.assertIsNone(report2["promotion"])
        self.assertEqual(report2["incumbent"]["candidate"], best)
        self.assertIn("identical to the incumbent", report2["variants"][0]["reason"])
        self.assertEqual(self.wb.library("row_sum")["commit"], commit)



if __name__ == "__main__":
    unittest.main()
