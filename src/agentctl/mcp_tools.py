"""The MCP tools as plain functions over the library core (this module never imports the SDK).

Each tool opens the state folder afresh (server working directory, ``--state-dir`` or
``AGENTCTL_STATE_DIR``, exactly as the CLI finds it), calls the same core functions as
the CLI handlers in ``commands.py`` -- so every rule, lock and log line is the CLI's --
and returns the text the CLI would print. A refusal is raised as the core's
``AgentctlError``; ``mcp_server`` turns it into an MCP tool error with ``error_text``.

An answer that is "no" (``files_check`` on an untouched file, a failing ``verify_run``)
is a result, not an error: the tool worked and its text says so.
"""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import Callable
from typing import Literal

from agentctl import codec
from agentctl.errors import EXIT_NO, EXIT_STATE, EXIT_USAGE, AgentctlError, UsageError
from agentctl.location import open_store, project_path
from agentctl.store import Store

log = logging.getLogger("agentctl.mcp")

FULL = (
    "resume",
    "task_status",
    "task_start",
    "task_update",
    "task_done",
    "task_stop",
    "files_log",
    "files_check",
    "constraints_list",
    "constraints_add",
    "constraints_remove",
    "verify_run",
    "verify_tried",
    "runlevel",
)
CORE = ("resume", "task_update", "task_done", "files_log", "verify_run", "verify_tried")
PROFILES: dict[str, tuple[str, ...]] = {"core": CORE, "full": FULL}
READ_ONLY = frozenset({"resume", "task_status", "files_check", "constraints_list"})

MEANING = {EXIT_NO: "check failed", EXIT_USAGE: "usage error", EXIT_STATE: "state error"}


def error_text(exc: AgentctlError) -> str:
    """The CLI's one-line refusal with its exit meaning, e.g. ``usage error (exit 2): ...``."""
    return f"{MEANING.get(exc.code, 'error')} (exit {exc.code}): {exc.message}"


def describe(fn: Callable[..., object]) -> str:
    """A tool's description: its docstring as one paragraph."""
    return " ".join(inspect.cleandoc(fn.__doc__ or "").split())


def _seq_text(applied: bool, fields: dict[str, str], message: str, marked: list[str]) -> str:
    lines = [f"APPLIED={1 if applied else 0}"]
    lines += [f"{key}={codec.encode(fields.get(key, ''))}" for key in ("SEQ", "STATE", "DONE", "TOTAL", "NEXT")]
    if marked:
        lines.append("MARKED=" + " ".join(codec.encode(p) for p in marked))
    if message:
        lines.append(f"NOTE={message}")
    return "\n".join(lines)


def _rules_text(rules: list[object]) -> list[str]:
    return [f"{i}. {r.line()}" for i, r in enumerate(rules, 1)]  # type: ignore[attr-defined]


class Tools:
    """The tools, bound to the server's ``--state-dir`` (None: find it per call, as the CLI does)."""

    def __init__(self, state_dir: str | None = None) -> None:
        self.state_dir = os.path.abspath(state_dir) if state_dir else None

    def store(self) -> Store:
        """Found again on every call: another process may have created, moved or changed it."""
        return open_store(explicit=self.state_dir)

    # -- reading -------------------------------------------------------------------------
    def resume(self, max_chars: int = 2000) -> str:
        """Your working state after a context reset: P0 rules, the task and NEXT, the failing
        check and fixes already tried, files touched, what to do next. Call it first in every
        session and after every compaction. max_chars: size budget (at least 200)."""
        from agentctl import resume

        return resume.build(self.store(), max_chars)

    def task_status(self) -> str:
        """The task's KEY=VALUE status: STATE, TASK_ID, DESC, TOTAL, DONE, NEXT, NOTES, SEQ."""
        from agentctl import task

        return "\n".join(task.status_lines(task.read_status(self.store())))

    # -- task ----------------------------------------------------------------------------
    def task_start(self, id: str, desc: str, entries: list[str] | None = None, list_file: str | None = None,
                   force: bool = False) -> str:
        """Start a task over project files, given as entries (paths) or list_file (a file of
        paths, one a line); also starts a fresh files log. Refused over an ACTIVE or PAUSED
        task unless force."""
        from agentctl import task

        if entries is not None and list_file is not None:
            raise UsageError("give entries or list_file, not both")
        if list_file == "-":
            raise UsageError("list_file '-' (standard input) is not available over MCP; pass the paths as entries")
        store = self.store()
        paths: list[str] = []
        if list_file is not None:
            paths = task.read_list_file(store, list_file)
        elif entries is not None:
            paths = task.list_paths(store, entries)
        fields = task.start(store, id, desc, paths, force=force)
        return "\n".join([f"task {fields['TASK_ID']} started: {fields['TOTAL']} entries"] + task.status_lines(fields))

    def task_update(self, done: int | None = None, next: str | None = None, notes: str | None = None,
                    state: Literal["ACTIVE", "PAUSED"] | None = None, seq: int | None = None) -> str:
        """Record progress. done: mark the next N entries done; next: pin NEXT to a listed
        path; notes: replace NOTES; state: pause or resume. With seq it applies only while SEQ
        equals seq, so a replay is a no-op. Returns APPLIED=1|0 and the new SEQ."""
        from agentctl import task

        store = self.store()
        nxt = project_path(store, next) if next is not None else None
        result = task.update(store, done=done, next_path=nxt, notes=notes, state=state, seq=seq)
        return _seq_text(result.applied, result.fields, result.message, result.changed)

    def task_done(self, paths: list[str]) -> str:
        """Mark task entries done (already done: no change). NEXT moves on; DONE reaching
        TOTAL sets STATE=DONE. Returns APPLIED=1|0 and the new SEQ."""
        from agentctl import task

        store = self.store()
        result = task.mark_done(store, [project_path(store, p) for p in paths])
        return _seq_text(result.applied, result.fields, result.message, result.changed)

    def task_stop(self) -> str:
        """Archive the task, its list and its files log to logs/ and go back to IDLE (warns
        if the task was not DONE)."""
        from agentctl import task

        result = task.stop(self.store())
        lines = [f"warning: {result.warning}"] if result.warning else []
        lines.append(f"task {result.task_id} archived to {result.archive}; STATE=IDLE")
        return "\n".join(lines)

    # -- files ---------------------------------------------------------------------------
    def files_log(self, op: Literal["CREATE", "MODIFY", "DELETE"], path: str) -> str:
        """Record that this task created, modified or deleted a project file."""
        from agentctl import files

        store = self.store()
        return files.log(store, op, project_path(store, path))

    def files_check(self, path: str) -> str:
        """Whether this task already changed a file: its TIME|OP|PATH entries, or 'not
        touched'. Check before editing; never redo a file already changed."""
        from agentctl import files

        store = self.store()
        rel = project_path(store, path)
        found = files.check(store, rel)
        if not found:
            return f"{codec.encode(rel)}: not touched in this task"
        return "\n".join("|".join(codec.encode(x) for x in e) for e in found)

    # -- constraints ---------------------------------------------------------------------
    def constraints_list(self) -> str:
        """The project's rules by priority, numbered: P0 never to be broken, P1 checked
        before finishing, P2 style."""
        from agentctl import constraints

        return "\n".join(_rules_text(list(constraints.ordered(self.store())))) or "no constraints"

    def constraints_add(self, priority: Literal["P0", "P1", "P2"], text: str) -> str:
        """Add a rule. A P0 'deny-write: GLOB' rule also forbids writing matching paths."""
        from agentctl import constraints

        store = self.store()
        added, _ = constraints.add(store, priority, text)
        return "\n".join([("added" if added else "already present, nothing changed")]
                         + _rules_text(list(constraints.ordered(store))))

    def constraints_remove(self, rule: str) -> str:
        """Remove a rule by its text, 'P0|text', or its number in constraints_list."""
        from agentctl import constraints

        return f"removed {constraints.remove(self.store(), rule).line()}"

    # -- verify --------------------------------------------------------------------------
    def verify_run(self) -> str:
        """Run the project's checks in order from the project root and record the result;
        a failure shows its errors and the fixes already tried (never repeat those)."""
        from agentctl import verify

        progress: list[str] = []

        def say(line: str) -> None:
            progress.append(line)
            log.info("verify: %s", line)

        result = verify.run(self.store(), progress=say)
        if result.state == "NONE":
            return result.message
        return "\n".join(progress + [result.message] + verify.status_lines(result.fields))

    def verify_tried(self, text: str) -> str:
        """Record a fix that did not make the checks pass, so it is never tried again."""
        from agentctl import verify

        n, fields = verify.add_tried(self.store(), text)
        return "\n".join([f"recorded TRIED_{n}"] + [f"TRIED_{i}={codec.encode(t)}" for i, t in enumerate(verify.tried(fields), 1)])

    # -- runlevels -----------------------------------------------------------------------
    def runlevel(self, name: str | None = None) -> str:
        """Show the runlevel, or switch to name: stop the services not in it, start those in
        it (a stopped task is PAUSED, never lost)."""
        from agentctl import runlevels

        store = self.store()
        if name is None:
            level = runlevels.current(store)
            table = runlevels.table(store)
            return "\n".join([f"RUNLEVEL={level}"] + [f"{'*' if k == level else ' '} {k}={' '.join(v)}" for k, v in table.items()])
        result = runlevels.switch(store, name)
        return "\n".join(result.steps + [f"RUNLEVEL={result.new} (was {result.old})"])

    # -- resource and prompt -------------------------------------------------------------
    def resume_text(self) -> str:
        from agentctl import resume

        return resume.build(self.store())
