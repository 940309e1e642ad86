"""migrations: a seed-format (format 0) folder migrated with a backup; a newer or damaged VERSION refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import agentctl.task.status
import agentctl.verify.status
from agentctl.constraints import rules
from agentctl.files import log
from agentctl.ground import location
from agentctl.ground.errors import StateError
from agentctl.ground.store import FORMAT_VERSION, Store
from agentctl.statefolder import migrations, opening
from agentctl.task import entries


def _seed(tmp_path: Path) -> Store:
    """A folder as the seed's bash prototype wrote it: no VERSION, nothing escaped, scripts beside the
    state."""
    root = tmp_path / "proj" / ".agent-state"
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    for svc in ("task", "files", "constraints", "verify"):
        (root / "services" / svc).mkdir(parents=True)
        (root / "services" / svc / "start.sh").write_text("#!/bin/bash\nsource status\n")
    (root / "agentctl").write_text("#!/bin/bash\n")
    (root / "services/task/status").write_text(
        "STATE=ACTIVE\nTASK_ID=port-imports\nDESC=convert a|b imports\nTOTAL=3\nDONE=1\nNEXT=src/c.py\n"
        "NOTES=half way\nSTART_TIME=2025-06-01T10:00:00Z\n"
    )
    (root / "services/task/files.list").write_text("src/a.py\nsrc/b.py\nsrc/c.py\nsrc/a.py\n")
    (root / "services/files/status").write_text(
        "2025-06-01T10:00:00Z|SESSION_START|port-imports\n2025-06-01T10:01:00Z|MODIFY|src/we|ird.py\n"
        "junk line\n2025-06-01T10:02:00Z|CREATE|src/b.py\n"
    )
    (root / "services/constraints/status").write_text(
        "P1|run the linter\nP0|never touch db/\nP0|never touch db/\nX|bad\n"
    )
    (root / "services/verify/status").write_text(
        "STATE=FAILED\nLAST_ERROR=boom at line 3\nTRIED_1=first idea\nTRIED_2=second idea\nRUN=x7\n"
    )
    return Store(str(root))


def test_a_missing_version_reads_as_format_0(tmp_path: Path) -> None:
    store = _seed(tmp_path)
    assert migrations.read_version(store) == 0 and location.check_version(store) == 0


def test_a_seed_folder_is_migrated_with_every_value_kept(tmp_path: Path) -> None:
    store = _seed(tmp_path)
    note = migrations.migrate(store, 0)
    assert note.startswith(
        f"migrated .agent-state from state format 0 to {FORMAT_VERSION}; the old files are in "
    )
    assert migrations.read_version(store) == FORMAT_VERSION
    st = agentctl.task.status.read_status(store)
    assert st["STATE"] == "ACTIVE" and st["TASK_ID"] == "port-imports" and st["DESC"] == "convert a|b imports"
    assert st["NOTES"] == "half way" and st["STARTED"] == "2025-06-01T10:00:00Z" and st["SEQ"] == "1"
    assert st["TOTAL"] == "3" and st["DONE"] == "1" and st["NEXT"] == "src/c.py" and st["NEXT_PINNED"] == "1"
    listing = entries.parse(open(store.path(f"services/task/{st['LIST']}"), "rb").read(), st["LIST"])
    assert [(e.done, e.path) for e in listing] == [
        (True, "src/a.py"),
        (False, "src/b.py"),
        (False, "src/c.py"),
    ]
    assert [(op, p) for _, op, p in log.entries(store)] == [
        ("SESSION_START", "port-imports"),
        ("MODIFY", "src/we|ird.py"),
        ("CREATE", "src/b.py"),
    ]
    assert log.check(store, "src/we|ird.py")[0][1] == "MODIFY"
    assert [(r.priority, r.text) for r in rules.read(store)] == [
        ("P0", "never touch db/"),
        ("P1", "run the linter"),
    ]
    vs = agentctl.verify.status.read_status(store)
    assert vs["STATE"] == "FAILED" and vs["ERRORS"] == "boom at line 3" and vs["RUN"] == "0"
    assert agentctl.verify.status.tried(vs) == ["first idea", "second idea"]


def test_the_seed_scripts_go_and_the_backup_keeps_everything(tmp_path: Path) -> None:
    store = _seed(tmp_path)
    before = open(store.path("services/task/status"), "rb").read()
    migrations.migrate(store, 0)
    assert not os.path.exists(store.path("agentctl")) and not os.path.exists(
        store.path("services/task/start.sh")
    )
    assert not os.path.exists(store.path("services/task/files.list"))
    (backup,) = migrations._backups(store, 0)
    kept = store.path(f"logs/{backup}")
    assert open(os.path.join(kept, "services/task/status"), "rb").read() == before
    assert os.path.isfile(os.path.join(kept, "agentctl")) and os.path.isfile(
        os.path.join(kept, "services/verify/start.sh")
    )


def test_a_second_migration_does_nothing(tmp_path: Path) -> None:
    store = _seed(tmp_path)
    migrations.migrate(store, 0)
    status = open(store.path("services/task/status"), "rb").read()
    assert migrations.migrate(store, FORMAT_VERSION) == ""
    assert migrations.migrate(store, 0) == ""  # read again under the lock: already migrated
    assert (
        open(store.path("services/task/status"), "rb").read() == status
        and len(migrations._backups(store, 0)) == 1
    )


def test_a_migration_interrupted_before_version_runs_again_from_its_backup(tmp_path: Path) -> None:
    store = _seed(tmp_path)
    migrations.migrate(store, 0)
    first = open(store.path("services/task/status"), "rb").read()
    os.unlink(store.path("VERSION"))  # as if killed before the commit point
    migrations.migrate(store, 0)
    again = open(store.path("services/task/status"), "rb").read()
    assert [ln for ln in first.split(b"\n") if not ln.startswith(b"UPDATED=")] == [
        ln for ln in again.split(b"\n") if not ln.startswith(b"UPDATED=")
    ]
    assert agentctl.task.status.read_status(store)["DESC"] == "convert a|b imports"  # never escaped twice
    assert len(migrations._backups(store, 0)) == 1


def test_opening_a_seed_folder_migrates_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = _seed(tmp_path)
    opened = opening.open_store(explicit=store.root)
    assert migrations.read_version(opened) == FORMAT_VERSION
    assert "agentctl: migrated .agent-state from state format 0" in capsys.readouterr().err


def test_a_newer_version_is_refused_with_its_message(tmp_path: Path) -> None:
    store = _seed(tmp_path)
    with open(store.path("VERSION"), "w") as fh:
        fh.write(f"FORMAT={FORMAT_VERSION + 1}\n")
    with pytest.raises(StateError) as caught:
        location.check_version(store)
    assert caught.value.message == (
        f"{store.root} uses state format {FORMAT_VERSION + 1}, newer than this agentctl "
        f"understands ({FORMAT_VERSION}); upgrade agentctl"
    )
    with pytest.raises(StateError):
        opening.open_store(explicit=store.root)
    assert open(store.path("services/task/status")).read().startswith("STATE=ACTIVE\nTASK_ID=port-imports")


def test_a_damaged_version_is_refused_and_names_the_fix(tmp_path: Path) -> None:
    store = _seed(tmp_path)
    with open(store.path("VERSION"), "w") as fh:
        fh.write("garbage\n")
    assert migrations.read_version(store) is None
    with pytest.raises(StateError) as caught:
        location.check_version(store)
    assert (
        "is damaged ('garbage')" in caught.value.message and "agentctl doctor --fix" in caught.value.message
    )


def test_an_unknown_older_format_cannot_be_migrated(tmp_path: Path) -> None:
    store = _seed(tmp_path)
    with pytest.raises(StateError) as caught:
        migrations.migrate(store, -1)
    assert "has state format -1, which this agentctl cannot migrate" in caught.value.message
    assert migrations.read_version(store) == 0 and migrations._backups(store, 0) == []  # nothing changed
