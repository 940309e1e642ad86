"""agentctl.ground.errors: one hierarchy, each refusal with its documented exit code."""

from __future__ import annotations

import pytest

from agentctl.ground import errors
from agentctl.ground.errors import AgentctlError, CheckFailed, StateError, UsageError


def test_documented_exit_codes() -> None:
    assert (errors.EXIT_OK, errors.EXIT_NO, errors.EXIT_USAGE, errors.EXIT_STATE) == (0, 1, 2, 3)


@pytest.mark.parametrize("cls,code", [(AgentctlError, 3), (StateError, 3), (UsageError, 2), (CheckFailed, 1)])
def test_each_kind_carries_its_code_and_one_message(cls: type[AgentctlError], code: int) -> None:
    exc = cls("the problem; the fix")
    assert isinstance(exc, AgentctlError) and isinstance(exc, Exception)
    assert exc.code == code
    assert exc.message == str(exc) == "the problem; the fix"


def test_a_code_given_overrides_the_class_code_for_that_error_only() -> None:
    exc = UsageError("x", code=errors.EXIT_STATE)
    assert exc.code == 3
    assert UsageError("y").code == 2 and UsageError.code == 2


def test_caught_as_the_base_class() -> None:
    with pytest.raises(AgentctlError) as info:
        raise CheckFailed("no")
    assert info.value.code == errors.EXIT_NO
