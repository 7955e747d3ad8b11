"""A Server-Sent Events parser (the text/event-stream format of the WHATWG HTML standard)."""
from typing import Iterable, Iterator, NamedTuple, Optional


class Message(NamedTuple):
    """One dispatched event: ``event`` (default ``message``), ``data`` (lines joined by ``\\n``)
    and ``id`` (the last ``id:`` seen, or None)."""
    event: str
    data: str
    id: Optional[str]


def parse(lines: Iterable[bytes]) -> Iterator[Message]:
    """Yields each event of a stream of raw lines (as ``HTTPResponse.readline`` returns them).
    Comment lines (``: keep-alive``) and events without data are skipped; a stream that ends
    without the blank line after an event drops that event, as the standard says."""
    event, data, last_id = "", [], None  # type: str, list, Optional[str]
    for raw in lines:
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if not line:
            if data:
                yield Message(event or "message", "\n".join(data), last_id)
            event, data = "", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            data.append(value)
        elif field == "event":
            event = value
        elif field == "id" and "\0" not in value:
            last_id = value
        # "retry" and unknown fields: ignored
