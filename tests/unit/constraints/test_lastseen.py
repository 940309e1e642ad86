"""agentctl.constraints.lastseen: a P0 rule that leaves the file without `constraints remove` stays
enforced."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.constraints import edit, lastseen
from agentctl.constraints.rules import STATUS, Rule
from agentctl.ground.errors import UsageError
from agentctl.ground.store import Store

RULE = "deny-write: secrets/**"


def _status(store: Store, text: str) -> None:
    Path(store.path(STATUS)).write_text(text)


def test_no_p0_rule_no_record(store: Store) -> None:
    edit.add(store, "P1", "be nice")
    assert lastseen.vanished(store) == [] and not Path(store.path(lastseen.SEEN)).exists()


def test_a_vanished_rule_is_enforced_said_once_and_confirmed(store: Store) -> None:
    edit.add(store, "P0", RULE)
    lastseen.take_noticed()
    _status(store, "P1|be nice\n")
    assert lastseen.vanished(store, persist=False)[0][1] == RULE  # judged, nothing written
    assert lastseen.take_noticed() == []
    assert Rule("P0", RULE) in lastseen.enforced(store)
    (said,) = lastseen.take_noticed()  # the first reader that persists notices it, once
    assert said.startswith("P0 RULE VANISHED: `deny-write: secrets/**`") and "confirm-removal" in said
    assert lastseen.vanished(store)[0][1] == RULE and lastseen.take_noticed() == []
    with pytest.raises(UsageError):
        lastseen.confirm(store, "deny-write: other/**")
    assert lastseen.confirm(store, f"P0|{RULE}") == RULE
    assert lastseen.enforced(store) == [Rule("P1", "be nice")]


def test_the_record_survives_damage_around_it(store: Store) -> None:
    edit.add(store, "P0", RULE)
    data = Path(store.path(lastseen.where(store))).read_bytes()  # in the ledger when in git (issue 31)
    rec, bad = lastseen.parse(data + b"junk\nGONE|only-two\n")
    assert rec.seen == [RULE] and bad == [3, 4]
    again, none = lastseen.parse(rec.data())
    assert (again.status, again.seen, again.gone, none) == (rec.status, rec.seen, rec.gone, [])


def test_a_person_removal_is_not_a_vanishing(store: Store) -> None:
    edit.add(store, "P0", RULE)
    edit.remove(store, "1")
    assert lastseen.vanished(store) == []
    edit.add(store, "P0", RULE)
    with pytest.raises(UsageError, match="removed only by a person"):
        edit.remove(store, "1", keep_p0=True)
    assert lastseen.vanished(store) == []
