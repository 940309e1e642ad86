"""Issue 30 point 3: every front end that shows a fact gives the same answer, after every step.

Separate from check.py (the truth) on purpose: here agentctl's answers are compared with each other --
the task's counts and NEXT in `task status` (text and JSON), `status`, `task list`, `resume` and the web
API (web/data.py); the touched paths in `files list` against `files check` of each; the P0 rules in
`constraints list` against `resume`'s P0 lines."""

from __future__ import annotations

import json

from agentctl.ground.store import Store
from agentctl.web.data import View

from .world import Copy


def compare(c: Copy) -> list[str]:
    """Where two front ends of ``c`` disagree about one fact: one line each."""
    out: list[str] = []
    text = c.agentctl("task", "status").kv()
    data = json.loads(c.agentctl("--json", "task", "status").out)["data"]["task"]
    want = {k: text.get(k, "") for k in ("STATE", "TOTAL", "DONE", "NEXT")}
    got_json = {k: str(data.get(k, "")) for k in want}
    if got_json != want:
        out.append(f"task status --json {got_json}, text {want}")
    web = View(Store(str(c.root / ".agent-state"))).build()["task"]
    got_web = {k: str(web.get(k, "")) for k in want}
    if got_web != want:
        out.append(f"web API task {got_web}, task status {want}")
    if want["STATE"] != "IDLE":
        row = f"{text.get('TASK_ID', '')} {want['DONE']}/{want['TOTAL']} NEXT={want['NEXT']}"
        if not any(row in ln for ln in c.agentctl("status").lines):
            out.append(f"status has no task row {row!r}")
        listed = [ln.split("|", 1)[0] for ln in c.agentctl("task", "list").lines]
        if str(len(listed)) != want["TOTAL"] or str(listed.count("done")) != want["DONE"]:
            out.append(
                f"task list {len(listed)} entries, {listed.count('done')} done; task status "
                f"{want['TOTAL']}/{want['DONE']}"
            )
        todo = c.agentctl("task", "list", "--todo").lines
        if want["NEXT"] and want["NEXT"] not in todo:
            out.append(f"NEXT={want['NEXT']} is not in task list --todo {todo}")
        line = f"TASK {text.get('TASK_ID', '')} {want['STATE']} {want['DONE']}/{want['TOTAL']}"
        resume = c.agentctl("resume").lines
        if not any(ln.startswith(line) for ln in resume):
            out.append(f"resume has no {line!r} (task status)")
    for ln in c.agentctl("files", "list").lines:
        path = ln.split("|", 1)[-1].split(" (", 1)[0]
        if c.agentctl("files", "check", path).code != 0:
            out.append(f"files list has {path}, files check says not touched")
    rules = [ln.split(". ", 1)[-1] for ln in c.agentctl("constraints", "list").lines if ". P0|" in ln[:8]]
    shown = [ln for ln in c.agentctl("resume").lines if ln.startswith("P0|")]
    if sorted(rules) != sorted(shown):
        out.append(f"constraints list P0 {rules}, resume {shown}")
    return out
