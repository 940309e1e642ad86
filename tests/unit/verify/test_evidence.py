"""evidence: the verdict (none/yes/no/never) of the current files log against the last verify pass."""

from __future__ import annotations

from agentctl.files import log
from agentctl.ground import codec
from agentctl.ground.store import Store
from agentctl.verify import evidence, status


def _configure(store: Store) -> None:
    status.configure(store, "true")


def _pass_here(store: Store, failed_after: bool = False) -> None:
    ident, pos = evidence.mark(store)
    fields = {
        "STATE": "PASSED",
        "LAST_PASS": "2026-01-01T00:00:00Z",
        "LAST_PASS_LOG": ident,
        "LAST_PASS_POS": str(pos),
        "RUN_LOG": ident,
        "RUN_POS": str(pos),
    }
    if failed_after:
        fields["STATE"] = "FAILED"
    status.write(store, fields, [])


def test_no_commands_is_none_and_claims_nothing(store: Store) -> None:
    log.start(store, "t1")
    log.log(store, "MODIFY", "a.py")
    ev = evidence.check(store)
    assert ev.verdict == "none" and not ev.blocks_stop
    assert ev.line().startswith("VERIFIED=none (no verify commands configured")
    assert "agentctl verify add COMMAND" in ev.line()


def test_edits_with_no_pass_are_never_and_block_stop(store: Store) -> None:
    _configure(store)
    log.start(store, "t1")
    log.log(store, "CREATE", "a.py")
    log.log(store, "MODIFY", "b.py")
    ev = evidence.check(store)
    assert ev.verdict == "never" and ev.changed == ["a.py", "b.py"] and ev.blocks_stop
    assert ev.line() == "VERIFIED=never (no passing run in this task yet; 2 files changed: a.py, b.py)"


def test_a_pass_after_the_last_edit_is_yes(store: Store) -> None:
    _configure(store)
    log.start(store, "t1")
    log.log(store, "MODIFY", "a.py")
    _pass_here(store)
    ev = evidence.check(store)
    assert ev.verdict == "yes" and ev.changed == [] and not ev.blocks_stop
    assert (
        ev.line()
        == "VERIFIED=yes (the last pass (2026-01-01T00:00:00Z) covers every change logged in this task)"
    )


def test_a_pass_with_no_task_running_claims_no_task_s_changes(store: Store) -> None:
    # No task, no files log: the pass is "yes", but it covers no task's changes, and must not say so.
    _configure(store)
    _pass_here(store)
    ev = evidence.check(store)
    assert ev.verdict == "yes" and ev.no_task and not ev.blocks_stop
    assert (
        ev.line()
        == "VERIFIED=yes (the last pass (2026-01-01T00:00:00Z) covers every change logged (no task is "
        "running))"
    )
    assert "this task" not in str(ev.as_dict()["detail"])


def test_edits_logged_with_no_task_running_are_not_called_this_task_s(store: Store) -> None:
    # The hooks log edits with no task running: the line must not speak of "this task" then.
    _configure(store)
    _pass_here(store)
    log.log(store, "MODIFY", "a.txt")  # the log's first line: the pass ran before there was a log
    assert (
        evidence.check(store).line()
        == "VERIFIED=no (1 file changed since the last pass (2026-01-01T00:00:00Z): a.txt)"
    )
    _pass_here(store)
    assert (
        evidence.check(store).detail()
        == "the last pass (2026-01-01T00:00:00Z) covers every change logged (no task is running)"
    )


def test_an_edit_after_the_pass_is_no_and_named(store: Store) -> None:
    _configure(store)
    log.start(store, "t1")
    log.log(store, "MODIFY", "a.py")
    _pass_here(store)
    log.log(store, "MODIFY", "c.py")
    ev = evidence.check(store)
    assert ev.verdict == "no" and ev.changed == ["c.py"] and ev.blocks_stop
    assert ev.detail() == "1 file changed since the last pass (2026-01-01T00:00:00Z): c.py"


def test_a_failed_run_after_the_pass_is_no_even_without_edits(store: Store) -> None:
    _configure(store)
    log.start(store, "t1")
    _pass_here(store, failed_after=True)
    ev = evidence.check(store)
    assert ev.verdict == "no" and ev.failed and ev.blocks_stop
    assert ev.detail() == "the latest verify run FAILED after the last pass (2026-01-01T00:00:00Z)"


def test_a_pass_recorded_against_an_earlier_log_is_stale(store: Store) -> None:
    _configure(store)
    log.start(store, "old task")
    log.log(store, "MODIFY", "a.py")
    _pass_here(store)
    log.start(store, "new task")  # a new log: the old pass covers nothing of it
    log.log(store, "MODIFY", "a.py")
    ev = evidence.check(store)
    assert ev.verdict == "never" and ev.last_pass == "" and ev.changed == ["a.py"]


def test_a_pass_offset_past_the_end_counts_as_no_pass(store: Store) -> None:
    _configure(store)
    log.start(store, "t1")
    ident, pos = evidence.mark(store)
    status.write(
        store,
        {"STATE": "PASSED", "LAST_PASS": "x", "LAST_PASS_LOG": ident, "LAST_PASS_POS": str(pos + 10_000)},
        [],
    )
    assert evidence.check(store).verdict == "never"


def test_as_dict_lists_every_change_once(store: Store) -> None:
    _configure(store)
    log.start(store, "t1")
    for name in ("a", "b", "a", "c", "d", "e", "f"):
        log.log(store, "MODIFY", f"{name}.py")
    d = evidence.check(store).as_dict()
    assert d["verdict"] == "never" and d["changed"] == [f"{n}.py" for n in "abcdef"]
    assert d["changed_count"] == 6 and d["latest_run_failed"] is False and d["last_pass"] == ""
    assert (
        d["detail"]
        == "no passing run in this task yet; 6 files changed: a.py, b.py, c.py, d.py, e.py (+1 more)"
    )


def test_a_long_log_past_the_window_counts_as_a_lower_bound_until_asked(store: Store) -> None:
    _configure(store)
    log.start(store, "t1")
    n = 2000  # about 80 KiB of entries, well past the window
    store.append(
        log.LOG,
        b"".join(codec.record("2026-01-01T00:00:00Z", "MODIFY", f"dir/file{i:05d}.py") for i in range(n)),
    )
    assert log.size(store) > evidence.WINDOW
    ev = evidence.check(store)
    assert ev.verdict == "never" and "+ files changed" in ev.detail() and "more)" in ev.detail()
    assert len(ev.changed) == n  # asked for: the whole list is read
    assert f"{n} files changed" in ev.detail()


def test_log_identity_is_the_first_line_without_bars(store: Store) -> None:
    log.start(store, "my task")
    ident = evidence.log_identity(store)
    assert ident.endswith(" SESSION_START my task") and "|" not in ident


def test_no_run_and_no_task_claims_no_changes(store: Store) -> None:
    # Checks configured, never run, no task, nothing logged: no pass, and no changes either.
    _configure(store)
    ev = evidence.check(store)
    assert ev.verdict == "never" and ev.detail() == "no passing run yet (no task is running)"
    log.log(store, "MODIFY", "a.txt")
    assert (
        evidence.check(store).detail()
        == "no passing run covers the changes logged with no task running; 1 file changed: a.txt"
    )
