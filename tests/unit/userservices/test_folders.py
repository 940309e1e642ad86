"""custom: which folders under services/ are user services, and their scripts."""

from __future__ import annotations

import os

import pytest

from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store
from agentctl.userservices import folders
from support.servicescripts import script


@pytest.mark.parametrize("name", ["db", "0web", "a_b-c", "x" * 64])
def test_valid_names(name: str) -> None:
    assert folders.valid_name(name) == name


@pytest.mark.parametrize("name", ["", "Db", "-x", "_x", "a b", "a/b", "é", "x" * 65, "a.b"])
def test_invalid_names_are_refused_with_the_rule(name: str) -> None:
    with pytest.raises(UsageError) as caught:
        folders.valid_name(name)
    assert "[a-z0-9][a-z0-9_-]*" in caught.value.message


def test_a_service_needs_an_executablescript(store: Store) -> None:
    script(store, "db", "start")
    script(store, "web", "status.sh")
    script(store, "notes", "start", mode=0o644)  # not executable: not a service
    os.makedirs(store.path("services/Bad"))
    script(store, "Bad", "start")  # a name a service may not have
    assert folders.discover(store) == ["db", "web"]
    assert (
        folders.is_service(store, "db")
        and not folders.is_service(store, "notes")
        and not folders.is_service(store, "task")
    )


def test_script_prefers_the_bare_name_and_ignores_symlinks(store: Store) -> None:
    sh = script(store, "db", "start.sh")
    assert folders.script(store, "db", "start") == sh
    bare = script(store, "db", "start")
    assert folders.script(store, "db", "start") == bare
    os.symlink("/bin/true", store.path("services/db/stop"))
    assert folders.script(store, "db", "stop") is None


def test_builtin_names_are_never_user_services(store: Store) -> None:
    for name in folders.BUILTIN:
        script(store, name, "start")
    assert folders.discover(store) == []
