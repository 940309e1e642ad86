"""The MCP tools as plain functions over the commands' own operations (no SDK import here).

Each tool calls the operation of its command in-process -- the function `agentctl task
update` calls, with the tool's typed arguments as its keyword arguments (``registry.call``) --
on a fresh context that finds the state folder again (server working directory,
``--state-dir`` or ``AGENTCTL_STATE_DIR``, exactly as the CLI). It returns the operation's
``Result``: ``mcp_server`` sends its lines (with any progress and warnings) as the text
content and its data as the structured content, the same ``data`` as ``agentctl --json``.
So every rule, lock, log line and message is the CLI's, and nothing here implements a rule a
second time. A refusal is raised as the core's ``AgentctlError``; ``mcp_server`` turns it into
an MCP tool error with ``error_text``.

An answer that is "no" (``files_check`` on an untouched file, a failing ``verify_run``: exit
1 from the CLI) is a result, not an error: the tool worked and its text says so.
"""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import Callable
from typing import Any, Literal

from agentctl.ground.errors import EXIT_NO, EXIT_STATE, EXIT_USAGE, AgentctlError, UsageError
from agentctl.ground.projectfile import read_project_file
from agentctl.ground.store import Store
from agentctl.operation.contract import Ctx, Result
from agentctl.operation.registry import call
from agentctl.statefolder.opening import open_store

log = logging.getLogger("agentctl.mcp")

FULL = (
    "resume",
    "task_status",
    "task_start",
    "task_update",
    "task_done",
    "task_add",
    "task_reopen",
    "task_skip",
    "task_stop",
    "files_log",
    "files_check",
    "constraints_list",
    "constraints_add",
    "constraints_remove",
    "verify_run",
    "verify_tried",
    "runlevel",
    "plan_list",
    "plan_ready",
    "plan_next",
)
CORE = (
    "resume",
    "task_update",
    "task_done",
    "files_log",
    "verify_run",
    "verify_tried",
    "plan_ready",
    "plan_next",
    "plan_list",
)
PROFILES: dict[str, tuple[str, ...]] = {"core": CORE, "full": FULL}
READ_ONLY = frozenset({"resume", "task_status", "files_check", "constraints_list", "plan_list", "plan_ready"})

MEANING = {EXIT_NO: "check failed", EXIT_USAGE: "usage error", EXIT_STATE: "state error"}


def error_text(exc: AgentctlError) -> str:
    """The CLI's one-line refusal with its exit meaning, e.g. ``usage error (exit 2): ...``."""
    return f"{MEANING.get(exc.code, 'error')} (exit {exc.code}): {exc.message}"


def describe(fn: Callable[..., object]) -> str:
    """A tool's description: its docstring as one paragraph."""
    return " ".join(inspect.cleandoc(fn.__doc__ or "").split())


def as_text(result: Result) -> str:
    """A tool's text content: what the command would print, its warnings (stderr in the CLI) first."""
    return "\n".join([f"warning: {w}" for w in result.warnings] + result.lines)


class Tools:
    """The tools, bound to the server's ``--state-dir`` (None: find it per call, as the CLI does)."""

    def __init__(self, state_dir: str | None = None) -> None:
        self.state_dir = os.path.abspath(state_dir) if state_dir else None

    def store(self) -> Store:
        """Found again on every call: another process may have created, moved or changed it."""
        return open_store(explicit=self.state_dir)

    def call(
        self, key: tuple[str, ...], stdin: bytes | None = None, cwd: str | None = None, **kwargs: Any
    ) -> Result:
        """Run command ``key``'s operation with these keyword arguments; its result.

        Arguments whose value is None are left out, as if not given on the command line.
        The exit code is not an error here: exit 1 is an answer, and the text says which.
        Progress lines (a runlevel's steps, each check of a verify run) come first in the lines.
        """
        shown: list[str] = []

        def progress(line: str) -> None:
            shown.append(line)
            log.info("%s", line)

        ctx = Ctx(self.state_dir, cwd=cwd, stdin=stdin, progress=progress)
        result = call(key, ctx, **{k: v for k, v in kwargs.items() if v is not None})
        result.lines[:0] = shown
        return result

    # -- reading -------------------------------------------------------------------------
    def resume(self, max_chars: int = 2000) -> Result:
        """Your working state after a context reset: P0 rules, the task and NEXT, the failing
        check and fixes already tried, files touched, what to do next. Call it first in every
        session and after every compaction. max_chars: size budget (at least 200)."""
        return self.call(("resume",), max_chars=max_chars)

    def task_status(self) -> Result:
        """The task's KEY=VALUE status (STATE, TASK_ID, DESC, TOTAL, DONE, NEXT, NOTES, SEQ),
        whether its edits are verified, and the live claims."""
        return self.call(("task", "status"))

    # -- task ----------------------------------------------------------------------------
    def task_start(
        self,
        id: str,
        desc: str,
        entries: list[str] | None = None,
        list_file: str | None = None,
        force: bool = False,
        empty: bool = False,
        auto_stop: bool = False,
    ) -> Result:
        """Start a task over entries, or list_file (a project file of paths). Needs empty
        without a list, force over a running task; auto_stop: archive it once verified."""
        if entries is not None and list_file is not None:
            raise UsageError("give entries or list_file, not both")
        if list_file == "-":
            raise UsageError(
                "list_file '-' (standard input) is not available over MCP; pass the paths as entries"
            )
        opts: dict[str, Any] = {
            "id": id,
            "desc": desc,
            "force": force,
            "empty": empty,
            "auto_stop": auto_stop,
        }
        if entries is None and list_file is None:
            return self.call(("task", "start"), **opts)
        if entries is None:
            assert list_file is not None
            data = read_project_file(self.store(), list_file, "list_file")
        else:
            # The entries become the list `task start --files -` reads: the same rules for each path.
            for n, entry in enumerate(entries, 1):
                if "\n" in entry or "\r" in entry:
                    raise UsageError(f"entry {n} contains a line break; give one path per entry")
            data = "\n".join(entries).encode("utf-8", "surrogateescape")
        return self.call(("task", "start"), stdin=data, cwd=self.store().project, files="-", **opts)

    def task_update(
        self,
        done: int | None = None,
        next: str | None = None,
        notes: str | None = None,
        state: Literal["ACTIVE", "PAUSED"] | None = None,
        seq: int | None = None,
    ) -> Result:
        """Record progress. done: mark the next N entries done; next: pin NEXT to a listed
        path; notes: replace NOTES; state: pause or resume. With seq it applies only while SEQ
        equals seq, so a replay is a no-op. Returns APPLIED=1|0 and the new SEQ."""
        return self.call(("task", "update"), done=done, next=next, notes=notes, state=state, seq=seq)

    def task_done(self, paths: list[str]) -> Result:
        """Mark task entries done (already done: no change). NEXT moves on; DONE reaching
        TOTAL sets STATE=DONE. Returns APPLIED=1|0 and the new SEQ."""
        return self.call(("task", "done"), paths=paths)

    def task_add(self, paths: list[str], after: str | None = None) -> Result:
        """Add entries to the task (at the end, or after the entry after)."""
        return self.call(("task", "add"), paths=paths, after=after)

    def task_reopen(self, path: str, reason: str) -> Result:
        """Take back a done given by mistake: the entry is todo again."""
        return self.call(("task", "reopen"), path=path, reason=reason)

    def task_skip(self, path: str, reason: str) -> Result:
        """Set an entry aside as not to be done (SKIPPED, not DONE)."""
        return self.call(("task", "skip"), path=path, reason=reason)

    def task_stop(self, force: bool = False) -> Result:
        """Archive the task, its list and its files log to logs/ and go back to IDLE. Refused
        while edits are not covered by a passing verify_run, unless force (recorded)."""
        return self.call(("task", "stop"), force=force)

    # -- files ---------------------------------------------------------------------------
    def files_log(self, op: Literal["CREATE", "MODIFY", "DELETE"], path: str) -> Result:
        """Record that this task created, modified or deleted a project file."""
        return self.call(("files", "log"), op=op, path=path)

    def files_check(self, path: str) -> Result:
        """Whether this task already changed a file: its TIME|OP|PATH entries, or 'not
        touched'. Check before editing; never redo a file already changed."""
        return self.call(("files", "check"), path=path)

    # -- constraints ---------------------------------------------------------------------
    def constraints_list(self) -> Result:
        """The project's rules by priority, numbered: P0 never to be broken, P1 checked
        before finishing, P2 style."""
        result = self.call(("constraints", "list"))
        result.lines = result.lines or ["no constraints"]
        return result

    def constraints_add(self, priority: Literal["P0", "P1", "P2"], text: str) -> Result:
        """Add a rule. A P0 'deny-write: GLOB' rule also forbids writing matching paths."""
        return self.call(("constraints", "add"), priority=priority, text=[text])

    def constraints_remove(self, rule: str) -> Result:
        """Remove a rule by its text, 'P1|text', or number in constraints_list; P0: ask the user."""
        return self.call(("constraints", "remove"), rule=[rule], keep_p0=True)

    # -- verify --------------------------------------------------------------------------
    def verify_run(self) -> Result:
        """Run the project's checks in order from the project root and record the result;
        a failure shows its errors and the fixes already tried (never repeat those)."""
        return self.call(("verify", "start"))

    def verify_tried(self, text: str) -> Result:
        """Record a fix that did not make the checks pass, so it is never tried again."""
        return self.call(("verify", "tried"), text=[text])

    # -- runlevels -----------------------------------------------------------------------
    def runlevel(self, name: str | None = None) -> Result:
        """Show the runlevel, or switch to name: stop the services not in it, start those in
        it (a stopped task is PAUSED, never lost)."""
        return self.call(("runlevel",), name=name)

    # -- the plan ---------------------------------------------------------------------------
    def plan_list(self) -> Result:
        """Every plan task: state and what it waits for."""
        return self.call(("plan", "list"))

    def plan_ready(self) -> Result:
        """Plan tasks ready to start, in plan_next's order."""
        return self.call(("plan", "ready"))

    def plan_next(self, agent: str | None = None) -> Result:
        """Start the first ready plan task (agent: claim it with a lease)."""
        return self.call(("plan", "next"), agent=agent)

    # -- resource and prompt -------------------------------------------------------------
    def resume_text(self) -> str:
        return as_text(self.call(("resume",)))
