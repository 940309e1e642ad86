"""A plan brought in and taken out: a Markdown checklist (``- [ ] id: description (after: a, b)``), Claude
Code's Tasks folder (``~/.claude/tasks/<list-id>/N.json``: ``id``, ``subject``, ``description``, ``status``,
``blockedBy``), and the checklist written back (`plan export --markdown`). Malformed input is refused with
one line naming the file and the line, before anything is added."""

from __future__ import annotations

import os
import re

from agentctl.ground.errors import UsageError
from agentctl.plan import graph
from agentctl.plan.edit import Spec
from agentctl.task.ids import id_ok

ITEM = re.compile(r"\s*[-*+] \[( |x|X)\] (.*)\Z")
BODY = re.compile(r"([^\s:]+):\s*(.*?)\s*(?:\(after:\s*([^()]*)\))?\s*\Z")
MAX_BYTES = 1 << 20
MAX_FILES = 500


def read_any(source: str, stdin: bytes | None = None) -> list[tuple[str, Spec]]:
    """The tasks of a checklist file (or ``-``) or of a Tasks folder, in their order."""
    if source != "-" and os.path.isdir(source):
        return read_tasks_folder(source)
    if stdin is not None:
        data = stdin
    else:
        try:
            with open(source, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        except OSError as exc:
            raise UsageError(
                f"cannot read {source!r}: {exc.strerror}; give a Markdown checklist or a Tasks folder"
            ) from None
    if len(data) > MAX_BYTES:
        raise UsageError(f"{source!r} is over {MAX_BYTES} bytes; split it")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{source!r} is not UTF-8 (byte {exc.start}); nothing imported") from None
    return read_checklist(text, source)


def read_checklist(text: str, name: str) -> list[tuple[str, Spec]]:
    """``- [ ] id: description (after: a, b)`` lines; ``- [x]`` ones are imported as tasks too, and other
    lines (headings, prose) are skipped; a checklist line that does not parse refuses the whole file."""
    out: list[tuple[str, Spec]] = []
    for lineno, raw in enumerate(text.split("\n"), 1):
        m = ITEM.match(raw.rstrip("\r"))
        if m is None:
            if re.match(r"\s*[-*+] \[", raw):
                raise UsageError(
                    f"{name} line {lineno}: {raw.strip()[:60]!r} is not `- [ ] id: description "
                    "(after: a, b)`; nothing imported"
                )
            continue
        b = BODY.match(m.group(2))
        if b is None or not id_ok(b.group(1)) or not b.group(2):
            raise UsageError(
                f"{name} line {lineno}: {m.group(2)[:60]!r} is not `id: description (after: a, b)` "
                "with an id of letters, digits, '.', '_' or '-'; nothing imported"
            )
        after = [a.strip() for a in (b.group(3) or "").split(",") if a.strip()]
        out.append((b.group(1), Spec(desc=b.group(2), after=after)))
    if not out:
        raise UsageError(
            f"{name} holds no checklist line (`- [ ] id: description (after: a, b)`); nothing imported"
        )
    return out


def read_tasks_folder(folder: str) -> list[tuple[str, Spec]]:
    """Claude Code's Tasks: one ``N.json`` a task, read in the order of N; ids prefixed ``t`` when they
    are bare numbers (``3`` -> ``t3``, so they are task ids); completed ones are imported like the rest."""
    import json

    names = sorted(
        (n for n in os.listdir(folder) if re.fullmatch(r"[0-9]{1,9}\.json", n)), key=lambda n: int(n[:-5])
    )
    if not names:
        raise UsageError(
            f"{folder!r} holds no N.json task file (Claude Code's ~/.claude/tasks/<list-id>/); nothing "
            f"imported"
        )
    if len(names) > MAX_FILES:
        raise UsageError(f"{folder!r} holds {len(names)} task files, over {MAX_FILES}; nothing imported")
    out: list[tuple[str, Spec]] = []
    for name in names:
        path = os.path.join(folder, name)
        try:
            with open(path, "rb") as fh:
                obj = json.loads(fh.read(MAX_BYTES))
        except (OSError, ValueError) as exc:
            raise UsageError(f"{path}: not a JSON task ({str(exc)[:80]}); nothing imported") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("subject"), str) or not obj["subject"].strip():
            raise UsageError(f'{path}: a task needs a non-empty "subject"; nothing imported')
        raw_id = obj.get("id", name[:-5])
        blocked = obj.get("blockedBy", [])
        if (
            not isinstance(raw_id, (str, int))
            or isinstance(raw_id, bool)
            or not isinstance(blocked, list)
            or not all(isinstance(b, (str, int)) and not isinstance(b, bool) for b in blocked)
        ):
            raise UsageError(
                f'{path}: "id" must be a string or number and "blockedBy" a list of them; nothing imported'
            )
        tid = _tid(str(raw_id))
        if not id_ok(tid):
            raise UsageError(
                f"{path}: id {str(raw_id)[:40]!r} is not a task id (letters, digits, '.', '_' or '-'); "
                f"nothing imported"
            )
        desc = " ".join(obj["subject"].split())
        out.append((tid, Spec(desc=desc, after=[_tid(str(b)) for b in blocked])))
    return out


def _tid(raw: str) -> str:
    return f"t{raw}" if raw.isdigit() else raw


def to_markdown(view: graph.View) -> str:
    """The plan as a checklist a person reads or pastes into an issue; `plan import` reads it back."""
    out = []
    for t in view.tasks:
        st = view.state(t)
        mark = "x" if st == "done" else " "
        after = f" (after: {', '.join(t.after)})" if t.after else ""
        note = (
            "" if st in ("done", "planned", "ready") else f" <!-- {st}{': ' + t.AGENT if t.AGENT else ''} -->"
        )
        desc = " ".join(t.DESC.replace("(after:", "(after").split())
        out.append(f"- [{mark}] {t.ID}: {desc}{after}{note}")
    return "".join(f"{x}\n" for x in out)
