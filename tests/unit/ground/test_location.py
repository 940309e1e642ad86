"""location: the path rule's state-folder part (project-relative and outside are in
tests/cli/test_paths.py)."""

from __future__ import annotations

import os

import pytest

from agentctl.ground import location
from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store
from agentctl.task import agentpaths


def test_in_state_names_the_first_path_inside_the_state_folder(store: Store) -> None:
    assert (
        location.in_state(store, None, "src/a.py", ".agent-state/services/x", ".agent-state")
        == ".agent-state/services/x"
    )
    assert location.in_state(store, ".AGENT-STATE/logs/a") == ".AGENT-STATE/logs/a"  # case-insensitive
    assert location.in_state(store, ".agent-stateful/a", "a/.agent-state/b", None) is None


def test_a_state_folder_elsewhere_is_never_a_project_path(store: Store) -> None:
    elsewhere = Store(os.path.join(os.path.dirname(store.project), "state"))
    elsewhere.project = store.project
    assert (
        location.state_rel(elsewhere) == "../state"
        and location.in_state(elsewhere, ".agent-state/x", "state/x") is None
    )


def test_resolve_path_refuses_the_state_folder_by_either_name(store: Store) -> None:
    with pytest.raises(UsageError) as exc:
        location.resolve_path(store, ".agent-state/services/task/status", store.project)
    assert "in agentctl's state folder" in exc.value.message
    os.symlink(".agent-state/logs", os.path.join(store.project, "lnk"))
    # as spelled it is a project path
    assert location.resolve_path(store, "lnk/x", store.project)[0] == "lnk/x"
    with pytest.raises(UsageError):
        agentpaths.resolve_target(store, "lnk/x", store.project)  # but the file it names is agentctl's
    assert agentpaths.resolve_target(store, "src/a.py", store.project) == ("src/a.py", "src/a.py", "")


def test_project_path_reads_a_spelling_through_a_symlink_into_the_project(store: Store) -> None:
    outer = os.path.dirname(store.project)
    os.symlink(store.project, os.path.join(outer, "checkout"))
    os.makedirs(os.path.join(store.project, "src", "deep"))
    os.symlink(os.path.join(store.project, "src", "deep"), os.path.join(outer, "into"))
    os.symlink(os.path.join(store.project, "src", "a.py"), os.path.join(outer, "file-link"))
    assert location.project_path(store, os.path.join(outer, "checkout", "src", "new.py")) == "src/new.py"
    assert location.project_path(store, os.path.join(outer, "into", "x.py")) == "src/deep/x.py"
    # a link outside pointing in
    assert location.project_path(store, os.path.join(outer, "file-link")) == "src/a.py"
    for raw in (os.path.join(outer, "elsewhere.py"), os.path.join(outer, "checkout")):
        with pytest.raises(UsageError):  # really outside; the project itself through the link
            location.project_path(store, raw)
