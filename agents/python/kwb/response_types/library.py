"""The library and its review (docs/library.md): diffs, promotions, leaderboards, the review
queue, dispatch.json, re-timing. Import them from ``kwb.types``."""
from typing import Any, Dict, List, Optional, TypedDict

from .candidates import Links
from .verdicts import Comparison, ResourceDiff


class DiffRow(TypedDict, total=False):
    workload: str
    params: Dict[str, int]
    candidate_ns: Optional[float]
    incumbent_ns: Optional[float]
    vs_incumbent: Optional[float]
    samples: int
    stderr_pct: float
    comparison: Comparison


class SameSource(TypedDict):
    """Another candidate with exactly this source (``source_sha256``)."""
    id: str
    op: str
    state: str
    status: Optional[str]


class Diff(TypedDict, total=False):
    id: str
    op: str
    variant: str
    backend: str
    status: str
    incumbent: Optional[Dict[str, Any]]
    compared_with: Optional[Dict[str, Any]]
    beats_incumbent: Optional[bool]
    geomean_vs_incumbent: Optional[float]
    decision: Optional[str]
    machine: Optional[Dict[str, Any]]
    workloads: List[DiffRow]
    diff: str
    author: Optional[str]  # the submitting token's name
    source_sha256: str
    bench: List[str]  # the bench subset it was timed on (empty: every bench workload)
    bench_subset: bool
    same_source: List[SameSource]
    resources: Optional[ResourceDiff]  # beside the incumbent's (docs/verdict.md "Resources")


class Promotion(TypedDict, total=False):
    id: str
    decision: str  # promoted
    commit: str
    kernel: str
    speedup: Optional[float]
    recovered: bool


class Rejection(TypedDict):
    id: str
    decision: str  # rejected
    reason: str


class WorkloadEvidence(TypedDict, total=False):
    """One bench workload as a reviewer reads it: the candidate's median ± (relative standard
    error of the mean, %) and samples, and the interleaved comparison with the incumbent."""
    workload: str
    params: Dict[str, int]
    median_ns: float
    stderr_pct: float
    samples: int
    comparison: Optional[Comparison]


class LeaderboardComparison(TypedDict, total=False):
    workload: str
    label: str
    ratio: float
    low: float
    high: float
    blocks: int
    samples: int


class LeaderboardRow(TypedDict, total=False):
    id: str
    variant: str
    backend: str
    device: str
    geomean_vs_incumbent: Optional[float]
    beats_incumbent: Optional[bool]
    decision: Optional[str]
    note: str
    finished_at: str
    author: Optional[str]  # the submitting token's name
    source_sha256: str
    same_source_as: Optional[str]  # the first (fastest) row with exactly this source
    bench: List[str]
    bench_subset: bool
    workloads: List[WorkloadEvidence]
    comparisons: List[LeaderboardComparison]
    promotable: Optional[bool]
    promotable_reason: Optional[str]


class Leaderboard(TypedDict):
    op: str
    distinct_sources: int
    total: int
    offset: int
    limit: int
    next: Optional[str]
    candidates: List[LeaderboardRow]


class ReviewRow(TypedDict, total=False):
    id: str
    op: str
    variant: str
    backend: str
    device: str
    geomean_vs_incumbent: Optional[float]
    beats_incumbent: Optional[bool]
    note: str
    finished_at: str
    author: Optional[str]
    source_sha256: str
    bench: List[str]
    bench_subset: bool
    workloads: List[WorkloadEvidence]
    comparisons: List[LeaderboardComparison]
    promotable: Optional[bool]
    promotable_reason: Optional[str]
    needs_reviewer: bool  # a cuda-launcher: kwb ci promote leaves it to a person


class ReviewQueue(TypedDict):
    """``GET /v1/review`` (reviewer): winners waiting for a decision, oldest first."""
    pending: int
    candidates: List[ReviewRow]


class DispatchConfig(TypedDict, total=False):
    workload: str
    params: Dict[str, int]
    tune: Dict[str, int]
    median_ns: Optional[float]


class DispatchEntry(TypedDict, total=False):
    op: str
    variant: str
    backend: str
    device_class: str
    kernel: str
    entry: str
    candidate: str
    configs: List[DispatchConfig]
    spec_version: Optional[int]
    current_spec_version: Optional[int]
    source: Optional[str]  # GET /v1/library/{op} only
    meta: Optional[Dict[str, Any]]  # GET /v1/library/{op} only


class LibraryCommit(TypedDict):
    commit: str
    summary: str
    time: str
    trailers: Dict[str, str]


class Library(TypedDict, total=False):
    """``GET /v1/library`` (entries) and ``GET /v1/library/{op}`` (+ op, history, spec_history)."""
    commit: str
    path: str
    entries: List[DispatchEntry]
    op: str
    history: List[LibraryCommit]
    spec_history: List[LibraryCommit]


class RetimeQueued(TypedDict):
    id: str
    kernel: str
    backend: str
    links: Links


class Retime(TypedDict):
    op: str
    candidates: List[RetimeQueued]
