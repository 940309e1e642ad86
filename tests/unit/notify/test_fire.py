"""agentctl.notify.fire and deliver: a burst of events is one deliverer and a few alerts with counts."""

from __future__ import annotations

import fcntl
import json
import os
import time
from pathlib import Path

import pytest

from agentctl.ground import personal
from agentctl.ground.store import Store
from agentctl.notify import config, deliver, fire

WAIT = 60.0  # a bound on a loaded machine, not a measurement


def _recorder(tmp_path: Path) -> tuple[str, Path]:
    got = tmp_path / "got.jsonl"
    script = tmp_path / "record.sh"
    script.write_text(f'#!/bin/sh\ncat >> "{got}"\necho x >> "{tmp_path / "runs"}"\n')
    script.chmod(0o755)
    return str(script), got


def _idle(store: Store) -> bool:
    """No deliverer holds the lock (and the queue is empty)."""
    fd = os.open(store.path(fire.DELIVER_LOCK), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return not os.path.exists(store.path(fire.QUEUE))


def _settle(store: Store, got: Path, total: int) -> list[dict[str, object]]:
    deadline = time.monotonic() + WAIT
    while True:
        alerts = [json.loads(ln) for ln in got.read_text().splitlines()] if got.exists() else []
        if (
            sum(int(str(a["count"])) for a in alerts) >= total and _idle(store)
        ) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    fire._reap()
    return alerts


def test_the_commands_live_in_the_persons_configuration_keyed_by_project(
    store: Store, tmp_path: Path
) -> None:
    config.add(store, "true", ("violation",), 600, 10)
    where = Path(personal.alerts_path(store.project))
    assert where.parent == Path(os.environ["XDG_CONFIG_HOME"]) / "agentctl" / "notify"
    assert where.name == personal.project_key(store.project) + ".conf"
    assert "|true" in where.read_text() and not os.path.exists(store.path("notify/commands"))
    assert personal.project_key("/home/me/my-shop") == "home-me-my%2Dshop"
    assert personal.project_key("/a/b") != personal.project_key("/a-b")


def test_a_planted_commands_file_in_the_state_folder_is_never_run(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTCTL_NOTIFY_WINDOW", "0")
    pwned = tmp_path / "pwned"
    os.makedirs(store.path("notify"), exist_ok=True)
    Path(store.path("notify/commands")).write_text(f"*|600|10|touch {pwned}\n")
    # nothing configured
    assert fire.event(store, "violation", detail="P0|deny-write: db/**", path="db/x.sql") is False
    script, got = _recorder(tmp_path)
    config.add(store, script, ("violation",), 600, 10)
    assert fire.event(store, "violation", detail="P0|deny-write: db/**", path="db/x.sql") is True
    assert len(_settle(store, got, 1)) == 1
    assert not pwned.exists()
    advice = config.adoption(store)
    assert advice[0].startswith(".agent-state/notify/commands is not run")
    assert advice[1] == f"  agentctl notify add 'touch {pwned}'" and advice[-1].startswith("then delete")


def test_two_thousand_events_start_one_deliverer_and_coalesce_into_counted_alerts(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTCTL_NOTIFY_WINDOW", "1")
    script, got = _recorder(tmp_path)
    config.add(store, script, ("violation",), 600, 10)
    started = sum(
        fire.event(store, "violation", detail="P0|deny-write: db/**", path=f"db/{i % 50}.sql", task="t1")
        for i in range(2000)
    )
    assert 1 <= started <= 3, started  # one deliverer at a time, not one process an event
    alerts = _settle(store, got, 2000)
    assert sum(int(str(a["count"])) for a in alerts) == 2000
    runs = len((tmp_path / "runs").read_text().splitlines())
    assert runs == len(alerts) <= started * (deliver.MAX_ALERTS + 1), runs
    single = [a for a in alerts if a.get("path") == "db/0.sql"]
    # 2000 / 50 identical events each
    assert single and single[0]["count"] == 40 and single[0]["task"] == "t1"
    assert any("more violation events" in str(a["detail"]) for a in alerts)


def test_a_failed_delivery_keeps_its_first_stderr_line_and_is_retried_once(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deliver, "RETRY_DELAY", 0.0)
    tries = tmp_path / "tries"
    command = f'echo x >> "{tries}"; echo "  curl: (6) Could not resolve host" >&2; echo second >&2; exit 6'
    config.add(store, command, (), 600, 10)
    out = deliver.run(store, "violation", deliver.payload(store, "violation", "d", "", None))
    assert out[0][1] == "exit 6: curl: (6) Could not resolve host (and again on the one retry)"
    assert len(tries.read_text().splitlines()) == 2  # one retry, never more
    log = Path(store.path("logs/agent.log")).read_text()
    assert "|notify|failed|violation to #1" in log and "Could not resolve host" in log
    assert deliver.outcomes(store)[command][2].startswith("exit 6: curl: (6)")


def test_a_retry_that_succeeds_is_sent(store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deliver, "RETRY_DELAY", 0.0)
    flag = tmp_path / "flag"
    config.add(store, f'[ -e "{flag}" ] || {{ touch "{flag}"; exit 1; }}', (), 600, 10)
    out = deliver.run(store, "violation", deliver.payload(store, "violation", "d", "", None))
    assert out[0][1] == "" and "(on the retry)" in Path(store.path("logs/agent.log")).read_text()


def test_mcp_offers_no_tool_that_changes_the_alert_commands() -> None:
    from agentctl.mcp import tools

    assert not [name for name in tools.FULL if "notify" in name]  # an agent over MCP cannot add one
