"""agentctl.integrations.shellguard: which shell commands would remove or weaken a P0 rule."""

from __future__ import annotations

import pytest

from agentctl.constraints import edit
from agentctl.ground.store import Store
from agentctl.integrations import shellguard


@pytest.fixture
def ruled(store: Store) -> Store:
    edit.add(store, "P0", "deny-write: secrets/**")
    edit.add(store, "P1", "run the tests")
    return store


@pytest.mark.parametrize(
    "command",
    [
        "agentctl constraints remove 1",
        ".venv/bin/agentctl remove constraints 'P0|deny-write: secrets/**'",
        "python -m agentctl constraints update --remove 1",
        'agentctl constraints remove "$RULE"',
        "agentctl constraints remove 2 && agentctl constraints remove 1",
        "agentctl constraints confirm-removal 1",
        "sed -i /P0/d .agent-state/services/constraints/status",
        "echo > .agent-state/services/constraints/status",
        "rm -r .agent-state/services",
        "cd .agent-state/services/constraints; cat /dev/null > status",
        "perl -pi -e 's/P0/P2/' .agent-state/services/constraints/status",
        ["rm", ".agent-state/services/constraints/p0-seen"],
    ],
)
def test_weakening_commands_are_caught(ruled: Store, command: object) -> None:
    why = shellguard.reason(ruled, command)
    assert why is not None and "only a person may" in why, command


@pytest.mark.parametrize(
    "command",
    [
        "agentctl constraints remove 2",
        "agentctl constraints list",
        "cat .agent-state/services/constraints/status",
        "agentctl constraints add P0 'deny-write: db/**'",
        "git status",
        "grep -r constraints src | wc -l",
        "agentctl constraints remove 9",
        42,
        None,
    ],
)
def test_other_commands_pass(ruled: Store, command: object) -> None:
    assert shellguard.reason(ruled, command) is None, command


@pytest.mark.parametrize(
    "command",
    [
        "agentctl notify add 'touch pwned'",
        "agentctl --state-dir .agent-state notify add x --on violation",
        "cd /tmp && agentctl notify remove 1",
        'echo "*|600|10|touch pwned" >> ~/.config/agentctl/notify/x.conf',
        "cp mine.conf $XDG_CONFIG_HOME/agentctl/notify/",
    ],
)
def test_a_change_to_the_persons_alert_commands_is_the_persons(ruled: Store, command: object) -> None:
    why = shellguard.reason(ruled, command)
    assert why is not None and "alert commands" in why and "only a person may" in why, command


@pytest.mark.parametrize(
    "command",
    [
        "agentctl notify list",
        "agentctl notify test violation",
        "cat ~/.config/agentctl/notify/x.conf",
        "echo notify me",
    ],
)
def test_reading_the_alert_commands_passes(ruled: Store, command: object) -> None:
    assert shellguard.reason(ruled, command) is None, command


@pytest.mark.parametrize(
    "command",
    [
        "agentctl verify trust",
        "agentctl trust verify",
        "A=agentctl; $A verify trust",
        'sh -c "agentctl verify trust"',
        "bash -c 'A=agentctl; $A verify trust'",
        "x=trust; agentctl verify $x",
        "agentctl verify tru\\st",
        "$(echo agentctl) verify trust",
        "`which agentctl` verify trust",
        "xargs agentctl verify <<< trust",
        "agentctl verify t${e}rust",
        "eval agentctl verify trust",
        "cd x && env agentctl --json verify trust",
    ],
)
def test_trusting_the_shared_checks_is_the_persons_however_spelled(ruled: Store, command: str) -> None:
    """A tryout found every one of these passing the guard (issue 35.1): the shell runs them as `verify
    trust`."""
    why = shellguard.reason(ruled, command)
    assert why is not None and "only a person may" in why, (command, why)


@pytest.mark.parametrize(
    "command",
    [
        "A=agentctl; $A constraints remove 1",
        "bash -c 'agentctl constraints remove 1'",
        "eval agentctl constraints confirm-removal 1",
        "A=agentctl; $A constraints confirm-removal 1",
        "agentctl constraints $ACTION 1",
        "sh -c 'sh -c \"agentctl constraints remove 1\"'",
    ],
)
def test_a_p0_removal_named_through_the_shell_is_caught(ruled: Store, command: str) -> None:
    why = shellguard.reason(ruled, command)
    assert why is not None and "only a person may" in why, (command, why)


@pytest.mark.parametrize(
    "command",
    [
        "agentctl verify start",
        "agentctl verify",
        'agentctl constraints check "$f"',
        "agentctl verify start --timeout $T",
        "for f in a b; do agentctl files check $f; done",
        "echo $HOME",
        "sh -c 'agentctl constraints list'",
    ],
)
def test_expansions_that_name_no_persons_call_pass(ruled: Store, command: str) -> None:
    assert shellguard.reason(ruled, command) is None, command
