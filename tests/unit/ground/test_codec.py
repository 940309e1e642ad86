"""agentctl.ground.codec: values escaped so a record never breaks, read back exactly; strict status files
and numbers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentctl.ground import codec
from agentctl.ground.errors import StateError, UsageError


@given(st.text())
def test_decode_of_encode_is_the_value_and_one_field_of_one_line(value: str) -> None:
    escaped = codec.encode(value)
    assert codec.decode(escaped) == value
    assert "|" not in escaped and "\n" not in escaped and "\r" not in escaped
    for c in escaped:  # no control character, line break, bidi control or surrogate survives
        o = ord(c)
        assert o >= 0x20 and o != 0x7F and not 0x80 <= o < 0xA0 and not 0xD800 <= o <= 0xDFFF, repr(value)
        assert c not in "\u2028\u2029\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


@pytest.mark.parametrize(
    "value,escaped",
    [
        ("plain text", "plain text"),
        ("café ünïcode", "café ünïcode"),
        ("a|b", "a\\x7cb"),
        ("back\\slash", "back\\\\slash"),
        ("two\nlines\r", "two\\nlines\\r"),
        ("tab\there", "tab\\x09here"),
        ("\x7f", "\\x7f"),
        ("\x85", "\\u0085"),
        ("line\u2028sep", "line\\u2028sep"),
        ("rtl\u202eoverride", "rtl\\u202eoverride"),
        ("\udcff", "\\udcff"),
    ],
)
def test_what_is_escaped_and_how(value: str, escaped: str) -> None:
    assert codec.encode(value) == escaped
    assert codec.decode(escaped) == value


@pytest.mark.parametrize("bad", ["\\", "end\\", "\\q", "\\x4", "\\xzz", "\\u12", "\\u12g4"])
def test_a_malformed_escape_is_a_value_error_naming_the_column(bad: str) -> None:
    with pytest.raises(ValueError, match="bad escape at column"):
        codec.decode(bad)


def test_check_text_refuses_empty_overlong_and_lone_surrogates_only() -> None:
    # an undecodable byte's surrogate is kept
    assert codec.check_text("ok \x00 \udc80", "--notes") == "ok \x00 \udc80"
    with pytest.raises(UsageError, match="--desc is empty"):
        codec.check_text(" \n", "--desc")
    assert codec.check_text("", "--notes", required=False) == ""
    with pytest.raises(UsageError, match="--desc is 5 characters, over the limit of 4"):
        codec.check_text("12345", "--desc", limit=4)
    with pytest.raises(UsageError, match="lone surrogate \\(U\\+D800\\)"):
        codec.check_text("x\ud800", "--desc")


def test_status_round_trip_in_order() -> None:
    fields = {"STATE": "ACTIVE", "NOTES": "multi\nline | with pipe", "DESC": "café"}
    data = codec.format_status(fields)
    assert data == "STATE=ACTIVE\nNOTES=multi\\nline \\x7c with pipe\nDESC=café\n".encode()
    assert codec.parse_status(data, "status") == fields
    assert list(codec.parse_status(data, "status")) == ["STATE", "NOTES", "DESC"]
    assert codec.parse_status(b"# comment\n\nA=1\n", "s") == {"A": "1"}
    assert codec.parse_status(b"A=x=y\n", "s") == {"A": "x=y"}


@pytest.mark.parametrize(
    "data,words",
    [
        (b"lower=1\n", "line 1 is not KEY=VALUE"),
        (b"A=1\nno equals\n", "line 2 is not KEY=VALUE"),
        (b"=1\n", "not KEY=VALUE"),
        (b"A-B=1\n", "not KEY=VALUE"),
        (b"A=1\nA=2\n", "line 2 repeats key A"),
        (b"A=\\q\n", "line 1: bad escape at column 1"),
        (b"A=\xff\n", "is not valid UTF-8 (byte 2)"),
        (b"OTHER=1\n", "line 1 has unknown key OTHER"),
    ],
)
def test_a_damaged_status_file_is_a_state_error_naming_the_line(data: bytes, words: str) -> None:
    with pytest.raises(StateError) as info:
        codec.parse_status(data, "services/x/status", ("A",))
    assert words in info.value.message and info.value.message.startswith("services/x/status")
    assert "agentctl doctor" in info.value.message


def test_tried_keys_are_allowed_beside_the_known_ones() -> None:
    assert codec.parse_status(b"A=1\nTRIED_3=fix\n", "s", ("A",)) == {"A": "1", "TRIED_3": "fix"}


def test_records_split_into_exactly_their_fields() -> None:
    line = codec.record("2026-01-01T00:00:00+00:00", "MODIFY", "src/a|b.py")
    assert line == b"2026-01-01T00:00:00+00:00|MODIFY|src/a\\x7cb.py\n"
    assert codec.split_record(line.decode().rstrip("\n"), 3) == [
        "2026-01-01T00:00:00+00:00",
        "MODIFY",
        "src/a|b.py",
    ]
    assert codec.split_record("a|b", 3) is None
    assert codec.split_record("a|b|\\q", 3) is None
    assert codec.record("\udcff").decode("utf-8", "surrogatepass") == "\\udcff\n"


@pytest.mark.parametrize("raw", ["", "-1", "+1", " 1", "1_000", "1e3", "١", "1234567890", "x"])
def test_parse_uint_takes_plain_ascii_digits_only(raw: str) -> None:
    with pytest.raises(
        UsageError,
        match=f"--done must be a whole "
        f"number{' up to 999999999' if raw.isdigit() and raw.isascii() else ''}, got",
    ):
        codec.parse_uint(raw, "--done")
    with pytest.raises(UsageError, match="--n must be a whole number of at least 1, got 'x'"):
        codec.parse_uint("x", "--n", minimum=1)


def test_numbers_and_their_ranges() -> None:
    assert codec.parse_uint("007", "--n") == 7
    assert codec.parse_uint("999999999", "--n") == 999_999_999
    with pytest.raises(UsageError, match="from 1 to 5, got 6"):
        codec.parse_uint("6", "--n", minimum=1, maximum=5)
    assert codec.check_uint(3, "n") == 3
    for bad in (True, -1, 1_000_000_000):
        with pytest.raises(UsageError):
            codec.check_uint(bad, "n")


def test_status_int_reads_a_number_or_calls_the_file_damaged() -> None:
    assert codec.status_int({"SEQ": "12"}, "SEQ", "s") == 12
    assert codec.status_int({}, "SEQ", "s") == 0 and codec.status_int({"SEQ": ""}, "SEQ", "s") == 0
    for raw in ("-1", "1.5", "٣", "1" * 13):
        with pytest.raises(StateError, match="is not a number; run `agentctl doctor`"):
            codec.status_int({"SEQ": raw}, "SEQ", "services/task/status")
