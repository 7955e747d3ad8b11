"""The daemon itself (docs/api.md): health, devices and GPUs, tokens. Import them from ``kwb.types``."""
from typing import Any, Dict, List, Optional, TypedDict


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
