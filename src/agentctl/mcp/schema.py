"""What the MCP server sends besides results, with no SDK import: tool schemas made small, and a
bad-arguments error as the CLI's kind of one-line usage error."""

from __future__ import annotations

from typing import Any


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
    if (
        isinstance(options, list)
        and len(options) == 2
        and {"type": "null"} in options
        and out.get("default", 0) is None
    ):
        other = next(o for o in options if o != {"type": "null"})
        del out["anyOf"], out["default"]
        out = {**other, **out}
    return out


def usage_text(tool: str, exc: Exception) -> str:
    """A pydantic ValidationError as the CLI's kind of one-line usage error."""
    errors = getattr(exc, "errors", None)
    parts = []
    if callable(errors):
        for err in errors():
            where = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
            parts.append(f"{where}: {err.get('msg', 'invalid')}")
    detail = "; ".join(parts) or str(exc).splitlines()[0]
    return f"usage error (exit 2): bad arguments for {tool}: {detail}"


__all__ = ["compact_schema", "usage_text"]
