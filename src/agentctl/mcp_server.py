"""`agentctl mcp`: the state as MCP tools, a resource and a prompt, over stdio.

Built on the official MCP Python SDK 2.x (``pip install 'agentctl-state[mcp]'``), imported only
inside the command's handler: importing this module (which ``agentctl --help`` does) costs
nothing, and the CLI and the hooks never load the SDK. The tools themselves are plain
functions in ``mcp_tools`` that call the commands' own operations; this module registers
them, keeps their schemas small, sends each result's lines as text and its data as structured
content (the ``data`` of ``agentctl --json``), and turns the core's refusals into MCP tool errors.

stdout is the protocol channel: nothing else is ever written there. Logs go to stderr
(level from ``AGENTCTL_LOG``, default warning) and server start/stop and internal errors
to ``logs/agent.log`` of the state folder.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING, Any

from agentctl import DISTRIBUTION
from agentctl.errors import AgentctlError, StateError, UsageError
from agentctl.mcp_tools import PROFILES, READ_ONLY, Tools, as_text, describe, error_text
from agentctl.operation import Ctx, Result

if TYPE_CHECKING:
    from collections.abc import Callable

    from mcp.server import MCPServer

log = logging.getLogger("agentctl.mcp")

INSTALL_HINT = (f"pip install '{DISTRIBUTION}[mcp]' (pipx: pipx install --force '{DISTRIBUTION}[mcp]'; "
                f"uv: uv tool install '{DISTRIBUTION}[mcp]')")
RESUME_URI = "agentctl://resume"
INSTRUCTIONS = (
    "agentctl keeps this project's working state outside the conversation. Call resume first in every "
    "session and after every compaction, follow its DO NEXT line, and never break a P0 rule."
)


def serve(ctx: Ctx, *, tools: str = "full") -> Result:
    """`agentctl mcp`: serve until stdin closes or a signal ends it."""
    profile = tools
    if profile not in PROFILES:
        raise UsageError(f"--tools must be core or full, got {profile[:20]!r}")
    _setup_logging()
    try:
        server = build_server(profile, ctx.state_dir)
    except ImportError as exc:
        raise StateError(f"`agentctl mcp` needs the MCP SDK 2.x ({exc}); install it with {INSTALL_HINT}") from None
    _note(ctx.state_dir, "start", f"profile={profile} pid={os.getpid()}")
    log.info("serving %d tools (profile %s) on stdio", len(PROFILES[profile]), profile)
    _stop_on_signals(ctx.state_dir)
    try:
        server.run("stdio")
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


def compact_schema(node: Any) -> Any:
    """Drop what costs context and tells a model nothing: pydantic's titles, and the
    ``anyOf [T, null]`` / ``default: null`` wrapping of optional parameters (an optional
    parameter is simply one not listed under ``required``)."""
    if isinstance(node, list):
        return [compact_schema(x) for x in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: compact_schema(sub) for name, sub in value.items()}
        else:
            out[key] = compact_schema(value)
    options = out.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options and out.get("default", 0) is None:
        other = next(o for o in options if o != {"type": "null"})
        del out["anyOf"], out["default"]
        out = {**other, **out}
    return out


def _usage_text(tool: str, exc: Exception) -> str:
    """A pydantic ValidationError as the CLI's kind of one-line usage error."""
    errors = getattr(exc, "errors", None)
    parts = []
    if callable(errors):
        for err in errors():
            where = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
            parts.append(f"{where}: {err.get('msg', 'invalid')}")
    detail = "; ".join(parts) or str(exc).splitlines()[0]
    return f"usage error (exit 2): bad arguments for {tool}: {detail}"


def build_server(profile: str = "full", state_dir: str | None = None) -> MCPServer[Any]:
    """The server with the tools of ``profile``, the resume resource and the resume prompt.

    Raises ImportError when the SDK (2.x) is missing.
    """
    from mcp.server import MCPServer
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
    from mcp.server.mcpserver.tools import Tool
    from mcp.shared.exceptions import MCPError
    from mcp.types import INTERNAL_ERROR, CallToolResult, InputRequiredResult, ToolAnnotations
    from pydantic import ValidationError

    tools = Tools(state_dir)
    registered: list[Tool] = []
    for name in PROFILES[profile]:
        fn = getattr(tools, name)
        tool = Tool.from_function(
            _answer(fn), name=name, description=describe(fn), structured_output=False,
            annotations=ToolAnnotations(read_only_hint=True) if name in READ_ONLY else None,
        )
        tool.parameters = compact_schema(tool.parameters)
        registered.append(tool)
    allowed = {t.name: set(t.parameters.get("properties", {})) for t in registered}

    class Server(MCPServer[Any]):
        async def call_tool(  # noqa: D102 (the SDK's call_tool, with agentctl's error texts)
            self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
        ) -> CallToolResult | InputRequiredResult:
            unknown = sorted(set(arguments) - allowed.get(name, set(arguments)))
            if unknown:
                known = ", ".join(sorted(allowed[name])) or "none"
                raise ToolError(f"usage error (exit 2): unknown argument {unknown[0][:40]!r} for {name} (arguments: {known})")
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(cause, AgentctlError):
                    raise ToolError(error_text(cause)) from None
                if isinstance(cause, ValidationError):
                    raise ToolError(_usage_text(name, cause)) from None
                if isinstance(exc, UnexpectedToolError):
                    raise ToolError(_internal(tools, name, cause or exc)) from None
                raise

    from agentctl import __version__

    server: MCPServer[Any] = Server("agentctl", version=__version__, instructions=INSTRUCTIONS, tools=registered)

    @server.resource(RESUME_URI, name="resume", mime_type="text/plain",
                     description="The agentctl resume block: the working state to continue from.")
    def resume_resource() -> str:
        try:
            return tools.resume_text()
        except AgentctlError as exc:
            raise ResourceError(error_text(exc)) from None

    @server.prompt(name="resume", description="Continue from the working state kept by agentctl (the resume block).")
    def resume_prompt() -> str:
        try:
            text = tools.resume_text()
        except AgentctlError as exc:
            raise MCPError(INTERNAL_ERROR, error_text(exc)) from None
        return "Continue from this working state (agentctl resume); do not rely on memory of earlier turns.\n\n" + text

    return server


def _answer(fn: Callable[..., Result]) -> Callable[..., Any]:
    """A tool that answers with the operation's lines as text and its data as structured content."""
    import functools

    from mcp.types import CallToolResult, TextContent

    @functools.wraps(fn)
    def tool(*args: Any, **kwargs: Any) -> CallToolResult:
        result = fn(*args, **kwargs)
        return CallToolResult(content=[TextContent(type="text", text=as_text(result))], structured_content=result.data)

    return tool


def _internal(tools: Tools, name: str, exc: BaseException) -> str:
    """An unexpected exception: logged with its traceback, reported in one line (the CLI's funnel)."""
    import traceback

    log.error("tool %s failed unexpectedly", name, exc_info=exc)
    where = ""
    try:
        store = tools.store()
        frames = "".join(traceback.format_tb(exc.__traceback__)).replace("\n", " | ")
        # The error first, then the innermost frames: agent.log keeps 500 characters of a detail.
        store.log_change("mcp", "internal-error", f"{name}: {type(exc).__name__}: {str(exc)[:200]} at {frames[-250:]}")
        where = f" (details in {store.shown('logs/agent.log')})"
    except Exception:
        pass
    return f"internal error (exit 3): {type(exc).__name__}: {str(exc)[:200]}{where}"
