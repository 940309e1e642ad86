"""The "did you mean" of the error path."""

from __future__ import annotations

from agentctl.cli import suggest


def test_the_closest_known_word_or_none() -> None:
    assert suggest.closest("--josn", suggest.GLOBAL_OPTIONS) == "--json"
    assert suggest.closest("stauts", suggest.top_words()) == "status"
    assert suggest.closest("frobnicate", suggest.top_words()) is None
    assert suggest.hint("dnoe", ["done", "add"]) == "; did you mean done?"
    assert suggest.hint("done", ["done"]) == ""  # the word itself is no suggestion


def test_refusal_puts_the_list_in_brackets_only_after_a_guess() -> None:
    assert suggest.refusal("no service 'x'", "", "services: task") == "no service 'x'; services: task"
    assert (
        suggest.refusal("no service 'tsak'", "; did you mean task?", "services: task")
        == "no service 'tsak'; did you mean task? (services: task)"
    )
    assert suggest.unknown_global("--josn=1").startswith("unknown option --josn=1; did you mean --json? (")


def test_an_option_hint_offers_the_global_flags_but_never_version() -> None:
    from agentctl.cli import suggest

    assert suggest.option_hint("--event", ["--on", "--after", "--timeout"]) == ""
    assert suggest.option_hint("--josn", ["--on"]) == "; did you mean --json?"
    assert "--version" not in suggest.option_hint("--versoin", ["--on"])


def test_a_value_hint_ignores_case_and_answers_in_the_set_s_own_spelling() -> None:
    from agentctl.ground.nearest import hint

    assert hint("paused", ("ACTIVE", "PAUSED")) == "; did you mean PAUSED?"
    assert hint("zzz", ("bash", "zsh", "fish")) == ""
