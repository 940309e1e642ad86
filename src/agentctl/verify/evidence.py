"""Evidence-bound completion: is the current state covered by a passing verify run?

Every verify run records where the files log stood when it started: the log's
identity (its first line, which names the task's ``SESSION_START``) and its byte
size (``RUN_LOG``/``RUN_POS``; a pass also as ``LAST_PASS_LOG``/``LAST_PASS_POS``).
An edit logged after that offset, even one made while the run was going, is an
edit the run did not see. Comparing offsets is only meaningful within one log, so
a pass recorded against another log (an earlier task's) counts as no pass.

The verdict is one of:

* ``yes``   a pass covers the current log and no file changed since;
* ``no``    files changed since the last pass, or the latest run of this task failed, or the log
            holds another copy's change this tree does not have (no run here covered it);
* ``never`` no passing run covers this task's files log;
* ``none``  no verify commands are configured, so nothing is claimed either way.

Readers never lock (the log is append-only, a pass offset is always a record
boundary); :func:`mark` takes the files lock so a run's offset is one too.

The cost stays flat however long the log grows: :func:`check` reads at most ``WINDOW``
bytes of the log past the pass (``files.log.since_head``), enough for the verdict, the first
names and their number (``N+`` when the window did not reach the end). The whole list
(``Evidence.changed``, in ``as_dict``) is read only when asked for.
"""

from __future__ import annotations

from agentctl.ground import codec
from agentctl.ground.store import Store

SHOW = 5  # names listed before "+N more"
_ID_CHARS = 160
WINDOW = 32 << 10  # what check() reads of the log past the pass: about 600 entries


class Evidence:
    # A plain class: `resume` and `task status` use it, and `dataclasses` is too dear for them.
    __slots__ = (
        "verdict",
        "_changed",
        "last_pass",
        "failed",
        "shown_commands",
        "_head",
        "_since",
        "no_task",
        "checks_changed",
        "away",
    )

    def __init__(
        self,
        verdict: str,
        changed: list[str] | None = None,
        last_pass: str = "",
        failed: bool = False,
        shown_commands: str = "",
    ) -> None:
        self.verdict = verdict  # yes | no | never | none
        self._changed: list[str] | None = [] if changed is None else changed
        self.last_pass = last_pass
        self.failed = failed  # the latest run (in this task's log) failed
        self.shown_commands = shown_commands
        # the first changed paths, all of them when _changed is known
        self._head: list[str] = self._changed or []
        self._since: tuple[Store, int] | None = None  # where the whole list is read from when asked for
        self.no_task = False  # no task's files log: nothing is logged, so a pass covers nothing in particular
        self.checks_changed = False  # the checks are not those the last pass ran: it covers nothing
        self.away: list[str] = []  # changed in another copy's tree, not this one: no pass here covers them

    def __repr__(self) -> str:
        return (
            f"Evidence({self.verdict!r}, changed={self.changed!r}, last_pass={self.last_pass!r}, "
            f"failed={self.failed!r})"
        )

    @property
    def changed(self) -> list[str]:
        """Every path changed since the pass (each once, in order): the whole log past it is read."""
        if self._changed is None:
            from agentctl.files import log

            assert self._since is not None
            self._changed = log.since(*self._since)
        return self._changed

    def _count(self) -> tuple[int, bool]:
        """How many paths changed, and whether that is exact (else at least that many)."""
        if self._changed is not None:
            return len(self._changed), True
        return len(self._head), False

    @property
    def blocks_stop(self) -> bool:
        """``task stop`` refuses: checks exist and an edit (or a failure) is not covered by a pass."""
        return self.verdict in ("no", "never") and (bool(self._head) or self.failed or self.checks_changed)

    def names(self, limit: int = SHOW) -> str:
        n, exact = self._count()
        first = self._head if self._changed is None else self._changed
        shown = ", ".join(codec.encode(p) for p in first[:limit])
        more = n - limit
        if not exact:
            return shown + (f" (+{more}+ more)" if more > 0 else " (and more)")
        return shown + (f" (+{more} more)" if more > 0 else "")

    def detail(self) -> str:
        """One line saying why, without the verdict word."""
        n, exact = self._count()
        files_word = f"{n} file{'s' if n != 1 else ''}" if exact else f"{n}+ files"
        if self.verdict == "none" and self.shown_commands == "agentctl.rules":
            return (
                "the verify commands of agentctl.rules wait for a person's `agentctl verify trust` in this "
                "copy; "
                "nothing is claimed"
            )
        if self.verdict == "none":
            return (
                f"no verify commands configured (add them with `agentctl verify add COMMAND` to "
                f"{self.shown_commands}); nothing is claimed"
            )
        if self.checks_changed and not self.failed:  # a failure after the pass says more
            return f"the checks changed since the last pass ({self.last_pass}), which did not run them" + (
                f"; {files_word} changed: {self.names()}" if n else ""
            )
        scope = " (no task is running)" if self.no_task else " in this task"
        if self.verdict == "yes":
            return f"the last pass ({self.last_pass}) covers every change logged{scope}"
        if self.verdict == "never":
            if self.no_task:
                base = (
                    "no passing run covers the changes logged with no task running"
                    if n
                    else "no passing run yet (no task is running)"
                )
            else:
                base = "no passing run in this task yet"
            return base + (f"; {files_word} changed: {self.names()}" if n else "")
        if self.failed and not n:
            return f"the latest verify run FAILED after the last pass ({self.last_pass or 'none'})"
        since = f"since the last pass ({self.last_pass})" if self.last_pass else "since the last pass"
        if self.away:
            here = [p for p in self.changed if p not in self.away]
            text = (
                f"{len(self.away)} file{'s' if len(self.away) != 1 else ''} changed in another copy's tree, "
                f"not in this one ({', '.join(codec.encode(p) for p in self.away[:SHOW])}"
                f"{f' (+{len(self.away) - SHOW} more)' if len(self.away) > SHOW else ''}): a pass here does "
                "not cover them"
            )
            if here:
                text += (
                    f"; {len(here)} changed here {since}: {', '.join(codec.encode(p) for p in here[:SHOW])}"
                )
            return text + ("; the latest run FAILED" if self.failed else "")
        text = f"{files_word} changed {since}: {self.names()}"
        return text + ("; the latest run FAILED" if self.failed else "")

    def remedy(self) -> str:
        """What makes the verdict yes: a passing run here, or where the changes are."""
        if self.away and not self.checks_changed:
            return (
                "run the checks in the copy that holds those changes (`agentctl verify start` there, then "
                "`agentctl sync push`), or bring its commits into this tree and run `agentctl verify start`"
            )
        return "run `agentctl verify start` until it passes"

    def line(self) -> str:
        """``VERIFIED=<verdict> (<detail>)`` as printed by status and resume."""
        return f"VERIFIED={self.verdict} ({self.detail()})"

    def as_dict(self) -> dict[str, object]:
        changed = self.changed  # the whole list (so detail() below counts exactly too)
        return {
            "verdict": self.verdict,
            "changed": changed,
            "changed_count": len(changed),
            "last_pass": self.last_pass,
            "latest_run_failed": self.failed,
            "detail": self.detail(),
        }


def log_identity(store: Store) -> str:
    """The files log's identity: its first line (``TIME SESSION_START TASK`` for a task's log)."""
    from agentctl.files import log

    head = store.read_from(log.LOG, 0, cap=512)
    first = head.split(b"\n", 1)[0] if b"\n" in head else b""
    return first.decode("utf-8", "replace").replace("|", " ")[:_ID_CHARS]


def earlier_task(store: Store, vfields: dict[str, str]) -> str | None:
    """The task whose run verify/status shows, when that is not the running task's (its id, "" if
    none is named); None when the run is this task's, or there is no run or no task. A new task's
    verdict never shows the last task's run as its own (`verify status`, `status`, the web page)."""
    if vfields.get("STATE") not in ("PASSED", "FAILED") or "RUN_LOG" not in vfields:
        return None
    ident = log_identity(store)
    if ident.split(" ")[1:2] != ["SESSION_START"] or vfields["RUN_LOG"] == ident:
        return None
    ran = vfields["RUN_LOG"].split(" ")
    return ran[2] if len(ran) > 2 and ran[1] == "SESSION_START" else ""


def as_this_task(store: Store, vfields: dict[str, str]) -> tuple[dict[str, str], str]:
    """(the verify fields as the running task sees them, a note): STATE=IDLE and the note naming the
    earlier task's run when the run shown is not this task's; else the fields unchanged and ""."""
    other = earlier_task(store, vfields)
    if other is None:
        return vfields, ""
    shown = dict(vfields, STATE="IDLE")
    whose = f"task {other}" if other else "an earlier task"
    return (
        shown,
        f"no verify run in this task yet; the last one ({vfields['STATE']} {vfields.get('LAST_RUN', '')}) "
        f"was in {whose}",
    )


def mark(store: Store) -> tuple[str, int]:
    """(identity, size) of the files log, taken under its lock so the size is a record boundary."""
    from agentctl.files import log

    with store.lock(log.LOCK):
        return log_identity(store), log.size(store)


def check(store: Store, vfields: dict[str, str] | None = None) -> Evidence:
    """The verdict for the current files log (see the module docstring)."""
    from agentctl.files import log
    from agentctl.verify import status

    checks = status.commands(store)
    if not checks:
        from agentctl.ground import sharedfile

        waiting = status.shared_commands(store)[1]
        return Evidence("none", shown_commands=sharedfile.FILE if waiting else store.shown(status.COMMANDS))
    if vfields is None:
        vfields = status.read_status(store)
    ident = log_identity(store)
    size = log.size(store)
    pass_pos: int | None = None
    no_task = ident.split(" ")[1:2] != ["SESSION_START"]  # a task's log opens with TIME SESSION_START TASK
    # A pass counts for the log it ran against; with no task running, one that ran before there was
    # any log counts for the log begun since (its edits all came after it).
    if vfields.get("LAST_PASS") and (
        vfields.get("LAST_PASS_LOG", "\0") == ident or (no_task and vfields.get("LAST_PASS_LOG", "\0") == "")
    ):
        pos = codec.status_int(vfields, "LAST_PASS_POS", store.shown(status.STATUS))
        if pos <= size:
            pass_pos = pos
    failed = vfields.get("STATE") == "FAILED" and vfields.get("RUN_LOG", "\0") == ident
    offset = 0 if pass_pos is None else pass_pos
    head, exact = log.since_head(store, offset, WINDOW)
    if not head and not exact:  # a window without one entry (junk lines?): read on, to be sure
        head, exact = log.since(store, offset), True
    if pass_pos is None:
        verdict, last_pass = "never", ""
    else:
        verdict, last_pass = ("no" if head or failed else "yes"), vfields.get("LAST_PASS", "")
    away: list[str] = []
    if verdict == "yes":  # a pass covers only the edits this tree holds, not another copy's (pulled by sync)
        from agentctl.files import foreign

        elsewhere = foreign.away(store, log.LOG)
        if elsewhere:
            verdict, head = "no", sorted(elsewhere) + [p for p in head if p not in elsewhere]
            away = sorted(elsewhere)
    ran = "\n".join(checks)
    stale = pass_pos is not None and vfields.get("LAST_PASS_CHECKS", ran) != ran
    if stale:
        verdict = "no"
    ev = Evidence(verdict, head, last_pass, failed)
    ev.away = away if verdict == "no" else []
    ev.no_task = no_task
    ev.checks_changed = stale
    if not exact:  # head is the start of the list: the rest is read if someone asks for all of it
        ev._changed, ev._since = None, (store, offset)
    return ev
