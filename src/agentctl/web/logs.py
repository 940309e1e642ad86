"""Incremental readers of the state's append-only logs, for `agentctl web`.

Each follower remembers the inode and the byte offset it has read up to, so an update
reads only what was appended since (one ``stat`` when nothing was); a log replaced
(``files start``, ``task stop``, agent.log's rotation) or shrunk is read again from its
start. Reads go in bounded chunks of whole lines and are parsed by the library's own
parsers (``files.log.entries``, ``codec.split_record``); what is kept is bounded: per-path
aggregates, a time histogram whose bucket doubles when it would hold too many buckets,
and the last few thousand events. The files log's follower is webfiles'.
"""

from __future__ import annotations

import os

from agentctl.ground import codec
from agentctl.ground.store import Store
from agentctl.web.times import epoch

CHUNK = 4 << 20
QUIET = frozenset(("web", "mcp", "notify"))  # agent.log lines that are not something the agent did
MAX_EVENTS = 2000


class Follower:
    """An append-only log under the state folder, read from where the last poll stopped."""

    def __init__(self, rel: str) -> None:
        self.rel = rel
        self.ident: tuple[int, int] | None = None
        self.offset = 0
        self.ready = False
        self.head = b""  # the first bytes read: a log replaced under the same inode number differs there

    def poll(self, store: Store) -> bool:
        """Read what was appended since the last poll; True when anything changed."""
        try:
            st = os.stat(store.path(self.rel))
        except FileNotFoundError:
            if self.ident is None and self.ready:
                return False
            self.ident, self.offset, self.ready = None, 0, True
            self.reset(store)
            return True
        ident = (st.st_dev, st.st_ino)
        changed = False
        if (
            self.head
            and st.st_size != self.offset
            and store.read_from(self.rel, 0, cap=len(self.head)) != self.head
        ):
            self.ident = None
        if ident != self.ident or st.st_size < self.offset or not self.ready:
            self.ident, self.offset, self.ready, self.head = ident, 0, True, b""
            self.reset(store)
            changed = True
        while self.offset < st.st_size:
            data = store.read_from(self.rel, self.offset, cap=CHUNK)
            end = data.rfind(b"\n") + 1
            if end == 0:  # a line longer than a chunk (junk), or one being written: wait for its end
                if len(data) < CHUNK:
                    break
                end = len(data)
            else:
                self.feed(store, data[:end])
            if self.offset == 0:
                self.head = data[:64]
            self.offset += end
            changed = True
        return changed

    def reset(self, store: Store) -> None:
        raise NotImplementedError

    def feed(self, store: Store, data: bytes) -> None:
        raise NotImplementedError


class Journal(Follower):
    """The verify journal (``TIME|EVENT|RUN|ERRSIG|FILESIG|TEXT``): the task's runs, fixes tried, repeats."""

    def reset(self, store: Store) -> None:
        self.events: list[dict[str, object]] = []

    def feed(self, store: Store, data: bytes) -> None:
        for line in data.decode("utf-8", "surrogateescape").split("\n"):
            rec = codec.split_record(line, 6)
            if rec is None:
                continue
            self.events.append(
                {"time": rec[0], "t": epoch(rec[0]), "event": rec[1], "run": rec[2], "text": rec[5]}
            )
        if len(self.events) > MAX_EVENTS:
            del self.events[: len(self.events) - MAX_EVENTS]


class AgentLog(Follower):
    """logs/agent.log (and, after its rotation, agent.log.1): compactions and claims over time."""

    def reset(self, store: Store) -> None:
        self.compactions: list[float] = []
        self.claims: dict[str, list[float]] = {}
        self.last: dict[str, object] | None = None  # the newest change an agentctl command or hook recorded
        self.task = (
            ""  # the task the newest `task start` line names, and its DONE/TOTAL over time (web.chart)
        )
        self.steps: list[list[float]] = []
        older = store.read(self.rel + ".1", cap=CHUNK) or b""  # the rotated half: the earlier lines
        self.feed(store, older[: older.rfind(b"\n") + 1])

    def feed(self, store: Store, data: bytes) -> None:
        for line in data.decode("utf-8", "surrogateescape").split("\n"):
            rec = codec.split_record(line, 4)
            if rec is None:
                continue
            service, action = rec[1], rec[2]
            if service not in QUIET:
                self.last = {
                    "time": rec[0],
                    "t": epoch(rec[0]),
                    "what": f"{service} {action}",
                    "detail": rec[3][:200],
                }
            if service == "session" and action == "compact":
                t = epoch(rec[0])
                if t is not None:
                    self.compactions.append(t)
            elif service == "task" and action in STEPS:
                t = epoch(rec[0])
                if t is not None:
                    self._step(t, action, rec[3])
            elif service == "task" and action == "claim":
                t = epoch(rec[0])
                agent = rec[3].split(" ", 1)[0]
                if t is not None and agent:
                    self.claims.setdefault(agent[:64], []).append(t)
        if len(self.steps) > MAX_EVENTS:  # every second point of the older half: bounded, the shape kept
            half = len(self.steps) // 2
            self.steps[:half] = self.steps[:half:2]
        if len(self.compactions) > MAX_EVENTS:
            del self.compactions[: len(self.compactions) - MAX_EVENTS]
        for times in self.claims.values():
            if len(times) > MAX_EVENTS:
                del times[: len(times) - MAX_EVENTS]

    def _step(self, t: float, action: str, detail: str) -> None:
        """One `task` line as a point [time, DONE, TOTAL]: exact where the line says the counts (start,
        update), else the last point moved by the entries the line names (done, add, reopen, skip)."""
        done, total = (self.steps[-1][1], self.steps[-1][2]) if self.steps else (0.0, 0.0)
        words = detail.split(" ")
        if action == "start":
            self.task = words[0]
            self.steps = []
            done, total = 0.0, _number(detail, "total=", "") or 0.0
        elif action == "update" and "done=" in detail:
            d, _, n = detail.split("done=", 1)[1].partition("/")
            nd, nt = _number(d, "", ""), _number(n, "", "")
            done, total = done if nd is None else nd, total if nt is None else nt
        elif action == "done":
            done += len(words)
        elif action == "add":
            total += len(detail.split(" after ", 1)[0].split(" "))
        elif action == "reopen":
            done -= 1
        elif action == "reconcile":
            left = _number(detail, "left=", " ")
            done = total - left if left is not None else done
        self.steps.append([t, max(0.0, min(done, total)), total])


STEPS = frozenset(("start", "done", "update", "add", "reopen", "skip", "reconcile"))


def _number(text: str, key: str, end: str) -> float | None:
    """The number after ``key`` in ``text`` (up to ``end``), or None."""
    if key and key not in text:
        return None
    value = text.split(key, 1)[1] if key else text
    value = value.split(end, 1)[0] if end else value
    return float(value) if value.strip().isdigit() else None
