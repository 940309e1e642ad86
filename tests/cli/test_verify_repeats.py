"""Issue 8, point 2: error signatures, repeated failures and repeated fixes, through the real `agentctl`."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from conftest import run

# A check whose output changes on every run in everything but the error itself: a timestamp,
# a duration, a heap address, a fresh temp folder and a PID.
CHECK = """\
import datetime, os, random, sys, tempfile
value = open("a.py").read().strip()
if value == "x = 42":
    sys.exit(0)
tmp = tempfile.mkdtemp()
print(f"{datetime.datetime.now().isoformat()} [pid {os.getpid()}] collecting in {tmp}/cache ...")
print(f"a.py:1: error: {value!r} is wrong (object at {hex(id(object()) + random.randrange(1, 10**6))})")
print(f"1 failed in {random.random():.2f}s")
sys.exit(1)
"""


def setup(project: Path) -> None:
    (project / "check.py").write_text(CHECK)
    (project / ".agent-state/services/verify/commands").write_text(
        f"{shlex.quote(sys.executable)} check.py\n"
    )
    (project / "list.txt").write_text("a.py\n")
    assert (
        run(
            "task", "start", "--id", "fix", "--desc", "make a.py right", "--files", "list.txt", cwd=project
        ).code
        == 0
    )


def write(project: Path, content: str) -> None:
    (project / "a.py").write_text(content + "\n")
    assert run("files", "log", "MODIFY", "a.py", cwd=project).code == 0


def verify(project: Path) -> dict[str, object]:
    r = run("--json", "verify", "start", cwd=project)
    assert r.code in (0, 1), r.err
    return r.data()  # type: ignore[no-any-return]


def status(project: Path) -> dict[str, str]:
    return run("verify", "status", cwd=project).kv()


def test_same_failure_from_same_contents_names_the_attempt(project: Path) -> None:
    setup(project)
    write(project, "x = 1")
    first = verify(project)
    assert first["state"] == "FAILED" and not first["repeat"]
    write(project, "x = 2")
    assert not verify(project)["repeat"]  # other contents, other error: nothing to say
    assert run("verify", "tried", "set x to 2", cwd=project).code == 0
    write(project, "x = 3")
    verify(project)
    run("verify", "tried", "set x to 3", cwd=project)
    # after a compaction the agent, not remembering, writes x = 2 again
    write(project, "x = 2")
    r = run("verify", "start", cwd=project)
    assert r.code == 1
    assert 'REPEATED: identical to run 2 after the fix "set x to 2"' in r.out
    assert "REPEATED failure" in r.err and len(r.err.strip().splitlines()) == 1
    kv = status(project)
    assert kv["REPEAT"] == 'run 2 after the fix "set x to 2"'
    res = run("resume", cwd=project).out
    assert 'REPEATED: this failure is identical to run 2 after the fix "set x to 2"' in res
    # the volatile parts really did differ between the runs
    logs = sorted((project / ".agent-state/logs").glob("verify-*-*.log"))
    assert len({p.read_text() for p in logs}) == len(logs)


def test_back_to_the_start_is_named_too(project: Path) -> None:
    setup(project)
    write(project, "x = 1")
    verify(project)
    write(project, "x = 5")
    verify(project)
    run("verify", "tried", "x = 5", cwd=project)
    write(project, "x = 1")  # reverted by hand
    assert verify(project)["repeat"] == "run 1 (no fix recorded for it)"


def test_same_error_different_contents_is_not_a_repeat(project: Path) -> None:
    setup(project)
    (project / "other.py").write_text("1\n")
    write(project, "x = 1")
    verify(project)
    (project / "other.py").write_text("2\n")  # a touched file changes; the error stays the same
    assert run("files", "log", "MODIFY", "other.py", cwd=project).code == 0
    out = verify(project)
    assert not out["repeat"] and out["same_error"] == "run 1 (no fix recorded for it)"
    assert "the same error as run 1" in str(out["message"])


def test_fix_recorded_before_its_run_is_tied_to_that_run(project: Path) -> None:
    setup(project)
    write(project, "x = 1")
    verify(project)
    write(project, "x = 7")
    assert run("verify", "tried", "use seven", cwd=project).code == 0  # recorded before the run
    verify(project)
    write(project, "x = 8")
    verify(project)
    write(project, "x = 7")
    assert verify(project)["repeat"] == 'run 2 after the fix "use seven"'


def test_similar_tried_text_is_recorded_with_a_warning(project: Path) -> None:
    setup(project)
    write(project, "x = 1")
    verify(project)
    assert run("verify", "tried", "Cast the size to a number", cwd=project).err == ""
    for same in ("cast size to number", "  CAST   the size, to a number!  ", "cast size to number again"):
        r = run("--json", "verify", "tried", same, cwd=project)
        assert r.code == 0
        data = r.data()
        assert data["similar_to"] == "Cast the size to a number" and data["similar_ref"] == "TRIED_1"
        assert data["tried"][-1] == same.strip()  # recorded anyway
        assert "TRIED_1" in r.err and "Cast the size to a number" in r.err
    for other in ("widen the prop type", "cast size to string", "number"):
        r = run("verify", "tried", other, cwd=project)
        assert r.code == 0 and r.err == "", other


def test_signatures_bounded_full_record_archived_at_stop(project: Path) -> None:
    setup(project)
    write(project, "x = 0")
    for i in range(24):  # contents differ every run (the touched file is hashed), errors too
        (project / "a.py").write_text(f"x = {100 + i}\n")
        assert run("verify", "start", cwd=project).code == 1
    kv = status(project)
    sigs = [k for k in kv if k.startswith("SIG_")]
    assert len(sigs) == 20 and kv["SIG_20"].startswith("24 ") and kv["SIG_1"].startswith("5 ")
    assert (project / ".agent-state/services/verify/status").stat().st_size < 8000
    run("verify", "tried", "one last idea", cwd=project)
    r = run("task", "stop", "--force", cwd=project)
    assert r.code == 0, r.err
    journal = (project / ".agent-state/logs/verify-fix.journal").read_text().splitlines()
    assert sum(1 for ln in journal if ln.split("|")[1] == "FAIL") == 24
    assert any(ln.endswith("|one last idea") for ln in journal)
    assert not (project / ".agent-state/services/verify/journal").exists()
    kv = status(project)
    assert not any(k.startswith("SIG_") for k in kv) and "REPEAT" not in kv
    assert (
        "VERIFY_JOURNAL=logs/verify-fix.journal" in (project / ".agent-state/logs/task-fix.done").read_text()
    )


def test_no_touched_files_means_contents_unknown_never_a_repeat(project: Path) -> None:
    setup(project)
    (project / "a.py").write_text("x = 1\n")  # edited, but nothing logged it
    verify(project)
    out = verify(project)
    assert not out["repeat"] and out["same_error"]  # same error, but the contents are unknown
    assert status(project)["SIG_2"].split(" ")[::2] == ["2", "-"]  # RUN ERRSIG FILESIG: contents unknown


def test_damaged_signature_key_is_a_state_error(project: Path) -> None:
    st = project / ".agent-state/services/verify/status"
    st.write_text(st.read_text() + "BOGUS_KEY=1\n")
    r = run("verify", "status", cwd=project)
    assert r.code == 3 and "unknown key BOGUS_KEY" in r.err and len(r.err.strip().splitlines()) == 1


# A check whose error message never changes; only where it is raised does (Python's traceback names
# the site on a line of its own, apart from the message).
SITES = """\
import sys
site = open("a.py").read().strip()
if site == "ok":
    sys.exit(0)
print("Traceback (most recent call last):")
print(f'  File "{site}", line 7, in <module>')
print("ValueError: bad value")
sys.exit(1)
"""


def test_the_same_message_at_another_site_is_not_the_same_error(project: Path) -> None:
    """Issue 30 point 8: "the same error" needs the same location and the same message."""
    setup(project)
    (project / "check.py").write_text(SITES)
    write(project, "src/one.py")
    verify(project)
    write(project, "src/two.py")  # the same ValueError, raised elsewhere
    verify(project)
    s = status(project)
    assert "SAME_ERROR" not in s and "REPEAT" not in s, s
    write(project, "src/one.py")  # back at the first site, the same message: the same error
    verify(project)
    again = status(project)
    assert "run 1" in again.get("REPEAT", "") + again.get("SAME_ERROR", ""), again
