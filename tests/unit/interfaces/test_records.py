"""interfaces.records: the status file's records, checked before they are stored."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store
from agentctl.interfaces import records
from agentctl.interfaces.records import Iface
from agentctl.statefolder import init


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "p").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=tmp_path / "p", check=True)
    return init.init(str(tmp_path / "p"))[0]


def test_a_fresh_folder_has_an_empty_file_and_a_stat_says_none(store: Store) -> None:
    assert Path(store.path(records.STATUS)).read_bytes() == b""
    assert not records.any_recorded(store) and records.read(store) == []


def test_records_round_trip_with_bars_and_globs(store: Store) -> None:
    item = records.make(
        "get|User",
        "getUser(id)",
        "getUser({ id })",
        r"getUser\( *id *\)",
        ["src/**", "./lib/*.ts"],
        "t1",
        "now",
    )
    records.add(store, item)
    back = records.read(store)
    assert back == [item] and back[0].globs == ["src/**", "lib/*.ts"] and back[0].name == "get|User"
    assert Path(store.path(records.STATUS)).read_text().count("\n") == 1
    assert records.line_ok(records.lines(store)[0])


def test_the_same_name_replaces_and_an_identical_add_changes_nothing(store: Store) -> None:
    a = records.make("f", "f(a)", "f(a, b)", None, None, "t1", "x")
    assert records.add(store, a)[0] is True
    assert records.add(store, Iface(*a[:5], "t1", "later"))[0] is False
    b = records.make("f", "f(a)", "f({ a })", None, None, "t1", "y")
    changed, items = records.add(store, b)
    assert changed and items == [b]
    assert records.remove(store, "f") == b and records.read(store) == []
    with pytest.raises(UsageError, match="no interface is named"):
        records.remove(store, "f")


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (("n", "a(", "b(", "a(["), "the one dialect"),
        (("n", "getUser(", "getUser({", None), "itself matched"),
        (("n", "x\ny", "z", None), "line break"),
        (("n", "same", "same", None), "the same text"),
        (("", "a", "b", None), "empty"),
    ],
)
def test_bad_input_is_one_usage_line(args: tuple[str, str, str, str | None], why: str) -> None:
    with pytest.raises(UsageError, match=why):
        records.make(*args, None, "t1", "x")


@pytest.mark.parametrize("glob", ["/etc/**", "../x/**", ":(exclude)src", "src/../../x"])
def test_globs_outside_the_project_or_with_magic_are_refused(glob: str) -> None:
    with pytest.raises(UsageError):
        records.make("n", "a(1)", "b(1)", None, [glob], "t1", "x")


def test_a_damaged_line_makes_the_file_damaged(store: Store) -> None:
    Path(store.path(records.STATUS)).write_text("only|three|fields\n")
    with pytest.raises(StateError, match="line 1"):
        records.read(store)
    assert not records.line_ok("only|three|fields") and not records.line_ok("n|a(|b|a(|||")
