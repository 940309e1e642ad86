"""cline: the Cline CLI's handlers fed payloads shaped as the real Cline CLI sends them, in this process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentctl.files import log
from agentctl.ground.store import Store
from agentctl.integrations import cline
from support.hookfix import agent_log, deny_secrets, run

TASK = "conv_1796109720241_zk4d4e1"


def _payload(
    store: Store, key: str, tool: str, tool_input: dict[str, object], **call: object
) -> dict[str, object]:
    return {
        "clineVersion": "",
        "taskId": TASK,
        "workspaceRoots": [store.project],
        "workspaceInfo": {"rootPath": store.project, "hint": "proj"},
        "hookName": key,
        key: {"id": "call_e2e000002", "name": tool, "input": tool_input, **call},
    }


def _editor(store: Store, rel: str, **extra: object) -> dict[str, object]:
    return {"path": str(Path(store.project) / rel), "new_text": "x\n", **extra}


def test_edits() -> None:
    assert cline.edits("editor", {"path": "a"}, {"result": "File created successfully at: a"}) == [
        ("a", "CREATE")
    ]
    assert cline.edits("editor", {"path": "a", "old_text": "x"}, {}) == [("a", "MODIFY")]
    assert cline.edits("editor", {"path": "a"}, {}) == [("a", None)]
    assert cline.edits("apply_patch", {"input": "*** Add File: n.py\n"}, {}) == [("n.py", "CREATE")]
    assert cline.edits("run_commands", {"commands": ["ls"]}, {}) == []


def test_the_hook_script_hands_the_event_over() -> None:
    text = cline.script("pre-tool-use").decode()
    assert text.startswith(cline.MARKER) and text.endswith("exec agentctl hook cline pre-tool-use\n")


def test_a_created_file_is_logged_once(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = {"result": f"File created successfully at: {store.project}/src/m.py", "success": True}
    data = _payload(store, "tool_result", "editor", _editor(store, "src/m.py"), output=out)
    assert run(monkeypatch, capsys, "cline", "post-tool-use", data) == (0, "", "")
    assert run(monkeypatch, capsys, "cline", "post-tool-use", data) == (0, "", "")  # the same call id twice
    assert [e[1] for e in log.check(store, "src/m.py")] == ["CREATE"]
    failed = _payload(store, "tool_result", "editor", _editor(store, "src/f.py"), output={"success": False})
    assert run(monkeypatch, capsys, "cline", "post-tool-use", failed) == (0, "", "")
    assert log.check(store, "src/f.py") == []


def test_a_write_to_a_p0_path_cancels_the_run(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deny_secrets(store)
    code, out, err = run(
        monkeypatch,
        capsys,
        "cline",
        "pre-tool-use",
        _payload(store, "tool_call", "editor", _editor(store, "secrets/k")),
    )
    answer = json.loads(out)
    assert code == 0 and answer["cancel"] is True
    assert "`deny-write: secrets/**`" in answer["errorMessage"] and answer["errorMessage"].endswith(
        "before the write"
    )
    assert "|hook|deny|cline secrets/k by P0" in agent_log(store)
    allowed = _payload(store, "tool_call", "editor", _editor(store, "src/k"))
    assert run(monkeypatch, capsys, "cline", "pre-tool-use", allowed) == (0, "", "")


def test_an_event_it_does_not_hook_is_noted(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = {"taskId": TASK, "workspaceRoots": [store.project], "hookName": "agent_start"}
    code, out, err = run(monkeypatch, capsys, "cline", "task-start", data)
    assert (code, out) == (0, "") and "unknown agent or event" in err
