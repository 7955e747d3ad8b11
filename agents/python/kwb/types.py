"""Response types of the kwb HTTP API (docs/api.md, docs/verdict.md, docs/library.md).

TypedDicts describe the JSON the daemon answers; they are plain ``dict`` at run time. Classes
are ``total=False`` where the daemon leaves keys out (or may add new ones in later versions): a
client should read them with ``.get``. Values the API documents as possibly ``null`` are
``Optional``.
"""
from typing import Any, Dict, List, Optional, TypedDict, Union

JSON = Any
Number = Union[int, float]
NumberOrText = Union[int, float, str]  # "nan", "inf", "-inf" where JSON has no number


# --- candidates ------------------------------------------------------------------------------

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


class FirstMismatch(TypedDict):
    tensor: str
    index: List[int]
    got: NumberOrText
    expected: NumberOrText


class TimeStats(TypedDict, total=False):
    median_ns: float
    mean_ns: float
    min_ns: float
    max_ns: float
    p10_ns: float
    p90_ns: float
    stdev_pct: float
    mean_stderr_pct: float
    samples: int
    discarded: int
    stop_reason: str
    clock: str
    cold: bool
    launch_overhead_ns: float
    sm_clock_min_mhz: float
    sm_clock_max_mhz: float
    timed_ms: float
    interleaved: bool  # timed in block pairs with the incumbent (one pass)


class Roofline(TypedDict, total=False):
    bytes: float
    flops: float
    pct_bw: Optional[float]
    pct_flops: Optional[float]
    pct_bw_sheet: Optional[float]
    pct_flops_sheet: Optional[float]


class Comparison(TypedDict, total=False):
    """The interleaved A/B comparison of one bench workload with the incumbent."""
    label: str  # faster | slower | same | undecided
    ratio: float  # incumbent / candidate, > 1: faster
    low: float
    high: float
    confidence: float
    blocks: int
    samples: int
    candidate_ns: float
    incumbent_ns: float
    ms: float
    stop_reason: str  # settled | budget | max_blocks


class WorkloadResult(TypedDict, total=False):
    name: str
    kind: str  # test | bench
    drawn: bool
    params: Dict[str, int]
    correct: bool
    checks: int
    max_abs_err: NumberOrText
    max_rel_err: NumberOrText
    mismatches: int
    first_mismatch: Optional[FirstMismatch]
    time: Optional[TimeStats]
    roofline: Optional[Roofline]
    vs_incumbent: Optional[float]
    vs_baseline: Optional[float]
    comparison: Optional[Comparison]
    config_times: List["ConfigTime"]  # several tunable configs: how the winner was chosen


class ConfigTime(TypedDict):
    config: str
    median_ns: float
    vs_winner: float
    low: float
    high: float
    label: str  # winner | slower | tie


class Diagnostic(TypedDict, total=False):
    file: str
    line: int
    col: int
    severity: str
    message: str
    rule: Optional[str]


class Decision(TypedDict):
    promotable: bool
    reason: str
    wins: List[str]
    regressions: List[str]
    undecided: List[str]


class IncumbentRef(TypedDict, total=False):
    kernel: str
    commit: str
    source_sha256: str
    device_class: str
    remeasured: bool


class Machine(TypedDict, total=False):
    load_avg_1m: float
    running_max: int
    cores: int
    busy: bool
    detail: str
    others_max: int
    others_seen: int
    samples: int


class ResourceOccupancy(TypedDict):
    threads: int
    blocks_per_sm: int
    warps_per_sm: int
    pct: float
    limited_by: str


class KernelResources(TypedDict):
    """One side of a resource row: one kernel under the config it times the workload with."""
    kernel: str
    config: str
    registers: int
    spill_store_bytes: int
    spill_load_bytes: int
    static_smem_bytes: int
    dynamic_smem_bytes: Optional[int]
    barriers: int
    occupancy: Optional[ResourceOccupancy]


class ResourceRow(TypedDict):
    workload: str
    candidate: Optional[KernelResources]
    incumbent: Optional[KernelResources]
    losses: List[str]


class ResourceDiff(TypedDict):
    """``summary.resources`` (docs/verdict.md "Resources"): the candidate beside the incumbent."""
    rows: List[ResourceRow]
    losses: List[str]


class VerdictSummary(TypedDict, total=False):
    geomean_vs_incumbent: Optional[float]
    geomean_vs_baseline: Optional[float]
    beats_incumbent: Optional[bool]
    incumbent: Optional[IncumbentRef]
    decision: Optional[Decision]
    machine: Optional[Machine]
    wall_ms: float
    stage_ms: Dict[str, float]
    compile_cache: Optional[str]
    samples_sha256: Optional[str]  # the raw samples: GET /v1/candidates/{id}/artifacts/samples
    blocks_sha256: Optional[str]   # the comparison's block pairs: .../artifacts/blocks
    method: Optional[str]          # the measurement method's salt (docs/evaluation.md "Measurement method")
    resources: Optional[ResourceDiff]  # beside the incumbent's, once compared (docs/verdict.md "Resources")


class ProfileOutcome(TypedDict):
    """``verdict.profile`` (docs/verdict.md "Profiles")."""
    status: str  # no_device not_applicable skipped unavailable
    reason: str


class Verdict(TypedDict, total=False):
    """``kwb.verdict.v1`` (docs/verdict.md)."""
    schema: str
    candidate: str
    op: str
    spec_version: int
    variant: str
    backend: str
    status: str  # accepted incorrect compile_error rejected sandbox_violation time_limit memory_limit output_limit crashed no_device error
    reason: str
    diagnostics: List[Diagnostic]
    device: str
    toolchain: str
    workloads: List[WorkloadResult]
    compiler_facts: List[Dict[str, Any]]  # cuda forms, per config (docs/verdict.md "Compiler facts")
    profile: Optional[ProfileOutcome]  # only when asked for with profile=True
    summary: VerdictSummary


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


# --- library and review ----------------------------------------------------------------------

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


class ScoreRival(TypedDict):
    """Another implementation of a scorecard row's op and variant: the spec's vendor baseline or another library kernel."""
    name: str
    kind: str  # baseline | library
    ns: Optional[float]
    status: str  # measured, not_timed, or its verdict's status


class ScoreFastest(TypedDict):
    name: str
    kind: str
    ns: float


class ScoreRoofline(TypedDict):
    pct_bw: Optional[float]
    pct_flops: Optional[float]
    pct_bw_sheet: Optional[float]
    pct_flops_sheet: Optional[float]
    bound: str  # the roof that binds at the workload's intensity: memory | compute ("" when unknown)
    pct_roof: Optional[float]  # % of that roof, calibrated peaks
    pct_roof_sheet: Optional[float]  # % of it, data-sheet peaks


class ScoreRow(TypedDict):
    """One op, variant, device class and bench workload of the scorecard (docs/library.md "Scorecard")."""
    op: str
    variant: str
    backend: str
    device_class: str
    workload: str
    kernel: str
    source_sha256: str
    status: str  # measured | no_device | failed | not_measured
    reason: str
    incumbent_ns: Optional[float]
    stderr_pct: Optional[float]
    samples: int
    rivals: List[ScoreRival]
    fastest: Optional[ScoreFastest]
    vs_fastest: Optional[float]  # the fastest rival's time over the incumbent's (> 1: the incumbent is faster)
    roofline: ScoreRoofline
    device: str
    measured_at: str
    stale: bool


class ScoreFamily(TypedDict):
    op: str
    rows: int
    compared: int
    at_bar: int
    unrivalled: int
    share_at_bar: Optional[float]
    geomean_vs_fastest: Optional[float]


class ScoreBelowBar(TypedDict):
    op: str
    variant: str
    backend: str
    device_class: str
    workload: str
    kernel: str
    vs_fastest: float
    gap_pct: float
    fastest: str


class ScoreSource(TypedDict, total=False):
    kind: str  # measured | stored | none
    detail: str
    measured_at: str
    age_s: Optional[int]
    devices: List[str]
    library_commit: str
    head: str
    file: str


class ScoreTotals(TypedDict):
    rows: int
    compared: int
    at_bar: int
    share_at_bar: Optional[float]


class LibraryReport(TypedDict):
    """``GET /v1/library/report``: the library's scorecard as last measured (``kwb.library_report.v1``)."""
    schema: str
    source: ScoreSource
    bar: float
    rows: List[ScoreRow]
    families: List[ScoreFamily]
    below_bar: List[ScoreBelowBar]
    totals: ScoreTotals


class RetimeQueued(TypedDict):
    id: str
    kernel: str
    backend: str
    links: Links


class Retime(TypedDict):
    op: str
    candidates: List[RetimeQueued]


# --- specs -----------------------------------------------------------------------------------

class Workload(TypedDict, total=False):
    name: str
    params: Dict[str, int]
    backends: List[str]
    label: str


class Tensor(TypedDict, total=False):
    name: str
    role: str  # in | out | inout
    shape: List[str]
    finite: bool


class SpecVariant(TypedDict, total=False):
    name: str
    entry: str
    dtypes: Dict[str, str]
    tolerance: Dict[str, Dict[str, Any]]
    roofline: Dict[str, str]


class ContractTemplate(TypedDict, total=False):
    source: str  # a candidate source to start from
    complete: bool  # True: a correct kernel shipped with the spec; False: a skeleton to fill in
    file: Optional[str]


class BackendContract(TypedDict, total=False):
    """What a candidate of one variant and backend implements (docs/specs.md "The contract")."""
    prototype: str
    params: List[Dict[str, str]]  # [{"name", "type"}] in order
    entry: str  # cpu, cuda-launcher: the symbol to define
    launch_args: str  # cuda: args=(...) of a launch passing every tensor and param
    note: str
    template: ContractTemplate


class Spec(TypedDict, total=False):
    """``GET /v1/specs/{op}`` (docs/specs.md); later daemons may add keys."""
    op: str
    version: int
    summary: str
    params: List[str]
    tensors: List[Tensor]
    variants: List[SpecVariant]
    distributions: List[Dict[str, Any]]
    workloads: Dict[str, List[Workload]]  # "test", "bench"
    deterministic: bool
    baselines: List[Dict[str, Any]]
    shapes: Dict[str, Any]
    contract: Dict[str, Dict[str, BackendContract]]  # variant -> backend -> contract


class SpecAdded(TypedDict, total=False):
    status: str  # added | unchanged
    op: str
    version: int
    commit: str
    digest: str
    replaces: Optional[str]
    spec: Spec


class AnalysisRule(TypedDict):
    id: str
    severity: str
    summary: str


class AnalysisRules(TypedDict):
    version: str
    rules: List[AnalysisRule]


# --- daemon ----------------------------------------------------------------------------------

class Health(TypedDict, total=False):
    status: str  # ok | degraded
    version: str
    auth: bool
    backends: List[str]
    queue: Dict[str, int]
    storage: Dict[str, Any]
    gpus: Dict[str, Any]  # {"lanes": N, "unusable": [{"lane", "reason"}]}
    uptime_s: float


class Device(TypedDict, total=False):
    id: str
    kind: str
    name: str
    copy_bytes_per_s: Optional[float]
    flops_per_s: Optional[float]
    calibrated_at: str
    calibration: Dict[str, Any]
    device_class: Optional[str]
    partition: str  # slurm: the partition its job ran in
    node: str       # slurm: the node that reported it
    reported_at: str  # slurm: when a worker reported it last


class Gpu(TypedDict, total=False):
    """One of the daemon host's GPUs (``GET /v1/devices``' ``gpus``), one timing lane each."""
    lane: str
    ordinal: int
    pci_bus_id: str
    uuid: str
    name: str
    device_id: str  # the id of its calibration in devices() (the Device's ``id``)
    device_class: str  # deprecated: the same value as device_id (a class is DeviceClass.device_class)
    status: str  # ready | unusable | unused
    reason: Optional[str]
    candidate: Optional[str]
    candidates: List[str]
    finished: int


class DeviceClass(TypedDict):
    device_class: str
    kind: str  # "cpu" | "cuda"
    partition: Optional[str]  # slurm: where its jobs go; local: None
    devices: List[str]  # ids of its calibrated devices


class CreatedToken(TypedDict):
    name: str
    role: str
    token: str


class TokenInfo(TypedDict):
    id: int
    name: str
    role: str
    revoked: bool
    created_at: str


class RevokedToken(TypedDict):
    id: int
    name: str
    role: str
    revoked: bool
    detail: str
