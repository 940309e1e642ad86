"""The steps of copy ``m``: `--match` tasks (migrate a file, revert it, write a new file with a match,
delete one, `task done`, `task stop` with and without --force, `task start --match`) and the plan
(`plan add`, `plan edit --after`, `plan drop`, `plan next`, `plan ready`), each told to the truth of
tests/model/matchtruth.py; `sync push` of stream ``m`` (its round trip is checked by test_model)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import matchtruth as mt

if TYPE_CHECKING:
    from .steps import World
    from .world import Copy


def _content(w: World, pattern: str | None, with_match: bool) -> str:
    """One or two lines, holding a match of ``pattern`` or none (a header line first now and then)."""
    assert pattern is not None
    n = w.uid()[-5:]
    lines = [ln.format(n=n) for ln in mt.LINES]
    pool = [ln for ln in lines if (mt.first_hit(pattern, ln) is not None) == with_match]
    body = [w.rng.choice(pool)]
    if w.rng.random() < 0.3:
        body.insert(0, f"// header {n}")
    return "".join(ln + "\n" for ln in body)


def _write(w: World, c: Copy, path: str, post: str | None, what: str) -> None:
    """``path`` becomes ``post`` (None: deleted) by a shell command and the Bash hook, or by Claude's
    Write."""
    m = w.match
    abs_path = c.root / path
    if post is not None and w.rng.random() < 0.5:
        pre = m.tree.get(path)
        abs_path.parent.mkdir(parents=True, exist_ok=True)
        abs_path.write_text(post)
        w.log.append(f"m: {what} {path}: Claude Write {post!r}")
        data: dict[str, object] = {
            "session_id": "model",
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": str(abs_path), "content": post},
            "tool_response": {
                "filePath": str(abs_path),
                "type": "create" if pre is None else "update",
                "content": post,
            },
            "tool_use_id": w.uid(),
        }
        done = c.fire("claude", "PostToolUse", "Write", data)
    else:
        if post is None:
            command = f"rm {path}"
        else:
            lines = " ".join(f'"{ln}"' for ln in post.splitlines())
            command = f"mkdir -p {abs_path.parent.relative_to(c.root)} && printf '%s\\n' {lines} > {path}"
        return _shell(w, c, command, what, {path: post})
    if done.returncode != 0:
        w.problems.append(f"{what} hook: exit {done.returncode}, stderr {done.stderr!r}")
    m.change(path, post)


def match_edit(w: World, c: Copy) -> None:
    """Migrate a file (its match removed), revert one (the match back), write a new file with a match,
    or delete one; with no --match task running, start one."""
    m = w.match
    run = m.running
    if run is None or run.pattern is None:
        return match_start_or_stop(w, c)
    hits = m.hits(run.pattern, run.globs)
    tree = m.tree
    migrate = sorted(hits)
    revert = [
        p
        for p in mt.EDITABLE
        if p not in hits and (p in run.entries or (p in tree and mt.under(p, run.globs)))
    ]
    new = [p for p in mt.EDITABLE if p not in tree]
    delete = [p for p in mt.EDITABLE if p in tree]
    kinds = [
        k for k, ok in (("migrate", migrate), ("revert", revert), ("new", new), ("delete", delete)) if ok
    ]
    kind = w.rng.choice(kinds)
    path = w.rng.choice({"migrate": migrate, "revert": revert, "new": new, "delete": delete}[kind])
    # one sed over every src/*.ts (those it changes, while open)
    if kind == "migrate" and w.rng.random() < 0.2:
        over = {
            p: "".join(ln.replace("../old", "@/NEW", 1) + "\n" for ln in text.splitlines())
            for p, text in m.tree.items()
            if p.startswith("src/") and p.count("/") == 1 and p.endswith(".ts")
        }
        if "same-content-rewrite" in w.open_classes:
            over = {p: text for p, text in over.items() if text != m.tree[p]}
        if over:
            names = "src/*.ts" if "same-content-rewrite" not in w.open_classes else " ".join(sorted(over))
            return _shell(w, c, f"sed -i 's#\\.\\./old#@/NEW#' {names}", "migrate by sed", dict(over))
    back = m.head.get(path)
    if kind == "revert" and back is not None and mt.first_hit(run.pattern, back) and w.rng.random() < 0.5:
        return _shell(w, c, f"git checkout -- {path}", "revert by checkout", {path: back})
    post = None if kind == "delete" else _content(w, run.pattern, kind != "migrate")
    _write(w, c, path, post, kind)


def _shell(w: World, c: Copy, command: str, what: str, changes: dict[str, str | None]) -> None:
    """A shell command that changes several files at once, then the Bash hook; ``changes``: what it makes
    of each."""
    w.log.append(f"m: {what}: shell `{command}`")
    sh = c.shell(command)
    if sh.returncode != 0:
        w.problems.append(f"shell `{command}`: exit {sh.returncode}: {sh.stderr.strip()}")
    data: dict[str, object] = {
        "session_id": "model",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": "", "stderr": ""},
        "tool_use_id": w.uid(),
    }
    done = c.fire("claude", "PostToolUse", "Bash", data)
    if done.returncode != 0:
        w.problems.append(f"{what} hook: exit {done.returncode}, stderr {done.stderr!r}")
    for path, post in changes.items():
        w.match.change(path, post, reconcile=False)
    w.match.reconcile()


def match_mark(w: World, c: Copy) -> None:
    """`task done` of an entry: refused (exit 1) while its file holds a match."""
    m = w.match
    run = m.running
    if run is None or not run.entries:
        return match_start_or_stop(w, c)
    path = w.rng.choice(run.entries)
    holds = run.pattern is not None and path in m.hits(run.pattern, run.globs)
    w.log.append(f"m: task done {path}")
    r = c.agentctl("task", "done", path)
    if r.code != (1 if holds else 0):
        w.problems.append(
            f"task done {path}: exit {r.code} ({r.err.strip()}), truth: "
            f"{'refused, it holds a match' if holds else 'done'}"
        )
    if not holds:
        run.done[path] = True


def match_start_or_stop(w: World, c: Copy) -> None:
    """`task stop` (sometimes --force: FORCED=1 when it was needed) while a task runs; else `task start
    --match`."""
    m = w.match
    run = m.running
    if run is None:
        pattern, globs = w.rng.choice(mt.PATTERNS)
        m.tasks += 1
        tid = f"m{m.tasks}"
        paths = [a for g in globs for a in ("--paths", g)]
        w.log.append(f"m: task start --id {tid} --match {pattern!r} {' '.join(paths)}")
        r = c.agentctl("task", "start", "--id", tid, "--desc", "migrate", "--match", pattern, *paths)
        ok = m.start(tid, pattern, globs)
        if r.code != (0 if ok else 1):
            w.problems.append(
                f"task start --match {pattern!r}: exit {r.code} ({r.err.strip()}), truth: "
                f"{'started' if ok else 'refused, no file holds a match'}"
            )
        return
    force = w.rng.random() < 0.3
    tid = run.id
    w.log.append(f"m: task stop{' --force' if force else ''}")
    r = c.agentctl("task", "stop", *(["--force"] if force else []))
    ok = m.stop(force)
    if r.code != (0 if ok else 1):
        w.problems.append(
            f"task stop: exit {r.code} ({r.err.strip()}), truth: "
            f"{'stopped' if ok else f'refused, LEFT={m.left()} reverted {sorted(run.reverted)}'}"
        )
    if ok:
        archived = c.agentctl("history", "show", tid).kv()
        if (archived.get("FORCED") == "1") != m.forced[tid]:
            w.problems.append(
                f"history show {tid}: FORCED={archived.get('FORCED')!r}, truth "
                f"{'forced' if m.forced[tid] else 'not forced'}"
            )


def plan_step(w: World, c: Copy) -> None:
    """`plan add` (--after existing ids, sometimes an unknown one or a duplicate id), `plan edit --after`
    (sometimes closing a cycle), `plan drop`, `plan next`, `plan ready`: exits as the truth says."""
    m = w.match
    ids = list(m.plan)
    kinds = ["add", "add", "next", "ready"] + (["edit", "drop"] if ids else [])
    kind = w.rng.choice(kinds)
    if kind == "add":
        tid = w.rng.choice(ids) if ids and w.rng.random() < 0.1 else f"p{len(ids) + 1}"
        after = w.rng.sample(ids, min(len(ids), w.rng.choice([0, 1, 1, 2])))
        if w.rng.random() < 0.1:
            after.append("nope")
        priority = w.rng.choice([0, 2, 2, 3])
        pattern = w.rng.choice([*mt.PATTERNS, None])
        args = [a for d in after for a in ("--after", d)] + ["--priority", str(priority)]
        if pattern is not None:
            args += ["--match", pattern[0], *[a for g in pattern[1] for a in ("--paths", g)]]
        w.log.append(f"m: plan add {tid} {' '.join(args)}")
        r = c.agentctl("plan", "add", tid, "--desc", f"plan task {tid}", *args)
        want = m.plan_add(tid, after, priority, pattern)
    elif kind == "edit":
        tid, dep = w.rng.choice(ids), w.rng.choice([*ids, "nope"])
        w.log.append(f"m: plan edit {tid} --after {dep}")
        r = c.agentctl("plan", "edit", tid, "--after", dep)
        want = m.plan_edit(tid, dep)
    elif kind == "drop":
        tid = w.rng.choice(ids)
        if m.plan[tid].state == "dropped":
            return
        w.log.append(f"m: plan drop {tid}")
        r = c.agentctl("plan", "drop", tid)
        want = m.plan_drop(tid)
    elif kind == "next":
        w.log.append("m: plan next")
        r = c.agentctl("plan", "next")
        want, _ = m.plan_next()
    else:
        w.log.append("m: plan ready")
        r = c.agentctl("--json", "plan", "ready")
        want = 0
        got = [t["id"] for t in r.data()["ready"]] if r.code == 0 else None
        if got != m.ready():
            w.problems.append(f"plan ready: {got}, truth {m.ready()}")
    if r.code != want:
        w.problems.append(f"{w.log[-1][3:]}: exit {r.code} ({r.err.strip()}), truth exit {want}")


def match_sync(w: World, c: Copy) -> None:
    """`sync push` of stream m (the round trip to a fresh clone is checked after it)."""
    w.log.append("m: sync push")
    r = c.agentctl("sync", "push", "--stream", "m")
    if r.code != 0:
        w.problems.append(f"sync push --stream m: exit {r.code}: {r.err.strip()}")
