"""The JSON envelope and docs/json.md: every command answers in the one shape, with the keys the page
lists."""

from __future__ import annotations

import json
import re
from pathlib import Path

from agentctl.cli import helpformat
from agentctl.operation import registry
from conftest import run

DOC = Path(__file__).resolve().parent.parent / "docs" / "json.md"
# they speak a protocol or tell a story: no data of their own
SERVING = {("hook",), ("mcp",), ("web",), ("demo",)}


def _rows() -> dict[str, set[str]]:
    """docs/json.md's table: command words -> the keys it lists (a row `as X` lists X's)."""
    rows: dict[str, set[str]] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| `agentctl ([^`]+)` \| (.*) \|$", line)
        if m:
            cell = m.group(2)
            same = re.match(r"as `([^`]+)`", cell)
            rows[m.group(1).replace("\\|", "|")] = (
                rows[same.group(1)] if same else set(re.findall(r"`(\w+)`", cell))
            )
    return rows


def test_every_command_has_a_row() -> None:
    rows = _rows()
    for key, _ in helpformat.visible():
        if key in SERVING:
            continue
        name = "SERVICE start|stop|status" if key == ("@custom",) else " ".join(key)
        assert name in rows, f"docs/json.md has no row for `agentctl {name}`"
    known = {" ".join(k) for k in registry.COMMANDS} | {
        "SERVICE start|stop|status",
        "history show",
        "history search",
        "--version",
    }
    assert set(rows) <= known, set(rows) - known


def _answer(project: Path, *args: str, code: int = 0) -> dict[str, object]:
    r = run("--json", *args, cwd=project)
    assert r.code == code, (args, r.err)
    doc = json.loads(r.out)
    assert doc["command"] == (
        " ".join(args[:2]) if len(args) > 1 and (args[0], args[1]) in registry.COMMANDS else args[0]
    ), doc
    data = r.data()
    assert isinstance(data, dict)
    return data


def test_each_answer_has_only_documented_keys_and_numbers_as_numbers(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    rows = _rows()
    seen: set[str] = set()

    def check(name: str, *args: str, code: int = 0) -> dict[str, object]:
        data = _answer(project, *args, code=code)
        assert set(data) <= rows[name], (name, set(data) - rows[name])
        seen.add(name)
        return data

    check("init", "init")
    (project / "list.txt").write_text("src/a.py\nsrc/b.py\nsrc/c.py\n")
    check("constraints add", "constraints", "add", "P0", "deny-write: secrets/**")
    check("constraints list", "constraints", "list")
    check("constraints update", "constraints", "update", "--add", "P2|short names")
    check("constraints remove", "constraints", "remove", "P2|short names")
    started = check("task start", "task", "start", "--id", "t1", "--desc", "d", "--files", "list.txt")
    task = started["task"]
    assert isinstance(task, dict) and task["TOTAL"] == 3 and task["DONE"] == 0 and task["SEQ"] == 1
    check("files log", "files", "log", "MODIFY", "src/a.py")
    hit = check("files check", "files", "check", "src/a.py")
    assert hit["touched"] is True and isinstance(hit["entries"], list)
    assert check("files check", "files", "check", "src/b.py", code=1)["touched"] is False
    check("files list", "files", "list")
    check("files status", "files", "status")
    done = check("task done", "task", "done", "src/a.py")
    assert done["seq"] == 2 and isinstance(done["task"], dict) and done["task"]["DONE"] == 1
    check("task update", "task", "update", "--notes", "n")
    check("task add", "task", "add", "src/d.py")
    check("task skip", "task", "skip", "src/d.py", "--reason", "later")
    check("task reopen", "task", "reopen", "src/d.py", "--reason", "now")
    claimed = check("task claim", "task", "claim", "--agent", "helper")
    assert isinstance(claimed["expires"], int | float)
    listed = check("task list", "task", "list", "--todo")
    assert listed["entries"] == [
        {"path": "src/b.py", "mark": "todo"},
        {"path": "src/c.py", "mark": "todo"},
        {"path": "src/d.py", "mark": "todo"},
    ]
    assert set(check("completion", "completion", "bash")) == {"shell", "script"}
    status = check("task status", "task", "status")
    assert isinstance(status["claims"], list) and len(status["claims"]) == 1
    check("verify add", "verify", "add", "true")
    passed = check("verify start", "verify", "start")
    assert isinstance(passed["verify"], dict) and passed["verify"]["EXIT_CODE"] == 0
    check("verify tried", "verify", "tried", "something")
    check("verify status", "verify", "status")
    check("constraints check", "constraints", "check", "secrets/k", code=1)
    check("constraints ack", "constraints", "ack", "secrets/k", code=1)
    resumed = check("resume", "resume", "--max-chars", "400")
    assert resumed["budget"] == 400 and resumed["chars"] == len(str(resumed["resume"]))
    check("prompt", "prompt")
    check("status", "status")
    check("runlevel", "runlevel")
    check("task stop", "task", "stop", "--force")
    check("history", "history")
    shown = check("history show", "history", "show", "t1")
    assert isinstance(shown["task"], dict) and shown["task"]["TOTAL"] == 4 and shown["task"]["DONE"] == 1
    check("history search", "history", "search", "d")
    check("doctor", "doctor")
    check("gc", "gc", "--dry-run")
    check("files scan", "files", "scan")
    check("files sync", "files", "sync")
    check("install", "install", "gemini")
    check("uninstall", "uninstall", "gemini")
    check("verify stop", "verify", "stop")
    check("files start", "files", "start")
    check("files stop", "files", "stop")
    check("notify add", "notify", "add", "true", "--on", "task-done")
    check("notify list", "notify", "list")
    check("notify test", "notify", "test", "task-done")
    check("notify check", "notify", "check")
    check("notify remove", "notify", "remove", "1")
    assert check("statusline", "statusline")["state"] is True
    assert check("context", "context")["thresholds"] == [35, 20]
    assert len(seen) == 49


def test_a_refusal_is_the_envelope_with_an_error_and_no_change(tmp_path: Path) -> None:
    assert run("init", cwd=tmp_path).code == 0
    before = sorted(p.name for p in (tmp_path / ".agent-state").rglob("*"))
    r = run("--json", "task", "update", "--state", "SLEEPING", cwd=tmp_path)
    doc = json.loads(r.out)
    assert r.code == 2 and doc["ok"] is False and doc["exit"] == 2 and doc["data"] is None
    assert doc["error"]["kind"] == "usage" and doc["command"] == "task update"
    assert doc["error"]["message"] in r.err  # the same one line on stderr
    assert sorted(p.name for p in (tmp_path / ".agent-state").rglob("*")) == before
    r = run("--json", "resume", cwd=tmp_path / "..")
    doc = json.loads(r.out)
    assert r.code == 3 and doc["error"]["kind"] == "state" and doc["command"] == "resume"


def test_a_no_without_an_answer_is_kind_no(tmp_path: Path) -> None:
    assert run("init", cwd=tmp_path).code == 0
    r = run("--json", "task", "stop", cwd=tmp_path)
    doc = json.loads(r.out)
    assert r.code == 1 and doc["exit"] == 1 and doc["data"] is None and doc["ok"] is False
    assert doc["error"] == {"message": "no task is running; nothing to stop", "kind": "no"}
    assert '"kind": "no"' in DOC.read_text(encoding="utf-8")


def test_version_answers_in_the_envelope_too(tmp_path: Path) -> None:
    from agentctl import DISTRIBUTION, __version__

    for args in (("--json", "--version"), ("--version", "--json")):
        r = run(*args, cwd=tmp_path)
        assert r.code == 0 and r.data() == {"version": __version__, "distribution": DISTRIBUTION}
        assert set(r.data()) == _rows()["--version"]
    assert run("--version", cwd=tmp_path).out == f"agentctl {__version__}\n"


def test_the_interfaces_answers_have_only_documented_keys(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "src").mkdir(parents=True)
    (project / "src" / "a.js").write_text("getUser(id)\n")
    (project / "list.txt").write_text("src/a.js\n")
    rows = _rows()
    for args, code in [
        (("init",), 0),
        (("task", "start", "--id", "t1", "--desc", "d", "--files", "list.txt"), 0),
        (("interfaces", "add", "getUser", "--old", "getUser(id)", "--new", "getUser({ id })"), 0),
        (("interfaces", "list"), 0),
        (("interfaces", "status"), 0),
        (("interfaces", "start"), 0),
        (("interfaces", "check"), 1),
        (("interfaces", "remove", "getUser"), 0),
    ]:
        data = _answer(project, *args, code=code)
        name = " ".join(args[:2]) if args[0] == "interfaces" else args[0] if len(args) == 1 else "task start"
        assert set(data) <= rows[name], (name, set(data) - rows[name])
        if args[:2] == ("interfaces", "add"):
            iface = data["interface"]
            assert isinstance(iface, dict) and iface["old_uses"] == 1 and iface["uses"][0]["line"] == 1
