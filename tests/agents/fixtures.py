"""Folders the agents tests start a daemon on: a specs folder with a CI-sized row_sum and a
kernels folder whose only kernel is a deliberately slow row_sum (the library is seeded from it)."""
import json
import shutil
from pathlib import Path

from daemon import SOURCE_DIR, kernels_folder

HERE = Path(__file__).resolve().parent

# The shipped row_sum times 16M-element bench workloads (64 MiB each); a tuning loop that
# evaluates several variants, each timed interleaved against a slow incumbent on every bench
# workload, must fit a CI test's budget on two cores. The same op with bench workloads of 1M
# elements: its reference, tolerances, distributions and test workloads are the shipped ones.
SMALL_BENCH = [
    {"name": "1024x1024", "params": {"rows": 1024, "cols": 1024}, "label": "CI-sized: 4 MiB"},
    {"name": "16x65536", "params": {"rows": 16, "cols": 65536}, "label": "CI-sized: few long rows"},
]


def small_row_sum_specs(root: Path) -> Path:
    """``root/specs/row_sum``: specs/row_sum with SMALL_BENCH; pass it as --specs-dir (the only
    specs folder, so this row_sum does not meet the shipped one)."""
    src, dst = SOURCE_DIR / "specs" / "row_sum", root / "specs" / "row_sum"
    shutil.copytree(src, dst)
    text = "\n".join(line for line in (src / "spec.json").read_text().splitlines() if not line.lstrip().startswith("//"))
    spec = json.loads(text)
    spec["workloads"]["bench"] = SMALL_BENCH
    (dst / "spec.json").write_text(json.dumps(spec, indent=2) + "\n")
    return root / "specs"


def slow_row_sum_kernels(root: Path) -> Path:
    return kernels_folder(root, "row_sum", "slow", (HERE / "slow_row_sum.cpp").read_text(), variant="f32",
                          entry="kwb_row_sum_f32", summary="deliberately slow test incumbent")
