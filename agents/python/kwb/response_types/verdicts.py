"""The verdict of a candidate (``kwb.verdict.v1``, docs/verdict.md): per-workload results, times,
roofline, the comparison with the incumbent, diagnostics and the summary. Import them from ``kwb.types``."""
from typing import Any, Dict, List, Optional, TypedDict

from .common import NumberOrText


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
