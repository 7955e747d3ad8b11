"""Exceptions of the kwb client.

Every error answer of the daemon is ``{"error": {"type": "...", "message": "..."}}``
(docs/api.md); :class:`ApiError` carries both, the HTTP status and ``Retry-After``. Subclasses
by status let a caller catch what it can act on::

    try:
        wb.promote(cid)
    except kwb.ConflictError as e:      # 409: not_promotable / conflict
        print(e.type, e.message)
"""
from typing import Any, Dict, Mapping, Optional, Type


class KwbError(Exception):
    """Base class of everything this package raises."""


class TransportError(KwbError):
    """The daemon could not be reached (connection refused, reset, timed out), after retries."""

    def __init__(self, url: str, cause: BaseException, attempts: int) -> None:
        super().__init__(f"{url}: {type(cause).__name__}: {cause} (after {attempts} attempt{'s' if attempts != 1 else ''}); "
                         "is `kwb serve` running there? (--server URL / KWB_SERVER)")
        self.url = url
        self.cause = cause
        self.attempts = attempts


class ApiError(KwbError):
    """An HTTP error answer of the daemon.

    Attributes: ``status`` (HTTP status), ``type`` (the API's error type, e.g. ``not_found``),
    ``message`` (what is wrong and where), ``retry_after`` (seconds, when the daemon sent
    ``Retry-After``), ``body`` (the whole decoded error object, e.g. ``file``/``field`` of an
    ``invalid_spec``), ``method`` and ``path`` of the request.
    """

    def __init__(self, status: int, type: str, message: str, *, method: str = "", path: str = "",
                 retry_after: Optional[float] = None, body: Optional[Mapping[str, Any]] = None) -> None:
        super().__init__(f"HTTP {status} {type}: {message}")
        self.status = status
        self.type = type
        self.message = message
        self.method = method
        self.path = path
        self.retry_after = retry_after
        self.body: Dict[str, Any] = dict(body or {})


class BadRequestError(ApiError):
    """400: invalid_json, invalid_field, invalid_header, bad_parameter, invalid_spec, ..."""


class UnauthorizedError(ApiError):
    """401: no token, or an unknown or revoked one."""


class ForbiddenError(ApiError):
    """403: the token's role is below the route's (an agent promoting), or another token's candidate."""


class NotFoundError(ApiError):
    """404: unknown op, candidate, token or route."""


class ConflictError(ApiError):
    """409: not_promotable (the reason says why), conflict (decided already, incumbent changed), spec_conflict, last_admin."""


class TooLargeError(ApiError):
    """413: the source or the request body is over its limit."""


class UnprocessableError(ApiError):
    """422: unknown_op, unknown_variant, unknown_workload, unsupported_backend, forbidden_flag, idempotency_conflict."""


class RateLimitedError(ApiError):
    """429: rate_limited, queue_quota, too_many_connections, too_many_failed_logins (see ``retry_after``)."""


class ServerError(ApiError):
    """5xx."""


class ServiceUnavailableError(ServerError):
    """503: busy, too_many_streams, server_busy, too_many_connections, no_library."""


class InsufficientStorageError(ServerError):
    """507: the workspace's disk is full; nothing was stored."""


_BY_STATUS: Dict[int, Type[ApiError]] = {
    400: BadRequestError, 401: UnauthorizedError, 403: ForbiddenError, 404: NotFoundError,
    409: ConflictError, 413: TooLargeError, 422: UnprocessableError, 429: RateLimitedError,
    503: ServiceUnavailableError, 507: InsufficientStorageError,
}


def api_error(status: int, type: str, message: str, **kw: Any) -> ApiError:
    """The most specific :class:`ApiError` subclass for ``status``."""
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else ApiError)
    return cls(status, type, message, **kw)


class CandidateCancelled(KwbError):
    """The candidate was cancelled before it got a verdict."""

    def __init__(self, candidate_id: str) -> None:
        super().__init__(f"candidate {candidate_id} was cancelled before its verdict")
        self.candidate_id = candidate_id


class WaitTimeout(KwbError):
    """A wait for a verdict ran past its ``timeout``; the candidate is still being evaluated."""

    def __init__(self, candidate_id: str, timeout: float, state: str) -> None:
        super().__init__(f"candidate {candidate_id} is still {state} after {timeout:g} s")
        self.candidate_id = candidate_id
        self.timeout = timeout
        self.state = state
