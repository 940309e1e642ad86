"""The man page's text: escaped for groff, every command in it."""

from __future__ import annotations

from agentctl.cli import helpformat, manpage


def test_escapes() -> None:
    assert manpage.esc("a-b \\x `c`") == "a\\-b \\ex c"
    assert manpage.esc(".start") == "\\&.start" and manpage.esc("'q") == "\\&'q"


def test_every_command_and_option_is_in_the_page() -> None:
    page = manpage.render()
    assert page.startswith(".TH AGENTCTL 1")
    for key, cmd in helpformat.visible():
        assert f"\\fBagentctl {manpage.esc(cmd.usage)}\\fR" in page, key
        for opt in cmd.options:
            assert f"\\fB{manpage.esc(opt)}\\fR" in page, (key, opt)
    body = [ln for ln in page.splitlines() if not ln.startswith(".")]
    assert body and not any(ln.startswith("'") for ln in body)  # no text line a control character could start
