"""agentctl.autostop: the project setting and the status keys `task start --auto-stop` adds."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl import autostop
from agentctl.store import Store


def _setting(store: Store, text: str) -> None:
    Path(store.path(autostop.SETTINGS)).write_text(text)


def test_without_a_settings_file_only_the_flag_turns_it_on(store: Store) -> None:
    assert not autostop.project_default(store)
    assert autostop.start_settings(store, False) == {}
    assert autostop.start_settings(store, True) == {"AUTO_STOP": "1"}


@pytest.mark.parametrize("text,on", [
    ("AUTO_STOP=1\n", True), ("auto_stop = yes\n", True), ("# a comment\nAUTO_STOP=on", True),
    ("AUTO_STOP=TRUE\n", True), ("AUTO_STOP=0\n", False), ("AUTO_STOP=\n", False), ("OTHER=1\n", False),
    ("AUTO_STOP=0\nAUTO_STOP=1\n", False), ("", False),
])
def test_the_project_setting(store: Store, text: str, on: bool) -> None:
    _setting(store, text)
    assert autostop.project_default(store) is on
    assert autostop.start_settings(store, False) == ({"AUTO_STOP": "1"} if on else {})
    assert autostop.start_settings(store, True) == {"AUTO_STOP": "1"}
