"""The Python SDK (agents/python, package `kwb`) against a real `kwb serve` (auth on, the shipped
specs and library, a temporary workspace, a free port): submit/wait/verdict, SSE progress and
its resumption, errors as exceptions with the API's type and message, idempotent retries after a
lost reply, Retry-After on 503, cancel, an agent's attempts as one tree (lineage, attempts), and
the review, library, daemon, token and command-line calls (sdk_calls.py, mixed in). The package's
installability and Python 3.9 syntax: test_sdk_package.py.

Run by ctest (tests/CMakeLists.txt: AgentSdk); by hand:
    KWB_TEST_BIN_DIR=build/bin python3 -m unittest discover -s tests/agents -p 'test_sdk.py' -v
"""
import time
import unittest
import uuid
from typing import Any, Dict, List

from daemon import Daemon  # also puts agents/python on sys.path
from lossy_proxy import LossyProxy
from sdk_calls import SdkCallTests
from sdk_sources import ENDLESS, VECTORIZED, WRONG, unique

import kwb


class AgentSdk(SdkCallTests, unittest.TestCase):
    daemon: Daemon
    admin: kwb.Client
    agent: kwb.Client
    reviewer: kwb.Client

    @classmethod
    def setUpClass(cls) -> None:
        cls.daemon = Daemon(["--time-budget-ms", "20", "--decide-budget-ms", "300"])
        cls.admin = kwb.Client(cls.daemon.url, cls.daemon.admin_token)
        cls.agent = kwb.Client(cls.daemon.url, cls.admin.create_token("agent", "sdk-agent")["token"])
        cls.reviewer = cls.agent.with_token(cls.admin.create_token("reviewer", "sdk-reviewer")["token"])

    @classmethod
    def tearDownClass(cls) -> None:
        cls.daemon.remove()

    # --- submit, wait, verdict --------------------------------------------------------------

    def test_submit_wait_and_verdict(self) -> None:
        note = unique("sdk accepted")
        sub = self.agent.submit("vector_add", VECTORIZED, bench=["n1M"], note=note, source_name="vectorized.cpp")
        self.assertRegex(sub["id"], r"^c-[0-9a-f]{16}$")
        self.assertEqual(sub["state"], "queued")
        self.assertFalse(sub["replayed"])
        self.assertTrue(sub["idempotency_key"].startswith("kwb-py-"))
        c = self.agent.wait(sub["id"], timeout=300)
        self.assertEqual(c["state"], "done")
        v = c["verdict"]
        self.assertEqual(v["schema"], "kwb.verdict.v1")
        self.assertEqual((v["status"], v["op"], v["variant"], v["candidate"]), ("accepted", "vector_add", "f32", sub["id"]))
        self.assertEqual([w["name"] for w in v["workloads"] if w["kind"] == "bench"], ["n1M"])
        self.assertEqual(self.agent.verdict(sub["id"])["reason"], v["reason"])
        listed = self.agent.candidates(op="vector_add", limit=500)["items"]
        self.assertIn(sub["id"], [x["id"] for x in listed])
        self.assertEqual([x["note"] for x in self.agent.iter_candidates(op="vector_add", page_size=1) if x["id"] == sub["id"]],
                         [note])
        # mine: this token's own candidates (the reviewer token submitted none of them)
        self.assertTrue(self.agent.candidate(sub["id"])["mine"])
        self.assertFalse(self.reviewer.candidate(sub["id"])["mine"])
        self.assertIn(sub["id"], [x["id"] for x in self.agent.iter_candidates(mine=True)])
        self.assertNotIn(sub["id"], [x["id"] for x in self.reviewer.candidates(mine=True)["items"]])

    def test_wrong_kernel_names_its_first_mismatch(self) -> None:
        v = self.agent.evaluate("vector_add", WRONG, bench=["n1M"], timeout=300)
        self.assertEqual(v["status"], "incorrect", v["reason"])
        wrong = [w for w in v["workloads"] if not w["correct"]]
        self.assertTrue(wrong, v["workloads"])
        first = wrong[0]["first_mismatch"]
        self.assertEqual(first["tensor"], "c")
        self.assertIsInstance(first["index"], list)
        self.assertNotEqual(first["got"], first["expected"])

    # --- progress ---------------------------------------------------------------------------

    def test_follow_streams_every_event_and_resumes_after_an_id(self) -> None:
        seen: List[kwb.types.Event] = []
        v = self.agent.evaluate("vector_add", VECTORIZED, bench=["n1M"], note=unique("sdk sse"), on_event=seen.append)
        kinds = [e["kind"] for e in seen]
        self.assertEqual(seen[0]["kind"], "state")
        self.assertEqual((seen[-1]["kind"], seen[-1]["data"]["state"]), ("state", "done"))
        stages = {e["data"]["stage"] for e in seen if e["kind"] == "stage" and e["data"].get("finished")}
        self.assertTrue({"analyze", "compile", "validate", "benchmark"} <= stages, stages)
        verdicts = [e["data"] for e in seen if e["kind"] == "verdict"]
        self.assertEqual(verdicts, [{"status": v["status"], "reason": v["reason"], "comparison": "none"}], kinds)
        ids = [e["id"] for e in seen]
        self.assertEqual(ids, sorted(set(ids)), "event ids increase, none repeated")

        # A finished candidate's stream replays; Last-Event-ID resumes after the given event.
        cid = v["candidate"]
        self.assertEqual([e["id"] for e in self.agent.follow(cid)], ids)
        middle = ids[len(ids) // 2]
        self.assertEqual([e["id"] for e in self.agent.follow(cid, after=middle)], [i for i in ids if i > middle])
        self.assertEqual(list(self.agent.follow(cid, after=ids[-1])), [])
        # The long-poll form gives the same events.
        page = self.agent.events(cid, after=middle, wait=0)
        self.assertTrue(page["done"])
        self.assertEqual([e["id"] for e in page["events"]], [i for i in ids if i > middle])

    # --- errors -----------------------------------------------------------------------------

    def assertApiError(self, cm: Any, status: int, type_: str, words: str) -> None:
        e = cm.exception
        self.assertIsInstance(e, kwb.ApiError)
        self.assertEqual((e.status, e.type), (status, type_), str(e))
        self.assertIn(words, e.message)
        self.assertIn(f"HTTP {status} {type_}: ", str(e))

    def test_errors_carry_the_api_type_and_message(self) -> None:
        with self.assertRaises(kwb.NotFoundError) as cm:
            self.agent.spec("nope")
        self.assertApiError(cm, 404, "not_found", "nope")
        with self.assertRaises(kwb.NotFoundError) as cm:
            self.agent.candidate("c-0123456789abcdef")
        self.assertApiError(cm, 404, "not_found", "c-0123456789abcdef")

        with self.assertRaises(kwb.UnauthorizedError) as cm:
            kwb.Client(self.daemon.url, "").specs()
        self.assertApiError(cm, 401, "unauthorized", "bearer token")
        with self.assertRaises(kwb.UnauthorizedError) as cm:
            kwb.Client(self.daemon.url, "kwb_not_a_token").specs()
        self.assertEqual(cm.exception.status, 401)

        with self.assertRaises(kwb.BadRequestError) as cm:
            self.agent.submit("vector_add", VECTORIZED, parent="nope")
        self.assertApiError(cm, 400, "invalid_field", "parent")
        with self.assertRaises(kwb.BadRequestError) as cm:
            self.agent.candidate("c-0123456789abcdef", wait=100)
        self.assertApiError(cm, 400, "bad_parameter", "wait")
        with self.assertRaises(kwb.UnprocessableError) as cm:
            self.agent.submit("vector_add", VECTORIZED, bench=["n3"])
        self.assertApiError(cm, 422, "unknown_workload", "n3")
        with self.assertRaises(kwb.UnprocessableError) as cm:
            self.agent.submit("vector_add", VECTORIZED, flags=["-fplugin=x.so"])
        self.assertApiError(cm, 422, "forbidden_flag", "-fplugin")

        sub = self.agent.submit("vector_add", VECTORIZED, bench=["n1M"], note=unique("sdk forbidden"))
        with self.assertRaises(kwb.ForbiddenError) as cm:
            self.agent.promote(sub["id"])
        self.assertApiError(cm, 403, "forbidden", "reviewer")
        self.agent.wait(sub["id"], timeout=300)
        with self.assertRaises(kwb.ConflictError) as cm:  # a bench subset is never promotable
            self.reviewer.promote(sub["id"])
        self.assertApiError(cm, 409, "not_promotable", "n16M")

        dead = kwb.Client("http://127.0.0.1:1", retries=1, backoff=0.01)
        with self.assertRaises(kwb.TransportError) as cm2:
            dead.health()
        self.assertEqual(cm2.exception.attempts, 2)
        self.assertIn("kwb serve", str(cm2.exception))

    # --- lineage ---------------------------------------------------------------------------

    def test_ten_attempts_with_parents_come_back_as_one_tree(self) -> None:
        # A token of its own: its attempts for vector_add are these ten alone.
        me = self.agent.with_token(self.admin.create_token("agent", "sdk-lineage")["token"])
        broken = 'extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, long n) { int x = ; }\n'
        # (parent index, source): correct kernels are timed on n1M only.
        plan = [(None, WRONG), (0, broken), (0, VECTORIZED), (2, WRONG), (2, VECTORIZED), (4, broken),
                (4, VECTORIZED), (6, WRONG), (1, VECTORIZED), (6, VECTORIZED)]
        ids: List[str] = []
        for i, (parent, source) in enumerate(plan):
            sub = me.submit("vector_add", source + f"\n// attempt {i}\n", note=f"attempt {i}",
                            parent=None if parent is None else ids[parent],
                            bench=["n1M"] if source is VECTORIZED else None)
            ids.append(sub["id"])
        for cid in ids:
            me.wait(cid, timeout=300)

        def nodes_of(forest: Any) -> Dict[str, Any]:
            out: Dict[str, Any] = {}
            stack = [(n, None) for n in forest["roots"]]
            while stack:
                node, under = stack.pop()
                out[node["id"]] = dict(node, under=under)
                stack.extend((c, node["id"]) for c in node["children"])
            return out

        for forest in (me.attempts("vector_add"), me.lineage(ids[7])):
            self.assertEqual((forest["count"], forest["truncated"]), (10, False))
            self.assertEqual([r["id"] for r in forest["roots"]], [ids[0]])
            nodes = nodes_of(forest)
            self.assertEqual(set(nodes), set(ids))
            for i, (parent, source) in enumerate(plan):
                n = nodes[ids[i]]
                self.assertEqual(n["under"], None if parent is None else ids[parent], f"attempt {i}")
                self.assertEqual(n["note"], f"attempt {i}")
                expected = {id(VECTORIZED): "accepted", id(WRONG): "incorrect", id(broken): "compile_error"}[id(source)]
                self.assertEqual(n["status"], expected, n)
                self.assertNotIn("\n", n["reason"])
            self.assertEqual(forest["latest"], ids[9])
            self.assertTrue(nodes[ids[9]]["latest"])
            accepted = [nodes[c] for c in ids if nodes[c]["status"] == "accepted"]
            # The verified best: promotable first, then the fastest against the incumbent, then the earliest.
            best = max(accepted, key=lambda n: (n["promotable"] is True, n["geomean_vs_incumbent"] is not None,
                                                n["geomean_vs_incumbent"] or 0.0, -ids.index(n["id"])))
            self.assertEqual(forest["best"], best["id"])
            self.assertEqual([c for c in ids if nodes[c]["best"]], [best["id"]])
        capped = me.attempts("vector_add", limit=4)
        self.assertEqual((capped["count"], capped["total"], capped["truncated"]), (4, 10, True))

    # --- retries and idempotency ------------------------------------------------------------

    def test_the_same_idempotency_key_gives_one_candidate(self) -> None:
        note, key = unique("sdk idem"), "sdk-" + uuid.uuid4().hex
        a = self.agent.submit("vector_add", VECTORIZED, bench=["n1M"], note=note, idempotency_key=key)
        b = self.agent.submit("vector_add", VECTORIZED, bench=["n1M"], note=note, idempotency_key=key)
        self.assertEqual(a["id"], b["id"])
        self.assertEqual((a["replayed"], b["replayed"]), (False, True))
        self.assertEqual([c["id"] for c in self.agent.iter_candidates(op="vector_add") if c["note"] == note], [a["id"]])
        with self.assertRaises(kwb.UnprocessableError) as cm:
            self.agent.submit("vector_add", WRONG, bench=["n1M"], note=note, idempotency_key=key)
        self.assertApiError(cm, 422, "idempotency_conflict", key)

    def test_a_submission_whose_reply_is_lost_is_retried_without_a_duplicate(self) -> None:
        proxy = LossyProxy(self.daemon.port, match=b"POST /v1/candidates ", drop=1)
        self.addCleanup(proxy.close)
        waits: List[float] = []
        via = kwb.Client(proxy.url, self.agent._http.token, retries=2, backoff=0.05,
                         sleep=lambda s: (waits.append(s), time.sleep(s)))
        note = unique("sdk lost reply")
        sub = via.submit("vector_add", VECTORIZED, bench=["n1M"], note=note)
        self.assertTrue(sub["replayed"], "the retry was answered with the candidate the lost reply had")
        self.assertEqual([dropped for line, dropped in proxy.requests if line.startswith(b"POST")], [True, False])
        self.assertEqual(waits, [0.05])
        self.assertEqual([c["id"] for c in self.agent.iter_candidates(op="vector_add") if c["note"] == note], [sub["id"]])

        # A write that is not safe to repeat (promote) is not retried after a lost reply.
        proxy2 = LossyProxy(self.daemon.port, match=b"POST /v1/candidates/", drop=1)
        self.addCleanup(proxy2.close)
        with self.assertRaises(kwb.TransportError):
            kwb.Client(proxy2.url, self.reviewer._http.token, retries=3, backoff=0.01).reject(sub["id"], "lost")
        self.assertEqual(len(proxy2.requests), 1)

    def test_503_with_retry_after_is_retried_then_raised_with_its_type(self) -> None:
        # One stream slot: while a candidate's event stream holds it, long-polls get 503
        # too_many_streams with Retry-After: 1. The candidate loops until its 5 s run timeout.
        d = Daemon(["--max-streams", "1", "--run-timeout-ms", "5000", "--time-budget-ms", "20"], auth=False)
        self.addCleanup(d.remove)
        waits: List[float] = []
        wb = kwb.Client(d.url, retries=2, sleep=lambda s: (waits.append(s), time.sleep(s)))
        slow = wb.submit("vector_add", ENDLESS, bench=["n1M"])
        other = wb.submit("vector_add", VECTORIZED, bench=["n1M"])
        stream = wb.follow(slow["id"])
        self.assertEqual(next(stream)["kind"], "state")  # the stream is open and holds the slot
        with self.assertRaises(kwb.ServiceUnavailableError) as cm:
            wb.events(other["id"], wait=1)
        self.assertApiError(cm, 503, "too_many_streams", "")
        self.assertEqual(cm.exception.retry_after, 1.0)
        self.assertEqual(waits, [1.0, 1.0], "two retries, each after Retry-After")
        # Once the slot is free again (the looping candidate's verdict ends its stream) a
        # retrying client gets through.
        rest = list(stream)
        self.assertEqual(rest[-1]["data"]["state"], "done")
        self.assertEqual(wb.verdict(slow["id"])["status"], "time_limit")
        patient = kwb.Client(d.url, retries=30)
        self.assertEqual(patient.verdict(other["id"], timeout=300)["status"], "accepted")

    # --- cancel -----------------------------------------------------------------------------

    def test_cancel(self) -> None:
        sub = self.agent.submit("vector_add", VECTORIZED, note=unique("sdk cancel"))  # every bench workload
        r = self.agent.cancel(sub["id"])
        self.assertEqual(r["id"], sub["id"])
        self.assertIn(r["detail"], ("cancelled", "cancellation requested; it stops after the current stage"))
        events = list(self.agent.follow(sub["id"]))
        self.assertEqual(events[-1]["data"]["state"], "cancelled")
        c = self.agent.wait(sub["id"], timeout=300)
        self.assertEqual((c["state"], c["status"], c["verdict"]), ("cancelled", None, None))
        with self.assertRaises(kwb.CandidateCancelled):
            self.agent.verdict(sub["id"])
        self.assertEqual(self.agent.cancel(sub["id"])["state"], "cancelled")
        with self.assertRaises(kwb.ConflictError) as cm:  # promoting it says why it cannot be
            self.reviewer.promote(sub["id"])
        self.assertEqual(cm.exception.type, "not_promotable")
        self.assertIn("was cancelled before it got a verdict", str(cm.exception))

    # --- profiles ---------------------------------------------------------------------------

    def test_profile_request_of_a_cpu_candidate_is_not_applicable(self) -> None:
        sub = self.agent.submit("vector_add", VECTORIZED, bench=["n1M"], note=unique("sdk profile"), profile=True)
        c = self.agent.wait(sub["id"], timeout=300)
        self.assertTrue(c["profile"])
        self.assertEqual(c["verdict"]["profile"]["status"], "not_applicable", c["verdict"].get("profile"))
        again = self.agent.profile(sub["id"])  # a profile pass: a new candidate, parent the first
        self.assertEqual(again["parent"], sub["id"])
        self.assertNotEqual(again["id"], sub["id"])
        self.assertEqual(again["links"]["profile"], "/v1/candidates/" + again["id"] + "/profile")
        second = self.agent.wait(again["id"], timeout=300)
        self.assertEqual((second["parent"], second["profile"], second["bench"]), (sub["id"], True, ["n1M"]))
        self.assertEqual(second["verdict"]["profile"]["status"], "not_applicable")
        with self.assertRaises(kwb.NotFoundError):
            self.agent.profile("c-0000000000000000")


if __name__ == "__main__":
    unittest.main()
