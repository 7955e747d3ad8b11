"""``python -m kwb`` / ``kwb-py``: the client's calls from a shell. Data goes to stdout as JSON
(``events``: one JSON object per line), progress and errors to stderr.

Exit status: 0 done (``eval``, ``submit --wait``, ``status --wait``: the verdict is accepted);
1 a verdict other than accepted, or a cancelled candidate; 2 a usage error, an HTTP error (the
API's ``type: message`` is printed) or an unreachable daemon.
"""
import argparse
import json
import os
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence

from .client import Client
from .errors import CandidateCancelled, KwbError
from .types import Event

_EPILOG = "server: --server, else KWB_SERVER, else http://127.0.0.1:8470; token: --token, else KWB_TOKEN."


def _print(obj: Any) -> None:
    print(json.dumps(obj, indent=2, sort_keys=True))


def progress_line(event: Event) -> str:
    """One human-readable line per progress event (what ``--wait`` prints on stderr)."""
    d = event.get("data", {})
    if event.get("kind") == "stage":
        done = "done" if d.get("finished") else "..."
        return f"  {d.get('stage', '?'):<9} {done:<4} {d.get('detail', '')}".rstrip()
    if event.get("kind") == "verdict":
        return f"  verdict   {d.get('status')}: {d.get('reason', '')}"
    extra = d.get("detail") or ""
    return f"  {d.get('state', '?')}{'  ' + extra if extra else ''}"


def _tune(values: Optional[List[str]]) -> Optional[Dict[str, List[int]]]:
    if not values:
        return None
    out: Dict[str, List[int]] = {}
    for v in values:
        name, sep, nums = v.partition("=")
        try:
            if not sep or not name:
                raise ValueError
            out[name] = [int(x) for x in nums.split(",") if x]
        except ValueError:
            raise SystemExit(f"kwb-py: --tune: expected NAME=1,2,3, got {v!r}") from None
    return out


def _add_submit_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", default="cpu", choices=["cpu", "cuda", "cuda-launcher"])
    p.add_argument("--variant")
    p.add_argument("--source-name", help="file name diagnostics use (default: FILE's name)")
    p.add_argument("--flag", action="append", dest="flags", metavar="F", help="extra compiler flag (repeat)")
    p.add_argument("--note")
    p.add_argument("--parent", metavar="ID")
    p.add_argument("--launch", action="append", metavar="LINE", help="cuda: a launch-plan line (repeat)")
    p.add_argument("--tune", action="append", metavar="NAME=V1,V2", help="cuda: tunable values (repeat)")
    p.add_argument("--bench", action="append", metavar="WORKLOAD",
                   help="time only this bench workload (repeat; such a verdict is not promotable)")
    p.add_argument("--idempotency-key", metavar="K", help="default: a fresh random key")
    p.add_argument("--profile", action="store_true",
                   help="ask for a profile (the verdict's profile says what came of it: no_device without a GPU)")


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="kwb-py", description="Client of the kwb daemon's HTTP API (docs/api.md).",
                                 epilog=_EPILOG)
    ap.add_argument("--server", help="daemon URL")
    ap.add_argument("--token", help="bearer token")
    ap.add_argument("--timeout", type=float, default=30.0, help="socket timeout, seconds (default 30)")
    ap.add_argument("--retries", type=int, default=4, help="retries of connection failures and 429/503 (default 4)")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    sub.add_parser("health", help="GET /v1/health")
    sub.add_parser("devices", help="GET /v1/devices")
    sub.add_parser("rules", help="GET /v1/analysis/rules")
    p = sub.add_parser("specs", help="GET /v1/specs[/OP]")
    p.add_argument("op", nargs="?")
    p = sub.add_parser("spec-add", help="POST /v1/specs with a spec folder's files (reviewer)")
    p.add_argument("folder")

    p = sub.add_parser("submit", help="POST /v1/candidates: prints the id (with --wait: the verdict)")
    p.add_argument("file")
    p.add_argument("--op", required=True)
    p.add_argument("--wait", action="store_true", help="follow progress (stderr), then print the verdict")
    _add_submit_args(p)
    p = sub.add_parser("eval", help="submit OP FILE, follow progress (stderr), print the verdict; exit 0 if accepted")
    p.add_argument("op")
    p.add_argument("file")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    _add_submit_args(p)

    p = sub.add_parser("status", help="GET /v1/candidates/ID")
    p.add_argument("id")
    p.add_argument("--wait", action="store_true", help="until done or cancelled")
    p = sub.add_parser("events", help="follow GET /v1/candidates/ID/events (SSE): one JSON event per line")
    p.add_argument("id")
    p.add_argument("--after", type=int, help="only events after this id")
    p = sub.add_parser("list", help="GET /v1/candidates")
    p.add_argument("--op")
    p.add_argument("--state")
    p.add_argument("--status")
    p.add_argument("--limit", type=int, default=50)
    p = sub.add_parser("lineage", help="GET /v1/candidates/ID/lineage: the tree of attempts it belongs to")
    p.add_argument("id")
    p.add_argument("--limit", type=int)
    p = sub.add_parser("attempts", help="GET /v1/attempts?op=OP: this token's attempts for OP, as a forest")
    p.add_argument("op")
    p.add_argument("--limit", type=int)
    p = sub.add_parser("cancel", help="POST /v1/candidates/ID/cancel")
    p.add_argument("id")
    p = sub.add_parser("profile", help="POST /v1/candidates/ID/profile: a profile pass as a new candidate (prints it)")
    p.add_argument("id")
    p = sub.add_parser("diff", help="GET /v1/candidates/ID/diff")
    p.add_argument("id")
    p.add_argument("--text", action="store_true", help="the unified diff alone")
    p = sub.add_parser("promote", help="POST /v1/candidates/ID/promote (reviewer)")
    p.add_argument("id")
    p = sub.add_parser("reject", help="POST /v1/candidates/ID/reject (reviewer)")
    p.add_argument("id")
    p.add_argument("--reason", required=True)
    p = sub.add_parser("leaderboard", help="GET /v1/leaderboard/OP")
    p.add_argument("op")
    p.add_argument("--limit", type=int)
    p = sub.add_parser("library", help="GET /v1/library[/OP]")
    p.add_argument("op", nargs="?")
    sub.add_parser("library-report", help="GET /v1/library/report: the library's scorecard as last measured")
    p = sub.add_parser("retime", help="POST /v1/library/OP/retime (reviewer)")
    p.add_argument("op")
    p.add_argument("--backend")

    p = sub.add_parser("token", help="tokens (admin): create | list | revoke")
    tsub = p.add_subparsers(dest="token_command", metavar="create|list|revoke")
    tsub.required = True
    t = tsub.add_parser("create")
    t.add_argument("--role", required=True, choices=["agent", "reviewer", "admin"])
    t.add_argument("--name")
    tsub.add_parser("list")
    t = tsub.add_parser("revoke")
    t.add_argument("token_id", type=int)
    return ap


def _submit(wb: Client, op: str, a: argparse.Namespace) -> Dict[str, Any]:
    with open(a.file, encoding="utf-8") as f:
        source = f.read()
    return dict(wb.submit(op, source, backend=a.backend, variant=a.variant,
                          source_name=a.source_name or os.path.basename(a.file), flags=a.flags, note=a.note,
                          parent=a.parent, launch=a.launch, tune=_tune(a.tune), bench=a.bench,
                          idempotency_key=a.idempotency_key, profile=a.profile))


def _finish(wb: Client, cid: str, follow: bool) -> int:
    if follow:
        for event in wb.follow(cid):
            print(progress_line(event), file=sys.stderr)
    try:
        verdict = wb.verdict(cid)
    except CandidateCancelled as e:
        print(f"kwb-py: {e}", file=sys.stderr)
        return 1
    _print(verdict)
    return 0 if verdict.get("status") == "accepted" else 1


def _run(wb: Client, a: argparse.Namespace) -> int:
    simple: Dict[str, Callable[[], Any]] = {
        "health": wb.health, "devices": wb.devices, "rules": wb.analysis_rules,
        "specs": lambda: wb.spec(a.op) if a.op else wb.specs(),
        "spec-add": lambda: wb.add_spec_dir(a.folder),
        "list": lambda: wb.candidates(op=a.op, state=a.state, status=a.status, limit=a.limit),
        "lineage": lambda: wb.lineage(a.id, a.limit), "attempts": lambda: wb.attempts(a.op, a.limit),
        "cancel": lambda: wb.cancel(a.id), "profile": lambda: wb.profile(a.id), "promote": lambda: wb.promote(a.id),
        "reject": lambda: wb.reject(a.id, a.reason), "leaderboard": lambda: wb.leaderboard(a.op, a.limit),
        "library": lambda: wb.library(a.op), "library-report": wb.library_report, "retime": lambda: wb.retime(a.op, a.backend),
    }
    if a.command in simple:
        _print(simple[a.command]())
        return 0
    if a.command == "submit":
        s = _submit(wb, a.op, a)
        print(f"{s['id']} {'replayed' if s['replayed'] else 'submitted'}", file=sys.stderr)
        if not a.wait:
            _print(s)
            return 0
        return _finish(wb, s["id"], True)
    if a.command == "eval":
        s = _submit(wb, a.op, a)
        if not a.quiet:
            print(f"{s['id']} submitted", file=sys.stderr)
        return _finish(wb, s["id"], not a.quiet)
    if a.command == "status":
        if not a.wait:
            _print(wb.candidate(a.id))
            return 0
        c = wb.wait(a.id)
        _print(c)
        return 0 if (c.get("status") == "accepted") else 1
    if a.command == "events":
        for event in wb.follow(a.id, after=a.after):
            print(json.dumps(event, sort_keys=True), flush=True)
        return 0
    if a.command == "diff":
        if a.text:
            sys.stdout.write(wb.diff_text(a.id))
        else:
            _print(wb.diff(a.id))
        return 0
    if a.command == "token":
        if a.token_command == "create":
            _print(wb.create_token(a.role, a.name))
        elif a.token_command == "list":
            _print(wb.tokens())
        else:
            _print(wb.revoke_token(a.token_id))
        return 0
    raise AssertionError(a.command)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = _parser()
    a = ap.parse_args(argv)
    try:
        wb = Client(a.server, a.token, timeout=a.timeout, retries=a.retries)
        return _run(wb, a)
    except (KwbError, OSError, ValueError) as e:
        print(f"kwb-py: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
