"""refsync.auto: `sync auto on` read in one small read, and what the hooks run when it is on."""

from __future__ import annotations

import pytest

from agentctl.ground.store import Store
from agentctl.sync import auto
from agentctl.sync.config import write_config


def test_enabled_follows_the_config(store: Store) -> None:
    assert auto.enabled(store) is False  # no sync/config at all
    write_config(store, {"AUTO": "on", "STREAM": "main"})
    assert auto.enabled(store) is True
    write_config(store, {"AUTO": "off"})
    assert auto.enabled(store) is False
    store.replace("sync/config", b"AUTO=onward\n")  # only the exact line counts
    assert auto.enabled(store) is False


def test_off_runs_nothing(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentctl.ground import proc

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("nothing is started when auto sync is off")

    monkeypatch.setattr(proc, "detached", never)
    monkeypatch.setattr(proc, "capture", never)
    assert auto.run(store, "push") == "" and auto.run(store, "pull") == ""


def test_on_push_starts_the_sync_in_the_background(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentctl.ground import proc

    started: list[tuple[list[str], str]] = []
    monkeypatch.setattr(proc, "detached", lambda cmd, cwd: started.append((cmd, cwd)))
    write_config(store, {"AUTO": "on"})
    assert auto.run(store, "push") == ""
    [(cmd, cwd)] = started
    assert cmd[1:] == ["-m", "agentctl", "--state-dir", store.root, "sync", "push"] and cwd == store.project


def test_on_pull_that_fails_says_the_local_state_is_used(store: Store) -> None:
    """The store's project is no git repository: the real pull fails, and the note says so in one line."""
    write_config(store, {"AUTO": "on"})
    note = auto.run(store, "pull")
    assert note.startswith("auto sync: pull failed (") and note.endswith("); this is the local state")
    assert "not inside a git repository" in note


def test_on_pull_that_times_out(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentctl.ground import proc

    def slow(*args: object, **kwargs: object) -> None:
        raise proc.Timeout()

    monkeypatch.setattr(proc, "capture", slow)
    monkeypatch.setenv("AGENTCTL_SYNC_HOOK_TIMEOUT", "0.1")  # clamped to half a second
    write_config(store, {"AUTO": "on"})
    assert (
        auto.run(store, "pull") == "auto sync: the pull did not finish within 0.5s; this is the local state"
    )
    monkeypatch.setenv("AGENTCTL_SYNC_HOOK_TIMEOUT", "soon")  # not a number: the default
    assert auto.run(store, "pull") == "auto sync: the pull did not finish within 8s; this is the local state"
