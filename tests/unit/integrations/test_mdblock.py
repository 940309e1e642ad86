"""mdblock: the managed block between two markers, set or removed, the text around it untouched."""

from __future__ import annotations

import pytest

from agentctl.integrations.configchange import ConfigError
from agentctl.integrations.mdblock import BEGIN, END, find_span, remove, upsert


def test_appended_after_a_blank_line_and_removed_with_it() -> None:
    assert upsert("", "B", "F.md") == f"{BEGIN}\nB\n{END}\n"
    text = "# Mine\nno newline"
    once = upsert(text, "B", "F.md")
    assert once == f"# Mine\nno newline\n\n{BEGIN}\nB\n{END}\n" and remove(once, "F.md") == text + "\n"
    kept = "# Mine\n"
    assert remove(upsert(kept, "line 1\nline 2", "F.md"), "F.md") == kept


def test_replaced_in_place_keeping_crlf() -> None:
    text = f"top\r\n{BEGIN}\r\nold\r\n{END}\r\nbottom\r\n"
    assert upsert(text, "new\nbody", "F.md") == f"top\r\n{BEGIN}\r\nnew\r\nbody\r\n{END}\r\nbottom\r\n"


def test_an_older_begin_marker_is_still_ours() -> None:
    lines = ["a", "<!-- agentctl:begin v=0 -->", "x", END]
    assert find_span(lines, "F.md") == (1, 3) and find_span(["a", "b"], "F.md") is None


@pytest.mark.parametrize(
    "lines,words",
    [
        ([BEGIN, "x"], "(1 begin, 0 end)"),
        ([END, "x", BEGIN], "(1 begin, 1 end, end first)"),
        ([BEGIN, BEGIN, END], "(2 begin, 1 end)"),
    ],
)
def test_damaged_markers_are_refused(lines: list[str], words: str) -> None:
    with pytest.raises(ConfigError) as err:
        find_span(lines, "F.md")
    assert err.value.message.startswith(f"F.md has damaged agentctl markers {words}")
    with pytest.raises(ConfigError):
        upsert("\n".join(lines), "B", "F.md")
