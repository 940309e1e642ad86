"""Copy ``m``'s answers against its truth (tests/model/matchtruth.py), after every step: `task status
--json` (STATE, TOTAL, DONE, NEXT, LEFT, REVERTED), `task list --todo`, NEXT in `resume`, `files check`,
the same answer from a fresh search (``AGENTCTL_MATCHCOUNTS=off``: the kept match counts bypassed), and
`plan list --json` states and `plan ready`'s order."""

from __future__ import annotations

from . import matchtruth as mt
from .world import Copy

# the kept counts (services/files/.matchcounts) bypassed: a fresh search
FRESH = {"AGENTCTL_MATCHCOUNTS": "off"}


def paths(m: mt.MatchTruth) -> list[str]:
    return sorted({*mt.EDITABLE, *m.tree} - {p for p in m.tree if p.startswith(".")})


def give_tree(c: Copy, m: mt.MatchTruth) -> None:
    """Make ``c``'s tree m's (the files the model writes): a --match task travels with its pattern and is
    counted from the tree it is in, so the round-trip law compares two copies of one tree."""
    for path in mt.EDITABLE:
        if path in m.tree:
            (c.root / path).parent.mkdir(parents=True, exist_ok=True)
            (c.root / path).write_text(m.tree[path])
        else:
            (c.root / path).unlink(missing_ok=True)


def compare(c: Copy, m: mt.MatchTruth, checked: list[str]) -> list[str]:
    out: list[str] = []
    r = c.agentctl("--json", "task", "status")
    data = r.data() if r.code == 0 else {}
    if m.running is not None and m.running.pattern is not None:
        fresh = c.agentctl("--json", "task", "status", env=FRESH)
        again = fresh.data() if fresh.code == 0 else {}
        if (
            fresh.code != r.code
            or again.get("match") != data.get("match")
            or again.get("task") != data.get("task")
        ):
            out.append(
                f"task status with the kept match counts {data.get('task')} {data.get('match')}, a fresh "
                f"search: exit {fresh.code} {again.get('task')} {again.get('match')}"
            )
    task = {k: str(v) for k, v in dict(data.get("task") or {}).items()}
    want = m.fields()
    for key, value in want.items():
        if task.get(key, "") != value:
            out.append(f"task status {key}={task.get(key, '')!r}, truth {value!r}")
    run = m.running
    if run is not None and run.pattern is not None:
        got = data.get("match") or {}
        if got.get("left") != m.left():
            out.append(f"task status LEFT={got.get('left')!r}, truth {m.left()}")
        rev = sorted((x["path"], x["line"]) for x in got.get("reverted", []))
        if rev != m.reverted():
            out.append(f"task status REVERTED {rev}, truth {m.reverted()}")
    if run is not None:
        todo = c.agentctl("task", "list", "--todo")
        got_todo = [ln.split("|", 1)[-1] for ln in todo.lines]
        if todo.code != 0 or got_todo != m.todo():
            out.append(f"task list --todo: exit {todo.code} {got_todo}, truth {m.todo()}")
        lines = c.agentctl("resume").lines
        task_line = f"TASK {run.id} {want['STATE']} {want['DONE']}/{want['TOTAL']}"
        if not any(ln.startswith(task_line) for ln in lines):
            out.append(f"resume: no line {task_line!r}: {lines}")
        if want["NEXT"] and f"NEXT={want['NEXT']}" not in lines:
            out.append(f"resume: no NEXT={want['NEXT']}: {lines}")
        touched = run.touched
        for path in checked:
            code = c.agentctl("files", "check", path).code
            if code != (0 if path in touched else 1):
                out.append(
                    f"files check {path}: exit {code}, truth "
                    f"{'touched' if path in touched else 'not touched'}"
                )
    out += plan(c, m)
    return out


def plan(c: Copy, m: mt.MatchTruth) -> list[str]:
    if not m.plan:
        return []
    r = c.agentctl("--json", "plan", "list")
    if r.code != 0:
        return [f"plan list: exit {r.code}: {r.err.strip()}"]
    data = r.data()
    got = {t["id"]: t["state"] for t in data["tasks"]}
    want = {i: m.state(i) for i in m.plan}
    out = [] if got == want else [f"plan list states {got}, truth {want}"]
    if data["ready"] != m.ready():
        out.append(f"plan list ready {data['ready']}, truth {m.ready()}")
    ready = c.agentctl("--json", "plan", "ready")
    order = [t["id"] for t in ready.data()["ready"]] if ready.code == 0 else f"exit {ready.code}"
    if order != m.ready():
        out.append(f"plan ready {order}, truth {m.ready()}")
    for i, t in m.plan.items():
        note = next((x.get("note") or "" for x in data["tasks"] if x["id"] == i), "")
        if t.state == "done" and note.startswith("forced") != t.forced:
            out.append(f"plan list {i}: note {note!r}, truth {'forced' if t.forced else 'not forced'}")
    return out
