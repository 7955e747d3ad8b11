#!/usr/bin/env python3
"""The compatibility gate (docs/api.md "Compatibility"): the surfaces of the built binaries
(tests/compat/surfaces.py) against every snapshot in tests/compat/v*/.

    tests/compat/check_surfaces.py            # check: exit 1 on a removal, rename or type change
    tests/compat/check_surfaces.py --write    # refresh the newest snapshot (after a release)

A check fails on any break against any snapshot (tests/compat/surface_diff.py says what breaks)
and on a CLI --json output that does not conform to the shape documented for it; additions are
listed and pass. ``--write`` writes the current surfaces into the newest tests/compat/vN/ (or
``--snapshot DIR``) once its own check passed, so that a refresh never records a break: a
deliberate break is a new version beside the old one (kwb.verdict.v2, /v2/ routes), with a new
snapshot directory. Run by ctest (CompatSurfaces); the binaries come from KWB_TEST_BIN_DIR
(default build/bin).
"""
import argparse
import json
import sys
from pathlib import Path
from typing import Any, Dict, List

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from surface_diff import breaking_changes  # noqa: E402
from surfaces import FILES, collect  # noqa: E402


def snapshot_dirs() -> List[Path]:
    found = [p for p in HERE.iterdir() if p.is_dir() and p.name.startswith("v") and p.name[1:].isdigit()]
    return sorted(found, key=lambda p: int(p.name[1:]))


def load(folder: Path) -> Dict[str, Any]:
    return {kind: json.loads((folder / name).read_text()) for kind, name in FILES.items() if (folder / name).exists()}


def write(folder: Path, surfaces: Dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for kind, name in FILES.items():
        (folder / name).write_text(json.dumps(surfaces[kind], indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def check(current: Dict[str, Any], problems: List[str]) -> int:
    failed = False
    for p in problems:
        print(f"FAIL (CLI output): {p}")
        failed = True
    dirs = snapshot_dirs()
    if not dirs:
        print("FAIL: no snapshot in tests/compat/v*/ (write one with --write --snapshot tests/compat/v1)")
        return 1
    for folder in dirs:
        for kind, old in load(folder).items():
            breaks, additions = breaking_changes(kind, old, current[kind])
            for b in breaks:
                print(f"FAIL ({folder.name}/{FILES[kind]}): {b}")
            for a in additions:
                print(f"added ({folder.name}/{FILES[kind]}): {a}")
            failed |= bool(breaks)
    if failed:
        print("\nA surface broke: put the old field, route or tool back (an addition beside it is fine), or version "
              "the break (docs/api.md \"Compatibility\").")
        return 1
    print(f"compatible with {', '.join(d.name for d in dirs)}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="refresh the newest snapshot once the check passes")
    ap.add_argument("--snapshot", type=Path, help="with --write: this folder (a new version's, e.g. tests/compat/v2)")
    a = ap.parse_args()
    current, problems = collect()
    if a.write and a.snapshot and not snapshot_dirs():  # the first snapshot
        for p in problems:
            print(f"FAIL (CLI output): {p}")
        if problems:
            return 1
        write(a.snapshot, current)
        print(f"wrote {a.snapshot}")
        return 0
    rc = check(current, problems)
    if a.write and rc == 0:
        folder = a.snapshot or snapshot_dirs()[-1]
        write(folder, current)
        print(f"wrote {folder}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
