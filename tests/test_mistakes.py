"""Mistakes are refused or warned, not stored: task lists, `task done`, install, resume budgets.
Through the real `agentctl`, from the project root and from a subfolder."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from conftest import AGENTCTL, BIN, run, snapshot


def _status(project: Path) -> dict[str, str]:
    return run("task", "status", cwd=project).kv()


@pytest.fixture(params=["root", "sub"])
def where(request: pytest.FixtureRequest, project: Path) -> Path:
    sub = project / "src" / "pkg"
    sub.mkdir(parents=True)
    return project if request.param == "root" else sub


def test_task_start_without_a_list_is_refused_unless_empty(project: Path, where: Path) -> None:
    before = snapshot(project / ".agent-state")
    r = run("task", "start", "--id", "t", "--desc", "d", cwd=where)
    assert r.code == 2 and "--files LIST" in r.err and "--empty" in r.err and r.err.count("\n") == 1
    assert snapshot(project / ".agent-state") == before
    (where / "empty.txt").write_text("\n  \n")
    r = run("task", "start", "--id", "t", "--desc", "d", "--files", "empty.txt", cwd=where)
    assert r.code == 2 and "holds no path" in r.err
    assert _status(project)["STATE"] == "IDLE"
    r = run("task", "start", "--id", "t", "--desc", "d", "--empty", cwd=where)
    assert r.code == 0 and _status(project)["STATE"] == "ACTIVE" and _status(project)["TOTAL"] == "0"
    r = run("task", "start", "--id", "t2", "--desc", "d", cwd=where)
    assert r.code == 2 and "--force" in r.err  # over a running task, that is still what it says


SOURCES = {
    "app.py": "import os\nimport sys\n\n\ndef main():\n    x = os.getcwd()\n    return x\n",
    "index.ts": "import { a } from './a';\n\nexport function f(x: number): number {\n  return a(x) + 1;\n}\n",
    "main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n",
    "lib.rs": "use std::fmt;\n\npub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n",
    "style.css": "body {\n  color: red;\n}\n.x { margin: 0; }\n",
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_a_source_file_as_the_list_is_refused_unless_force(project: Path, where: Path, name: str) -> None:
    (where / name).write_text(SOURCES[name])
    before = snapshot(project / ".agent-state")
    r = run("task", "start", "--id", "t", "--desc", "d", "--files", name, cwd=where)
    assert r.code == 2 and "looks like a source file" in r.err and "--force" in r.err and r.err.count("\n") == 1
    assert snapshot(project / ".agent-state") == before
    r = run("task", "start", "--id", "t", "--desc", "d", "--files", name, "--force", cwd=where)
    assert r.code == 0 and _status(project)["STATE"] == "ACTIVE"


def test_real_lists_are_accepted_even_of_files_not_there_yet(project: Path, where: Path) -> None:
    (where / "list.txt").write_text("  src/new one.py  \nsrc/it's (old).md\r\n\tdocs/[id]/page.tsx\nREADME\nMakefile\n")
    r = run("task", "start", "--id", "t", "--desc", "d", "--files", "list.txt", cwd=where)
    assert r.code == 0, r.err
    assert "do not exist yet" in r.err
    rel = "" if where == project else "src/pkg/"
    (listed,) = (project / ".agent-state/services/task").glob("list-*")
    entries = [ln.split("|", 1)[1] for ln in listed.read_text().splitlines()]
    assert entries == [f"{rel}src/new one.py", f"{rel}src/it's (old).md", f"{rel}docs/[id]/page.tsx", f"{rel}README", f"{rel}Makefile"]


def test_task_done_on_an_entry_never_changed_warns(project: Path, where: Path) -> None:
    (project / "list.txt").write_text("src/a.py\nsrc/b.py\n")
    assert run("task", "start", "--id", "t", "--desc", "d", "--files", "list.txt", cwd=project).code == 0
    run("files", "log", "MODIFY", "src/a.py", cwd=project)
    def spelled(rel: str) -> str:  # cwd-relative from the subfolder (the project-root spelling is exact-a's rule)
        return os.path.relpath(project / rel, where)

    r = run("task", "done", spelled("src/a.py"), cwd=where)
    assert r.code == 0 and "never changed" not in r.err
    r = run("task", "done", spelled("src/b.py"), cwd=where)
    assert r.code == 0 and "src/b.py was marked done but this task never changed it" in r.err
    assert "task reopen src/b.py" in r.err
    assert _status(project)["DONE"] == "2"  # a warning, not a refusal


# -- install -------------------------------------------------------------------------------------

HAND_FORMATTED = {
    ".claude/settings.json": '{\n    "permissions" : { "allow": ["Bash(ls:*)"] },\n\t"model": "x"\n}',
    ".codex/hooks.json": '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mine"}]}]}}\n',
    ".gemini/settings.json": '{ "theme": "dark" }\n\n',
    ".qwen/settings.json": '{"model":  "q"}',
    ".cursor/hooks.json": '{\n  "hooks": {}\n}',
    ".mcp.json": '{"mcpServers": {"other": {"command": "x"}}}',
}
TARGETS = [("claude",), ("codex",), ("gemini",), ("qwen",), ("cursor",), ("mcp", "--client", "claude"), ("agents-md",)]


def _project_files(project: Path) -> dict[str, bytes]:
    return {k: v for k, v in snapshot(project).items() if not k.startswith(".agent-state/")}


@pytest.mark.parametrize("existing", [False, True])
@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t[0])
def test_install_then_uninstall_leaves_every_file_byte_identical(project: Path, target: tuple[str, ...],
                                                                   existing: bool) -> None:
    if existing:
        for rel, text in HAND_FORMATTED.items():
            (project / rel).parent.mkdir(parents=True, exist_ok=True)
            (project / rel).write_text(text)
        (project / "AGENTS.md").write_text("# Notes\n\nmine\n")
        (project / "CLAUDE.md").write_text("claude notes\n")
    before = _project_files(project)
    dirs = sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_dir() and ".agent-state" not in p.parts)
    r = run("install", *target, cwd=project)
    assert r.code == 0, r.err
    assert _project_files(project) != before
    r = run("uninstall", *target, cwd=project / ".git")
    assert r.code == 0, r.err
    assert _project_files(project) == before
    assert sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_dir() and ".agent-state" not in p.parts) == dirs


def _clean_env(tmp: Path) -> dict[str, str]:
    bare = tmp / "bin"
    bare.mkdir(exist_ok=True)
    return {"PATH": f"{bare}:/usr/bin:/bin"}


def test_install_warns_when_agentctl_is_not_on_path_and_absolute_writes_its_path(project: Path, tmp_path: Path) -> None:
    env = _clean_env(tmp_path)
    r = run("install", "claude", cwd=project, env=env)
    assert r.code == 0 and "`agentctl` is not on PATH" in r.err and "--absolute" in r.err
    assert run("uninstall", "claude", cwd=project, env=env).code == 0
    r = run("install", "claude", "--absolute", cwd=project, env=env)
    assert r.code == 0 and "not on PATH" not in r.err
    doc = json.loads((project / ".claude/settings.json").read_text())
    commands = [h["command"] for groups in doc["hooks"].values() for g in groups for h in g["hooks"]]
    assert commands and all(shlex.split(c)[0] == str(BIN) and shlex.split(c)[1] == "hook" for c in commands)
    # the hook the agent runs works without agentctl on PATH
    start = next(c for c in commands if c.endswith("session-start"))
    payload = json.dumps({"hook_event_name": "SessionStart", "source": "startup", "cwd": str(project)})
    proc = subprocess.run(shlex.split(start), input=payload.encode(), capture_output=True, cwd=project,
                          env={**env, "HOME": os.environ["HOME"]}, timeout=60)
    assert proc.returncode == 0 and b"agentctl state" in proc.stdout
    r = run("install", "claude", "--absolute", cwd=project, env=env)
    assert r.code == 0 and "unchanged" in r.out  # nothing twice
    assert run("uninstall", "claude", cwd=project).code == 0
    assert not (project / ".claude/settings.json").exists()


def test_install_absolute_mcp_and_uninstall_refuses_the_flag(project: Path) -> None:
    assert run("install", "mcp", "--client", "cursor", "--absolute", cwd=project).code == 0
    spec = json.loads((project / ".cursor/mcp.json").read_text())["mcpServers"]["agentctl"]
    assert spec["command"] == str(BIN) and spec["args"] == ["mcp"]
    r = run("uninstall", "mcp", "--client", "cursor", "--absolute", cwd=project)
    assert r.code == 2 and "--absolute applies to install only" in r.err
    r = run("install", "opencode", "--absolute", cwd=project)
    assert r.code == 2 and "calls agentctl by name" in r.err and not (project / ".opencode").exists()
    assert run("uninstall", "mcp", "--client", "cursor", cwd=project).code == 0
    assert not (project / ".cursor").exists()


# -- resume's budget never cuts a P0 rule -------------------------------------------------------------

@pytest.mark.parametrize("budget", [200, 300, 500, 2000])
def test_resume_prints_every_p0_rule_whatever_the_budget(project: Path, where: Path, budget: int) -> None:
    rules = [f"rule {i}: never edit generated file number {i} " + "x" * 120 for i in range(8)]
    for text in rules:
        assert run("constraints", "add", "P0", text, cwd=where).code == 0
    run("constraints", "add", "P1", "write tests", cwd=where)
    (project / "l").write_text("src/a.py\n")
    run("task", "start", "--id", "t", "--desc", "d", "--files", "l", cwd=project)
    out = run("resume", "--max-chars", str(budget), cwd=where).out
    lines = out.splitlines()
    assert [ln for ln in lines if ln.startswith("P0|")] == [f"P0|{t}" for t in rules]  # whole, all, in order
    p0_size = sum(len(t) + 4 for t in rules)
    if p0_size > budget:
        assert any(ln.startswith(f"BUDGET too small: --max-chars {budget}") for ln in lines)
    else:
        assert len(out.rstrip("\n")) <= budget and not any(ln.startswith("BUDGET") for ln in lines)
    assert lines[-1].startswith("DO NEXT")
    mcp_like = run("--json", "resume", "--max-chars", str(budget), cwd=where)
    assert all(f"P0|{t}" in mcp_like.data()["resume"] for t in rules)


def test_cli_path_is_the_console_script() -> None:
    assert AGENTCTL[0] == str(BIN)  # --absolute writes this path; the tests run it
