"""The review and library calls of :class:`kwb.Client` (docs/api.md, docs/library.md): a
candidate's source and diff, promote and reject, the leaderboard, the review queue, the library
and its scorecard, the incumbent, re-timing. ``Client`` inherits them with the GET and POST of
its transport.
"""
from typing import Any, Dict, Mapping, Optional, cast

from .transport import Transport
from .types import Diff, Leaderboard, Library, LibraryReport, Promotion, Rejection, Retime, ReviewQueue


def path_id(candidate_id: str) -> str:
    """A candidate id checked before it goes into a path (``c-`` and hex, no ``/``)."""
    if not isinstance(candidate_id, str) or not candidate_id.startswith("c-") or "/" in candidate_id:
        raise ValueError(f"candidate id: expected one like c-0123456789abcdef, got {candidate_id!r}")
    return candidate_id


class ReviewCalls:
    """Mixed into :class:`kwb.Client`, which sets ``_http``."""
    _http: Transport

    def _get(self, path: str, query: Optional[Mapping[str, Any]] = None, timeout: Optional[float] = None) -> Any:
        return self._http.request("GET", path, query=query, timeout=timeout).json()

    def _post(self, path: str, body: Any = None, *, safe: bool = False) -> Any:
        return self._http.request("POST", path, body=body, safe=safe).json()

    def source(self, candidate_id: str) -> str:
        """``GET /v1/candidates/{id}/source``: the source as submitted."""
        return self._http.request("GET", f"/v1/candidates/{path_id(candidate_id)}/source").text()

    def diff(self, candidate_id: str) -> Diff:
        """``GET /v1/candidates/{id}/diff``: unified diff against the incumbent + per-workload table."""
        return cast(Diff, self._get(f"/v1/candidates/{path_id(candidate_id)}/diff"))

    def diff_text(self, candidate_id: str) -> str:
        """The diff alone (``?format=text``)."""
        return self._http.request("GET", f"/v1/candidates/{path_id(candidate_id)}/diff",
                                  query={"format": "text"}).text()

    def promote(self, candidate_id: str) -> Promotion:
        """``POST /v1/candidates/{id}/promote`` (reviewer): one library commit. 409
        (:class:`ConflictError`) says why not: not accepted, not beating the incumbent, a bench
        subset, decided already, the incumbent changed since it was measured."""
        return cast(Promotion, self._post(f"/v1/candidates/{path_id(candidate_id)}/promote"))

    def reject(self, candidate_id: str, reason: str) -> Rejection:
        """``POST /v1/candidates/{id}/reject`` (reviewer)."""
        return cast(Rejection, self._post(f"/v1/candidates/{path_id(candidate_id)}/reject", {"reason": reason}))

    def leaderboard(self, op: str, limit: Optional[int] = None, *, offset: Optional[int] = None,
                    sort: Optional[str] = None, decision: Optional[str] = None,
                    backend: Optional[str] = None) -> Leaderboard:
        """``GET /v1/leaderboard/{op}``: one page of the accepted candidates, best against the
        incumbent first (``sort="newest"``: latest first); ``decision`` ``pending`` | ``promoted`` |
        ``rejected``; ``total`` counts them all, ``next`` is the next page's path."""
        return cast(Leaderboard, self._get(f"/v1/leaderboard/{op}", {"limit": limit, "offset": offset, "sort": sort,
                                                                    "decision": decision, "backend": backend}))

    def review(self, op: Optional[str] = None, limit: Optional[int] = None) -> ReviewQueue:
        """``GET /v1/review`` (reviewer): the winners waiting for a decision, across ops (or one)."""
        return cast(ReviewQueue, self._get("/v1/review", {"op": op, "limit": limit}))

    def library(self, op: Optional[str] = None) -> Library:
        """``GET /v1/library`` (dispatch entries at the head commit) or ``/v1/library/{op}`` (+ history)."""
        return cast(Library, self._get("/v1/library" + (f"/{op}" if op else "")))

    def library_report(self) -> LibraryReport:
        """``GET /v1/library/report``: the library's scorecard as last measured on the daemon's machine
        (``kwb library report --measure``; ``source`` says when and where): per op, variant, device
        class and bench workload the incumbent against the fastest other implementation
        (``vs_fastest``) and its roofs, per op the share at the bar and the geomean, ``below_bar``."""
        return cast(LibraryReport, self._get("/v1/library/report"))

    def incumbent(self, op: str, *, backend: str = "cpu", variant: Optional[str] = None,
                  device_class: Optional[str] = None) -> Optional[Dict[str, Any]]:
        """The dispatch entry of ``op``/``backend`` (and ``variant``) that a candidate is compared
        with. The daemon takes the entry of the measuring device's class (``cpu-x86_64-v3``,
        ``cuda-sm_90``) first, then (for an x86-64 class) a legacy ``cpu-x86_64`` entry, then
        ``any`` (docs/library.md "Device classes"): pass ``device_class`` to ask for one; without it,
        the one device-specific entry when the library holds exactly one (the usual case: a
        promotion on this daemon's device), else the ``any`` entry. None when the op has no
        entry yet (its first accepted candidate then wins by definition). The verdict's
        ``summary.incumbent`` names the kernel actually compared with."""
        entries = [e for e in self.library(op).get("entries", [])
                   if e.get("op") == op and e.get("backend") == backend and (variant is None or e.get("variant") == variant)]
        by_class: Dict[str, Dict[str, Any]] = {e.get("device_class", ""): e for e in entries}
        if device_class is not None:
            legacy = by_class.get("cpu-x86_64") if device_class.startswith("cpu-x86_64-v") else None
            return by_class.get(device_class) or legacy or by_class.get("any")
        specific = [c for c in by_class if c != "any"]
        if len(specific) == 1:
            return by_class[specific[0]]
        return by_class.get("any")

    def retime(self, op: str, backend: Optional[str] = None) -> Retime:
        """``POST /v1/library/{op}/retime`` (reviewer): queue the op's incumbents for fresh records."""
        return cast(Retime, self._post(f"/v1/library/{op}/retime", None if backend is None else {"backend": backend}))
