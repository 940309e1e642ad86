"""context.cost: each compaction's figures (before, after, what the state took), as resume and the web
page say them."""

from __future__ import annotations

import json
from pathlib import Path

from agentctl.context import cost
from agentctl.ground.store import Store
from agentctl.session import compactions
from agentctl.web.data import View
from agentctl.workflow import resume


def test_each_compaction_keeps_its_fill_before_and_after_and_the_state_cost(
    store: Store, tmp_path: Path
) -> None:
    t = tmp_path / "t.jsonl"
    t.write_text(
        json.dumps(
            {
                "type": "system",
                "subtype": "compact_boundary",
                "compactMetadata": {"trigger": "manual", "preTokens": 150_000, "postTokens": 7000},
            }
        )
        + "\n"
    )
    assert resume.build(store).count("STATE COST") == 0
    compactions.record_compaction(store)
    said = cost.after_compaction(store, "claude", str(t), "x" * 1001)
    assert said.endswith(
        "the state took 1001 characters (~251 tokens) of the new window; "
        "context in use before it: 150000 tokens, after it: 7000"
    )
    cost.after_compaction(store, "codex", str(tmp_path / "absent"), "y" * 40)
    hist = cost.history(store)
    assert [(h["agent"], h["before"], h["state_chars"]) for h in hist] == [
        ("claude", "150000", "1001"),
        ("codex", "", "40"),
    ]
    assert "STATE COST of the last compaction" in resume.build(
        store
    ) and "40 characters (~10 tokens)" in resume.build(store)
    assert View(store).build()["context"][-1]["state_chars"] == "40"


def test_the_log_stays_bounded(store: Store, tmp_path: Path) -> None:
    for _ in range(cost.KEEP + 5):
        cost.after_compaction(store, "claude", None, "z")
    assert len(cost.history(store, 10_000)) <= cost.KEEP
