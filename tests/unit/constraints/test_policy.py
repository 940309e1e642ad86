from __future__ import annotations

from pathlib import Path

import pytest

import agentctl.statefolder.init
from agentctl.constraints import edit, policy
from agentctl.ground.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return agentctl.statefolder.init.init(str(tmp_path))[0]


def test_denied_entries_by_spelling(store: Store) -> None:
    assert policy.denied_entries(store, ["secrets/a"]) == []
    edit.add(store, "P0", "deny-write: secrets/**")
    assert policy.denied_entries(store, ["src/a", "secrets/a", "secrets/b/c"]) == [
        ("secrets/a", "deny-write: secrets/**"),
        ("secrets/b/c", "deny-write: secrets/**"),
    ]


def test_one_policy_reads_the_rules_file_once_and_sees_every_change(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    edit.add(store, "P0", "deny-write: secrets/**")
    reads: list[str] = []
    real = Store.read

    def counting(self: Store, rel: str, *a: object, **k: object) -> bytes | None:
        reads.append(rel)
        return real(self, rel, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "read", counting)
    first = policy.of(store)
    for _ in range(10):  # ten questions of one call: one read
        assert policy.of(store).judge("secrets/k", "secrets/k") is not None
        assert policy.of(store, persist=False).denied("src/a") is None
    assert reads.count("services/constraints/status") <= 1, reads
    edit.add(store, "P0", "deny-write: db/**")  # a change is seen at once
    assert policy.of(store) is not first and policy.of(store).denied("db/x.sql") is not None
    assert not policy.of(store).vanished(policy.of(store).p0[0])
