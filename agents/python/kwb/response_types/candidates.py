"""Candidates (docs/api.md): a submission, a candidate and its pages, the trees of attempts,
progress events, cancellation. Import them from ``kwb.types``."""
from typing import Any, Dict, List, Optional, TypedDict

from .verdicts import Decision, IncumbentRef, ResourceDiff, Verdict


class Links(TypedDict):
    self: str
    events: str
    cancel: str
    profile: str


class Submission(TypedDict):
    """``POST /v1/candidates``: 202 (new) or 200 with ``Idempotent-Replay`` (``replayed``)."""
    id: str
    links: Links
    state: str
    replayed: bool
    idempotency_key: str


class ProfileQueued(TypedDict):
    """``POST /v1/candidates/{id}/profile``: the new candidate that carries the profile."""
    id: str
    parent: str
    state: str
    links: Links


class CandidateComparison(TypedDict, total=False):
    """A candidate's decision against the incumbent, which follows its verdict (docs/library.md
    "Verdict first, decision second"): ``state`` none (no comparison applies), pending, done."""
    state: str
    promotable: bool
    reason: str
    note: str
    incumbent: Optional[IncumbentRef]
    decision: Optional[Decision]
    geomean_vs_incumbent: Optional[float]
    beats_incumbent: Optional[bool]
    ms: Optional[float]
    failure: Optional[Dict[str, str]]  # {status, reason}: the candidate failed during the comparison
    resources: Optional[ResourceDiff]  # beside the incumbent's (docs/verdict.md "Resources")
    workloads: List[Dict[str, Any]]


class Candidate(TypedDict, total=False):
    """``GET /v1/candidates/{id}`` (``verdict`` only there, not in lists)."""
    id: str
    op: str
    variant: str
    backend: str
    state: str  # queued analyzing compiling validating benchmarking deciding done cancelled
    status: Optional[str]
    source_name: str
    source_sha256: str
    flags: List[str]
    bench: List[str]
    device_class: Optional[str]
    profile: bool  # submitted with profile=True
    note: str
    parent: Optional[str]
    attempts: int
    cancel_requested: bool
    mine: bool  # submitted by the calling token
    created_at: str
    updated_at: str
    finished_at: Optional[str]
    links: Links
    verdict: Optional[Verdict]
    comparison: CandidateComparison


class CandidatePage(TypedDict):
    items: List[Candidate]
    next: Optional[str]


class AttemptNode(TypedDict):
    """One attempt of a tree (``lineage``, ``attempts``): its fields, whether it is the verified
    best or the latest, and its children (the attempts whose parent it is), oldest first."""
    id: str
    parent: Optional[str]  # as submitted; a node whose parent is not in the answer is a root
    op: str
    backend: str
    created_at: str
    note: str
    state: str
    status: Optional[str]
    reason: str  # the first line of the verdict's reason ("" until done)
    geomean_vs_incumbent: Optional[float]  # > 1: faster than the incumbent; None: not compared
    comparison: str  # none | pending | done
    promotable: Optional[bool]
    best: bool
    latest: bool
    children: List["AttemptNode"]


class Lineage(TypedDict):
    """``GET /v1/candidates/{id}/lineage``: the tree of attempts ``id`` belongs to (docs/api.md
    "Lineage"); ``best`` and ``latest`` name those nodes; ``truncated``: only the newest ``limit``."""
    id: str
    count: int
    total: int
    limit: int
    truncated: bool
    best: Optional[str]
    latest: Optional[str]
    roots: List[AttemptNode]


class Attempts(TypedDict):
    """``GET /v1/attempts?op=``: the calling token's attempts for an op, as a forest."""
    op: str
    count: int
    total: int
    limit: int
    truncated: bool
    best: Optional[str]
    latest: Optional[str]
    roots: List[AttemptNode]


class Event(TypedDict):
    """One progress event: ``kind`` state | stage | verdict, ``data`` as in docs/api.md."""
    id: int
    at: str
    kind: str
    data: Dict[str, Any]


class EventsPage(TypedDict):
    after: int
    done: bool
    events: List[Event]


class CancelResult(TypedDict):
    id: str
    state: str
    detail: str
