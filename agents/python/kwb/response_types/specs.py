"""Specs (docs/specs.md): workloads, tensors, variants, the contract per backend, a spec added at
run time, and the analysis rules (docs/analysis.md). Import them from ``kwb.types``."""
from typing import Any, Dict, List, Optional, TypedDict


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
