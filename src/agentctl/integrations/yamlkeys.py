"""A small, strict editor for a few top-level keys of a YAML config file (``.aider.conf.yml``).

It edits only what yamlparse reads (and refuses the rest with one line, changing nothing):
a top-level key holding one single-line scalar or a block sequence of them. Every other
line of the file is kept byte for byte.

Its edits are reversible without a backup: each line it adds ends with ``# agentctl``, and
each line of the user's it replaces is kept as a comment ``#agentctl-was: <the line>``.
:func:`remove` drops the first and restores the second, so install then uninstall gives the
file back byte for byte (and a user's other edits in between survive).
"""

from __future__ import annotations

from collections.abc import Callable

from agentctl.integrations.yamlparse import lines_of, parse, quoted, value_of

MARK = "# agentctl"
WAS = "#agentctl-was: "
NOEOL = "#agentctl-noeol  " + MARK  # the file had no newline at its end before we appended


def remove(text: str) -> str:
    """``text`` without agentctl's lines, the lines they replaced restored."""
    out: list[str] = []
    noeol = False
    for full in lines_of(text):
        line = full.rstrip("\r\n")
        if line.rstrip() == NOEOL:
            noeol = True
            continue
        if line.rstrip().endswith(MARK):
            continue
        if line.startswith(WAS):
            out.append(line[len(WAS) :] + full[len(line) :])
            continue
        out.append(full)
    result = "".join(out)
    if noeol:
        result = result.rstrip("\r\n") if result.endswith(("\n", "\r")) else result
    return result


Rewrite = Callable[[str], str]


def edit(text: str, rel: str, appends: dict[str, str], rewrites: dict[str, tuple[Rewrite, str]]) -> str:
    """Add agentctl's values, marked, to a text with none of ours (see :func:`remove`).

    ``appends``: key -> a value added to that key's list (a scalar becomes a list; nothing
    is added when the list already holds it). ``rewrites``: key -> (a function from each of
    the user's values to agentctl's replacement, the value to add when the key is absent).
    """
    entries = parse(text, rel, (*appends, *rewrites))
    nl = "\r\n" if "\r\n" in text else "\n"
    noeol = bool(text) and not text.endswith(("\n", "\r"))
    if noeol:  # every line ends, so nothing is glued to the last one; NOEOL says to take the newline back
        text += nl
    lines = lines_of(text)
    before: dict[int, list[str]] = {}  # line index -> lines put in its place (itself commented or kept)
    tail: list[str] = []

    def mark(body: str) -> str:
        return f"{body}  {MARK}{nl}"

    def was(n: int) -> str:
        return WAS + lines[n]

    for key, value in appends.items():
        entry = entries.get(key)
        if entry is None:
            tail += [mark(f"{key}:"), mark(f"  - {quoted(value)}")]
        elif entry.seq and not entry.items:  # `key:` with no value (null): ours becomes its one value
            before[entry.line] = [was(entry.line), mark(f"{key}:"), mark(f"  - {quoted(value)}")]
        elif entry.seq:
            if value not in [value_of(t, rel) for _, t in entry.items]:
                last = entry.items[-1][0]
                before[last] = [lines[last], mark(f"{entry.indent}- {quoted(value)}")]
        else:
            _, token = entry.items[0]
            if value_of(token, rel) != value:
                before[entry.line] = [
                    was(entry.line),
                    mark(f"{key}:"),
                    mark(f"  - {token}"),
                    mark(f"  - {quoted(value)}"),
                ]
    for key, (rewrite, default) in rewrites.items():
        entry = entries.get(key)
        if entry is None:
            tail += [mark(f"{key}:"), mark(f"  - {quoted(default)}")]
        elif entry.seq and not entry.items:  # `key:` with no value: as if absent, in its place
            before[entry.line] = [was(entry.line), mark(f"{key}:"), mark(f"  - {quoted(default)}")]
        elif entry.seq:
            for n, token in entry.items:
                before[n] = [was(n), mark(f"{entry.indent}- {quoted(rewrite(value_of(token, rel)))}")]
        else:
            n, token = entry.items[0]
            before[n] = [was(n), mark(f"{key}: {quoted(rewrite(value_of(token, rel)))}")]
    out: list[str] = []
    for n, line in enumerate(lines):
        out.extend(before.get(n, [line]))
    out.extend(tail)
    if noeol:
        if not before and not tail:
            return text[: -len(nl)]  # nothing to add: the file as it was
        out.append(NOEOL + nl)
    return "".join(out)
