"""A loopback TCP proxy in front of a real daemon that loses replies on the way back.

Every request (urllib sends one per connection, with ``Connection: close``) is forwarded to the
daemon and its whole reply read; for the first ``drop`` requests whose request line starts with
``match`` the client's connection is then closed without a byte of the reply, as when a network
or a proxy drops the connection after the server acted. The daemon did the work: only the reply
is lost, which is what an Idempotency-Key has to make safe to retry.
"""
import socket
import threading
from typing import List, Tuple


def _read_message(sock: socket.socket) -> bytes:
    """One HTTP message (head + Content-Length body) from ``sock``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


class LossyProxy:
    def __init__(self, upstream_port: int, match: bytes, drop: int = 1) -> None:
        self.upstream_port = upstream_port
        self.match = match
        self.drop_left = drop
        self.requests: List[Tuple[bytes, bool]] = []  # (request line, reply dropped)
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self._listener.close()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(client,), daemon=True).start()

    def _handle(self, client: socket.socket) -> None:
        with client:
            request = _read_message(client)
            if not request:
                return
            with socket.create_connection(("127.0.0.1", self.upstream_port)) as up:
                up.sendall(request)
                reply = _read_message(up)
            line = request.split(b"\r\n", 1)[0]
            with self._lock:
                drop = line.startswith(self.match) and self.drop_left > 0
                if drop:
                    self.drop_left -= 1
                self.requests.append((line, drop))
            if not drop:
                client.sendall(reply)
