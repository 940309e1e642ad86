"""What `agentctl web` shows: one dict built from a Store by the library's own operations.

Every value comes from the functions the CLI's commands use (``task.status.read_status``,
``taskclaims.claims``, ``verify.status.read_status``, ``evidence.check``, ``constraints.rules.ordered``,
``session.compactions.read``, ``runlevels``, ``history.index.read_index``/``show_lines``/``search``,
``resume.build``/``build_brief``); the logs that grow (the files log, the verify journal,
agent.log) are followed incrementally by ``weblog`` and ``webfiles``; the archived tasks are
``webhistory``'s. ``View.state()`` rebuilds only when one stat pass over the state files says
something changed; nothing here writes.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from typing import Any

import agentctl.constraints.listing
import agentctl.files.log
import agentctl.task.claims
import agentctl.verify.status
from agentctl.constraints import rules, violations
from agentctl.ground.errors import AgentctlError
from agentctl.ground.store import Store, now_iso
from agentctl.operation.numbers import fields as shaped
from agentctl.session import compactions
from agentctl.task import progress, status
from agentctl.userservices import runlevels
from agentctl.web import history, logs
from agentctl.web.files import FilesLog, entries_of
from agentctl.web.history import BARS, HISTORY_SHOWN, RUNS_SHOWN
from agentctl.web.times import epoch
from agentctl.workflow import resume

WATCH = (
    status.STATUS,
    agentctl.files.log.LOG,
    agentctl.verify.status.STATUS,
    agentctl.verify.status.JOURNAL,
    agentctl.verify.status.COMMANDS,
    rules.STATUS,
    compactions.STATUS,
    runlevels.CURRENT,
    runlevels.TABLE,
    "logs/index",
    "logs/agent.log",
    violations.LOG,
    "services/interfaces/status",
    "services/plan/status",
)  # logs/index: history.INDEX
FILES_SHOWN = 200  # the most recently touched paths in the state; the rest through files()


def signature(store: Store) -> str:
    """One stat pass over the state files: changes whenever any agentctl command or hook wrote."""
    parts = []
    for rel in WATCH:
        try:
            st = os.stat(store.path(rel))
            parts.append(f"{st.st_ino:x}.{st.st_size:x}.{st.st_mtime_ns:x}")
        except OSError:
            parts.append("-")
    return f"{hash(tuple(parts)) & 0xFFFFFFFFFFFF:012x}"


def _dumps(data: object) -> bytes:
    # ensure_ascii: lone surrogates (bytes that were not UTF-8) and control characters travel escaped
    return json.dumps(data, ensure_ascii=True, separators=(",", ":")).encode("ascii")


class View:
    """The page's data for one store, cached by the state's signature (safe to share between threads)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.files_log = FilesLog(agentctl.files.log.LOG)
        self.journal = logs.Journal(agentctl.verify.status.JOURNAL)
        self.agent_log = logs.AgentLog("logs/agent.log")
        self.lock = threading.Lock()
        self.version = ""
        self.body = b""
        self.archived: dict[str, tuple[tuple[int, int], dict[str, Any]]] = {}

    def state(self) -> tuple[str, bytes]:
        """(version, JSON body) of the current state; rebuilt only when the signature changed."""
        sig = signature(self.store)
        with self.lock:
            if sig != self.version:
                data = self.build()
                data["version"] = sig
                self.version, self.body = sig, _dumps(data)
            return self.version, self.body

    def build(self) -> dict[str, Any]:
        store = self.store
        errors: list[str] = []

        def part(name: str, fn: Callable[[], Any], default: Any) -> Any:
            try:
                return fn()
            except AgentctlError as exc:  # a damaged file: said on the page, the rest still shown
                errors.append(f"{name}: {exc.message}")
                return default

        for follower in (self.files_log, self.journal, self.agent_log):
            part(follower.rel, lambda f=follower: f.poll(store), False)  # type: ignore[misc]
        from agentctl.files import matchcounts

        # the old uses as the tree is now (interfaces, resume), not as at the first build
        matchcounts.forget()
        # a --match task as the tree shows it
        fields: dict[str, str] = part("task", lambda: progress.shown(store)[0], {"STATE": "IDLE"})
        now = time.time()
        data: dict[str, Any] = {
            "project": store.project,
            "generated": now_iso(now),
            "now": now,
            "runlevel": part("runlevel", lambda: self._runlevel(), {}),
            "session": part("session", lambda: compactions.read(store), {}),
            "task": shaped(fields),  # as `task status --json`: counts as numbers
            "progress": _progress(fields, now),
            "claims": part(
                "claims",
                lambda: [
                    {"path": p, "agent": a, "expires": x, "until": now_iso(x)}
                    for p, a, x in agentctl.task.claims.claims(store, fields)
                ],
                [],
            ),
            "verify": part("verify", lambda: self._verify(fields), {}),
            "constraints": part("constraints", lambda: agentctl.constraints.listing.as_data(store), []),
            "interfaces": part(
                "interfaces", lambda: _interfaces(store), []
            ),  # their old uses: in the resume block
            "plan": part("plan", lambda: _plan(store, fields), {"tasks": [], "head": ""}),
            "files": self._files(),
            "last": self._last(),
            "violations": part("violations", lambda: open_violations(store), []),
            "vanished": part(
                "vanished", lambda: _vanished(store), []
            ),  # P0 rules whose removal a person must confirm
            "timeline": self._timeline(fields, now),
            "history": part("history", lambda: self._history(), {"tasks": [], "more": False}),
            "context": part(
                "context", lambda: _compaction_costs(store), []
            ),  # what the state took of each new window
            "resume": part("resume", lambda: resume.build(store), ""),
            "brief": part("brief", lambda: resume.build_brief(store), ""),
        }
        data["errors"] = errors
        return data

    def chart(self) -> dict[str, Any]:
        """The progress chart's data (``web.chart``): DONE and TOTAL over time, compactions, runs, the
        projection."""
        from agentctl.web.chart import chart

        with self.lock:
            for follower in (self.journal, self.agent_log):
                follower.poll(self.store)
            fields = progress.shown(self.store)[0]
            now = time.time()
            return chart(fields, _progress(fields, now), self.agent_log, self.journal, now)

    def diff(self, path: str) -> dict[str, Any]:
        """One file's `git diff` since the task started (``web.diff``); a path outside the project is a
        UsageError."""
        from agentctl.web.diff import file_diff

        return file_diff(self.store, path)

    def _runlevel(self) -> dict[str, Any]:
        level = runlevels.current(self.store)
        return {"name": level, "services": runlevels.services_of(self.store, level)}

    def _verify(self, fields: dict[str, str]) -> dict[str, Any]:
        store = self.store
        v = agentctl.verify.status.read_status(store)
        earlier = ""
        if fields.get("STATE", "IDLE") != "IDLE":
            from agentctl.verify import evidence

            # the badge never shows an earlier task's run as this one's
            v, earlier = evidence.as_this_task(store, v)
        out: dict[str, Any] = {k: v[k] for k in agentctl.verify.status.KEYS if k in v and k != "ERRORS"}
        out["earlier_run"] = earlier or None
        out["errors"] = v["ERRORS"].split("\n") if v.get("ERRORS") and not earlier else []
        out["tried"] = agentctl.verify.status.tried(v)
        out["commands"] = agentctl.verify.status.commands(store)
        if fields.get("STATE", "IDLE") != "IDLE":
            from agentctl.verify import evidence

            ev = evidence.check(store, v)
            out["evidence"] = {"verdict": ev.verdict, "line": ev.line(), "last_pass": ev.last_pass}
        runs = self.journal.events[-RUNS_SHOWN:]
        out["runs"] = runs
        out["repeats"] = [e for e in runs if e["event"] == "REPEAT"]
        return out

    def _files(self) -> dict[str, Any]:
        log = self.files_log
        if not log.ready:
            return {"count": 0, "lines": 0, "shown": []}
        newest = sorted(log.paths.items(), key=lambda kv: kv[1].seq, reverse=True)[:FILES_SHOWN]
        return {
            "count": len(log.paths),
            "lines": log.lines,
            "session": log.session,
            "shown": [info.as_dict(p) for p, info in newest],
        }

    def _last(self) -> dict[str, Any] | None:
        """The last thing the agent did, and when: the newer of the files log's last entry and agent.log's
        last change (a task, verify, constraints or session command, a hook's note)."""
        log, found = self.files_log, getattr(self.agent_log, "last", None)
        if log.ready and log.paths:
            path, info = max(log.paths.items(), key=lambda kv: kv[1].seq)
            t = epoch(info.last)
            if found is None or (t is not None and t >= (found.get("t") or 0)):
                found = {"time": info.last, "t": t, "what": f"files {info.op}", "detail": path}
        return found

    def files(self, query: str, limit: int = FILES_SHOWN) -> dict[str, Any]:
        """Touched paths containing ``query`` (case-insensitive), newest first."""
        needle = query.casefold()
        with self.lock:
            self.files_log.poll(self.store)
            hits = [(p, i) for p, i in self.files_log.paths.items() if needle in p.casefold()]
            hits.sort(key=lambda kv: kv[1].seq, reverse=True)
            return {"query": query, "count": len(hits), "shown": [i.as_dict(p) for p, i in hits[:limit]]}

    def file_entries(self, path: str) -> dict[str, Any]:
        """Every entry (time, operation) for one path in the current files log, as `files check` lists
        them."""
        return {
            "path": path,
            "entries": [list(e) for e in entries_of(self.store, agentctl.files.log.LOG, path)],
        }

    def _timeline(self, fields: dict[str, str], now: float) -> dict[str, Any]:
        log = self.files_log
        start = epoch(fields.get("STARTED", "")) or epoch(getattr(log, "session", "")) or log.first_t
        if not log.ready or start is None:
            return {}
        if log.first_t is not None:
            start = min(start, log.first_t)
        end = max(now, start + 60)
        width, edits = log.hist.bars(start, end, BARS)
        runs = [
            {"t": e["t"], "ok": e["event"] == "PASS", "run": e["run"], "text": e["text"]}
            for e in self.journal.events
            if e["event"] in ("PASS", "FAIL") and e["t"] is not None
        ]
        agents = self.agent_log
        comps = [t for t in getattr(agents, "compactions", []) if start <= t <= end]
        claims = {a: [t for t in ts if start <= t <= end] for a, ts in getattr(agents, "claims", {}).items()}
        return {
            "start": start,
            "end": end,
            "bar": width,
            "edits": edits,
            "runs": runs,
            "compactions": comps,
            "claims": {a: ts for a, ts in claims.items() if ts},
        }

    def _history(self) -> dict[str, Any]:
        return history.summary(self.store)

    def search_history(self, query: str, limit: int = HISTORY_SHOWN) -> dict[str, Any]:
        """Archived tasks matching ``query`` the way `agentctl history search` matches them ("" lists the
        newest)."""
        return history.search(self.store, query, limit)

    def archived_task(self, task_id: str) -> dict[str, Any]:
        """One archived task as `agentctl history show` gives it, plus its timeline and runs (cached by
        index state)."""
        return history.archived(self.store, task_id, self.archived)


def _compaction_costs(store: Store) -> list[dict[str, str]]:
    from agentctl.context import cost

    return cost.history(store, 5)


def open_violations(store: Store) -> list[dict[str, Any]]:
    """The open P0 violations (a write to a denied path that happened anyway), oldest first, each with
    the rule it broke and how to restore the file."""
    return [
        {"path": path, "rule": rule, "time": when, "restore": violations.restore_hint(store, path)}
        for path, (when, rule) in violations.open_ones(store).items()
    ]


def _vanished(store: Store) -> list[dict[str, str]]:
    """The P0 rules that left the rules file without `constraints remove` (still enforced), with resume's
    line."""
    from agentctl.constraints import lastseen

    return [
        {"rule": text, "since": since, "line": lastseen.vanished_line(text, since)}
        for since, text in lastseen.vanished(store, persist=False)
    ]


def _progress(fields: dict[str, str], now: float) -> dict[str, Any]:
    """DONE/TOTAL, the rate in entries an hour since the task started, and the time left at that rate."""
    try:
        done, total = int(fields.get("DONE", "0")), int(fields.get("TOTAL", "0"))
    except ValueError:
        done, total = 0, 0
    out: dict[str, Any] = {
        "done": done,
        "total": total,
        "percent": (100.0 * done / total) if total else 0.0,
        "rate": None,
        "eta": None,
        "elapsed": None,
    }
    started = epoch(fields.get("STARTED", ""))
    if started is not None and fields.get("STATE") in ("ACTIVE", "PAUSED", "DONE"):
        elapsed = max(0.0, now - started)
        out["elapsed"] = elapsed
        if done and elapsed >= 60:
            rate = done / (elapsed / 3600)
            out["rate"] = rate
            out["eta"] = (total - done) / rate * 3600 if rate > 0 else None
    return out


def _interfaces(store: Store) -> list[dict[str, Any]]:
    """The interface changes recorded in the task, each with its old uses left as the interfaces service
    counts them (``interfaces.search.old_uses``, ``report.data``, ``report.state_line``), without the
    uses' list."""
    from agentctl.interfaces import records, report
    from agentctl.interfaces.search import old_uses

    items = records.read(store)
    found = old_uses(store, items)
    out = []
    for i in items:
        hits = found.get(i.name, [])
        one = {
            k: v
            for k, v in report.data(i, hits).items()
            if k in ("name", "old", "new", "migrated", "old_uses", "files")
        }
        one["state"] = report.state_line(hits)
        out.append(one)
    return out


def _plan(store: Store, fields: dict[str, str]) -> dict[str, Any]:
    """The plan as `plan list --json` gives it, the head line, and which task runs in this copy."""
    from agentctl.plan import graph, lifecycle, records, report

    view = graph.View(records.read_all(store))
    if not view.tasks:
        return {"tasks": [], "head": ""}
    mine = lifecycle.running(store, fields)
    return {
        "head": report.head(view),
        "running": mine.ID if mine is not None else None,
        "tasks": [report.data(view, t) for t in view.tasks],
    }
