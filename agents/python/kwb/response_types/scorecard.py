"""The library's scorecard (docs/library.md "Scorecard"): ``GET /v1/library/report``, its rows,
rivals, families and the rows below the bar. Import them from ``kwb.types``."""
from typing import List, Optional, TypedDict


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
