"""clifail: an unexpected exception is one line for the agent, its traceback in logs/agent.log."""

from __future__ import annotations

from pathlib import Path

from agentctl.cli.crash import internal
from agentctl.operation.contract import Ctx
from agentctl.statefolder import init


def test_internal_without_a_state_folder() -> None:
    assert internal(Ctx(), ValueError("bad\nthing")) == "internal error: ValueError: bad\nthing"


def test_internal_logs_the_traceback(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    store, _ = init.init(str(tmp_path))
    ctx = Ctx(store=store)
    try:
        raise KeyError("missing")
    except KeyError as exc:
        line = internal(ctx, exc)
    assert line == "internal error: KeyError: 'missing' (details in .agent-state/logs/agent.log)"
    logged = (tmp_path / ".agent-state" / "logs" / "agent.log").read_text()
    assert (
        "internal-error" in logged and "Traceback" in logged and "test_internal_logs_the_traceback" in logged
    )


def test_a_full_disk_is_named_with_its_path_not_an_internal_error() -> None:
    import errno

    from agentctl.cli.crash import io_error

    failed = io_error(Ctx(), OSError(errno.ENOSPC, "No space left on device", "/p/.agent-state/x"))
    assert failed is not None and failed.code == 3
    assert failed.message == "/p/.agent-state/x: No space left on device; free disk space"
    big = io_error(Ctx(), OSError(errno.EFBIG, "File too large"))
    assert (
        big is not None
        and big.message == "writing the output: File too large; free disk space or raise the file-size limit"
    )
    assert io_error(Ctx(), OSError(errno.ENOENT, "gone", "x")) is None  # not the disk's: still a bug
    assert io_error(Ctx(), ValueError("x")) is None


def test_main_turns_an_enospc_from_any_write_into_exit_3_with_one_line(
    tmp_path: Path, monkeypatch: object, capsys: object
) -> None:
    import errno
    import os

    import pytest

    from agentctl.cli import main

    assert isinstance(monkeypatch, pytest.MonkeyPatch) and isinstance(capsys, pytest.CaptureFixture)
    folder = tmp_path / "p"
    (folder / ".git").mkdir(parents=True)
    monkeypatch.chdir(folder)
    assert main.main(["init", "--quiet"]) == 0
    real_write = os.write

    def full(fd: int, data: bytes) -> int:
        if fd > 2:  # every file, not the test's own streams
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", full)
    capsys.readouterr()
    code = main.main(["--json", "files", "log", "MODIFY", "a.py"])
    monkeypatch.setattr(os, "write", real_write)
    out, err = capsys.readouterr()
    assert code == 3 and "No space left on device; free disk space" in err and "internal error" not in err
    assert len(err.strip().splitlines()) == 1
    import json

    assert json.loads(out)["error"]["kind"] == "state"
