"""Reading request heads for `agentctl web` before a connection gets a thread (web.server uses it).

One thread (:class:`HeadReader`) reads the request line and headers of every new connection,
non-blocking, each within the header timeout, so half-open connections hold neither a thread nor a
slot; :func:`has_token` says whether a complete head carries the server's token (its reserve),
:class:`Prefixed` gives the handler the head back before the rest of the connection.
"""

from __future__ import annotations

import os
from typing import Any

HEADER_TIMEOUT = 10.0  # seconds a connection has to send its request line and headers
MAX_PENDING = 512  # connections whose request head is still being read (one thread reads them all)
HEAD_MAX = 16384  # bytes of a request head
_BUSY_BODY = b"agentctl web: too many connections at once; retry\n"
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
    b"Retry-After: 5\r\nContent-Length: " + str(len(_BUSY_BODY)).encode() + b"\r\n\r\n" + _BUSY_BODY
)


def busy(request: Any) -> None:
    try:
        request.settimeout(1.0)
        request.sendall(BUSY)
    except OSError:
        pass


def has_token(head: bytes, server: Any) -> bool:
    """Whether a request head carries the server's token (its cookie, or ``token=`` in the URL)."""
    import hmac

    token = str(server.token).encode()
    lines = head.split(b"\r\n")
    name = f"agentctl_web_{server.server_port}=".encode()
    found = []
    target = lines[0].split(b" ")[1] if len(lines[0].split(b" ")) > 2 else b""
    if b"token=" in target:
        found.append(target.split(b"token=", 1)[1].split(b"&", 1)[0])
    for line in lines[1:]:
        if line[:7].lower() == b"cookie:":
            for part in line[7:].split(b";"):
                part = part.strip()
                if part.startswith(name):
                    found.append(part[len(name) :])
    return any(hmac.compare_digest(f, token) for f in found)


class HeadReader:
    """One thread that reads the request heads of every new connection (selectors, non-blocking), each
    within HEADER_TIMEOUT, at most MAX_PENDING at once; a complete head goes to ``server.dispatch``.
    So 200 half-open connections cost 200 sockets in one select, not 200 threads or slots."""

    def __init__(self, server: Any) -> None:
        import selectors
        import threading

        self.server = server
        self.selector = selectors.DefaultSelector()
        self.lock = threading.Lock()
        self.pending: dict[Any, tuple[Any, float, bytearray]] = {}
        self.new: list[tuple[Any, Any]] = []
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        self.selector.register(self.wake_r, selectors.EVENT_READ, None)
        threading.Thread(target=self.run, name="agentctl-web-heads", daemon=True).start()

    def add(self, request: Any, client_address: Any) -> None:
        with self.lock:
            if len(self.pending) + len(self.new) >= MAX_PENDING:
                busy(request)
                self.server.shutdown_request(request)
                return
            self.new.append((request, client_address))
        try:
            os.write(self.wake_w, b"x")
        except OSError:
            pass

    def run(self) -> None:
        import selectors
        import time

        while True:
            try:
                self._round(selectors.EVENT_READ, time.monotonic)
            except Exception:  # never a traceback, never the reader gone
                continue

    def _round(self, read: int, clock: Any) -> None:
        with self.lock:
            new, self.new = self.new, []
        for request, addr in new:
            try:
                request.setblocking(False)
                self.selector.register(request, read, None)
            except (OSError, ValueError):
                self.server.shutdown_request(request)
                continue
            self.pending[request] = (addr, clock() + min(HEADER_TIMEOUT, self._idle()), bytearray())
        for key, _ in self.selector.select(timeout=0.25):
            if key.fileobj == self.wake_r:
                try:
                    os.read(self.wake_r, 4096)
                except OSError:
                    pass
                continue
            self._read(key.fileobj)
        now = clock()
        for request in [r for r, (_, end, _) in self.pending.items() if end < now]:
            self._drop(request)

    def _idle(self) -> float:
        return float(getattr(self.server.RequestHandlerClass, "timeout", HEADER_TIMEOUT) or HEADER_TIMEOUT)

    def _read(self, request: Any) -> None:
        addr, end, buf = self.pending[request]
        try:
            data = request.recv(4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._drop(request)
            return
        buf += data
        cut = buf.find(b"\r\n\r\n")
        if cut < 0 and len(buf) < HEAD_MAX:
            return
        self.selector.unregister(request)
        del self.pending[request]
        try:
            request.setblocking(True)
        except OSError:
            self.server.shutdown_request(request)
            return
        self.server.dispatch(request, addr, bytes(buf))

    def _drop(self, request: Any) -> None:
        try:
            self.selector.unregister(request)
        except (KeyError, ValueError, OSError):
            pass
        self.pending.pop(request, None)
        self.server.shutdown_request(request)


class Prefixed:
    """A connection's reader that first gives back the head HeadReader already read."""

    def __init__(self, head: bytes, rest: Any) -> None:
        import io

        self.head = io.BytesIO(head)
        self.rest = rest

    def readline(self, limit: int = -1) -> bytes:
        line = self.head.readline(limit)
        if line.endswith(b"\n") or (limit >= 0 and len(line) >= limit):
            return line
        more = self.rest.readline(-1 if limit < 0 else limit - len(line))
        return line + bytes(more)

    def read(self, size: int = -1) -> bytes:
        got = self.head.read(size)
        if size < 0:
            return got + bytes(self.rest.read())
        return got + (bytes(self.rest.read(size - len(got))) if len(got) < size else b"")

    def close(self) -> None:
        self.rest.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rest, name)


__all__ = ["BUSY", "HEADER_TIMEOUT", "HeadReader", "Prefixed", "busy", "has_token"]
