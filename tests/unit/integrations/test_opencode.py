"""opencode: what each tool call writes, and the plugin file install writes."""

from __future__ import annotations

import json
from pathlib import Path

from agentctl.integrations import opencode


def test_edits_per_tool() -> None:
    assert opencode.edits("write", {"filePath": "a"}, {"exists": True}) == [("a", "MODIFY")]
    assert opencode.edits("write", {"filePath": "a"}, {"exists": False}) == [("a", "CREATE")]
    assert opencode.edits("write", {"filePath": "a"}, {}) == [("a", None)]  # unsure: CREATE unless logged
    assert opencode.edits("edit", {"filePath": "a", "oldString": ""}, {}) == [("a", None)]
    assert opencode.edits("edit", {"filePath": "a", "oldString": "x"}, {}) == [("a", "MODIFY")]
    assert opencode.edits("read", {"filePath": "a"}, {}) == []
    patch = "*** Begin Patch\n*** Add File: n.txt\n+x\n*** Delete File: o.txt\n*** End Patch\n"
    assert opencode.edits("apply_patch", {"patchText": patch}, {}) == [
        ("n.txt", "CREATE"),
        ("o.txt", "DELETE"),
    ]


def test_plugin_text_is_the_packaged_source_marked_as_ours() -> None:
    import sys

    text = opencode.plugin_text()
    source = Path(opencode.__file__).with_name(opencode.SOURCE).read_bytes()
    recorded = json.dumps([sys.executable, "-m", "agentctl"]).encode()
    assert source.count(opencode.RECORDED) == 1 and text == source.replace(
        opencode.RECORDED, b"const RECORDED = " + recorded
    )
    assert text.startswith(opencode.MARKER.encode())


def test_plan_plugin_writes_then_removes_it(tmp_path: Path) -> None:
    c = opencode.plan_plugin(str(tmp_path), True)
    assert c.rel == opencode.PLUGIN and c.old is None and c.new == opencode.plugin_text()
    (tmp_path / ".opencode" / "plugin").mkdir(parents=True)
    (tmp_path / opencode.PLUGIN).write_bytes(opencode.plugin_text())
    gone = opencode.plan_plugin(str(tmp_path), False)
    assert gone.new is None and gone.summary == "plugin removed"


def test_events_cover_the_plugin_calls() -> None:
    assert opencode.EVENTS == {
        "toolexecutebefore": opencode.tool_before,
        "toolexecuteafter": opencode.tool_after,
        "sessioncompacting": opencode.session_compacting,
        "sessioncompacted": opencode.session_compacted,
        "systemtransform": opencode.system_transform,
    }
