"""yamlkeys: agentctl's lines added marked, the user's replaced lines kept as comments, and both undone."""

from __future__ import annotations

from agentctl.integrations.yamlkeys import MARK, NOEOL, WAS, edit, remove


def upper(value: str) -> str:
    return value.upper()


def test_append_to_absent_scalar_and_list_keys() -> None:
    assert (
        edit("model: x\n", "c.yml", {"read": "P.md"}, {}) == f'model: x\nread:  {MARK}\n  - "P.md"  {MARK}\n'
    )
    text = "read: A.md\n"
    got = edit(text, "c.yml", {"read": "P.md"}, {})
    assert got == f'{WAS}read: A.md\nread:  {MARK}\n  - A.md  {MARK}\n  - "P.md"  {MARK}\n'
    assert remove(got) == text
    listed = "read:\n  - A.md\n"
    assert edit(listed, "c.yml", {"read": "P.md"}, {}) == f'read:\n  - A.md\n  - "P.md"  {MARK}\n'
    assert edit("read:\n  - P.md\n", "c.yml", {"read": "P.md"}, {}) == "read:\n  - P.md\n"  # already there


def test_rewrites_each_user_value_or_adds_the_default() -> None:
    text = "lint-cmd:\n  - a\n  - 'b'\n"
    got = edit(text, "c.yml", {}, {"lint-cmd": (upper, "dflt")})
    assert got == f'lint-cmd:\n{WAS}  - a\n  - "A"  {MARK}\n{WAS}  - \'b\'\n  - "B"  {MARK}\n'
    assert remove(got) == text
    assert edit("", "c.yml", {}, {"lint-cmd": (upper, "dflt")}) == f'lint-cmd:  {MARK}\n  - "dflt"  {MARK}\n'


def test_no_newline_at_the_end_and_crlf_come_back_exactly() -> None:
    text = "model: x"
    got = edit(text, "c.yml", {"read": "P.md"}, {})
    assert got.startswith("model: x\nread:") and got.endswith(f"{NOEOL}\n") and remove(got) == text
    for last in ("lint-cmd: flake8", "read:", "lint-cmd:", "read: a.md"):  # a key of ours, last, no newline
        text = "model: x\n" + last
        got = edit(text, "c.yml", {"read": "P.md"}, {"lint-cmd": (lambda v: "w " + v, "L")})
        assert all(
            ln.endswith(MARK) or ln.startswith(("#agentctl-was: ", "model")) for ln in got.splitlines()
        ), got
        assert remove(got) == text
    crlf = "model: x\r\n"
    got = edit(crlf, "c.yml", {"read": "P.md"}, {})
    assert got == f'model: x\r\nread:  {MARK}\r\n  - "P.md"  {MARK}\r\n' and remove(got) == crlf
