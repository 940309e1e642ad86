"""`agentctl mcp`: the state as MCP tools, a resource and a prompt, over stdio.

Built on the official MCP Python SDK 2.x (``pip install 'agentctl-state[mcp]'``), imported only
inside the command's handler: importing this module (which ``agentctl --help`` does) costs
nothing, and the CLI and the hooks never load the SDK. The tools themselves are plain
functions in ``mcp_tools`` that call the commands' own operations; ``mcp_build`` registers
them, keeps their schemas small, sends each result's lines as text and its data as structured
content (the ``data`` of ``agentctl --json``), and turns the core's refusals into MCP tool errors;
this module runs that server over stdio.

stdout is the protocol channel: nothing else is ever written there. Logs go to stderr
(level from ``AGENTCTL_LOG``, default warning) and server start/stop and internal errors
to ``logs/agent.log`` of the state folder.
"""

from __future__ import annotations

import logging
import os
import sys

from agentctl import DISTRIBUTION
from agentctl.ground.errors import StateError, UsageError
from agentctl.mcp.sdkserver import build_server, run_stdio
from agentctl.mcp.tools import PROFILES, Tools
from agentctl.operation.contract import Ctx, Result

log = logging.getLogger("agentctl.mcp")

INSTALL_HINT = (
    f"pip install '{DISTRIBUTION}[mcp]' (pipx: pipx install --force '{DISTRIBUTION}[mcp]'; "
    f"uv: uv tool install '{DISTRIBUTION}[mcp]')"
)


def serve(ctx: Ctx, *, tools: str = "full") -> Result:
    """`agentctl mcp`: serve until stdin closes or a signal ends it."""
    profile = tools
    if profile not in PROFILES:
        from agentctl.ground.nearest import hint

        raise UsageError(
            f"--tools must be core or full, got {profile[:20]!r}{hint(profile, ('core', 'full'))}"
        )
    _setup_logging()
    try:
        server = build_server(profile, ctx.state_dir)
    except ImportError as exc:
        raise StateError(
            f"`agentctl mcp` needs the MCP SDK 2.x ({exc}); install it with {INSTALL_HINT}"
        ) from None
    _note(ctx.state_dir, "start", f"profile={profile} pid={os.getpid()}")
    log.info("serving %d tools (profile %s) on stdio", len(PROFILES[profile]), profile)
    _stop_on_signals(ctx.state_dir)
    try:
        run_stdio(server)
    finally:
        _note(ctx.state_dir, "stop", f"pid={os.getpid()}")
    return Result()


def _stop_on_signals(state_dir: str | None) -> None:
    """Ctrl-C, SIGTERM and SIGHUP end the server at once, with its stop line in logs/agent.log.

    The SDK reads stdin in a worker, so a plain KeyboardInterrupt would wait for stdin to
    close; every state write is atomic, so stopping mid-call loses nothing written.
    """
    import signal

    def stop(signum: int, frame: object) -> None:
        _note(state_dir, "stop", f"pid={os.getpid()} signal={signum}")
        os._exit(128 + signum)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)


def _setup_logging() -> None:
    level = os.environ.get("AGENTCTL_LOG", "warning").upper()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("agentctl mcp: %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level if level in ("DEBUG", "INFO", "WARNING", "ERROR") else "WARNING")


def _note(state_dir: str | None, action: str, detail: str) -> None:
    """A line in logs/agent.log when there is a state folder (the server also runs without one)."""
    try:
        Tools(state_dir).store().log_change("mcp", action, detail)
    except Exception as exc:  # no folder yet, or unwritable: the server still serves
        log.debug("no agent.log entry for %s: %s", action, exc)


__all__ = ["INSTALL_HINT", "serve"]
