"""`agentctl web`: a live, read-only page of the state for the person supervising the agent.

Standard library only (``http.server``). The server binds to 127.0.0.1 unless ``--host``
says otherwise, prints its URL (with a random token) as the first line of its output, and
answers only requests that carry the token (in the URL's query the first time, then in an
HttpOnly, SameSite=Strict cookie) and name this server in their ``Host`` header (DNS
rebinding). Every answer carries a strict Content-Security-Policy; the page is static HTML,
CSS and a small script from ``static/``, and every value from the state is agent-written,
so the script puts it into the page as text only. The data is ``webdata.View``'s; the page
polls ``/api/version`` (one stat pass) and fetches ``/api/state`` when it moved.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from agentctl.ground.errors import UsageError
from agentctl.operation.contract import Ctx, Result
from agentctl.web.server import make_server, netloc

LOOPBACK = "127.0.0.1"
RISK = (
    "serving on {host}: anyone who can reach that address and learns the URL can read this project's state "
    "(task, paths, errors, rules) over plain HTTP; prefer the default 127.0.0.1 with `ssh -L` (docs/web.md)"
)


def web(ctx: Ctx, *, port: int = 0, no_open: bool = False, host: str = "127.0.0.1") -> Result:
    """`agentctl web`: serve until ended; the URL is shown as progress as soon as it is ready."""
    if port > 65535:
        raise UsageError(f"--port must be 0 (a free port) to 65535, got {port}")
    if not host or any(c.isspace() or c in "/@?#" for c in host):
        raise UsageError(f"--host must be an address or a host name, got {host[:60]!r}")
    store = ctx.store()
    from agentctl.web.data import View

    view = View(store)
    server = make_server(view, host, port)
    bound: int = server.server_port
    _note(store, "start", f"{netloc(host, bound)} pid={os.getpid()}")
    view.state()  # the first build (the whole files log read once) before the URL is given out
    url = f"http://{netloc(host if host != '0.0.0.0' else LOOPBACK, bound)}/?token={server.token}"  # type: ignore[attr-defined]
    ctx.say(url)
    if host != LOOPBACK:
        ctx.warn(RISK.format(host=host))
    opener = store.path(f"web-open.{bound}.html")
    server.opener = opener  # type: ignore[attr-defined]  # removed at the token's first use
    _stop_on_signals(store, opener)
    if not no_open:
        _open_browser(url, opener)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        _forget(opener)
        _note(store, "stop", f"pid={os.getpid()}")
    return Result()


def _open_browser(url: str, opener: str) -> None:
    """Open the page in the user's browser when there is a graphical one (never a text browser in this
    terminal).

    The browser's command line (which ``ps`` shows every user) never holds the token: it gets the
    ``file://`` address of a page only this user can read (mode 0600, in the state folder) that
    redirects to the token URL; the server removes that page at the token's first use and at its stop.
    """
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return
    import html
    import threading
    import webbrowser

    body = (
        f'<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">'
        f'<meta http-equiv="refresh" content="0;url={html.escape(url)}"><title>agentctl web</title>'
        f"<p>Opening agentctl web...</p>\n"
    )
    try:
        fd = os.open(opener, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(body)
    except OSError:  # an unwritable state folder: the printed URL is the way in
        return

    def go() -> None:
        try:
            from pathlib import Path

            webbrowser.open(Path(opener).as_uri())
        except Exception:  # no browser: the printed URL is the way in
            pass

    threading.Thread(target=go, daemon=True).start()


def _forget(opener: str) -> None:
    try:
        os.unlink(opener)
    except OSError:
        pass


def _stop_on_signals(store: Any, opener: str) -> None:
    """Ctrl-C, SIGTERM and SIGHUP end the server at once (as `agentctl mcp`), its stop line in
    logs/agent.log."""
    import signal

    def stop(signum: int, frame: object) -> None:
        _forget(opener)
        _note(store, "stop", f"pid={os.getpid()} signal={signum}")
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        os._exit(128 + signum)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)


def _note(store: Any, action: str, detail: str) -> None:
    """The server's only write: its start and stop lines in logs/agent.log."""
    try:
        store.log_change("web", action, detail)
    except Exception:
        pass


__all__ = ["LOOPBACK", "RISK", "web"]
