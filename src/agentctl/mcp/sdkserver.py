"""The MCP server of `agentctl mcp` built on the SDK (imported only inside ``build_server``): the
tools of ``mcp_tools`` registered with small schemas, each answering with its operation's lines
as text and its data as structured content, the resume resource and prompt, and the core's
refusals as MCP tool errors in the CLI's words.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from agentctl.ground.errors import AgentctlError
from agentctl.mcp.schema import compact_schema, usage_text
from agentctl.mcp.tools import PROFILES, READ_ONLY, Tools, as_text, describe, error_text
from agentctl.operation.contract import Result

if TYPE_CHECKING:
    from collections.abc import Callable

    from mcp.server import MCPServer

log = logging.getLogger("agentctl.mcp")

RESUME_URI = "agentctl://resume"
INSTRUCTIONS = (
    "agentctl keeps this project's working state outside the conversation. Call resume first in every "
    "session and after every compaction, follow its DO NEXT line, and never break a P0 rule."
)


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
            _answer(fn),
            name=name,
            description=describe(fn),
            structured_output=False,
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
                raise ToolError(
                    f"usage error (exit 2): unknown argument {unknown[0][:40]!r} for {name} (arguments: "
                    f"{known})"
                )
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(cause, AgentctlError):
                    raise ToolError(error_text(cause)) from None
                if isinstance(cause, ValidationError):
                    raise ToolError(usage_text(name, cause)) from None
                if isinstance(exc, UnexpectedToolError):
                    raise ToolError(_internal(tools, name, cause or exc)) from None
                raise

    from agentctl import __version__

    server: MCPServer[Any] = Server(
        "agentctl", version=__version__, instructions=INSTRUCTIONS, tools=registered
    )

    @server.resource(
        RESUME_URI,
        name="resume",
        mime_type="text/plain",
        description="The agentctl resume block: the working state to continue from.",
    )
    def resume_resource() -> str:
        try:
            return tools.resume_text()
        except AgentctlError as exc:
            raise ResourceError(error_text(exc)) from None

    @server.prompt(
        name="resume", description="Continue from the working state kept by agentctl (the resume block)."
    )
    def resume_prompt() -> str:
        try:
            text = tools.resume_text()
        except AgentctlError as exc:
            raise MCPError(INTERNAL_ERROR, error_text(exc)) from None
        return (
            "Continue from this working state (agentctl resume); do not rely on memory of earlier turns.\n\n"
            + text
        )

    return server


EOF_GRACE = 120.0  # seconds the requests read before the end of input may take to be answered


def run_stdio(server: MCPServer[Any]) -> None:
    """Serve ``server`` over stdio as ``server.run("stdio")`` does, but answer a line that is not JSON
    (-32700, parse error) or not a JSON-RPC message (-32600, invalid request) with a JSON-RPC error of
    id null, and keep serving (the SDK drops such a line without a word)."""
    import anyio

    anyio.run(_serve_stdio, server)


async def _serve_stdio(server: MCPServer[Any]) -> None:
    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage
    from mcp.types import ErrorData, JSONRPCError

    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        pending: set[object] = set()  # ids of the requests read and not yet answered

        class Tracking:
            """The write stream, noting each answer: at end of input, every request read is answered first."""

            async def send(self, item: SessionMessage) -> None:
                await write_stream.send(item)
                root = getattr(item.message, "root", item.message)
                if getattr(root, "id", None) in pending and not hasattr(root, "method"):
                    pending.discard(root.id)

            async def __aenter__(self) -> Tracking:
                await write_stream.__aenter__()
                return self

            async def __aexit__(self, *exc: Any) -> Any:
                return await write_stream.__aexit__(*exc)

            def __getattr__(self, name: str) -> Any:
                return getattr(write_stream, name)

        async def relay() -> None:
            try:
                async with send, read_stream:
                    async for item in read_stream:
                        if isinstance(item, Exception):
                            code, text = malformed(item)
                            log.warning("malformed input line: %s", text)
                            reply = JSONRPCError(
                                jsonrpc="2.0", id=None, error=ErrorData(code=code, message=text)
                            )
                            await write_stream.send(SessionMessage(reply))
                        else:
                            root = getattr(item.message, "root", item.message)
                            if hasattr(root, "method") and getattr(root, "id", None) is not None:
                                pending.add(root.id)
                            await send.send(item)
                    if pending:  # end of input: the requests read are answered before the session ends
                        with anyio.move_on_after(EOF_GRACE):
                            while pending:
                                await anyio.sleep(0.02)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                pass

        async with anyio.create_task_group() as tg:
            tg.start_soon(relay)
            await lowlevel.run(receive, Tracking(), lowlevel.create_initialization_options())
            tg.cancel_scope.cancel()


def malformed(exc: BaseException) -> tuple[int, str]:
    """The JSON-RPC error (code, message) for an input line the SDK could not read: -32700 when it is not
    JSON at all, -32600 when it is JSON but not a JSON-RPC 2.0 message."""
    errors: list[Any] = []
    try:
        errors = list(exc.errors())  # type: ignore[attr-defined]  # pydantic's ValidationError
    except Exception:
        pass
    if any(e.get("type") == "json_invalid" for e in errors if isinstance(e, dict)):
        return -32700, "Parse error: the line is not JSON (one JSON-RPC message a line, UTF-8)"
    return -32600, "Invalid Request: the line is not a JSON-RPC 2.0 request, notification or response"


def _answer(fn: Callable[..., Result]) -> Callable[..., Any]:
    """A tool that answers with the operation's lines as text and its data as structured content."""
    import functools

    from mcp.types import CallToolResult, TextContent

    @functools.wraps(fn)
    def tool(*args: Any, **kwargs: Any) -> CallToolResult:
        result = fn(*args, **kwargs)
        return CallToolResult(
            content=[TextContent(type="text", text=as_text(result))], structured_content=result.data
        )

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
        store.log_change(
            "mcp", "internal-error", f"{name}: {type(exc).__name__}: {str(exc)[:200]} at {frames[-250:]}"
        )
        where = f" (details in {store.shown('logs/agent.log')})"
    except Exception:
        pass
    return f"internal error (exit 3): {type(exc).__name__}: {str(exc)[:200]}{where}"


__all__ = ["INSTRUCTIONS", "RESUME_URI", "build_server", "malformed", "run_stdio"]
