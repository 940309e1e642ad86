"""The model test's comparison: every answer of one copy against the truth."""

from __future__ import annotations

import re

from . import truth as t
from .world import Copy

COUNT = re.compile(r" \(\d+x\)$")
COMPACTIONS = re.compile(r"\b(\d+) compactions?\b")


def files_list(c: Copy, open_classes: frozenset[str]) -> tuple[dict[str, str], list[str]]:
    r = c.agentctl("files", "list")
    problems = [] if r.code == 0 else [f"files list: exit {r.code}: {r.err.strip()}"]
    seen: dict[str, str] = {}
    for line in r.lines:
        if "double-records" in open_classes:
            line = COUNT.sub("", line)
        op, _, path = line.partition("|")
        if path in seen:
            problems.append(f"files list: {path} listed twice")
        seen[path] = op
    return seen, problems


def compare(c: Copy, truth: t.Truth, open_classes: frozenset[str], paths: list[str]) -> list[str]:
    """What ``c`` answers that the truth says otherwise (``files check`` of ``paths``): one line each."""
    out: list[str] = []
    touched = truth.touched(c.name)
    listed, problems = files_list(c, open_classes)
    out += problems
    if set(listed) != set(touched):
        out.append(f"files list: paths {sorted(listed)}, truth {sorted(touched)}")
    for path, allowed in touched.items():
        if path in listed and not t.op_ok(listed[path], allowed):
            out.append(f"files list: {path} {listed[path]}, truth {sorted(allowed)}")
    for path in paths:
        r = c.agentctl("files", "check", path)
        if r.code != (0 if path in touched else 1):
            out.append(
                f"files check {path}: exit {r.code}, truth {'touched' if path in touched else 'not touched'}"
            )
        there = truth.elsewhere(c.name, path)
        said = "changed in another copy" in r.out
        if there is not None and said != there:
            out.append(
                f"files check {path}: {'says' if said else 'does not say'} it changed in another copy, not "
                f"in "
                f"this tree; truth: {'it did' if there else 'this tree holds its last change'}"
            )
    r = c.agentctl("task", "status")
    kv = r.kv()
    want = truth.task(c.name)
    for key in ("STATE", "TOTAL", "DONE", "NEXT"):
        if kv.get(key, "") != want[key]:
            out.append(f"task status {key}={kv.get(key, '')!r}, truth {want[key]!r}")
    if kv.get("SKIPPED", "0") != want["SKIPPED"]:
        out.append(f"task status SKIPPED={kv.get('SKIPPED', '0')!r}, truth {want['SKIPPED']!r}")
    resume = c.agentctl("resume")
    lines = resume.lines
    task_line = f"TASK t1 {want['STATE']} {want['DONE']}/{want['TOTAL']}"
    if not any(ln.startswith(task_line) for ln in lines):
        out.append(f"resume: no line {task_line!r}: {lines}")
    if want["NEXT"] and f"NEXT={want['NEXT']}" not in lines:
        out.append(f"resume: no NEXT={want['NEXT']}: {lines}")
    found = COMPACTIONS.search(resume.out)
    n = int(found.group(1)) if found else 0
    if n != truth.compactions(c.name):
        out.append(f"resume: {n} compactions, truth {truth.compactions(c.name)}")
    if c.name == "a":
        verdict = truth.verified()
        got = kv.get("VERIFIED", "").split(" ", 1)[0]
        if verdict is not None and got != verdict:
            out.append(f"VERIFIED={kv.get('VERIFIED')!r}, truth {verdict!r}")
        other = [
            ln for ln in lines if ln.startswith("VIOLATION ") and not ln.startswith(f"VIOLATION {t.SECRET} ")
        ]
        if other:  # the late rule's file (t.DRAFT) was written before the rule: no violation
            out.append(f"resume: {other[0]!r}, truth: no write after a rule denied it")
        shown = any(ln.startswith(f"VIOLATION {t.SECRET}") for ln in lines)
        if shown != truth.violation():
            out.append(
                f"resume: VIOLATION {t.SECRET} {'shown' if shown else 'not shown'}, truth "
                f"{'written' if truth.violation() else 'as the task started'}"
            )
    return out


def answers(c: Copy, paths: list[str]) -> dict[str, object]:
    """The answers a copy gives that travel with its state (what is machine-local -- paths, log
    positions, this tree's own changes -- left out)."""
    out: dict[str, object] = {}
    for cmd in (("files", "list"), ("task", "list"), ("constraints", "list"), ("history",), ("plan", "list")):
        r = c.agentctl(*cmd)
        out[" ".join(cmd)] = (r.code, r.lines)
    kv = c.agentctl("task", "status").kv()
    # an idle copy's TASK_ID is the last task it stopped itself (a clone that pulled the stop has none): left
    # out
    keys = (
        ("STATE", "TASK_ID", "TOTAL", "DONE", "SKIPPED", "NEXT") if kv.get("STATE") != "IDLE" else ("STATE",)
    )
    out["task status"] = {k: kv.get(k, "0" if k == "SKIPPED" else "") for k in keys}  # no SKIPPED line: 0
    out["files check"] = {p: c.agentctl("files", "check", p).code for p in paths}
    out["resume task line"] = [ln for ln in c.agentctl("resume").lines if ln.startswith("TASK ")]
    return out


def round_trip(pushed: Copy, fresh: Copy, paths: list[str]) -> list[str]:
    """The round-trip law: a fresh clone that pulled what ``pushed`` just pushed answers as it does."""
    mine, theirs = answers(pushed, paths), answers(fresh, paths)
    return [
        f"round trip {pushed.name} -> fresh clone: {key} {mine[key]!r} there, {theirs[key]!r} in the clone"
        for key in mine
        if mine[key] != theirs[key]
    ]
