"""agentctl.integrations.yamlkeys: a few top-level keys of a YAML file edited reversibly; the rest kept byte for byte."""

from __future__ import annotations

import pytest

from agentctl.integrations import yamlkeys
from agentctl.integrations.jsonmerge import ConfigError

REL = "conf.yml"


def _upper(value: str) -> str:
    return value.upper()


@pytest.mark.parametrize("raw,token,value", [
    ("plain", "plain", "plain"), ("plain # comment", "plain", "plain"), ("'it''s' # c", "'it''s'", "it's"),
    ('"a\\tb"', '"a\\tb"', "a\tb"), ('"caf\\u00e9"', '"caf\\u00e9"', "café"), ("a:b", "a:b", "a:b"),
])
def test_scalar_tokens_and_their_values(raw: str, token: str, value: str) -> None:
    assert yamlkeys.scalar_token(raw, REL) == token
    assert yamlkeys.value_of(token, REL) == value


@pytest.mark.parametrize("raw,words", [
    ("'open", "does not end on its line"), ("'a' b", "text after the closing quote"), ("[a, b]", "is not a plain one-line value"),
    ("a: b", "is not a plain one-line value"), ("&anchor x", "is not a plain one-line value"),
])
def test_what_is_not_a_plain_scalar_is_refused(raw: str, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        yamlkeys.scalar_token(raw, REL)


def test_an_escape_json_does_not_read_the_same_is_refused() -> None:
    with pytest.raises(ConfigError, match="an escape agentctl does not read"):
        yamlkeys.value_of('"\\x41"', REL)


def test_quoted_reads_back_as_the_value() -> None:
    for value in ("plain", "it's \"quoted\"", "tab\there", "café: yes # no"):
        assert yamlkeys.value_of(yamlkeys.quoted(value), REL) == value


def test_parse_finds_scalars_and_lists_of_the_keys_asked_only() -> None:
    text = "---\nmodel: x  # mine\nread:\n  - a.md\n  - 'b c.md'\nother:\n  nested: 1\n"
    found = yamlkeys.parse(text, REL, ("model", "read", "absent"))
    assert set(found) == {"model", "read"}
    assert (found["model"].seq, found["model"].items) == (False, [(1, "x")])
    assert (found["read"].seq, found["read"].items, found["read"].indent) == (True, [(3, "a.md"), (4, "'b c.md'")], "  ")
    assert yamlkeys.scalar(text, REL, "model") == "x"
    assert yamlkeys.scalar(text, REL, "read") is None and yamlkeys.scalar(text, REL, "absent") is None


def test_edit_appends_and_rewrites_then_remove_gives_the_file_back() -> None:
    text = "model: x\r\nread: A.md # the rules\r\ncmd:\r\n  - one\r\n  - two\r\n"
    edited = yamlkeys.edit(text, REL, {"read": "P.md", "extra": "E"}, {"cmd": (_upper, "DEFAULT")})
    assert "\r\n" in edited and "\n" not in edited.replace("\r\n", "")  # the file's own line ends
    assert yamlkeys.parse(edited, REL, ("read", "cmd", "extra")).keys() == {"read", "cmd", "extra"}
    values = {k: [yamlkeys.value_of(t, REL) for _, t in e.items]
              for k, e in yamlkeys.parse(edited, REL, ("read", "cmd", "extra")).items()}
    assert values == {"read": ["A.md", "P.md"], "cmd": ["ONE", "TWO"], "extra": ["E"]}
    assert "#agentctl-was: read: A.md # the rules" in edited
    assert yamlkeys.remove(edited) == text
    assert yamlkeys.remove(text) == text  # nothing of ours: unchanged


def test_a_value_already_listed_is_not_added_twice() -> None:
    text = "read:\n  - P.md\n"
    assert yamlkeys.edit(text, REL, {"read": "P.md"}, {}) == text


def test_a_file_without_a_final_newline_gets_it_back_without() -> None:
    text = "model: x"
    edited = yamlkeys.edit(text, REL, {"read": "P.md"}, {})
    assert edited.startswith("model: x\n" + yamlkeys.NOEOL + "\n")
    assert yamlkeys.remove(edited) == text


@pytest.mark.parametrize("text,words", [
    ("read: a\nread: b\n", "appears twice"), ("read:\n\t- a\n", "a tab in the indentation"),
    ("read:\nmodel: x\n", "has no value"), ("- a\n", "is a YAML list"), ("a: 1\n---\nb: 2\n", "more than one YAML document"),
    ("read:\n  - a\n   - b\n", "holds something other than a list"), ('"read": x\n', "written in a form agentctl cannot edit"),
])
def test_what_cannot_be_edited_safely_is_refused_in_one_line(text: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        yamlkeys.edit(text, REL, {"read": "P.md"}, {})
    assert words in str(info.value) and "\n" not in str(info.value) and "agentctl changed nothing" in str(info.value)
