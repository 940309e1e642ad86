"""agentctl.integrations.install: the plans of `install`/`uninstall` for every target, and applying them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentctl.errors import UsageError
from agentctl.integrations import install


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    """An empty project folder (tmp_path also holds the test's HOME)."""
    folder = tmp_path / "proj"
    folder.mkdir()
    return folder


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("target,client", [(t, "claude" if t == "mcp" else None) for t in install.TARGETS])
def test_install_then_uninstall_of_every_target_leaves_the_project_as_it_was(proj: Path, target: str,
                                                                             client: str | None) -> None:
    project = str(proj)
    (proj / "README.md").write_text("mine\n")
    before = _snapshot(proj)
    results = install.apply(install.plan_install(project, target, client=client))
    assert results and all(r["action"] in ("created", "updated") for r in results), results
    assert _snapshot(proj) != before
    again = install.apply(install.plan_install(project, target, client=client))
    assert all(r["action"] == "unchanged" for r in again), again  # installing twice adds nothing
    install.apply(install.plan_uninstall(project, target, client=client))
    after = {k: v for k, v in _snapshot(proj).items() if not k.endswith(".agentctl.bak")}
    assert after == before


def test_claude_hooks_call_agentctl_by_name_or_by_the_path_given(proj: Path) -> None:
    project = str(proj)
    assert not install.claude_installed(project)
    install.apply(install.plan_install(project, "claude"))
    assert install.claude_installed(project)
    doc = json.loads((proj / ".claude/settings.json").read_text())
    commands = [h["command"] for groups in doc["hooks"].values() for g in groups for h in g["hooks"]]
    assert commands and all(c.startswith("agentctl hook claude ") for c in commands)
    plan = install.plan_install(project, "claude", agentctl="/opt/my tools/agentctl")
    text = (plan.changes[0].new or b"").decode()
    assert "'/opt/my tools/agentctl' hook claude" in text and '"agentctl hook claude' not in text


def test_local_claude_settings(proj: Path) -> None:
    (change,) = install.plan_install(str(proj), "claude", local=True).changes[:1]
    assert change.rel == ".claude/settings.local.json"


@pytest.mark.parametrize("target,kw,words", [
    ("nosuch", {}, "unknown target 'nosuch'"), ("codex", {"local": True}, "--local applies to `claude` only"),
    ("claude", {"file": "X.md"}, "--file applies to `agents-md` only"), ("mcp", {}, "`mcp` needs --client claude|cursor"),
    ("mcp", {"client": "vim"}, "not 'vim'"), ("claude", {"client": "claude"}, "--client applies to `mcp` only"),
])
def test_options_that_do_not_apply_are_usage_errors(proj: Path, target: str, kw: dict[str, object], words: str) -> None:
    for plan in (install.plan_install, install.plan_uninstall):
        with pytest.raises(UsageError, match=words.replace("|", "\\|")):
            plan(str(proj), target, **kw)  # type: ignore[arg-type]
    assert list(proj.iterdir()) == []


@pytest.mark.parametrize("name,rel", [(None, "AGENTS.md"), ("GEMINI.md", "GEMINI.md"), ("docs/../X.md", "X.md"),
                                      (".cursor/rules/a.mdc", ".cursor/rules/a.mdc")])
def test_instruction_file(proj: Path, name: str | None, rel: str) -> None:
    assert install.instruction_file(str(proj), name) == rel


@pytest.mark.parametrize("name,words", [(" ", "needs a file name"), ("../out.md", "is outside the project"),
                                        (".agent-state/x.md", "inside .agent-state/"), ("cfg.json", "is a JSON file")])
def test_instruction_file_refusals(proj: Path, name: str, words: str) -> None:
    with pytest.raises(UsageError, match=words):
        install.instruction_file(str(proj), name)


def test_running_agentctl_is_the_console_script(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    script = tmp_path / "bin" / "agentctl"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    monkeypatch.setattr("sys.argv", [str(script)])
    assert install.running_agentctl() == str(script)
    monkeypatch.setattr("sys.argv", ["-m"])
    monkeypatch.setattr("sys.executable", str(tmp_path / "python"))
    with pytest.raises(UsageError, match="cannot tell where this agentctl is installed"):
        install.running_agentctl()
    script.chmod(0o755)
    monkeypatch.setattr("sys.executable", str(script.parent / "python"))
    assert install.running_agentctl() == str(script) and os.access(script, os.X_OK)
