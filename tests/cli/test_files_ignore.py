"""Issue 12 point 5: only the agent's edits are logged, in a project without a .gitignore.

`files sync` leaves build output and caches out (a default list, plus `.agent-state/ignore`), and
what the verify commands write while they run is recorded as verify-written: not in FILES, not in
the evidence, not in the repeat signature; a later real edit of such a path still counts.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentctl.files import ignore
from conftest import run
from support.hooks import git, log_entries

CHECK = """\
import os, sys
sys.path.insert(0, "src")
sys.dont_write_bytecode = False
import a  # writes src/__pycache__/a.cpython-*.pyc
os.makedirs("out", exist_ok=True)
with open("out/report.txt", "w") as fh:  # not on the default list: verify-written
    fh.write("report %d\\n" % len(open("src/a.py").read()))
os.makedirs("dist", exist_ok=True)
open("dist/bundle.js", "w").write("bundle\\n")
open("check.stamp", "w").write(str(os.getpid()))  # a different file every run
print("src/a.py:1: error: VALUE must be 2")
sys.exit(1 if a.VALUE != 2 else 0)
"""


def make(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / "src").mkdir(parents=True)
    (proj / "src" / "a.py").write_text("VALUE = 0\n")
    (proj / "src" / "b.py").write_text("OTHER = 1\n")
    (proj / "check.py").write_text(CHECK)
    git(proj, "init", "-q")
    git(proj, "add", ".")
    git(proj, "commit", "-q", "-m", "initial")  # no .gitignore at all
    assert run("init", cwd=proj).code == 0
    assert run("verify", "add", "python3 check.py", cwd=proj).code == 0
    (tmp_path / "list").write_text("src/a.py\nsrc/b.py\n")
    r = run(
        "task", "start", "--id", "t", "--desc", "build output", "--files", str(tmp_path / "list"), cwd=proj
    )
    assert r.code == 0, r.err
    return proj


def paths(proj: Path) -> list[str]:
    return sorted({p for _, p in log_entries(proj)})


def test_verify_output_never_counts_as_an_agent_edit(tmp_path: Path) -> None:
    proj = make(tmp_path)
    sub = proj / "src"
    (proj / "src" / "a.py").write_text("VALUE = 1\n")  # the agent's edit, through the shell (no hook saw it)
    first = run("verify", "start", cwd=sub)
    assert first.code == 1, first.out + first.err
    assert (proj / "out" / "report.txt").exists() and list((proj / "src" / "__pycache__").glob("*.pyc"))
    assert paths(proj) == ["src/a.py"]  # the edit was logged before the run; nothing the run wrote
    assert run("files", "sync", cwd=sub).out.strip().startswith("nothing changed")
    assert paths(proj) == ["src/a.py"]

    second = run("verify", "start", cwd=proj)  # nothing changed: the same failure from the same files
    assert second.code == 1
    assert "REPEATED" in second.out and "though the files changed" not in second.out, second.out
    resume = run("resume", cwd=sub).out
    files_line = next(ln for ln in resume.splitlines() if ln.startswith("FILES"))
    assert files_line.startswith("FILES 1 touched") and "src/a.py" in files_line, resume
    assert "report.txt" not in resume and "pycache" not in resume and "check.stamp" not in resume

    (proj / "src" / "a.py").write_text("VALUE = 2\n")
    later = (proj / "src" / "a.py").stat().st_mtime + 5  # same size, maybe the same second: Python's .pyc
    os.utime(proj / "src" / "a.py", (later, later))  # check (mtime + size) would take the old value
    assert run("files", "sync", cwd=proj).code == 0
    passed = run("verify", "start", cwd=proj)
    assert passed.code == 0, passed.out
    status = run("task", "status", cwd=proj).kv()
    assert status["VERIFIED"].startswith("yes"), status
    assert run("files", "sync", cwd=proj).out.strip().startswith("nothing changed")
    assert run("task", "status", cwd=proj).kv()["VERIFIED"].startswith("yes")

    # A real edit of a path the checks wrote counts, and so does a new file in the same folder.
    (proj / "out" / "report.txt").write_text("edited by the agent\n")
    (proj / "out" / "notes.md").write_text("new\n")
    assert run("files", "sync", cwd=proj).code == 0
    assert paths(proj) == ["out/notes.md", "out/report.txt", "src/a.py"]
    assert not run("task", "status", cwd=proj).kv()["VERIFIED"].startswith("yes")


def test_default_list_and_project_patterns(tmp_path: Path) -> None:
    proj = make(tmp_path)
    for rel in (
        "node_modules/x/index.js",
        "build/lib/a.o",
        "pkg.egg-info/PKG-INFO",
        "src/__pycache__/b.pyc",
        "target/debug/app",
        ".pytest_cache/v/x",
        "coverage/lcov.info",
        "gen/schema.json",
        "notes/todo.md",
        "docs/keep.md",
    ):
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text("x\n")
    (proj / ".agent-state" / "ignore").write_text("# generated\ngen/\n*.md\n!docs/keep.md\n!build/\n")
    assert run("files", "sync", cwd=proj).code == 0
    assert paths(proj) == ["build/lib/a.o", "docs/keep.md"]
    # a tracked file under a default folder name is the project's: its edits count
    (proj / "dist").mkdir()
    (proj / "dist" / "tracked.txt").write_text("v1\n")
    git(proj, "add", "-f", "dist/tracked.txt")
    assert run("files", "sync", cwd=proj).code == 0
    assert "dist/tracked.txt" in paths(proj)


@pytest.mark.parametrize(
    ("path", "tracked", "want"),
    [
        ("src/__pycache__/m.cpython-311.pyc", False, True),
        ("a.pyc", False, True),
        ("node_modules/a/b.js", False, True),
        ("x/node_modules/y", False, True),
        ("dist/app.js", False, True),
        ("dist/app.js", True, False),
        ("my.egg-info/PKG-INFO", False, True),
        ("src/builder.py", False, False),
        ("build", False, False),
        (".venv/lib/x.py", False, True),
        ("src/dist.py", False, False),
    ],
)
def test_default_list(path: str, tracked: bool, want: bool) -> None:
    assert ignore.ignored(path, tracked, None) is want


def test_project_patterns_read_like_gitignore() -> None:
    pats = ignore.Patterns("\ufeff# c\n\n/top.txt\nlogs/\n**/gen/*.ts\n!logs/keep.log\n[unclosed\n")
    assert pats.decide("top.txt", False) and not pats.decide("sub/top.txt", False)
    assert (
        pats.decide("logs/a.log", False)
        and pats.decide("x/logs/a.log", False)
        and not pats.decide("logs", False)
    )
    assert not pats.decide("logs/keep.log", False)
    assert (
        pats.decide("a/gen/x.ts", False)
        and pats.decide("gen/x.ts", False)
        and not pats.decide("gen/x.js", False)
    )
    assert ignore.Patterns("!dist/\n").decide("dist/a.js", True) is False


def test_the_default_list_is_the_documented_one() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "performance.md").read_text()
    for pattern in ignore.defaults_text().split():
        assert f" {pattern} " in doc.replace("\n", " "), pattern
