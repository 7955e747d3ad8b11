"""kwb: Python client of the Kernel Workbench daemon (``kwb serve``), standard library only.

    import kwb
    wb = kwb.Client()                      # KWB_SERVER / KWB_TOKEN, default http://127.0.0.1:8470
    v = wb.evaluate("vector_add", open("k.cpp").read(), bench=["n1M"])
    print(v["status"], v["reason"])        # kwb.verdict.v1 (docs/verdict.md)

The guide is agents/README.md; the API docs/api.md.
"""
from .client import DEFAULT_SERVER, TERMINAL_STATES, Client, ends_stream, settled
from .errors import (ApiError, BadRequestError, CandidateCancelled, ConflictError, ForbiddenError,
                     InsufficientStorageError, KwbError, NotFoundError, RateLimitedError, ServerError,
                     ServiceUnavailableError, TooLargeError, TransportError, UnauthorizedError, UnprocessableError,
                     WaitTimeout)

__version__ = "0.1.0"

__all__ = [
    "Client", "DEFAULT_SERVER", "TERMINAL_STATES", "__version__", "ends_stream", "settled",
    "KwbError", "ApiError", "TransportError", "CandidateCancelled", "WaitTimeout",
    "BadRequestError", "UnauthorizedError", "ForbiddenError", "NotFoundError", "ConflictError", "TooLargeError",
    "UnprocessableError", "RateLimitedError", "ServerError", "ServiceUnavailableError", "InsufficientStorageError",
]
