"""The one definition of a plan record: what the writer writes, the reader and the sync boundary take."""

from __future__ import annotations

import pytest

from agentctl.ground.errors import StateError
from agentctl.plan import records


def test_a_record_reads_back_exactly_and_is_one_line() -> None:
    t = records.PlanTask.new("api", 3, "getUser(id) | 用户 -> getUser({ id })")
    t.FILES = "src/a.ts\nsrc/b|c.ts"
    line = t.line()
    assert "\n" not in line and records.line_ok(line)
    back = records.parse((line + "\n").encode(), "plan")
    assert back == [t]


@pytest.mark.parametrize(
    "field,value",
    [
        ("ID", "../x"),
        ("STATE", "ready"),
        ("AFTER", "a,a"),
        ("PRIORITY", "10"),
        ("AGENT", "bad name"),
        ("AFTER", "api"),
    ],
)
def test_a_field_its_check_refuses_makes_the_line_no_record(field: str, value: str) -> None:
    t = records.PlanTask.new("api", 1, "d")
    setattr(t, field, value)
    assert not records.line_ok(t.line())
    with pytest.raises(StateError, match=f"field {field} is malformed"):
        records.parse((t.line() + "\n").encode(), "plan")
