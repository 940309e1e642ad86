"""agentctl.ground.servicetable: the one table of built-in services, what a fresh state folder holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.ground import servicetable
from agentctl.ground.servicetable import SERVICES, Service
from agentctl.ground.store import Store
from agentctl.task import status


def test_names_and_folders_come_from_the_one_table() -> None:
    assert servicetable.NAMES == ("task", "files", "constraints", "verify", "interfaces", "plan")
    assert servicetable.FOLDERS == tuple(f"services/{n}" for n in servicetable.NAMES)
    assert [s.name for s in SERVICES.values()] == list(SERVICES)
    assert repr(SERVICES["task"]) == "Service('task')"


def test_fresh_files_are_every_services_files_under_its_folder() -> None:
    fresh = servicetable.fresh_files()
    assert fresh == {
        "services/task/status": b"STATE=IDLE\nSEQ=0\n",
        "services/files/status": b"",
        "services/constraints/status": b"",
        "services/verify/status": b"STATE=IDLE\n",
        "services/verify/commands": servicetable.VERIFY_COMMANDS,
        "services/interfaces/status": b"",
        "services/plan/status": b"",
    }
    assert all(line.startswith(b"#") for line in servicetable.VERIFY_COMMANDS.splitlines())  # comments only


def test_init_writes_exactly_the_fresh_files(store: Store) -> None:
    for rel, data in servicetable.fresh_files().items():
        assert Path(store.path(rel)).read_bytes() == data, rel


def test_plain_words_are_what_a_switch_says_without_calling_anything(store: Store) -> None:
    before = Path(store.path("services/files/status")).read_bytes()
    assert SERVICES["files"].stop(store) == "log kept"
    assert SERVICES["files"].start(store) == "logging"
    assert SERVICES["constraints"].stop(store) == "state kept"
    assert Path(store.path("services/files/status")).read_bytes() == before


def test_a_module_function_spec_is_called_with_the_store(store: Store, tmp_path: Path) -> None:
    assert SERVICES["task"].stop(store) == "nothing running"  # an idle task: nothing to pause
    assert SERVICES["task"].start(store) == "running"
    assert status.read_status(store)["STATE"] == "IDLE"


def test_a_spec_naming_a_missing_function_fails_loudly(store: Store) -> None:
    broken = Service("x", "a test service", {}, "agentctl.task.status:no_such_function", "started")
    assert broken.folder == "services/x"
    assert broken.start(store) == "started"
    with pytest.raises(AttributeError):
        broken.stop(store)
