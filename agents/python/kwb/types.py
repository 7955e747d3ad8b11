"""Response types of the kwb HTTP API (docs/api.md, docs/verdict.md, docs/library.md).

TypedDicts describe the JSON the daemon answers; they are plain ``dict`` at run time. Classes
are ``total=False`` where the daemon leaves keys out (or may add new ones in later versions): a
client should read them with ``.get``. Values the API documents as possibly ``null`` are
``Optional``.

The types live in ``kwb.response_types`` (one module per part of the API) and are imported from
here: ``kwb.types.Verdict``, ``from kwb.types import Verdict``.
"""
from .response_types.common import JSON, Number, NumberOrText
from .response_types.candidates import (Links, Submission, ProfileQueued, CandidateComparison, Candidate,
                                        CandidatePage, AttemptNode, Lineage, Attempts, Event, EventsPage,
                                        CancelResult)
from .response_types.verdicts import (FirstMismatch, TimeStats, Roofline, Comparison, WorkloadResult, ConfigTime,
                                      Diagnostic, Decision, IncumbentRef, Machine, ResourceOccupancy, KernelResources,
                                      ResourceRow, ResourceDiff, VerdictSummary, ProfileOutcome, Verdict)
from .response_types.library import (DiffRow, SameSource, Diff, Promotion, Rejection, WorkloadEvidence,
                                     LeaderboardComparison, LeaderboardRow, Leaderboard, ReviewRow, ReviewQueue,
                                     DispatchConfig, DispatchEntry, LibraryCommit, Library, RetimeQueued, Retime)
from .response_types.scorecard import (ScoreRival, ScoreFastest, ScoreRoofline, ScoreRow, ScoreFamily, ScoreBelowBar,
                                       ScoreSource, ScoreTotals, LibraryReport)
from .response_types.specs import (Workload, Tensor, SpecVariant, ContractTemplate, BackendContract, Spec,
                                   SpecAdded, AnalysisRule, AnalysisRules)
from .response_types.daemon import (Health, Device, Gpu, DeviceClass, CreatedToken, TokenInfo, RevokedToken)

__all__ = [
    "JSON", "Number", "NumberOrText", "Links", "Submission", "ProfileQueued", "CandidateComparison",
    "Candidate", "CandidatePage", "AttemptNode", "Lineage", "Attempts", "Event", "EventsPage", "CancelResult",
    "FirstMismatch", "TimeStats", "Roofline", "Comparison", "WorkloadResult", "ConfigTime", "Diagnostic",
    "Decision", "IncumbentRef", "Machine", "ResourceOccupancy", "KernelResources", "ResourceRow",
    "ResourceDiff", "VerdictSummary", "ProfileOutcome", "Verdict", "DiffRow", "SameSource", "Diff", "Promotion",
    "Rejection", "WorkloadEvidence", "LeaderboardComparison", "LeaderboardRow", "Leaderboard", "ReviewRow",
    "ReviewQueue", "DispatchConfig", "DispatchEntry", "LibraryCommit", "Library", "RetimeQueued", "Retime",
    "Workload", "Tensor", "SpecVariant", "ContractTemplate", "BackendContract", "Spec", "SpecAdded",
    "AnalysisRule", "AnalysisRules", "Health", "Device", "Gpu", "DeviceClass", "CreatedToken", "TokenInfo",
    "RevokedToken", "ScoreRival", "ScoreFastest", "ScoreRoofline", "ScoreRow", "ScoreFamily", "ScoreBelowBar",
    "ScoreSource", "ScoreTotals", "LibraryReport",
]
