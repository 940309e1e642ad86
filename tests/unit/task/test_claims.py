"""taskclaims: helpers' claims under a lease."""

from __future__ import annotations

import time

import pytest

from agentctl.ground.errors import CheckFailed, NoTask, UsageError
from agentctl.ground.store import Store
from agentctl.task import claims, status
from agentctl.workflow import taskflow


@pytest.mark.parametrize("agent", ["", "-h", "a b", "x" * 65])
def test_bad_agent_names(agent: str) -> None:
    with pytest.raises(UsageError):
        claims.valid_agent(agent)


def test_claims_take_the_first_free_entries_and_show_as_claims(store: Store) -> None:
    taskflow.start(store, "t", "d", ["a", "b", "c"])
    r1 = claims.claim(store, "h1", lease=60)
    r2 = claims.claim(store, "h2", lease=60)
    assert (r1.path, r2.path) == ("a", "b") and r1.expires >= int(time.time()) + 60
    fields = status.read_status(store)
    assert fields["CLAIMS"] == "2" and fields["NEXT"] == "c"  # NEXT skips what helpers hold
    assert claims.claims(store, fields, "h2") == [("b", "h2", r2.expires)]
    lines = claims.claims_lines(claims.claims(store, fields))
    assert [ln.split("|")[:2] for ln in lines] == [["CLAIM_1=a", "h1"], ["CLAIM_2=b", "h2"]]


def test_no_entry_left_to_claim(store: Store) -> None:
    taskflow.start(store, "t", "d", ["a"])
    claims.claim(store, "h1")
    with pytest.raises(CheckFailed) as exc:
        claims.claim(store, "h2")
    assert "claimed under live leases by h1" in exc.value.message


def test_lease_bounds_and_a_paused_task(store: Store) -> None:
    with pytest.raises(NoTask):
        claims.claim(store, "h1")  # no task
    taskflow.start(store, "t", "d", ["a"])
    with pytest.raises(UsageError) as exc:
        claims.claim(store, "h1", lease=claims.MAX_LEASE + 1)
    assert "--lease must be from 1" in exc.value.message


def test_task_done_releases_a_claim(store: Store) -> None:
    taskflow.start(store, "t", "d", ["a", "b"])
    claims.claim(store, "h1")
    status.mark_done(store, ["a"])
    assert (
        claims.claims(store, status.read_status(store)) == [] and status.read_status(store)["CLAIMS"] == "0"
    )
