from __future__ import annotations

import pytest

from agentctl.constraints import together
from agentctl.constraints.rules import Rule
from agentctl.ground.errors import UsageError


@pytest.mark.parametrize(
    "text, sides",
    [
        ("together: src/routes/** -> types/api.d.ts", ("src/routes/**", "types/api.d.ts")),
        ("Together :src/a.ts->src/b.ts", ("src/a.ts", "src/b.ts")),
        ("together: ./api/* -> ./types/*.d.ts", ("/api/*", "/types/*.d.ts")),
        ("together: src/a.ts", None),
        ("together: -> b", None),
        ("deny-write: x", None),
        ("together src -> b", None),
    ],
)
def test_sides(text: str, sides: tuple[str, str] | None) -> None:
    assert together.sides(text) == sides


def test_near_misses_get_the_right_spelling_and_good_rules_none() -> None:
    assert together.near_miss("together: a => b") == "together: a -> b"
    assert together.near_miss("co-change: a, b") == "together: a -> b"
    assert together.near_miss("changes together a requires b") == "together: a -> b"
    assert together.near_miss("together: a -> b") == ""
    assert together.near_miss("keep the build green") == ""
    with pytest.raises(UsageError):
        together.check_new("together: [z -> b")  # an unclosed class: the matcher's own refusal


def test_pending_is_each_rule_once_with_the_first_left_path_and_p2_never() -> None:
    rules = [
        Rule("P0", "together: src/routes/** -> types/api.d.ts"),
        Rule("P1", "together: a/* -> b/x"),
        Rule("P2", "together: src/** -> docs/x.md"),
        Rule("P0", "deny-write: db/**"),
    ]
    changed = ["src/lib/x.ts", "src/routes/b.ts", "src/routes/a.ts", "a/1"]
    got = together.pending(rules, changed)
    assert [(p.rule.text, p.left_path, p.right) for p in got] == [
        ("together: src/routes/** -> types/api.d.ts", "src/routes/b.ts", "types/api.d.ts"),
        ("together: a/* -> b/x", "a/1", "b/x"),
    ]
    assert together.pending(rules, changed + ["types/api.d.ts", "b/x"]) == []
    assert together.triggered_by(rules, "src/routes/z.ts") == [(rules[0], "types/api.d.ts")]
    assert together.triggered_by(rules, "types/api.d.ts") == []
