"""cli.progressnote: one line on a terminal once a command runs past its delay; nothing elsewhere."""

from __future__ import annotations

import io
import time

from agentctl.cli import progressnote


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _wait_for(cond: object, timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not cond() and time.monotonic() < end:  # type: ignore[operator]
        time.sleep(0.01)


def test_the_note_comes_after_the_delay_says_the_latest_step_and_is_erased_at_the_end() -> None:
    term = Terminal()
    note = progressnote.Note(term, "task start", delay=0.05)
    note.say("searching the tree for --match 'x'")
    assert term.getvalue() == ""  # before the delay: nothing
    _wait_for(lambda: note.shown)
    assert term.getvalue().endswith("agentctl task start: searching the tree for --match 'x'…")
    note.say("starting the task over 3 files")
    assert term.getvalue().endswith("\r\x1b[Kagentctl task start: starting the task over 3 files…")
    note.end()
    assert term.getvalue().endswith("\r\x1b[K") and "\n" not in term.getvalue()


def test_a_quick_command_writes_nothing() -> None:
    term = Terminal()
    note = progressnote.Note(term, "files check", delay=0.5)
    note.say("reading")
    note.end()
    time.sleep(0.6)
    assert term.getvalue() == ""


def test_a_command_that_writes_itself_silences_the_note() -> None:
    term = Terminal()
    note = progressnote.Note(term, "verify start", delay=0.05)
    _wait_for(lambda: note.shown)
    note.quiet()
    assert term.getvalue().endswith("\r\x1b[K")
    before = term.getvalue()
    note.say("more")
    time.sleep(0.1)
    note.end()
    assert term.getvalue() == before


def test_no_note_on_a_pipe_with_json_or_in_a_hook() -> None:
    assert progressnote.start(io.StringIO(), "task start", json=False) is None  # a pipe
    assert progressnote.start(Terminal(), "task start", json=True) is None
    assert progressnote.start(Terminal(), "hook claude", json=False) is None
    note = progressnote.start(Terminal(), "sync pull", json=False)
    assert note is not None
    note.end()
