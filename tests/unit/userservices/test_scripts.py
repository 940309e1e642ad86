"""customrun: a user service's script run under its lock, with a timeout and a bounded log."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store
from agentctl.userservices import scripts
from support.servicescripts import script


def test_a_script_runs_in_its_folder_with_the_project_in_its_environment(store: Store) -> None:
    script(
        store,
        "db",
        "start",
        'pwd; echo "$AGENTCTL_PROJECT_DIR $AGENTCTL_STATE_DIR $AGENTCTL_SERVICE"; exit 3',
    )
    r = scripts.run(store, "db", "start")
    assert (r.code, r.timed_out) == (3, False)
    assert r.output == f"{store.path('services/db')}\n{store.project} {store.root} db\n"
    assert open(store.path(scripts.log_rel("db", "start"))).read() == r.output
    assert b"|db|start|exit=3\n" in (store.read("logs/agent.log") or b"")


def test_a_timeout_ends_the_group_and_says_so(store: Store, tmp_path: Path) -> None:
    script(store, "db", "start", f"sleep 300 & echo $! > {tmp_path}/pid; sleep 300")
    t0 = time.monotonic()
    r = scripts.run(store, "db", "start", timeout=0.5)
    assert (r.code, r.timed_out) == (124, True) and time.monotonic() - t0 < 60
    pid = int((tmp_path / "pid").read_text())
    end = time.monotonic() + 20
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the script's background child outlived the timeout")


def test_the_timeout_file_and_its_bad_values(store: Store) -> None:
    os.makedirs(store.path("services/db"))
    for text, want in (
        ("2.5\n", 2.5),
        ("0", scripts.DEFAULT_TIMEOUT),
        ("soon", scripts.DEFAULT_TIMEOUT),
        ("999999", scripts.DEFAULT_TIMEOUT),
    ):
        with open(store.path("services/db/timeout"), "w", encoding="utf-8") as fh:
            fh.write(text)
        assert scripts._timeout_for(store, "db", None) == want, text
    assert scripts._timeout_for(store, "db", 7.0) == 7.0  # --timeout wins


def test_a_big_output_is_capped_while_it_runs_and_shown_in_part(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scripts, "LOG_CAP", 64 << 10)
    monkeypatch.setattr(scripts, "LOG_HEAD", 16 << 10)
    monkeypatch.setattr(scripts, "SHOWN", 4 << 10)
    script(
        store,
        "db",
        "start",
        "echo FIRST; i=0; while [ $i -lt 40 ]; do head -c 10000 /dev/zero | tr '\\0' x; "
        "sleep 0.06; i=$((i+1)); done; echo; echo LAST",
    )
    r = scripts.run(store, "db", "start")
    log = open(store.path(scripts.log_rel("db", "start")), "rb").read()
    assert r.code == 0 and log.startswith(b"FIRST\n") and log.endswith(b"LAST\n")
    assert len(log) <= (64 << 10) + 10000 + 200 and b"bytes of output cut here" in log
    assert r.output.startswith("FIRST\n") and r.output.endswith("LAST\n") and "bytes not shown" in r.output


def test_status_without_a_script_reads_the_status_file(store: Store) -> None:
    os.makedirs(store.path("services/db"))
    with pytest.raises(UsageError):
        scripts.run(store, "db", "status")
    with open(store.path("services/db/status"), "w", encoding="utf-8") as fh:
        fh.write("UP=1\n")
    r = scripts.run(store, "db", "status")
    assert (r.code, r.output, r.timed_out) == (0, "UP=1\n", False)
    with pytest.raises(UsageError):
        scripts.run(store, "db", "start")
    with pytest.raises(UsageError):
        scripts.run(store, "No", "start")


def test_capping_a_log_while_its_writer_appends_loses_nothing_of_its_end(tmp_path: Path) -> None:
    """The log is capped every 50 ms while the script writes to it: whatever it writes meanwhile, the
    log ends with its last lines, in order, and its first ones are kept."""
    import subprocess
    import sys

    log = tmp_path / "service.log"
    fd = os.open(log, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
    try:
        writer = subprocess.Popen(
            [
                sys.executable,
                "-c",
                (
                    "import os, sys\nfd = int(sys.argv[1])\n"
                    "for i in range(400000):\n    os.write(fd, b'line %07d ' % i + b'x' * 40 + b'\\n')\n"
                ),
                str(fd),
            ],
            pass_fds=(fd,),
        )
        while writer.poll() is None:
            scripts._cap(fd, running=True)
            time.sleep(0.005)
        assert writer.wait() == 0
        scripts._cap(fd)
    finally:
        os.close(fd)
    data = log.read_bytes()
    assert len(data) <= scripts.LOG_CAP + 4096 and b"bytes of output cut here" in data
    assert data.startswith(b"line 0000000 ")
    tail = data.rsplit(b"cut here", 1)[1].split(b"\n")[1:-1]
    numbers = [int(line.split()[1]) for line in tail if line.startswith(b"line ")]
    assert numbers[-1] == 399999 and numbers == list(range(numbers[0], 400000))  # the end, whole and in order
    assert b"\0" not in data  # no punched hole is left in what is kept
