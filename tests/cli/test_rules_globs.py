"""Issue 23 point 4, through the real agentctl: deny-write globs as `.gitignore` reads them, refused
at `add` when git would read them otherwise than meant, and a broken line of the rules file that
changes nothing for the other paths (reported by the hooks, `resume`, `doctor`; quarantined by `--fix`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run

RULES = ".agent-state/services/constraints/status"


@pytest.mark.parametrize(
    "glob,words",
    [
        ("{secrets,keys}/**", "add one rule each: `deny-write: secrets/**` and `deny-write: keys/**`"),
        ("a[z-a]b", "range backwards"),
        ("src/[x", "unclosed '['"),
        ("[[:foo:]]", "unknown character class"),
        ("x\\", "lone '\\'"),
        ("!keep", "un-ignores"),
    ],
)
def test_add_refuses_a_glob_git_reads_otherwise_in_one_line(project: Path, glob: str, words: str) -> None:
    before = (project / RULES).read_bytes() if (project / RULES).exists() else b""
    r = run("constraints", "add", "P0", f"deny-write: {glob}", cwd=project)
    assert r.code == 2 and words in r.err and len(r.err.strip().splitlines()) == 1, r.err
    assert "internal error" not in r.err and "Traceback" not in r.err
    assert ((project / RULES).read_bytes() if (project / RULES).exists() else b"") == before


@pytest.mark.parametrize(
    "glob,denied,allowed",
    [
        ("keys/[[:alnum:]]*.pem", ["keys/a1.pem", "keys/9.pem"], ["keys/_x.pem", "keys/a1.txt"]),
        ("data\\[1\\].csv", ["data[1].csv", "x/data[1].csv"], ["data1.csv"]),
        ("[]abc]", ["]", "a", "x/c"], ["d"]),
        ("secrets/", ["secrets/k", "a/secrets/k"], ["secrets", "secretsx/k"]),
        ("[!a]b.txt", ["cb.txt"], ["ab.txt"]),
        ("[^a]b.txt", ["cb.txt"], ["ab.txt"]),
    ],
)
def test_globs_mean_what_gitignore_says(
    project: Path, glob: str, denied: list[str], allowed: list[str]
) -> None:
    assert run("constraints", "add", "P0", f"deny-write: {glob}", cwd=project).code == 0
    for path in denied:
        assert run("constraints", "check", path, cwd=project).code == 1, (glob, path)
    for path in allowed:
        assert run("constraints", "check", path, cwd=project).code == 0, (glob, path)


def _pre_edit(project: Path, rel: str) -> dict[str, str]:
    data = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(project / rel), "content": "x"},
        "tool_use_id": "toolu_1",
    }
    r = run("hook", "claude", "pre-tool-use", cwd=project, stdin=json.dumps(data))
    assert r.code == 0 and "Traceback" not in r.err, r.err
    out: dict[str, str] = json.loads(r.out)["hookSpecificOutput"] if r.out else {}
    return out


def test_a_broken_line_changes_nothing_for_other_paths_and_is_reported(project: Path) -> None:
    assert run("constraints", "add", "P0", "deny-write: secrets/**", cwd=project).code == 0
    rules = project / RULES
    good = rules.read_bytes()
    rules.write_bytes(good + b"not a rule at all\nP0|deny-write: keys/[x\nP0|deny-write: a[z-a]b\n")
    free = _pre_edit(project, "src/ok.py")
    assert "permissionDecision" not in free  # allowed, with a note
    assert "3 lines of the rules file cannot be taken as written" in free["additionalContext"]
    assert _pre_edit(project, "secrets/k")["permissionDecision"] == "deny"  # the good rule still applies
    meant = _pre_edit(project, "keys/abc")  # what the broken P0 line may mean: refused, saying why
    assert (
        meant["permissionDecision"] == "deny"
        and "line 3 of the rules file" in meant["permissionDecisionReason"]
    )
    assert run("constraints", "check", "src/ok.py", cwd=project).code == 0
    assert run("constraints", "check", "keys/abc", cwd=project).code == 1
    assert run("constraints", "check", "axb", cwd=project).code == 1

    shown = run("resume", cwd=project).out.splitlines()
    broken = [ln for ln in shown if ln.startswith("RULES BROKEN")]
    assert len(broken) == 1 and "line 2 `not a rule at all`" in broken[0] and len(broken[0]) < 400
    assert "P0|deny-write: secrets/**" in shown

    doctor = run("doctor", cwd=project)
    assert doctor.code != 0 and "line 2 `not a rule at all`" in doctor.out + doctor.err
    assert rules.read_bytes().endswith(b"a[z-a]b\n")  # doctor without --fix changes nothing
    fixed = run("doctor", "--fix", cwd=project)
    assert fixed.code == 0, fixed.out + fixed.err
    assert rules.read_bytes() == good
    kept = b"".join(p.read_bytes() for p in (project / ".agent-state" / "logs").glob("quarantine-*"))
    assert b"not a rule at all" in kept and b"keys/[x" in kept and b"a[z-a]b" in kept  # nothing deleted
    assert run("doctor", cwd=project).code == 0
    assert _pre_edit(project, "src/ok.py") == {} and _pre_edit(project, "keys/abc") == {}
    assert not [ln for ln in run("resume", cwd=project).out.splitlines() if ln.startswith("RULES")]


def test_adding_a_rule_keeps_a_broken_line_as_it_was(project: Path) -> None:
    rules = project / RULES
    rules.parent.mkdir(parents=True, exist_ok=True)
    rules.write_bytes(b"P1|tests\n\xff not utf-8\ndeny-write: keys/**\n")
    assert run("constraints", "add", "P0", "deny-write: secrets/**", cwd=project).code == 0
    text = rules.read_bytes()
    assert (
        b"\xff not utf-8\n" in text
        and b"deny-write: keys/**\n" in text
        and b"P0|deny-write: secrets/**" in text
    )
    # no priority: taken as the P0 it may be
    assert run("constraints", "check", "keys/a", cwd=project).code == 1
    assert run("constraints", "check", "src/a", cwd=project).code == 0
