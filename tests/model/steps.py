"""The model test's steps: each picks its arguments from the generator, acts on the world through a
real interface (a hook command, a shell command, `agentctl`, git) and tells the truth what it did."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from . import matchsteps as ms
from . import truth as t
from .matchtruth import MatchTruth
from .world import INVOKED, Copy

SUBS = ["", "src", "src/sub", "docs"]


@dataclass
class World:
    rng: random.Random
    truth: t.Truth
    copies: dict[str, Copy]
    open_classes: frozenset[str]
    join: Callable[[], Copy]
    ids: int = 0
    log: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # what a step itself saw wrong

    @property
    def match(self) -> MatchTruth:
        """Copy m's truth: its --match tasks and its plan."""
        return self.truth.match

    def uid(self) -> str:
        self.ids += 1
        return f"toolu_model_{self.ids:05d}"

    def text(self) -> str:
        word = self.rng.choice(["NEW", "OLD", "NEW"])
        return f"import {{ x }} from '@/{word}/{self.ids}';\n"

    def rel(self, sub: str, path: str) -> str:
        """``path`` as written from the folder ``sub``."""
        depth = len(sub.split("/")) if sub else 0
        return "../" * depth + path


def editable(w: World, c: Copy) -> list[str]:
    """The paths this copy edits (no other copy edits them)."""
    return t.EDITS[c.name]


def _edit_targets(w: World, c: Copy, exists: bool | None) -> list[str]:
    tree = w.truth.trees[c.name]
    paths = editable(w, c)
    if exists is None:
        return paths
    return [p for p in paths if (p in tree) == exists]


def hook_edit(w: World, c: Copy) -> None:
    """An edit by an agent's own tool, logged by its post-tool hook."""
    kind = w.rng.choice(
        ["claude_edit", "claude_write", "claude_multiedit", "codex_patch", "gemini_write", "gemini_replace"]
    )
    existing = _edit_targets(w, c, True)
    creating = kind in ("claude_write", "gemini_write") or (kind == "codex_patch" and w.rng.random() < 0.3)
    choices = editable(w, c) if creating else existing
    if not choices:
        return
    path = w.rng.choice(choices)
    pre = w.truth.trees[c.name].get(path)
    if kind == "codex_patch" and pre is not None and w.rng.random() < 0.25 and path in t.BASE:
        kind = "codex_delete"
    post = None if kind == "codex_delete" else w.text()
    abs_path = c.root / path
    if post is None:
        abs_path.unlink()
    else:
        abs_path.parent.mkdir(parents=True, exist_ok=True)
        abs_path.write_text(post)
    sub = w.rng.choice(SUBS)
    w.log.append(f"{c.name}: {kind} {path} (from ./{sub})")
    data: dict[str, object]
    if kind.startswith("claude"):
        tool = {"claude_edit": "Edit", "claude_write": "Write", "claude_multiedit": "MultiEdit"}[kind]
        tin: dict[str, object] = {"file_path": str(abs_path)}
        resp: dict[str, object] = {"filePath": str(abs_path)}
        if tool == "Write":
            tin["content"] = post
            resp.update(type="create" if pre is None else "update", content=post)
        elif tool == "Edit":
            tin.update(old_string=pre, new_string=post)
        else:
            tin["edits"] = [{"old_string": pre, "new_string": post}]
        data = {
            "session_id": "model",
            "hook_event_name": "PostToolUse",
            "tool_name": tool,
            "tool_input": tin,
            "tool_response": resp,
            "tool_use_id": w.uid(),
        }
        done = c.fire("claude", "PostToolUse", tool, data, sub)
    elif kind.startswith("codex"):
        if post is None:
            patch = f"*** Begin Patch\n*** Delete File: {path}\n*** End Patch\n"
        elif pre is None:
            patch = f"*** Begin Patch\n*** Add File: {path}\n+{post.rstrip()}\n*** End Patch\n"
        else:
            patch = (
                f"*** Begin Patch\n*** Update File: {path}\n@@\n-{pre.rstrip()}\n+{post.rstrip()}\n*** "
                f"End Patch\n"
            )
        data = {
            "session_id": "model",
            "hook_event_name": "PostToolUse",
            "tool_name": "apply_patch",
            "tool_use_id": w.uid(),
            "tool_input": {"command": patch},
            "tool_response": {"output": "Success."},
            "cwd": str(c.root),
        }
        done = c.fire("codex", "PostToolUse", "apply_patch", data)
    else:
        tool = "write_file" if kind == "gemini_write" else "replace"
        if tool == "write_file":
            said = (
                "Successfully created and wrote to new file: "
                if pre is None
                else "Successfully overwrote file: "
            )
            tin = {"file_path": str(abs_path), "content": post}
        else:
            said = "Successfully modified file: "
            tin = {
                "file_path": str(abs_path),
                "old_string": pre or "",
                "new_string": post,
                "instruction": "edit",
            }
        data = {
            "session_id": "model",
            "hook_event_name": "AfterTool",
            "tool_name": tool,
            "tool_input": tin,
            "tool_response": {"llmContent": f"{said}{abs_path}."},
        }
        done = c.fire("gemini", "AfterTool", tool, data, sub)
    if done.returncode != 0 or done.stdout:
        w.problems.append(
            f"{kind} hook: exit {done.returncode}, stdout {done.stdout!r}, stderr {done.stderr!r}"
        )
    w.truth.change(c.name, path, post)


def _bash_hook(w: World, c: Copy, command: str, sub: str, violation: bool = False) -> None:
    """Claude's PostToolUse(Bash) hook after a shell command: the files log catches up with git.
    ``violation``: the command wrote the P0-denied file, which the hook must say; while that write
    stands (not restored) the hook may say it again, else never."""
    standing = c.name == "a" and w.truth.violation()
    data: dict[str, object] = {
        "session_id": "model",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": "", "stderr": ""},
        "tool_use_id": w.uid(),
    }
    done = c.fire("claude", "PostToolUse", "Bash", data, sub)
    said = "P0 VIOLATION" in done.stdout
    if (
        done.returncode != 0
        or (violation and not said)
        or (said and not standing)
        or (done.stdout and not said)
    ):
        w.problems.append(
            f"Bash hook: exit {done.returncode}, stdout {done.stdout!r}, stderr {done.stderr!r}"
        )


def shell_edit(w: World, c: Copy) -> None:
    """A shell command edits a file (sed -i, a redirect), sometimes then `agentctl task done` of it in
    the same command line; run from a subfolder; then the Bash hook."""
    existing = _edit_targets(w, c, True)
    if not existing:
        return
    path = w.rng.choice(existing)
    sub = w.rng.choice(SUBS)
    post = w.text()
    rel = w.rel(sub, path)
    command = f"printf '%s\\n' \"{post.rstrip()}\" > {rel}"
    compound = (
        path in t.MARKS[c.name]
        and path in w.truth.replicas[c.name].entries
        and w.truth.state(c.name, path) == "pending"
        and w.rng.random() < 0.5
    )
    if compound:
        command += f" && agentctl task done {rel}"
        INVOKED.add(("task", "done"))
    w.log.append(f"{c.name}: shell `{command}` (from ./{sub})")
    done = c.shell(command, sub)
    if done.returncode != 0:
        w.problems.append(f"shell `{command}`: exit {done.returncode}: {done.stderr.strip()}")
    if compound and "compound-warning" not in w.open_classes and "never changed" in done.stderr:
        w.problems.append(f"`task done` after the edit in one command warned: {done.stderr.strip()}")
    w.truth.change(c.name, path, post)
    if compound:
        w.truth.mark(c.name, path, "done")
    _bash_hook(w, c, command, sub)


def shell_delete_restore_rename(w: World, c: Copy) -> None:
    """`rm`, `git checkout -- f` (a restore), `mv` and `mv` back, through the shell, then the Bash hook."""
    tree = w.truth.trees[c.name]
    sub = w.rng.choice(SUBS)
    mine = editable(w, c)
    restorable = [
        p
        for p in mine
        if p in t.BASE and tree.get(p) != t.BASE[p] and not (p in t.RENAMES and t.RENAMES[p] in tree)
    ]
    movable = [
        p for p in t.RENAMES if p in mine and t.RENAMES[p] in mine and p in tree and t.RENAMES[p] not in tree
    ]
    back = [p for p in t.RENAMES if p in mine and p not in tree and t.RENAMES[p] in tree]
    deletable = [p for p in mine if p in tree]
    kinds = [
        k
        for k, ok in (
            ("restore", restorable),
            ("rename", movable),
            ("rename_back", back),
            ("delete", deletable),
        )
        if ok
    ]
    if not kinds:
        return
    kind = w.rng.choice(kinds)
    changes: list[tuple[str, str | None]]
    open_restore = "restore-as-delete" in w.open_classes
    if kind == "delete":
        path = w.rng.choice(deletable)
        command = f"rm {w.rel(sub, path)}"
        changes = [(path, None)]
    elif kind == "restore":
        path = w.rng.choice(restorable)
        command = f"git checkout -- {w.rel(sub, path)}"
        changes = [(path, t.BASE[path])]
    else:
        src = w.rng.choice(movable) if kind == "rename" else t.RENAMES[w.rng.choice(back)]
        dst = t.RENAMES[src] if kind == "rename" else next(p for p, q in t.RENAMES.items() if q == src)
        command = f"mv {w.rel(sub, src)} {w.rel(sub, dst)}"
        changes = [(src, None), (dst, tree[src])]
    w.log.append(f"{c.name}: shell `{command}` (from ./{sub})")
    done = c.shell(command, sub)
    if done.returncode != 0:
        w.problems.append(f"shell `{command}`: exit {done.returncode}: {done.stderr.strip()}")
    for path, post in changes:
        back_to_start = post is not None and post == t.BASE.get(path)
        if back_to_start and open_restore:
            # the open class: a restore may be logged (as DELETE) or not; the path stays touched
            if path in w.truth.touched(c.name):
                w.truth.change(c.name, path, post, allowed=t.ANY)
            else:
                w.truth.change(c.name, path, post, logged=False)
            if c.name == "a":
                w.truth.verify_unsure = True
        else:
            w.truth.change(c.name, path, post)
    _bash_hook(w, c, command, sub)


def secret_write(w: World, c: Copy) -> None:
    """Copy a: a Write to the P0-denied file is refused by the pre-tool hook; a shell write of it is
    logged and shown as a violation; sometimes it is restored."""
    path = t.SECRET
    if w.rng.random() < 0.5:
        data: dict[str, object] = {
            "session_id": "model",
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": str(c.root / path), "content": "leak\n"},
            "tool_use_id": w.uid(),
        }
        w.log.append(f"{c.name}: Write {path} (pre-tool hook)")
        done = c.fire("claude", "PreToolUse", "Write", data, "src")
        if '"deny"' not in done.stdout:
            w.problems.append(f"PreToolUse Write of {path} not denied: {done.stdout!r} {done.stderr!r}")
        return
    restore = w.truth.trees[c.name].get(path) != t.BASE[path] and w.rng.random() < 0.5
    post = t.BASE[path] if restore else f"token={w.uid()}\n"
    command = f"git checkout -- {path}" if restore else f"echo '{post.rstrip()}' > {path}"
    w.log.append(f"{c.name}: shell `{command}`")
    done = c.shell(command)
    assert done.returncode == 0, done.stderr
    if restore and "restore-as-delete" in w.open_classes:
        w.truth.change(c.name, path, post, allowed=t.ANY)
        w.truth.verify_unsure = True
    else:
        w.truth.change(c.name, path, post)
    _bash_hook(w, c, command, "", violation=not restore)


def task_mark(w: World, c: Copy) -> None:
    """`task done/skip/reopen` of an entry this copy marks; `task add` (copy a) of a new one."""
    rep = w.truth.replicas[c.name]
    mine = [p for p in rep.entries if p in t.MARKS[c.name]]
    addable = [p for p in t.ADDABLE if p not in rep.entries] if c.name == "a" else []
    actions = [
        a
        for a, ok in (
            ("done", [p for p in mine if w.truth.state(c.name, p) == "pending"]),
            ("skip", [p for p in mine if w.truth.state(c.name, p) == "pending"]),
            ("reopen", [p for p in mine if w.truth.state(c.name, p) != "pending"]),
            ("add", addable),
        )
        if ok
    ]
    if not actions:
        return
    action = w.rng.choice(actions)
    sub = w.rng.choice(SUBS)
    if action == "add":
        path = w.rng.choice(addable)
        w.log.append(f"{c.name}: task add {path}")
        r = c.agentctl("task", "add", path)
        w.truth.add(c.name, path)
    else:
        pool = [p for p in mine if (w.truth.state(c.name, p) == "pending") == (action != "reopen")]
        path = w.rng.choice(pool)
        extra = ["--reason", "model"] if action in ("skip", "reopen") else []
        w.log.append(f"{c.name}: task {action} {path} (from ./{sub})")
        r = c.agentctl("task", action, w.rel(sub, path), *extra, sub=sub)
        w.truth.mark(c.name, path, {"done": "done", "skip": "skipped", "reopen": "pending"}[action])
    if r.code != 0:
        w.problems.append(f"task {action} {path}: exit {r.code}: {r.err.strip()}")


def verify(w: World, c: Copy) -> None:
    w.log.append("a: verify run")
    r = c.agentctl("verify", "run")
    want = w.truth.verify()
    if (r.code == 0) != want:
        w.problems.append(f"verify run exit {r.code}, the check should have {'passed' if want else 'failed'}")


def compaction(w: World, c: Copy) -> None:
    """PreCompact then SessionStart(compact), as Claude Code fires them; the state comes back."""
    w.log.append(f"{c.name}: compaction")
    c.fire(
        "claude",
        "PreCompact",
        "manual",
        {"session_id": "model", "hook_event_name": "PreCompact", "trigger": "manual"},
    )
    done = c.fire(
        "claude",
        "SessionStart",
        "compact",
        {"session_id": "model", "hook_event_name": "SessionStart", "source": "compact"},
        "src",
    )
    w.truth.compact(c.name)
    if "additionalContext" not in done.stdout:
        w.problems.append(f"SessionStart(compact) gave no context: {done.stdout!r} {done.stderr!r}")


def sync(w: World, c: Copy) -> None:
    how = w.rng.choice(["push", "pull"])
    stream = ["--stream", "main"] if c.name == "w" else []
    w.log.append(f"{c.name}: sync {how}")
    r = c.agentctl("sync", how, *stream)
    if r.code != 0:
        w.problems.append(f"sync {how}: exit {r.code}: {r.err.strip()}")
    if how == "push":
        w.truth.push(c.name)
    else:
        w.truth.pull(c.name)


def gc(w: World, c: Copy) -> None:
    w.log.append(f"{c.name}: gc")
    r = c.agentctl("gc")
    if r.code != 0:
        w.problems.append(f"gc: exit {r.code}: {r.err.strip()}")


def join(w: World, c: Copy) -> None:
    """A fresh clone joins: clone, `agentctl init`, `sync pull`."""
    w.log.append("b: a fresh clone joins (clone, init, sync pull)")
    b = w.join()
    w.copies["b"] = b
    w.truth.join("b")


def look(w: World, c: Copy) -> None:
    """A command that only reads: its answer checked against the truth where the truth has one, and
    never an error (`doctor` says healthy: no record any schema refuses, nothing a pull would refuse)."""
    kind = w.rng.choice(
        [
            "doctor",
            "status",
            "task list",
            "history",
            "constraints",
            "verify status",
            "sync status",
            "files status",
            "interfaces",
            "prompt",
        ]
    )
    w.log.append(f"{c.name}: {kind}")
    stream = ["--stream", "main"] if c.name == "w" else []
    if kind == "doctor":
        r = c.agentctl("doctor")
        if r.code != 0:
            w.problems.append(f"doctor: exit {r.code}: {r.out.strip()} {r.err.strip()}")
    elif kind == "task list":
        r = c.agentctl("task", "list", "--todo")
        rep = w.truth.replicas[c.name]
        want = [p for p in rep.entries if w.truth.state(c.name, p) == "pending"]
        got = [ln.split("|", 1)[-1] for ln in r.lines]
        if r.code != 0 or sorted(got) != sorted(want):
            w.problems.append(f"task list --todo: exit {r.code} {got}, truth {want}")
    elif kind == "constraints":
        r = c.agentctl("constraints", "list")
        if r.code != 0 or not any("deny-write: secrets/**" in ln for ln in r.lines):
            w.problems.append(f"constraints list: exit {r.code}: {r.out!r} lacks the P0 rule")
    elif kind == "sync status":
        r = c.agentctl("sync", "status", *stream)
        if r.code not in (0, 1):
            w.problems.append(f"sync status: exit {r.code}: {r.err.strip()}")
    else:
        args = {
            "status": ["status"],
            "history": ["history"],
            "verify status": ["verify", "status"],
            "files status": ["files", "status"],
            "interfaces": ["interfaces", "list"],
            "prompt": ["prompt"],
        }[kind]
        r = c.agentctl(*args)
        if r.code not in (0, 1) or "Traceback" in r.err:
            w.problems.append(f"{kind}: exit {r.code}: {r.err.strip()}")


def protect_late(w: World, c: Copy) -> None:
    """A P0 rule added while the task runs, over a file already changed before it (t.DRAFT, dirty at
    the task's start): what was written before the rule broke none, so no VIOLATION follows."""
    if w.truth.late_rule:
        return look(w, c)
    w.log.append(f"{c.name}: constraints add P0 {t.LATE_RULE}")
    r = c.agentctl("constraints", "add", "P0", t.LATE_RULE)
    if r.code != 0:
        w.problems.append(f"constraints add P0 {t.LATE_RULE}: exit {r.code}: {r.err.strip()}")
    w.truth.late_rule = True


STEPS: list[tuple[Callable[[World, Copy], None], int, tuple[str, ...]]] = [
    # (step, weight, the copies it may run in)
    (hook_edit, 6, ("a", "b", "w")),
    (shell_edit, 5, ("a", "b", "w")),
    (shell_delete_restore_rename, 3, ("a", "b", "w")),
    (secret_write, 1, ("a",)),
    (protect_late, 1, ("a",)),
    (task_mark, 4, ("a", "b", "w")),
    (verify, 2, ("a",)),
    (compaction, 1, ("a", "b", "w")),
    (sync, 4, ("a", "b", "w")),
    (gc, 1, ("a", "b", "w")),
    (look, 2, ("a", "b", "w")),
    (ms.match_edit, 4, ("m",)),
    (ms.match_mark, 1, ("m",)),
    (ms.match_start_or_stop, 1, ("m",)),
    (ms.plan_step, 2, ("m",)),
    (ms.match_sync, 1, ("m",)),
]

# What the generator runs, by registry command (the steps above and the checks of check.py); every
# other command of the registry is excluded below with its reason. tests/model/test_coverage.py
# fails when a registry command is in neither, and when a run invokes one not declared here.
GENERATED = {
    ("hook",),
    ("init",),
    ("install",),
    ("constraints", "add"),
    ("constraints", "list"),
    ("task", "start"),
    ("task", "done"),
    ("task", "skip"),
    ("task", "reopen"),
    ("task", "add"),
    ("task", "status"),
    ("task", "list"),
    ("verify", "add"),
    ("verify", "run"),
    ("verify", "status"),
    ("files", "check"),
    ("files", "list"),
    ("files", "status"),
    ("sync",),
    ("gc",),
    ("resume",),
    ("status",),
    ("history",),
    ("doctor",),
    ("interfaces", "list"),
    ("prompt",),
    ("task", "stop"),
    ("plan", "add"),
    ("plan", "edit"),
    ("plan", "drop"),
    ("plan", "next"),
    ("plan", "ready"),
    ("plan", "list"),
}
EXCLUDED: dict[tuple[str, ...], str] = {
    ("@custom",): "user services run the project's own scripts: nothing of the model's state",
    ("completion",): "prints a shell script; answers nothing about the state",
    ("verify", "trust"): "a person's trust of agentctl.rules' checks (the model writes no shared file): "
    "tests/cli/test_shared_rules.py",
    **{
        ("plan", verb): "the plan's other views and its files: plan list and plan ready are compared instead "
        "(tests/cli/test_plan*)"
        for verb in ("export", "import", "remove", "show", "status")
    },
    (
        "context",
    ): "the context fill an agent's transcript reports: the model drives no transcript (tests/cli for it)",
    (
        "statusline",
    ): "renders the task, verify and P0 lines the model already compares, from Claude Code's JSON",
    ("demo",): "runs its own scripted project in a folder of its own",
    ("mcp",): "a server on stdio: its tools call the same operations the model runs (tests/cli/test_mcp.py)",
    ("web",): "a server: its API renders the same services' answers (tests/cli/test_web.py)",
    ("uninstall",): "removes the hooks the model drives every step with",
    ("runlevel",): "a runlevel stops services the model's truth does not follow",
    ("notify", "add"): "alerts run the person's commands: outside the state (tests/cli/test_notify*)",
    ("notify", "check"): "alerts run the person's commands: see notify add",
    ("notify", "list"): "alerts run the person's commands: see notify add",
    ("notify", "remove"): "alerts run the person's commands: see notify add",
    ("notify", "test"): "alerts run the person's commands: see notify add",
    (
        "constraints",
        "ack",
    ): "closes a violation by the person's word: the truth keeps violations by the tree only",
    ("constraints", "check"): "asks about a planned edit; the pre-tool hook the model fires asks the same",
    ("constraints", "confirm-removal"): "weakening P0 is the person's act, never generated",
    ("constraints", "remove"): "weakening P0 is the person's act, never generated",
    (
        "constraints",
        "start",
    ): "service lifecycle: a start/stop of the rules is not part of the task the model runs",
    ("constraints", "stop"): "service lifecycle: see constraints start",
    ("constraints", "status"): "the rules file as it is: constraints list is compared instead",
    ("constraints", "update"): "changes a rule's priority: the model's one P0 rule stays as written",
    (
        "files",
        "log",
    ): "a manual record: the model logs through the hooks and files sync, whose truth it computes",
    ("files", "start"): "restarts the log mid-task: not something the truth follows",
    ("files", "stop"): "archives the log mid-task: see files start",
    ("files", "scan"): "run by every Bash hook the model fires (the same operation)",
    ("files", "sync"): "the alias of files scan",
    ("interfaces", "add"): "interface records: their truth lives in the interfaces tests (point 3's model)",
    ("interfaces", "check"): "interface records: see interfaces add",
    ("interfaces", "remove"): "interface records: see interfaces add",
    ("interfaces", "start"): "interface records: see interfaces add",
    ("interfaces", "status"): "interface records: see interfaces add",
    ("interfaces", "stop"): "interface records: see interfaces add",
    ("task", "claim"): "leases expire by the clock: the truth has no clock",
    ("task", "update"): "sets NEXT and NOTES by hand: the truth computes NEXT from the marks",
    ("verify", "start"): "the same run as verify run",
    ("verify", "stop"): "cancels a run: the model's runs finish",
    ("verify", "tried"): "a tried fix: text the truth does not judge",
}
SHELL_STEPS = (shell_edit, shell_delete_restore_rename)


def pick(w: World) -> tuple[Callable[[World, Copy], None], Copy] | None:
    if "b" not in w.copies and w.rng.random() < 0.08:
        return join, w.copies["a"]
    options = []
    for step, weight, where in STEPS:
        for name in where:
            if name not in w.copies:
                continue
            if step in SHELL_STEPS and name != "a" and "no-baseline-after-pull" in w.open_classes:
                continue  # the copies that got the task by `sync pull` log no shell edit yet
            options.append(((step, w.copies[name]), weight))
    choices = [c for c, _ in options]
    return w.rng.choices(choices, [n for _, n in options])[0]
