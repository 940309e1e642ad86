"""The startup protocol as a managed block in an instruction file (AGENTS.md and friends).

The block itself, in a text, is mdblock's; this module plans the files that hold it.

The block sits between two HTML-comment lines::

    <!-- agentctl:begin v=1 -->
    ... the text of `agentctl prompt` ...
    <!-- agentctl:end -->

* Neither marker: the block is appended after a blank line (the file is created if
  missing). Both, once each, in order: the span is replaced in place. Anything else
  (one marker, two begins, end before begin): refused, file untouched.
* The file's newline style is kept; the user's text around the block is never
  touched; an unchanged block leaves the file byte-identical (not even rewritten).
* Removing takes out the span and the blank line we put before it; a file left
  empty (or, for a Cursor rule, left with only our front matter) is deleted.
* Only the block changes, so no ``.agentctl.bak`` copy is kept (unlike JSON configs,
  which are re-serialised).
* Claude Code strips block-level HTML comments from CLAUDE.md, so the markers cost
  it no tokens; elsewhere they are harmless text.
"""

from __future__ import annotations

import os

from agentctl.integrations.configchange import Change, ConfigError
from agentctl.integrations.mdblock import find_span, remove, upsert

IMPORT_LINE = "@AGENTS.md"
MDC_FRONT = "---\ndescription: agentctl startup protocol (managed by agentctl)\nalwaysApply: true\n---\n"


def protocol() -> str:
    from agentctl.workflow.resume import PROMPT

    return PROMPT.rstrip("\n")


def _read(project: str, rel: str) -> bytes | None:
    try:
        with open(os.path.join(project, rel), "rb") as fh:
            return fh.read(8 << 20)
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise ConfigError(f"{rel} is a folder; give a file with --file") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {rel}: {exc.strerror}; check its permissions") from None


def _decode(raw: bytes, rel: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{rel} is not UTF-8 text; agentctl changed nothing") from None


def plan_block(project: str, rel: str, body: str, what: str = "startup protocol block") -> Change:
    raw = _read(project, rel)
    text = "" if raw is None else _decode(raw, rel)
    mdc = rel.endswith(".mdc")
    note = ""
    if mdc and not text.startswith("---"):
        text = MDC_FRONT + text  # a rule applies to every chat only with this front matter
    elif mdc and "alwaysApply: true" not in text.split("---", 2)[1]:
        note = " (its front matter lacks `alwaysApply: true`: Cursor applies it only when attached)"
    new = upsert(text, body, rel).encode("utf-8")
    if raw == new:
        return Change(project, rel, raw, raw, f"{what} already up to date", backup=False)
    return Change(
        project, rel, raw, new, f"{what} {'created' if raw is None else 'written'}{note}", backup=False
    )


def plan_unblock(project: str, rel: str) -> Change:
    raw = _read(project, rel)
    if raw is None:
        return Change(project, rel, None, None, "not there", backup=False)
    text = _decode(raw, rel)
    rest = remove(text, rel)
    if rest == text:
        return Change(project, rel, raw, raw, "no agentctl block", backup=False)
    if not rest or (rel.endswith(".mdc") and rest.replace("\r\n", "\n") == MDC_FRONT):
        return Change(
            project, rel, raw, None, "removed (the file held only the agentctl block)", backup=False
        )
    return Change(project, rel, raw, rest.encode("utf-8"), "agentctl block removed", backup=False)


def imports_agents_md(project: str) -> bool:
    """Does CLAUDE.md already bring AGENTS.md in (an ``@AGENTS.md`` line, or a symlink to it)?"""
    claude_md = os.path.join(project, "CLAUDE.md")
    if os.path.islink(claude_md) and os.path.realpath(claude_md) == os.path.realpath(
        os.path.join(project, "AGENTS.md")
    ):
        return True
    raw = _read(project, "CLAUDE.md")
    if raw is None:
        return False
    lines = [ln.strip() for ln in raw.decode("utf-8", "replace").splitlines()]
    span = None
    try:
        span = find_span(raw.decode("utf-8", "replace").splitlines(), "CLAUDE.md")
    except ConfigError:
        pass
    outside = [ln for i, ln in enumerate(lines) if span is None or not span[0] <= i <= span[1]]
    return any(ln in (IMPORT_LINE, "@./AGENTS.md") for ln in outside)


def plan_claude_import(project: str) -> Change | None:
    """CLAUDE.md's managed block holding ``@AGENTS.md`` (None when CLAUDE.md already imports it)."""
    if imports_agents_md(project):
        return None
    return plan_block(project, "CLAUDE.md", IMPORT_LINE, "`@AGENTS.md` import block")


def has_block(project: str, rel: str) -> bool:
    raw = _read(project, rel)
    if raw is None:
        return False
    try:
        return find_span(raw.decode("utf-8", "replace").splitlines(), rel) is not None
    except ConfigError:
        return True


def block_body(project: str, rel: str) -> str | None:
    """The text between the markers in ``rel`` (None: no file, no block, or damaged markers)."""
    raw = _read(project, rel)
    if raw is None:
        return None
    lines = raw.decode("utf-8", "replace").splitlines()
    try:
        span = find_span(lines, rel)
    except ConfigError:
        return None
    if span is None:
        return None
    return "\n".join(lines[span[0] + 1 : span[1]]).strip()
