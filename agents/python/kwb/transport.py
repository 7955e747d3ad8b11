"""HTTP for the kwb client: JSON bodies, bearer token, error decoding and retries.

Retries (``retries`` extra attempts, so ``retries + 1`` in all):

- connection failures (refused, reset, dropped before the reply, timed out) are retried when
  repeating the request cannot repeat an effect: reads, cancel, and a submission, which always
  carries an ``Idempotency-Key`` (the daemon answers a repeat with the first candidate). Other
  writes (promote, reject, tokens, specs, retime) are retried only when the connection was
  refused, i.e. nothing was sent;
- 429 and 503 answers that carry ``Retry-After`` (the daemon refused before acting: rate limit,
  queue quota, busy database, too many streams, connections or queued requests) are retried
  after it, every request alike; a ``Retry-After`` longer than ``max_retry_wait`` is raised at
  once. A 503 without it (``no_library``) is not transient and is raised;
- nothing else: 507 (disk full) needs a person; other 4xx are the caller's to fix.

Waits between connection attempts: ``backoff * 2**n`` seconds, at most ``max_retry_wait``.
"""
import email.utils
import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Mapping, Optional

from .errors import ApiError, TransportError, api_error

_LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}
_RETRY_STATUSES = {429, 503}


class Response:
    """A successful answer: status, headers (lower-case names) and the body."""

    def __init__(self, status: int, headers: Dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8")) if self.body else None

    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


def _retry_after(value: Optional[str]) -> Optional[float]:
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _decode_error(status: int, body: bytes, headers: Mapping[str, str], method: str, path: str) -> ApiError:
    kind, message, detail = "http_error", "", {}
    try:
        doc = json.loads(body.decode("utf-8"))
        err = doc.get("error") if isinstance(doc, dict) else None
        if isinstance(err, dict):
            kind = str(err.get("type") or kind)
            message = str(err.get("message") or "")
            detail = err
    except (ValueError, UnicodeDecodeError):
        pass
    if not message:
        text = body[:300].decode("utf-8", errors="replace").strip()
        message = text or f"{method} {path} answered {status} without an error body"
    return api_error(status, kind, message, method=method, path=path,
                     retry_after=_retry_after(headers.get("retry-after")), body=detail)


def _refused(exc: BaseException) -> bool:
    """True when the connection was never made, so nothing of the request was sent."""
    cause = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    return isinstance(cause, (ConnectionRefusedError, socket.gaierror))


def _connection_failure(exc: BaseException) -> bool:
    if isinstance(exc, urllib.error.HTTPError):
        return False
    if isinstance(exc, urllib.error.URLError):
        return isinstance(exc.reason, (OSError, socket.timeout))
    return isinstance(exc, (OSError, http.client.HTTPException, socket.timeout))


class Transport:
    def __init__(self, server: str, token: Optional[str], *, timeout: float = 30.0, retries: int = 4,
                 backoff: float = 0.25, max_retry_wait: float = 30.0, user_agent: str = "kwb-python",
                 sleep: Callable[[float], None] = time.sleep) -> None:
        parsed = urllib.parse.urlsplit(server)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"server: expected a URL such as http://127.0.0.1:8470, got {server!r}")
        self.server = server.rstrip("/")
        self.token = token or ""
        self.timeout = timeout
        self.retries = max(0, retries)
        self.backoff = backoff
        self.max_retry_wait = max_retry_wait
        self.user_agent = user_agent
        self._sleep = sleep
        # A loopback daemon is reached directly, whatever http_proxy says; others as urllib would.
        proxies = {} if (parsed.hostname or "") in _LOOPBACK else None
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler(proxies))

    def url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        q = {k: v for k, v in (query or {}).items() if v is not None}
        return self.server + path + ("?" + urllib.parse.urlencode(q, doseq=True) if q else "")

    def request(self, method: str, path: str, *, query: Optional[Mapping[str, Any]] = None,
                body: Any = None, headers: Optional[Mapping[str, str]] = None, timeout: Optional[float] = None,
                safe: Optional[bool] = None, stream: bool = False) -> Any:
        """Sends one request (with retries). Returns a :class:`Response`, or with ``stream`` the
        open ``http.client.HTTPResponse`` (the caller reads and closes it).

        ``safe``: whether a connection failure may be retried (default: True for GET)."""
        if safe is None:
            safe = method == "GET"
        url = self.url(path, query)
        data = None if body is None else json.dumps(body).encode("utf-8")
        hdrs = {"User-Agent": self.user_agent, "Accept": "application/json"}
        if data is not None:
            hdrs["Content-Type"] = "application/json"
        if self.token:
            hdrs["Authorization"] = "Bearer " + self.token
        hdrs.update(headers or {})
        attempt = 0
        while True:
            attempt += 1
            req = urllib.request.Request(url, data=data, method=method, headers=hdrs)
            if method == "POST" and data is None:
                req.add_header("Content-Length", "0")
            try:
                resp = self._opener.open(req, timeout=timeout if timeout is not None else self.timeout)
                if stream:
                    return resp
                with resp:
                    return Response(resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read())
            except urllib.error.HTTPError as e:
                with e:
                    err_headers = {k.lower(): v for k, v in e.headers.items()} if e.headers else {}
                    err = _decode_error(e.code, e.read(), err_headers, method, path)
                wait = self._retry_wait(err, attempt)
                if wait is None:
                    raise err from None
                self._sleep(wait)
            except Exception as e:  # connection-level failures (urllib wraps some, not all)
                if not _connection_failure(e):
                    raise
                if attempt > self.retries or not (safe or _refused(e)):
                    raise TransportError(url, e.reason if isinstance(e, urllib.error.URLError) else e, attempt) from None
                self._sleep(min(self.max_retry_wait, self.backoff * 2 ** (attempt - 1)))

    def _retry_wait(self, err: ApiError, attempt: int) -> Optional[float]:
        if err.status not in _RETRY_STATUSES or err.retry_after is None or attempt > self.retries:
            return None
        return err.retry_after if err.retry_after <= self.max_retry_wait else None

