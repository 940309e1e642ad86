"""mcpschema: small tool schemas and the CLI's kind of usage error (no SDK needed)."""

from __future__ import annotations

from agentctl.mcp.schema import compact_schema, usage_text


def test_titles_and_optional_wrappers_go() -> None:
    schema = {
        "title": "args",
        "type": "object",
        "required": ["path"],
        "properties": {
            "path": {"title": "Path", "type": "string"},
            "title": {"title": "Title", "type": "string"},
            "seq": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None, "title": "Seq"},
        },
    }
    assert compact_schema(schema) == {
        "type": "object",
        "required": ["path"],
        "properties": {"path": {"type": "string"}, "title": {"type": "string"}, "seq": {"type": "integer"}},
    }
    kept = {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 3}
    assert compact_schema(kept) == kept  # a real default is kept, and with it the wrapper


def test_usage_text_from_validation_errors() -> None:
    class Invalid(Exception):
        def errors(self) -> list[dict[str, object]]:
            return [{"loc": ("done",), "msg": "Input should be a valid integer"}, {"loc": (), "msg": "x"}]

    assert usage_text("task_update", Invalid("bad")) == (
        "usage error (exit 2): bad arguments for task_update: done: Input should be a valid integer; "
        "arguments: x"
    )
    assert (
        usage_text("t", ValueError("first line\nsecond"))
        == "usage error (exit 2): bad arguments for t: first line"
    )
