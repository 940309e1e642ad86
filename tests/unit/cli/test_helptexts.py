"""helptext: every registered command and option has a text, and the texts name only what is registered."""

from __future__ import annotations

from agentctl.cli import helptexts
from agentctl.ground import errors
from agentctl.operation.registry import BUILTIN_SERVICES, COMMANDS, GLOBAL_FLAGS


def test_every_option_of_every_command_has_a_text() -> None:
    missing = [
        (key, opt)
        for key, cmd in COMMANDS.items()
        for opt in cmd.options
        if not helptexts.option_help(key, opt)
    ]
    assert missing == []
    assert [flag for flag in GLOBAL_FLAGS if flag != "-h" and not helptexts.COMMON.get(flag)] == []


def test_every_command_has_a_summary_and_usage() -> None:
    for key, cmd in COMMANDS.items():
        assert cmd.summary.strip(), key
        assert cmd.usage.startswith("SERVICE " if key == ("@custom",) else " ".join(key)), key


def test_groups_cover_the_services_and_name_only_real_groups() -> None:
    firsts = {key[0] for key in COMMANDS if len(key) > 1}
    assert set(BUILTIN_SERVICES) <= set(helptexts.GROUPS)
    assert set(helptexts.GROUPS) <= firsts  # no text for a group that has no command
    assert all(text.strip() and text == text.strip() for text in helptexts.GROUPS.values())


def test_no_text_for_an_option_or_command_that_does_not_exist() -> None:
    stale = [
        (key, opt)
        for key, opt in helptexts.OPTIONS
        if key not in COMMANDS or opt not in COMMANDS[key].options
    ]
    assert stale == []
    assert [key for key in helptexts.DETAILS if key not in COMMANDS and key != ("@custom",)] == []
    # --version: before a command only
    every = {opt for cmd in COMMANDS.values() for opt in cmd.options} | set(GLOBAL_FLAGS) | {"--version"}
    assert sorted(set(helptexts.COMMON) - every) == []


def test_option_help_prefers_the_commands_own_text() -> None:
    assert helptexts.option_help(("resume",), "--agent") == helptexts.OPTIONS[(("resume",), "--agent")]
    assert helptexts.option_help(("task", "claim"), "--agent") == helptexts.COMMON["--agent"]
    assert helptexts.option_help(("task", "claim"), "--no-such-option") is None


def test_exit_codes_are_the_documented_four() -> None:
    assert [code for code, _ in helptexts.EXIT_CODES][:4] == [
        errors.EXIT_OK,
        errors.EXIT_NO,
        errors.EXIT_USAGE,
        errors.EXIT_STATE,
    ]
    assert all(text for _, text in helptexts.EXIT_CODES)
