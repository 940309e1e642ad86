"""The HTTP side of `agentctl web`: the bound server and its request handler (``http.server``).

It answers only requests that carry the token (in the URL's query the first time, then in an
HttpOnly, SameSite=Strict cookie) and name this server in their ``Host`` header (DNS rebinding).
Every answer carries a strict Content-Security-Policy; the page is the static files of
``static/``; the data is ``webdata.View``'s, as JSON.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from agentctl.ground.errors import AgentctlError, StateError, UsageError
from agentctl.web.heads import BUSY, HEADER_TIMEOUT, HeadReader, Prefixed, busy, has_token

if TYPE_CHECKING:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from agentctl.web.data import View

STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/web.js": ("web.js", "text/javascript; charset=utf-8"),
    "/static/web.css": ("web.css", "text/css; charset=utf-8"),
}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = (
    ("Content-Security-Policy", CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cache-Control", "no-store"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
)

MAX_CONNECTIONS = 32  # connections served at once; one more is answered 503 and closed at once
RESERVE = 8  # more, for requests that carry the token (cookie or query) when the others are taken
IDLE_TIMEOUT = 15.0  # seconds a connection may send nothing (half-open, or idle between keep-alive requests)
BACKLOG = 64  # connections the kernel queues before accept


def limits() -> tuple[int, float]:
    """(connections at once, idle timeout in seconds): the defaults, or AGENTCTL_WEB_MAX_CONNECTIONS and
    AGENTCTL_WEB_IDLE_TIMEOUT when they hold a positive number."""

    def env(name: str, default: float) -> float:
        try:
            value = float(os.environ.get(name, ""))
        except ValueError:
            return default
        return value if 0 < value < 1e6 else default

    return int(env("AGENTCTL_WEB_MAX_CONNECTIONS", MAX_CONNECTIONS)), env(
        "AGENTCTL_WEB_IDLE_TIMEOUT", IDLE_TIMEOUT
    )


def netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def allowed_hosts(host: str, port: int) -> set[str]:
    """The ``Host`` header values this server answers: its own address and port, nothing a DNS name can
    rebind."""
    return {f"127.0.0.1:{port}", f"localhost:{port}", netloc(host, port).lower()}


def make_server(view: View, host: str, port: int, token: str | None = None) -> ThreadingHTTPServer:
    """The bound server (not yet serving); ``server.token`` is its secret."""
    import secrets
    import socket
    import threading
    from http.server import ThreadingHTTPServer

    most, idle = limits()
    slots = threading.BoundedSemaphore(most)
    reserve = threading.BoundedSemaphore(RESERVE)

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        block_on_close = False  # no list of every thread ever started
        allow_reuse_address = False
        request_queue_size = BACKLOG
        address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

        def process_request(self, request: Any, client_address: Any) -> None:
            """Hand the connection to the one thread that reads request heads (HeadReader): no thread of
            its own until its head is in, so half-open connections hold no slot."""
            reader = getattr(self, "reader", None)
            if reader is None:
                reader = self.reader = HeadReader(self)
            reader.add(request, client_address)

        def dispatch(self, request: Any, client_address: Any, head: bytes) -> None:
            """A complete head: a thread while a slot is free (the reserve for a request with the token);
            else 503 and close, at once."""
            sem = slots if slots.acquire(blocking=False) else None
            if sem is None and has_token(head, self):
                sem = reserve if reserve.acquire(blocking=False) else None
            if sem is None:
                busy(request)
                self.shutdown_request(request)
                return
            self.heads[request] = (head, sem)  # type: ignore[attr-defined]
            try:
                super().process_request(request, client_address)
            except BaseException:
                self.heads.pop(request, None)  # type: ignore[attr-defined]
                sem.release()
                raise

        def process_request_thread(self, request: Any, client_address: Any) -> None:
            sem = self.heads.get(request, (b"", slots))[1]  # type: ignore[attr-defined]
            try:
                super().process_request_thread(request, client_address)
            finally:
                self.heads.pop(request, None)  # type: ignore[attr-defined]
                sem.release()

        def handle_error(self, request: Any, client_address: Any) -> None:
            """One line (with AGENTCTL_LOG=debug), never a traceback: a client that hung up is not news."""
            exc = sys.exc_info()[1]
            if os.environ.get("AGENTCTL_LOG", "").lower() == "debug":
                sys.stderr.write(f"agentctl web: connection error: {type(exc).__name__}: {str(exc)[:120]}\n")

    handler = _handler(view)
    handler.timeout = idle  # a recv that waits longer ends the connection: no thread held forever
    try:
        server = Server((host, port), handler)
    except OSError as exc:
        raise StateError(
            f"cannot listen on {netloc(host, port)}: {exc.strerror or exc}; "
            "give another --port (0 picks a free one)"
        ) from None
    server.token = token or secrets.token_urlsafe(24)  # type: ignore[attr-defined]
    server.heads = {}  # type: ignore[attr-defined]
    server.hosts = allowed_hosts(host, server.server_port)  # type: ignore[attr-defined]
    return server


def _handler(view: View) -> type[BaseHTTPRequestHandler]:
    import hmac
    import json
    from http.cookies import CookieError, SimpleCookie
    from http.server import BaseHTTPRequestHandler
    from urllib.parse import parse_qs, urlsplit

    static_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")

    class Handler(BaseHTTPRequestHandler):
        server_version = "agentctl-web"
        sys_version = ""
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out at once, not 40 ms apart

        def setup(self) -> None:
            super().setup()
            head = self.server.heads.get(self.request, (b"", None))[0]  # type: ignore[attr-defined]
            if head:
                self.rfile = Prefixed(head, self.rfile)  # type: ignore[assignment]

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
            if os.environ.get("AGENTCTL_LOG", "").lower() == "debug":
                sys.stderr.write("agentctl web: " + (format % args) + "\n")

        def _send(
            self,
            code: int,
            body: bytes,
            ctype: str = "text/plain; charset=utf-8",
            extra: tuple[tuple[str, str], ...] = (),
        ) -> None:
            self.send_response(code)
            for name, value in HEADERS + extra:
                self.send_header(name, value)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _cookie_name(self) -> str:
            return f"agentctl_web_{self.server.server_port}"  # type: ignore[attr-defined]

        def _authorised(self, query: dict[str, list[str]]) -> tuple[bool, bool]:
            """(token ok, it came in the query: set the cookie)."""
            token: str = self.server.token  # type: ignore[attr-defined]
            given = query.get("token", [""])[0]
            if given and hmac.compare_digest(given.encode(), token.encode()):
                opener = getattr(self.server, "opener", None)
                if opener:  # the page that brought the browser here has done its work
                    try:
                        os.unlink(opener)
                    except OSError:
                        pass
                return True, True
            try:
                jar = SimpleCookie(self.headers.get("Cookie", ""))
            except CookieError:
                return False, False
            morsel = jar.get(self._cookie_name())
            return morsel is not None and hmac.compare_digest(morsel.value.encode(), token.encode()), False

        def do_HEAD(self) -> None:  # noqa: N802 (http.server's naming)
            self.do_GET()

        def do_GET(self) -> None:  # noqa: N802
            host = (self.headers.get("Host") or "").strip().lower()
            if host not in self.server.hosts:  # type: ignore[attr-defined]
                self._send(421, b"agentctl web: wrong Host header (open the URL the server printed)\n")
                return
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            ok, fresh = self._authorised(query)
            if not ok:
                self._send(403, b"agentctl web: missing or wrong token (open the URL the server printed)\n")
                return
            # the token leaves the address bar: a cookie carries it from now on
            if fresh and parts.path == "/":
                cookie = f"{self._cookie_name()}={self.server.token}; HttpOnly; SameSite=Strict; Path=/"  # type: ignore[attr-defined]
                self._send(303, b"", extra=(("Location", parts.path or "/"), ("Set-Cookie", cookie)))
                return
            try:
                self._route(parts.path, query)
            except AgentctlError as exc:
                self._json(400 if isinstance(exc, UsageError) else 500, {"error": exc.message})
            except (BrokenPipeError, ConnectionResetError):
                pass
            except Exception as exc:  # the one funnel: a line on stderr and in the answer, never a traceback
                text = f"internal error: {type(exc).__name__}: {str(exc)[:200]}"
                sys.stderr.write(f"agentctl web: {text}\n")
                self._json(500, {"error": text})

        def do_POST(self) -> None:  # noqa: N802
            self._send(405, b"agentctl web is read-only\n", extra=(("Allow", "GET, HEAD"),))

        do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_POST  # noqa: N815

        def _json(self, code: int, data: object) -> None:
            self._send(code, json.dumps(data, ensure_ascii=True).encode(), "application/json")

        def _route(self, path: str, query: dict[str, list[str]]) -> None:
            def arg(name: str) -> str:
                return query.get(name, [""])[0][:500]

            if path in STATIC:
                name, ctype = STATIC[path]
                with open(os.path.join(static_dir, name), "rb") as fh:
                    self._send(200, fh.read(), ctype)
            elif path == "/api/version":
                from agentctl.web.data import signature

                self._json(200, {"version": signature(view.store)})
            elif path == "/api/state":
                version, body = view.state()
                self._send(200, body, "application/json", (("ETag", f'"{version}"'),))
            elif path == "/api/files":
                self._json(200, view.files(arg("q")))
            elif path == "/api/file":
                self._json(200, view.file_entries(query.get("path", [""])[0]))
            elif path == "/api/chart":
                self._json(200, view.chart())
            elif path == "/api/diff":
                self._json(200, view.diff(query.get("path", [""])[0]))
            elif path == "/api/history":
                self._json(200, view.search_history(arg("q")))
            elif path == "/api/task":
                self._json(200, view.archived_task(arg("id")))
            else:
                self._send(404, b"not found\n")

    return Handler


__all__ = [
    "BACKLOG",
    "BUSY",
    "CSP",
    "HEADER_TIMEOUT",
    "RESERVE",
    "HEADERS",
    "IDLE_TIMEOUT",
    "MAX_CONNECTIONS",
    "STATIC",
    "allowed_hosts",
    "limits",
    "make_server",
    "netloc",
]
