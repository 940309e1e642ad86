"""The managed block in a text: the lines between agentctl's two HTML-comment markers.

    <!-- agentctl:begin v=1 -->
    ... the block's body ...
    <!-- agentctl:end -->

Neither marker: the block is appended after a blank line. Both, once each, in order: the
span is replaced in place. Anything else (one marker, two begins, end before begin) is a
ConfigError. The text's newline style is kept and the text around the block never touched.
Which files hold the block, and how they are planned, is agentsmd's.
"""

from __future__ import annotations

from agentctl.integrations.configchange import ConfigError

BEGIN = "<!-- agentctl:begin v=1 -->"
BEGIN_PREFIX = "<!-- agentctl:begin"
END = "<!-- agentctl:end -->"


def find_span(lines: list[str], rel: str) -> tuple[int, int] | None:
    begins = [
        i for i, ln in enumerate(lines) if ln.strip().startswith(BEGIN_PREFIX) and ln.strip().endswith("-->")
    ]
    ends = [i for i, ln in enumerate(lines) if ln.strip() == END]
    if not begins and not ends:
        return None
    if len(begins) == 1 and len(ends) == 1 and begins[0] < ends[0]:
        return begins[0], ends[0]
    raise ConfigError(
        f"{rel} has damaged agentctl markers ({len(begins)} begin, {len(ends)} "
        f"end{', end first' if begins and ends and ends[0] < begins[0] else ''}); "
        f"agentctl changed nothing. Remove the lines `{BEGIN}` ... `{END}` by hand, then run the command "
        f"again"
    )


def upsert(text: str, body: str, rel: str) -> str:
    """``text`` with the managed block set to ``body`` (appended when absent)."""
    nl = "\r\n" if "\r\n" in text else "\n"
    block = nl.join([BEGIN, *body.split("\n"), END])
    lines = text.splitlines(keepends=True)
    span = find_span(lines, rel)
    if span is None:
        if not text:
            return block + nl
        return text + ("" if text.endswith("\n") else nl) + nl + block + nl
    b, e = span
    ending = lines[e][len(lines[e].rstrip("\r\n")) :]
    return "".join(lines[:b]) + block + ending + "".join(lines[e + 1 :])


def remove(text: str, rel: str) -> str:
    """``text`` without the managed block and the one blank line before (or after) it."""
    lines = text.splitlines(keepends=True)
    span = find_span(lines, rel)
    if span is None:
        return text
    b, e = span
    before, after = lines[:b], lines[e + 1 :]
    if before and not before[-1].strip():
        before = before[:-1]
    elif after and not after[0].strip():
        after = after[1:]
    return "".join(before) + "".join(after)
