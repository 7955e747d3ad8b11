"""The client of the kwb daemon's HTTP API: one method per route of docs/api.md.

    wb = Client()                                   # KWB_SERVER, KWB_TOKEN
    sub = wb.submit("vector_add", source)            # 202: the id at once
    for ev in wb.follow(sub["id"]):                  # Server-Sent Events until done
        print(ev["kind"], ev["data"])
    verdict = wb.candidate(sub["id"])["verdict"]     # kwb.verdict.v1

Every method raises :class:`kwb.ApiError` (a subclass per status) with the API's error type
and message, or :class:`kwb.TransportError` when the daemon cannot be reached after retries.
The client holds no connection state: one instance may be used from many threads.
"""
import http.client
import json
import os
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Union, cast

from . import sse
from .errors import CandidateCancelled, TransportError, WaitTimeout
from .review_calls import ReviewCalls, path_id as _path_id
from .transport import Transport
from .types import (AnalysisRules, Attempts, CancelResult, ProfileQueued, Candidate, CandidateComparison, CandidatePage,
                    CreatedToken, Device, DeviceClass, Event, EventsPage, Gpu, Health, Lineage, RevokedToken, Spec,
                    SpecAdded, Submission, TokenInfo, Verdict)

DEFAULT_SERVER = "http://127.0.0.1:8470"
TERMINAL_STATES = ("done", "cancelled")


def settled(candidate: Candidate) -> bool:
    """Whether nothing more will happen to a candidate: cancelled, or done with its decision (the
    comparison with the incumbent, which follows the verdict) in or not applying."""
    if candidate["state"] not in TERMINAL_STATES:
        return False
    return candidate.get("comparison", {}).get("state") != "pending"


def ends_stream(event: Event) -> bool:
    """The last event of a candidate's stream: cancelled; done without a comparison to follow;
    or the comparison's decision (docs/api.md "Events")."""
    if event["kind"] == "comparison":
        return True
    data = event["data"]
    return event["kind"] == "state" and (data.get("state") == "cancelled" or
                                         (data.get("state") == "done" and data.get("comparison") != "pending"))
_MAX_WAIT_S = 60  # the API's bound on ?wait=


class Client(ReviewCalls):
    """A client of one daemon (the review and library calls: :class:`kwb.review_calls.ReviewCalls`).

    server: base URL (default ``$KWB_SERVER``, else ``http://127.0.0.1:8470``).
    token: bearer token (default ``$KWB_TOKEN``; none for a ``--no-auth`` daemon).
    timeout: socket timeout of ordinary requests, seconds (long-polls add their wait to it).
    retries, backoff, max_retry_wait: see :mod:`kwb.transport`.
    stream_timeout: longest silence on an event stream before it is reopened (the daemon sends
    a heartbeat every 15 s by default).
    """

    def __init__(self, server: Optional[str] = None, token: Optional[str] = None, *, timeout: float = 30.0,
                 retries: int = 4, backoff: float = 0.25, max_retry_wait: float = 30.0,
                 stream_timeout: float = 60.0, sleep: Callable[[float], None] = time.sleep) -> None:
        self.server = (server or os.environ.get("KWB_SERVER") or DEFAULT_SERVER).rstrip("/")
        self.stream_timeout = stream_timeout
        self._sleep = sleep
        self._http = Transport(self.server, token if token is not None else os.environ.get("KWB_TOKEN"),
                               timeout=timeout, retries=retries, backoff=backoff, max_retry_wait=max_retry_wait,
                               sleep=sleep)

    def __repr__(self) -> str:
        return f"kwb.Client({self.server!r})"

    def with_token(self, token: str) -> "Client":
        """The same server and settings, another token (e.g. a reviewer's for promote)."""
        t = self._http
        return Client(self.server, token, timeout=t.timeout, retries=t.retries, backoff=t.backoff,
                      max_retry_wait=t.max_retry_wait, stream_timeout=self.stream_timeout, sleep=self._sleep)

    # --- the daemon ------------------------------------------------------------------------

    def health(self) -> Health:
        """``GET /v1/health`` (no token needed)."""
        return cast(Health, self._get("/v1/health"))

    def devices(self) -> List[Device]:
        """``GET /v1/devices``: devices and their calibrated peaks."""
        return cast(List[Device], self._get("/v1/devices")["devices"])

    def device_classes(self) -> List[DeviceClass]:
        """``GET /v1/devices``' ``device_classes``: what ``submit(device_class=...)`` may name
        (the local machine's classes, or the Slurm fleet's with their partitions)."""
        return cast(List[DeviceClass], self._get("/v1/devices")["device_classes"])

    def gpus(self) -> List[Gpu]:
        """``GET /v1/devices``' ``gpus``: this host's GPUs, one timing lane each, with the
        ``device_id`` of their calibration (a ``devices()`` entry's ``id``)."""
        return cast(List[Gpu], self._get("/v1/devices")["gpus"])

    def whoami(self) -> Dict[str, Any]:
        """``GET /v1/whoami``: this token's ``name``, ``role`` and ``token_id``, and ``auth``."""
        return cast(Dict[str, Any], self._get("/v1/whoami"))

    def analysis_rules(self) -> AnalysisRules:
        """``GET /v1/analysis/rules``: the static-analysis rules (their ids appear in diagnostics)."""
        return cast(AnalysisRules, self._get("/v1/analysis/rules"))

    def openapi(self) -> Dict[str, Any]:
        """``GET /openapi.json``."""
        return cast(Dict[str, Any], self._get("/openapi.json"))

    def metrics(self) -> str:
        """``GET /metrics`` (Prometheus text)."""
        return self._http.request("GET", "/metrics").text()

    # --- specs ------------------------------------------------------------------------------

    def specs(self) -> List[Spec]:
        """``GET /v1/specs``: every op at its current version."""
        return cast(List[Spec], self._get("/v1/specs")["specs"])

    def spec(self, op: str) -> Spec:
        """``GET /v1/specs/{op}``: the contract (entry, tensors, dtypes, tolerances, workloads)."""
        return cast(Spec, self._get(f"/v1/specs/{op}"))

    def add_spec(self, files: Mapping[str, str]) -> SpecAdded:
        """``POST /v1/specs`` (reviewer): a spec folder's files by name (spec.json, reference.cpp, ...)."""
        return cast(SpecAdded, self._post("/v1/specs", {"files": dict(files)}))

    def add_spec_dir(self, folder: Union[str, Path]) -> SpecAdded:
        """:meth:`add_spec` with every file of ``folder`` (not recursive)."""
        files = {p.name: p.read_text(encoding="utf-8") for p in sorted(Path(folder).iterdir()) if p.is_file()}
        return self.add_spec(files)

    # --- candidates -------------------------------------------------------------------------

    def submit(self, op: str, source: str, *, backend: str = "cpu", variant: Optional[str] = None,
               source_name: Optional[str] = None, flags: Optional[Sequence[str]] = None,
               note: Optional[str] = None, parent: Optional[str] = None,
               launch: Optional[Union[str, Sequence[str]]] = None, tune: Optional[Mapping[str, Sequence[int]]] = None,
               bench: Optional[Sequence[str]] = None, device_class: Optional[str] = None,
               idempotency_key: Optional[str] = None, profile: bool = False) -> Submission:
        """``POST /v1/candidates``. Returns at once with the id (``state`` queued).

        Always sent with an ``Idempotency-Key`` (``idempotency_key``, else a fresh random one),
        so a retry after a lost reply returns the same candidate instead of a second one; the
        answer says ``replayed`` when the daemon had it already. Pass your own key per logical
        submission to make a resubmission after a crash of your loop safe too.
        ``bench``: time only these bench workloads (fast feedback; such a verdict is never
        promotable). ``launch``/``tune``: the cuda form's plan and tunables (docs/cuda.md).
        ``device_class``: evaluate on a device of this class (one of ``devices()["device_classes"]``,
        e.g. ``cuda-sm_90``); an unknown one is refused (422 ``unknown_device_class``).
        ``profile``: ask for a profile; the verdict's ``profile`` says what came of it
        (``no_device`` where the daemon has no GPU; docs/verdict.md "Profiles").
        """
        body: Dict[str, Any] = {"op": op, "source": source, "backend": backend}
        optional = {"variant": variant, "source_name": source_name, "note": note, "parent": parent,
                    "launch": launch if launch is None or isinstance(launch, str) else list(launch),
                    "flags": None if flags is None else list(flags),
                    "tune": None if tune is None else {k: list(v) for k, v in tune.items()},
                    "bench": None if bench is None else list(bench), "device_class": device_class}
        body.update({k: v for k, v in optional.items() if v is not None})
        if profile:
            body["profile"] = True
        key = idempotency_key or "kwb-py-" + uuid.uuid4().hex
        resp = self._http.request("POST", "/v1/candidates", body=body, headers={"Idempotency-Key": key}, safe=True)
        out = resp.json()
        out["replayed"] = resp.headers.get("idempotent-replay", "").lower() == "true"
        out["idempotency_key"] = key
        return cast(Submission, out)

    def candidate(self, candidate_id: str, wait: Optional[int] = None, until: Optional[str] = None) -> Candidate:
        """``GET /v1/candidates/{id}`` with its verdict once done; ``wait`` (0-60 s) long-polls until
        the verdict and its decision are in (``until="verdict"``: the verdict alone)."""
        timeout = None if wait is None else self._http.timeout + wait
        return cast(Candidate, self._get(f"/v1/candidates/{_path_id(candidate_id)}", {"wait": wait, "until": until},
                                         timeout))

    def candidates(self, *, op: Optional[str] = None, state: Optional[str] = None, status: Optional[str] = None,
                   mine: Optional[bool] = None, limit: Optional[int] = None, before: Optional[int] = None) -> CandidatePage:
        """``GET /v1/candidates``: one page, newest first (``next`` is the older page's path);
        ``mine=True``: only the candidates this token submitted."""
        query = {"op": op, "state": state, "status": status, "mine": None if mine is None else ("true" if mine else "false"),
                 "limit": limit, "before": before}
        return cast(CandidatePage, self._get("/v1/candidates", query))

    def iter_candidates(self, *, op: Optional[str] = None, state: Optional[str] = None,
                        status: Optional[str] = None, mine: Optional[bool] = None,
                        page_size: int = 100) -> Iterator[Candidate]:
        """Every candidate matching the filters, newest first, page after page."""
        before: Optional[int] = None
        while True:
            page = self.candidates(op=op, state=state, status=status, mine=mine, limit=page_size, before=before)
            yield from page["items"]
            nxt = page.get("next")
            if not nxt or "before=" not in nxt:
                return
            before = int(nxt.split("before=", 1)[1].split("&", 1)[0])

    def lineage(self, candidate_id: str, limit: Optional[int] = None) -> Lineage:
        """``GET /v1/candidates/{id}/lineage``: the tree of attempts the candidate belongs to (its
        root, up the ``parent`` links, and every descendant), each node with its note, state,
        status, reason's first line, speed against the incumbent and ``promotable``; ``best`` and
        ``latest`` name the verified best and the newest (docs/api.md "Lineage")."""
        return cast(Lineage, self._get(f"/v1/candidates/{_path_id(candidate_id)}/lineage", {"limit": limit}))

    def attempts(self, op: str, limit: Optional[int] = None) -> Attempts:
        """``GET /v1/attempts?op=``: this token's attempts for ``op`` as a forest through their
        ``parent`` links, with the same fields as :meth:`lineage` (the newest ``limit``, default 100)."""
        return cast(Attempts, self._get("/v1/attempts", {"op": op, "limit": limit}))

    def cancel(self, candidate_id: str) -> CancelResult:
        """``POST /v1/candidates/{id}/cancel``: at once when queued, else after the current stage."""
        return cast(CancelResult, self._post(f"/v1/candidates/{_path_id(candidate_id)}/cancel", safe=True))

    def profile(self, candidate_id: str) -> ProfileQueued:
        """``POST /v1/candidates/{id}/profile``: the candidate evaluated again as a new candidate
        (``parent`` the given id) with a profile asked for; follow the returned id for its verdict."""
        return cast(ProfileQueued, self._post(f"/v1/candidates/{_path_id(candidate_id)}/profile", {}))

    def events(self, candidate_id: str, *, after: Optional[int] = None, wait: Optional[int] = None) -> EventsPage:
        """``GET /v1/candidates/{id}/events?wait=S&after=N``: the long-poll form of the events."""
        wait = _MAX_WAIT_S if wait is None else wait
        return cast(EventsPage, self._get(f"/v1/candidates/{_path_id(candidate_id)}/events",
                                          {"wait": wait, "after": after}, self._http.timeout + wait))

    def follow(self, candidate_id: str, *, after: Optional[int] = None) -> Iterator[Event]:
        """Progress events as they happen (Server-Sent Events), oldest first, ending with the
        last one (:func:`ends_stream`: cancelled, done, or the decision that follows a verdict
        whose comparison was pending). A dropped stream is reopened with
        ``Last-Event-ID``, so no event is lost or repeated; after ``retries`` drops in a row
        :class:`TransportError` is raised. Closing the generator closes the stream."""
        path = f"/v1/candidates/{_path_id(candidate_id)}/events"
        last, drops = after, 0
        while True:
            headers = {"Accept": "text/event-stream"}
            if last is not None:
                headers["Last-Event-ID"] = str(last)
            resp = self._http.request("GET", path, headers=headers, timeout=self.stream_timeout, stream=True)
            seen = 0
            failure: Optional[BaseException] = None
            try:
                for msg in sse.parse(iter(resp.readline, b"")):
                    event = cast(Event, json.loads(msg.data))
                    last, seen, drops = event["id"], seen + 1, 0
                    yield event
                    if ends_stream(event):
                        return
            except (OSError, http.client.HTTPException) as e:  # reset, timeout, broken chunking
                failure = e
            finally:
                resp.close()
            if seen == 0 and settled(self.candidate(candidate_id)):
                return  # nothing after `last`, and nothing more will come
            drops += 1
            if drops > self._http.retries:
                raise TransportError(self._http.url(path), failure or EOFError("event stream ended early"), drops)
            self._sleep(min(self._http.max_retry_wait, self._http.backoff * 2 ** (drops - 1)))

    def wait(self, candidate_id: str, timeout: Optional[float] = None, *, decision: bool = True) -> Candidate:
        """Long-polls until the candidate is done or cancelled, and (``decision``) its comparison
        with the incumbent decided; returns it (with its verdict). Raises :class:`WaitTimeout`
        after ``timeout`` seconds (None: no limit)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        until = "decision" if decision else "verdict"
        while True:
            left = _MAX_WAIT_S if deadline is None else max(0.0, deadline - time.monotonic())
            c = self.candidate(candidate_id, wait=int(min(_MAX_WAIT_S, left)), until=until)
            if settled(c) or (not decision and c["state"] in TERMINAL_STATES):
                return c
            if deadline is not None and time.monotonic() >= deadline:
                raise WaitTimeout(candidate_id, cast(float, timeout), c["state"])

    def verdict(self, candidate_id: str, timeout: Optional[float] = None, *, decision: bool = True) -> Verdict:
        """:meth:`wait`, then the verdict; raises :class:`CandidateCancelled` for a cancelled one.
        ``decision=False``: as soon as the verdict is stored, without the comparison's fields
        (``summary.decision`` null while it runs: :meth:`decision` waits for it)."""
        c = self.wait(candidate_id, timeout, decision=decision)
        if c["state"] == "cancelled" or not c.get("verdict"):
            raise CandidateCancelled(candidate_id)
        return cast(Verdict, c["verdict"])

    def decision(self, candidate_id: str, timeout: Optional[float] = None) -> CandidateComparison:
        """Waits for the comparison with the incumbent that follows the verdict and returns it
        (``state`` done, or none where no comparison applies); raises :class:`CandidateCancelled`
        for a cancelled candidate."""
        c = self.wait(candidate_id, timeout)
        if c["state"] == "cancelled":
            raise CandidateCancelled(candidate_id)
        return cast(CandidateComparison, c.get("comparison") or {"state": "none"})

    def evaluate(self, op: str, source: str, *, timeout: Optional[float] = None,
                 on_event: Optional[Callable[[Event], None]] = None, decision: bool = True,
                 **submit_args: Any) -> Verdict:
        """Submit and wait: the verdict, with its decision against the incumbent (``decision=False``:
        as soon as the verdict is stored). ``on_event`` is called with each progress event
        (followed over SSE) before the verdict is fetched. ``submit_args``: see :meth:`submit`."""
        sub = self.submit(op, source, **submit_args)
        if on_event is not None:
            for event in self.follow(sub["id"]):
                on_event(event)
                if not decision and event["kind"] == "verdict":
                    break
        return self.verdict(sub["id"], timeout, decision=decision)

    # --- tokens (admin) ---------------------------------------------------------------------

    def create_token(self, role: str, name: Optional[str] = None) -> CreatedToken:
        """``POST /v1/tokens``: the token's secret is in the answer, once."""
        body = {"role": role} if name is None else {"role": role, "name": name}
        return cast(CreatedToken, self._post("/v1/tokens", body))

    def tokens(self) -> List[TokenInfo]:
        """``GET /v1/tokens`` (never their secrets)."""
        return cast(List[TokenInfo], self._get("/v1/tokens")["tokens"])

    def revoke_token(self, token_id: int) -> RevokedToken:
        """``DELETE /v1/tokens/{token_id}``: effective from the next request."""
        return cast(RevokedToken, self._http.request("DELETE", f"/v1/tokens/{int(token_id)}", safe=True).json())
