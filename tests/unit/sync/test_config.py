"""refsync.config: this working copy's sync config, read and written through the store."""

from __future__ import annotations

import os

import pytest

from agentctl.ground.errors import StateError
from agentctl.ground.store import Store
from agentctl.sync.config import CONFIG, read_config, write_config


def test_absent_is_empty(store: Store) -> None:
    assert read_config(store) == {} and store.read(CONFIG) is None


def test_round_trip_merges_keeps_order_and_drops_empties(store: Store) -> None:
    write_config(store, {"REMOTE": "origin"})
    write_config(store, {"STREAM": "team/main", "AUTO": "on"})
    assert read_config(store) == {"STREAM": "team/main", "REMOTE": "origin", "AUTO": "on"}
    assert store.read(CONFIG) == b"STREAM=team/main\nREMOTE=origin\nAUTO=on\n"  # in CONFIG_KEYS order
    write_config(store, {"REMOTE": ""})  # an empty value removes the key
    assert read_config(store) == {"STREAM": "team/main", "AUTO": "on"}


def test_a_value_with_odd_characters_comes_back_as_written(store: Store) -> None:
    write_config(store, {"STREAM": "a=b c\nd"})
    assert read_config(store)["STREAM"] == "a=b c\nd" and store.read(CONFIG).count(b"\n") == 1  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "content,problem",
    [
        (b"BOGUS=1\n", "has unknown key BOGUS"),
        (b"STREAM=a\nSTREAM=b\n", "repeats key STREAM"),
        (b"no equals sign\n", "is not KEY=VALUE"),
        (b"STREAM=\xff\n", "is not valid UTF-8"),
    ],
)
def test_a_damaged_file_is_refused_with_the_fix(store: Store, content: bytes, problem: str) -> None:
    os.makedirs(store.path("sync"), exist_ok=True)
    store.replace(CONFIG, content)
    with pytest.raises(StateError, match=problem) as err:
        read_config(store)
    assert "run `agentctl doctor`" in str(err.value) and "sync/config" in str(err.value)
    with pytest.raises(StateError):
        write_config(store, {"AUTO": "on"})  # a write reads first: it never overwrites a damaged file
    assert store.read(CONFIG) == content
