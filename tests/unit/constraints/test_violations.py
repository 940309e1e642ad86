"""agentctl.constraints.violations: a write a P0 rule forbids is recorded once, stays open until restored,
acked or forced."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.constraints import edit, violations
from agentctl.ground.errors import CheckFailed
from agentctl.ground.store import Store

RULE = "deny-write: secrets/**"


@pytest.fixture
def ruled(store: Store) -> Store:
    edit.add(store, "P0", RULE)
    return store


def test_nothing_is_recorded_without_a_p0_rule_or_for_an_allowed_path(store: Store) -> None:
    edit.add(store, "P1", RULE)
    assert violations.note(store, ["secrets/k"]) == []
    edit.add(store, "P0", RULE)
    assert violations.note(store, ["src/a.py"]) == [] and violations.note(store, []) == []
    assert (
        not Path(store.path(violations.LOG)).exists() or Path(store.path(violations.LOG)).read_bytes() == b""
    )


def test_a_violation_opens_once_however_often_the_write_is_seen(ruled: Store) -> None:
    assert violations.note(ruled, ["secrets/k", "src/a.py"]) == [("secrets/k", RULE)]
    assert violations.note(ruled, ["secrets/k"]) == [("secrets/k", RULE)]  # told again, recorded once
    records = Path(ruled.path(violations.LOG)).read_text().splitlines()
    assert [r.split("|")[1:] for r in records] == [["OPEN", "secrets/k", RULE], ["JUDGED", "secrets/k", "-"]]
    ((when, rule),) = violations.open_ones(ruled).values()
    assert rule == RULE and violations.since(ruled, when) == [(when, "secrets/k", RULE)]
    assert violations.since(ruled, "9999") == []


@pytest.mark.parametrize("close", ["restore", "ack", "force"])
def test_each_way_of_closing(ruled: Store, close: str) -> None:
    violations.note(ruled, ["secrets/a", "secrets/b"])
    if close == "restore":
        assert violations.restored(ruled, {"secrets/b"}) == ["secrets/a"]  # git still shows b changed
    elif close == "ack":
        assert violations.ack(ruled, "secrets/a") and not violations.ack(ruled, "secrets/a")
    else:
        assert violations.force(ruled, "t1") == ["secrets/a", "secrets/b"]
        assert violations.open_ones(ruled) == {}
        assert Path(ruled.path(violations.LOG)).read_text().splitlines()[-1].split("|")[1:] == [
            "FORCED",
            "secrets/b",
            "t1",
        ]
        return
    assert list(violations.open_ones(ruled)) == ["secrets/b"]
    violations.note(ruled, ["secrets/a"])  # written again: a new violation
    assert list(violations.open_ones(ruled)) == ["secrets/b", "secrets/a"]


def test_stop_is_refused_while_one_is_open_unless_forced(ruled: Store) -> None:
    assert violations.stop_check(ruled, "t1", False) == {}
    violations.note(ruled, ["secrets/a b"])
    with pytest.raises(CheckFailed) as info:
        violations.stop_check(ruled, "t1", False)
    assert info.value.message.startswith(
        f"task t1 broke P0 `{RULE}`: secrets/a b was written (1 open violation);"
    )
    assert "`agentctl task stop --force`" in info.value.message
    broken = violations.stop_check(ruled, "t1", True)
    assert list(broken) == ["secrets/a b"]
    fields = violations.archive_fields(ruled, "", broken)
    assert fields["VIOLATIONS"].startswith(f"secrets/a b against P0 `{RULE}` at ")
    assert fields["VIOLATIONS_OPEN_AT_STOP"] == "secrets/a b"
    assert violations.archive_fields(ruled, "9999", {}) == {}


def test_the_hint_quotes_for_the_shell_and_knows_about_git(ruled: Store) -> None:
    project = ruled.project
    hint = violations.restore_hint(ruled, "secrets/it's")
    assert "git checkout -- 'secrets/it'\"'\"'s'" in hint and f"git -C {project} checkout" in hint
    assert "(a file git never tracked: delete it)" in hint  # checkout cannot restore a file git never had
    assert hint.endswith("`agentctl constraints ack 'secrets/it'\"'\"'s'`")
    (Path(project) / ".git").rmdir()
    assert "your saved copy (the project is not in git)" in violations.restore_hint(ruled, "secrets/k")


def test_what_the_agent_and_resume_are_told(ruled: Store) -> None:
    assert violations.tell(ruled, []) == ""
    hits = [(f"secrets/{n}", RULE) for n in range(7)]
    told = violations.tell(ruled, hits)
    assert told.count("P0 VIOLATION: ") == 5 and told.endswith("and 2 more (`agentctl resume` lists them)")
    violations.note(ruled, ["secrets/x"])
    line, *note = violations.lines(ruled)
    assert line.startswith("VIOLATION secrets/x written ") and f"against P0 `{RULE}`: restore it with" in line
    assert ruled.project not in line and all(n.startswith("VIOLATIONS: ") for n in note)


def test_deferred_records_count_as_written(ruled: Store) -> None:
    from agentctl.ground import codec, lateappends

    lateappends.defer(
        ruled, violations.LOG, codec.record("2026-01-01T00:00:00+00:00", "OPEN", "secrets/d", RULE)
    )
    assert violations.open_ones(ruled) == {"secrets/d": ("2026-01-01T00:00:00+00:00", RULE)}
    assert violations.ack(ruled, "secrets/d")  # the ack drains the deferred record first, then closes it
    assert violations.open_ones(ruled) == {} and lateappends.names(ruled, violations.LOG) == []


def test_a_changed_denied_path_is_judged_again_when_its_signature_moved(ruled: Store) -> None:
    key = Path(ruled.project) / "secrets" / "k"
    key.parent.mkdir()
    key.write_text("one\n")
    # never judged: a write
    assert violations.note(ruled, [], ["secrets/k", "src/a.py"]) == [("secrets/k", RULE)]
    assert violations.note(ruled, [], ["secrets/k"]) == []  # as judged: no new write
    # the ack covers it
    assert violations.ack(ruled, "secrets/k") and violations.note(ruled, [], ["secrets/k"]) == []
    key.write_text("two, longer\n")
    # written after the ack: open again
    assert violations.note(ruled, [], ["secrets/k"]) == [("secrets/k", RULE)]
    assert list(violations.open_ones(ruled)) == ["secrets/k"]
    assert violations.restored(ruled, set()) == ["secrets/k"]
    # restored forgets the signature
    assert violations.note(ruled, [], ["secrets/k"]) == [("secrets/k", RULE)]


def test_many_violations_fold_into_one_bounded_line_with_their_count_and_paths(ruled: Store) -> None:
    paths = [f"secrets/{'d' * 30}/{n:03d}.key" for n in range(40)]
    violations.note(ruled, paths)
    out = violations.lines(ruled)
    folded = [ln for ln in out if ln.startswith("VIOLATION ")]
    assert (
        len(folded) == 1
        and folded[0].startswith("VIOLATION 40 open")
        and len(folded[0]) <= violations.FOLD_CHARS
    )
    assert paths[0] in folded[0] and "more: `git status` shows them)" in folded[0]
    assert all(ruled.project not in ln for ln in folded)
