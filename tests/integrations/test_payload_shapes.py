"""Issue 23 point 9: every pre-edit hook judges any payload shape, through the installed commands.

A write whose path is a list or a number, whose ``tool_input`` is a JSON string (read as the
object it holds when it holds one, refused otherwise), or that has no input at all is refused
with a reason: never allowed unjudged. The payloads are the captured ones, bent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import run
from support.hooks import FIXTURES, P0, command_for, env_for, fire, install, payload

SECRET = "secrets/key.txt"


def _claude_like(agent: str, proj: Path, bindir: Path, data: dict[str, Any]) -> tuple[bool, str]:
    """(denied, reason) of the agent's installed PreToolUse command for ``data``."""
    if agent == "qwen":
        assert run("install", "qwen", cwd=proj).code == 0
        doc = json.loads((proj / ".qwen/settings.json").read_text())
        cmd = next(h["command"] for g in doc["hooks"]["PreToolUse"] for h in g["hooks"])
        env = {"QWEN_PROJECT_DIR": str(proj)}
    else:
        install(proj, agent, restart=False)
        cmd = command_for(proj, agent, "PreToolUse", str(data.get("tool_name")))
        env = env_for(agent, proj)
    r = fire(cmd, json.dumps(data), proj / "src", bindir, env)
    if not r.out:
        assert r.code == 0, r.err
        return False, ""
    out = r.json()["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse"
    if "permissionDecision" not in out:
        return False, ""
    assert out["permissionDecision"] == "deny"
    return True, out["permissionDecisionReason"]


def _base(agent: str, proj: Path) -> dict[str, Any]:
    if agent == "qwen":
        data: dict[str, Any] = json.loads(
            (FIXTURES / "qwen_pre_tool_use_write_file.json").read_text().replace("__PROJECT__", str(proj))
        )
        return data
    return dict(json.loads(payload("pre_tool_use_write", proj)))


@pytest.mark.parametrize("agent", ["claude", "qwen"])
@pytest.mark.parametrize(
    "shape,words",
    [
        ("list", "the path is JSON an array"),
        ("number", "the path is JSON a number"),
        ("null", "names no file path"),
        ("string tool_input, not an object", "holding an array"),
        ("tool_input not JSON", "not JSON"),
        ("no tool_input", "has no tool_input"),
        ("tool_input a number", "tool_input is JSON a number"),
        ("empty path", "the path is empty"),
        ("no path key", "names no file path"),
    ],
)
def test_a_claude_format_write_of_any_shape_is_refused(
    proj: Path,
    bindir: Path,
    agent: str,
    shape: str,
    words: str,
) -> None:
    data = _base(agent, proj)
    target = str(proj / SECRET)
    tin = dict(data["tool_input"])
    if shape == "list":
        tin["file_path"] = [target, "src/ok.py"]
    elif shape == "number":
        tin["file_path"] = 7
    elif shape == "null":
        tin["file_path"] = None
    elif shape == "empty path":
        tin["file_path"] = ""
    elif shape == "no path key":
        tin.pop("file_path")
    data["tool_input"] = {
        "string tool_input, not an object": json.dumps([tin]),
        "tool_input not JSON": "file_path=secrets/key.txt",
        "no tool_input": None,
        "tool_input a number": 3,
    }.get(shape, tin)
    if shape == "no tool_input":
        data.pop("tool_input")
    denied, reason = _claude_like(agent, proj, bindir, data)
    assert denied and words in reason and "the edit was not made" in reason, reason


@pytest.mark.parametrize("agent", ["claude", "qwen"])
def test_a_tool_input_that_is_a_json_string_is_judged_as_its_object(
    proj: Path,
    bindir: Path,
    agent: str,
) -> None:
    data = _base(agent, proj)
    tin = dict(data["tool_input"], file_path=str(proj / SECRET))
    denied, reason = _claude_like(agent, proj, bindir, dict(data, tool_input=json.dumps(tin)))
    assert denied and P0 in reason, reason
    allowed = dict(tin, file_path=str(proj / "src" / "fine.py"))
    assert _claude_like(agent, proj, bindir, dict(data, tool_input=json.dumps(allowed))) == (False, "")


def test_codex_patches_of_any_shape_are_judged(proj: Path, bindir: Path) -> None:
    install(proj, "codex", restart=False)
    base = json.loads(payload("codex_pre_tool_use_apply_patch_denied", proj))
    cmd = command_for(proj, "codex", "PreToolUse", "apply_patch")

    def verdict(data: dict[str, Any]) -> str:
        r = fire(cmd, json.dumps(data), proj, bindir, {})
        assert r.code == 0, r.err
        return r.json()["hookSpecificOutput"].get("permissionDecisionReason", "") if r.out else ""

    assert P0 in verdict(base)
    assert P0 in verdict(dict(base, tool_input=json.dumps(base["tool_input"])))  # a JSON string: read
    assert "has no tool_input" in verdict({k: v for k, v in base.items() if k != "tool_input"})
    assert "names no file path" in verdict(dict(base, tool_input={"command": "not a patch"}))
    edit = dict(base, tool_name="Edit", tool_input={"file_path": str(proj / SECRET), "old_string": "a"})
    assert P0 in verdict(edit)  # an Edit names its file, not a patch
    assert "JSON an array" in verdict(dict(edit, tool_input={"file_path": [SECRET]}))


def test_gemini_writes_of_any_shape_are_judged(proj: Path, bindir: Path) -> None:
    install(proj, "gemini", restart=False)
    base = json.loads(payload("gemini_before_tool_denied", proj))
    cmd = command_for(proj, "gemini", "BeforeTool", "write_file")

    def verdict(data: dict[str, Any]) -> str:
        r = fire(cmd, json.dumps(data), proj, bindir, env_for("gemini", proj))
        assert r.code == 0, r.err
        out = r.json() if r.out else {}
        return str(out.get("reason", "")) if out.get("decision") == "deny" else ""

    assert P0 in verdict(base)
    assert P0 in verdict(dict(base, tool_input=json.dumps(base["tool_input"])))
    assert "JSON an array" in verdict(dict(base, tool_input={"file_path": [str(proj / SECRET)]}))
    assert "has no tool_input" in verdict({k: v for k, v in base.items() if k != "tool_input"})
    assert "names no file path" in verdict(dict(base, tool_input={"content": "x"}))


def test_cursor_shaped_writes_of_any_shape_are_judged(proj: Path, bindir: Path) -> None:
    install(proj, "claude", restart=False)
    shaped = json.loads(payload("cursor_shaped_post_tool_use", proj))
    cmd = command_for(proj, "claude", "PreToolUse", "Write")
    env = env_for("cursor", proj)
    for bad, words in (
        ({"tool_input": {"file_path": 3}}, "JSON a number"),
        ({"file_path": [SECRET]}, "JSON an array"),
        ({"tool_input": "[]"}, "holding an array"),
    ):
        data = {k: v for k, v in shaped.items() if k not in ("tool_input", "file_path")}
        data.update(hook_event_name="preToolUse", **bad)
        r = fire(cmd, json.dumps(data), proj, bindir, env)
        assert r.code == 2 and r.json()["permission"] == "deny" and words in r.err, (bad, r.out, r.err)


def _cline(proj: Path, data: dict[str, Any]) -> dict[str, Any]:
    here = str(Path(sys.executable).parent)
    env = dict(os.environ, PATH=f"{here}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(
        ["bash", str(proj / ".clinerules/hooks/PreToolUse.sh")],
        input=json.dumps(data),
        text=True,
        capture_output=True,
        cwd=proj,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else {}


def test_cline_calls_of_any_shape_are_judged(proj: Path) -> None:
    assert run("install", "cline", cwd=proj).code == 0
    base = json.loads((FIXTURES / "cline_tool_call.json").read_text().replace("__PROJECT__", str(proj)))
    call = base["tool_call"]
    denied_input = dict(call["input"], path=str(proj / SECRET))
    assert _cline(proj, base) == {}  # the captured call: allowed
    out = _cline(proj, dict(base, tool_call=dict(call, input=json.dumps(denied_input))))
    assert out.get("cancel") is True and P0 in out["errorMessage"]  # a JSON string input: read and judged
    for bad, words in (
        (json.dumps([1]), "holding an array"),
        ("path=x", "not JSON"),
        (None, "has no tool_call.input"),
        ({"path": 5}, "JSON a number"),
        ({"new_text": "x"}, "names no file path"),
    ):
        tool_call = (
            dict(call, input=bad) if bad is not None else {k: v for k, v in call.items() if k != "input"}
        )
        out = _cline(proj, dict(base, tool_call=tool_call))
        assert out.get("cancel") is True and words in out["errorMessage"], (bad, out)
