"""yamlparse: the few top-level keys read strictly; what it cannot read safely is refused with one line."""

from __future__ import annotations

import pytest

from agentctl.integrations.configchange import ConfigError
from agentctl.integrations.yamlparse import lines_of, parse, quoted, scalar, scalar_token, value_of


def test_scalars_plain_quoted_and_commented() -> None:
    assert scalar("read: CONVENTIONS.md # mine\n", "c.yml", "read") == "CONVENTIONS.md"
    assert scalar("read: 'it''s.md'\n", "c.yml", "read") == "it's.md"
    assert scalar('read: "a\\tb"\n', "c.yml", "read") == "a\tb"
    assert scalar("other: x\n", "c.yml", "read") is None
    assert scalar("read:\n  - a\n", "c.yml", "read") is None  # a list, not a scalar


def test_parse_finds_lists_with_their_lines_and_indent() -> None:
    text = "---\nmodel: x\nread:\n    - a.md\n\n    # note\n    - 'b c.md'\nlint-cmd: y\n"
    got = parse(text, "c.yml", ("read", "lint-cmd", "absent"))
    assert set(got) == {"read", "lint-cmd"}
    read = got["read"]
    assert (read.line, read.seq, read.indent, read.items) == (2, True, "    ", [(3, "a.md"), (6, "'b c.md'")])
    assert got["lint-cmd"].items == [(7, "y")] and not got["lint-cmd"].seq


@pytest.mark.parametrize(
    "text,words",
    [
        (
            "read: [a, b]\n",
            "a flow collection ([a, b]); agentctl edits block lists only: write it as `key:` then one",
        ),
        ("lint-cmd: >\n", "a block scalar"),
        ("read: 'open\n", "a quoted value that does not end on its line"),
        ("read: 'a' b\n", "text after the closing quote"),
        ("read:\n  - a\n  x: y\n", "holds something other than a list of one-line values"),
    ],
)
def test_refused_with_the_line(text: str, words: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse(text, "c.yml", ("read", "lint-cmd"))
    assert words in err.value.message and err.value.message.startswith("c.yml line ")


def test_a_key_with_no_value_is_an_empty_list() -> None:
    for text in ("read:\n", "read:", "read:  # none yet\nmodel: x\n"):
        got = parse(text, "c.yml", ("read",))["read"]
        assert got.seq and got.items == [] and got.line == 0


def test_tokens_and_quoting_round_trip() -> None:
    assert scalar_token("  value # c", "w") == "value" and scalar_token("'a # b'", "w") == "'a # b'"
    for value in ("plain", "with 'quote'", "tab\there", "é"):
        assert value_of(quoted(value), "w") == value
    assert lines_of("a\r\nb\nc") == ["a\r\n", "b\n", "c"]
