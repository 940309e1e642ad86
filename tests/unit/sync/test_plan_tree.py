"""The plan in the sync tree: written and read back exactly; a record the plan would not write refuses the
ref."""

from __future__ import annotations

import pytest

from agentctl.plan.records import PlanTask
from agentctl.sync import treedecode, treeencode
from agentctl.sync.doc import Doc
from agentctl.sync.treeformat import Refused


def test_the_plan_goes_through_the_tree_and_back() -> None:
    doc = Doc()
    a = PlanTask.new("a", 1, "first | 第一")
    b = PlanTask.new("b", 2, "second")
    b.AFTER, b.STATE, b.AGENT, b.UNTIL, b.SREV = "a", "active", "one", "1700000000", "1"
    doc.plan = {"a": a, "b": b}
    back = treedecode.decode(treeencode.encode(doc))
    assert back.plan == doc.plan and back == doc


@pytest.mark.parametrize(
    "line", ["a|1|2||d", "b|1|2|b|self|||||planned||0|||0", "../x|1|2||d||||0|planned||0|||0"]
)
def test_a_plan_line_it_would_not_write_refuses_the_tree(line: str) -> None:
    files = treeencode.encode(Doc())
    files["plan"] = (line + "\n").encode()
    with pytest.raises(Refused, match="plan: .* is not a plan record"):
        treedecode.decode(files)
