"""taskid: which task ids `task start --id` accepts."""

from __future__ import annotations

import pytest

from agentctl.ground.errors import UsageError
from agentctl.task.ids import id_ok, valid_id


@pytest.mark.parametrize("task_id", ["t1", "A.b_c-d", "9", "x" * 64])
def test_good_ids(task_id: str) -> None:
    assert id_ok(task_id) and valid_id(task_id) == task_id


@pytest.mark.parametrize("task_id", ["", "-t", ".t", "a..b", "a/b", "a b", "é", "x" * 65, "a|b"])
def test_bad_ids_are_refused_with_the_rule(task_id: str) -> None:
    assert not id_ok(task_id)
    with pytest.raises(UsageError) as exc:
        valid_id(task_id)
    assert "use 1-64 letters, digits" in exc.value.message
