"""agentctl.constraints.protect: a write is judged by every name of the file: as spelled, its target, its
hard links."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentctl.constraints import protect
from agentctl.constraints.rules import Rule
from agentctl.ground.store import Store

RULES = [Rule("P1", "be careful"), Rule("P0", "deny-write: secrets/**")]


def test_no_p0_rule_judges_nothing(store: Store) -> None:
    assert protect.judge(store, [Rule("P1", "deny-write: secrets/**")], "secrets/a", "secrets/a") is None


def test_the_spelling_then_the_target(store: Store) -> None:
    assert protect.judge(store, RULES, "secrets/a", None) == (RULES[1], "secrets/a")
    assert protect.judge(store, RULES, "link/a", "secrets/a") == (RULES[1], "secrets/a")  # a symlinked folder
    assert protect.judge(store, RULES, "src/a", "src/a") is None
    assert protect.judge(store, RULES, None, None) is None


def test_a_hard_link_is_judged_by_its_other_names(store: Store) -> None:
    project = Path(store.project)
    (project / "secrets").mkdir()
    (project / "secrets" / "key").write_text("k")
    os.link(project / "secrets" / "key", project / "innocent.txt")
    assert protect.judge(store, RULES, "innocent.txt", "innocent.txt") == (RULES[1], "secrets/key")
    (project / "plain.txt").write_text("p")
    assert protect.judge(store, RULES, "plain.txt", "plain.txt") is None  # one link: no search
    assert protect.judge(store, RULES, "gone.txt", "gone.txt") is None


def test_the_link_search_is_bounded(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    project = Path(store.project)
    (project / "secrets" / "deep").mkdir(parents=True)
    for n in range(30):
        (project / "secrets" / f"f{n}").write_text("")
    (project / "secrets" / "deep" / "key").write_text("k")
    os.link(project / "secrets" / "deep" / "key", project / "alias")
    monkeypatch.setattr(protect, "MAX_LINK_SCAN", 5)
    assert protect.judge(store, RULES, "alias", "alias") is None  # not found within the budget: allowed
    monkeypatch.setattr(protect, "MAX_LINK_SCAN", 20_000)
    assert protect.judge(store, RULES, "alias", "alias") == (RULES[1], "secrets/deep/key")


def test_case_folding_is_detected_or_forced(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    folded = [Rule("P0", "deny-write: Secrets/**")]
    monkeypatch.setenv("AGENTCTL_CASE_FOLD", "1")
    assert protect.case_insensitive(store) and protect.judge(store, folded, "secrets/a", None) == (
        folded[0],
        "secrets/a",
    )
    monkeypatch.setenv("AGENTCTL_CASE_FOLD", "0")
    assert not protect.case_insensitive(store) and protect.judge(store, folded, "secrets/a", None) is None
    monkeypatch.delenv("AGENTCTL_CASE_FOLD")
    other = os.path.join(os.path.dirname(store.root), os.path.basename(store.root).swapcase())
    assert protect.case_insensitive(store) == os.path.exists(other)
