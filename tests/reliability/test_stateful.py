"""Issue 3, point 5: a Hypothesis state machine drives the library through random sequences of task,
files, constraints and verify operations - with hostile text, damaged log tails, fresh Store objects
and processes killed at a chosen step of the write protocol - against a plain in-memory model. After
every step the model and the files on disk (read back with the library's own parsers) agree.

Default: 60 examples x 30 steps; long mode (AGENTCTL_LONG=1): 300 x 60.
Replay a failure with the seed Hypothesis prints (``--hypothesis-seed=N``).
"""

from __future__ import annotations

import copy
import os
import shutil
import signal
import tempfile
from dataclasses import dataclass, field

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import agentctl.constraints.rules
import agentctl.files.log
import agentctl.task.status
import agentctl.verify.status
from agentctl.constraints import edit
from agentctl.ground.errors import AgentctlError, CheckFailed, NoTask, UsageError
from agentctl.ground.store import Store
from agentctl.verify.tried import add_tried
from agentctl.workflow import taskflow
from support import faults

from .helpers import LONG, figures, parse_everything

WEIRD = [
    "",
    " ",
    "a|b",
    "c\\d",
    "line\nbreak",
    "cr\rlf",
    "tab\t",
    "é将",
    "\u2028sep",
    "\x1b[2J",
    "=x=",
    "%41",
    "$(touch CANARY)",
    "\udcff\udcfe",
    "P0|x",
    "#c",
    "\u202eevil",
    "👩‍💻",
]
TEXT = st.one_of(
    st.sampled_from(WEIRD),
    st.text(st.characters(codec="utf-8"), max_size=24),
    st.lists(st.sampled_from(WEIRD), min_size=1, max_size=3).map("".join),
)
PATHS = [
    "a.py",
    "b|c.py",
    "d\\e.py",
    "f\ng.py",
    "é.py",
    "h=i.py",
    "sp ace.py",
    "\u2028x.py",
    "z\udcff.py",
    "-rf",
]
PATH = st.sampled_from(PATHS)
IDS = st.sampled_from(["t1", "t.2", "T_3-x"])
STEPS = [
    "tmp_created",
    "tmp_half_written",
    "tmp_written",
    "tmp_fsynced",
    "renamed",
    "dir_fsynced",
    "lock_acquired",
    "log_half_written",
]
LOG_STEPS = ["lock_acquired", "log_half_written", "log_written", "log_fsynced"]
STATS = {"steps": 0, "crashes": 0, "examples": 0}


@dataclass
class Model:
    state: str = "IDLE"
    task_id: str = ""
    desc: str = ""
    notes: str = ""
    seq: int = 0
    entries: list[list[object]] = field(default_factory=list)  # [path, done]
    files: list[tuple[str, str]] = field(default_factory=list)
    rules: list[tuple[str, str]] = field(default_factory=list)
    tried: list[str] = field(default_factory=list)

    def refresh(self) -> None:
        total = len(self.entries)
        if total and all(e[1] for e in self.entries) and self.state in ("ACTIVE", "PAUSED"):
            self.state = "DONE"


class Machine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        from agentctl.statefolder.init import init

        self.dir = tempfile.mkdtemp(prefix="agentctl-model-")
        os.mkdir(os.path.join(self.dir, ".git"))
        self.store, _ = init(self.dir)
        self.m = Model()
        STATS["examples"] += 1

    def teardown(self) -> None:
        from agentctl.doctor.check import examine

        try:
            examine(self.store.root, fix=True)
            report = examine(self.store.root)
            assert report.problems == [], report.problems
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    # -- task ------------------------------------------------------------------------------------
    @rule(task_id=IDS, desc=TEXT, paths=st.lists(PATH, max_size=6, unique=True), force=st.booleans())
    def start(self, task_id: str, desc: str, paths: list[str], force: bool) -> None:
        if not desc.strip():
            self._refused(UsageError, taskflow.start, self.store, task_id, desc, paths, force=force)
            return
        if self.m.state in ("ACTIVE", "PAUSED") and not force:
            self._refused(UsageError, taskflow.start, self.store, task_id, desc, paths, force=force)
            return
        if self.m.state in ("ACTIVE", "PAUSED"):
            self.m.seq += 1  # --force archives the running task first (a stop: one SEQ)
        taskflow.start(self.store, task_id, desc, paths, force=force)
        self.m.state, self.m.task_id, self.m.desc, self.m.notes = "ACTIVE", task_id, desc, ""
        self.m.entries = [[p, False] for p in paths]
        self.m.seq += 1
        self.m.files = []
        self.m.refresh()

    @rule(n=st.integers(1, 3), seq=st.sampled_from(["none", "right", "stale"]))
    def update_done(self, n: int, seq: str) -> None:
        want = {"none": None, "right": self.m.seq, "stale": self.m.seq - 1}[seq]
        if self.m.state == "IDLE":
            self._refused((NoTask, UsageError), agentctl.task.status.update, self.store, done=n, seq=want)
            return
        if want is not None and want != self.m.seq:
            res = agentctl.task.status.update(self.store, done=n, seq=want)
            assert not res.applied and res.fields["SEQ"] == str(self.m.seq)
            return
        if not self.m.entries:
            self._refused(UsageError, agentctl.task.status.update, self.store, done=n, seq=want)
            return
        res = agentctl.task.status.update(self.store, done=n, seq=want)
        todo = [e for e in self.m.entries if not e[1]][:n]
        for e in todo:
            e[1] = True
        assert res.applied and res.changed == [e[0] for e in todo]
        self.m.seq += 1
        self.m.refresh()

    @rule(notes=TEXT)
    def update_notes(self, notes: str) -> None:
        if self.m.state == "IDLE":
            self._refused(NoTask, agentctl.task.status.update, self.store, notes=notes)
            return
        agentctl.task.status.update(self.store, notes=notes)
        self.m.notes = notes
        self.m.seq += 1

    @rule(state=st.sampled_from(["ACTIVE", "PAUSED"]))
    def set_state(self, state: str) -> None:
        if self.m.state == "IDLE":
            self._refused(NoTask, agentctl.task.status.update, self.store, state=state)
            return
        agentctl.task.status.update(self.store, state=state)
        if self.m.state != "DONE":
            self.m.state = state
        self.m.seq += 1
        self.m.refresh()

    @rule(path=PATH)
    def mark_done(self, path: str) -> None:
        index = {e[0]: e for e in self.m.entries}
        if self.m.state == "IDLE" or path not in index:
            self._refused(
                NoTask if self.m.state == "IDLE" else UsageError,
                agentctl.task.status.mark_done,
                self.store,
                [path],
            )
            return
        res = agentctl.task.status.mark_done(self.store, [path])
        if index[path][1]:
            assert not res.applied
            return
        index[path][1] = True
        assert res.applied
        self.m.seq += 1
        self.m.refresh()

    @rule()
    def stop(self) -> None:
        if self.m.state == "IDLE":
            self._refused(CheckFailed, taskflow.stop, self.store)
            return
        res = taskflow.stop(self.store)
        assert os.path.exists(self.store.path(res.archive))
        self.m.state = "IDLE"
        self.m.seq += 1
        self.m.entries = []
        self.m.files = []

    # -- files -----------------------------------------------------------------------------------
    @rule(op=st.sampled_from(agentctl.files.log.OPS), path=PATH)
    def log(self, op: str, path: str) -> None:
        agentctl.files.log.log(self.store, op, path)
        self.m.files.append((op, path))

    @rule(tail=st.sampled_from([b"2026-01-01T00:00:00+00:00|MODIFY|half", b"\x00\x00", b"\xff", b"|||"]))
    def damage_tail(self, tail: bytes) -> None:
        """A writer killed mid-append: the fragment must never read as a record."""
        path = self.store.path(agentctl.files.log.LOG)
        if os.path.exists(path):
            with open(path, "ab") as fh:
                fh.write(tail)

    # -- constraints -----------------------------------------------------------------------------
    @rule(pri=st.sampled_from(agentctl.constraints.rules.PRIORITIES), text=TEXT)
    def add_rule(self, pri: str, text: str) -> None:
        if not text.strip() or text.strip().lower().startswith("deny-write:"):
            if not text.strip():
                self._refused(UsageError, edit.add, self.store, pri, text)
            return
        if any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or ord(c) in (0x2028, 0x2029) for c in text.strip()):
            # a rule is one line of plain text (31.9)
            self._refused(UsageError, edit.add, self.store, pri, text)
            return
        added, _ = edit.add(self.store, pri, text)
        rule_ = (pri, text.strip())
        assert added == (rule_ not in self.m.rules)
        if added:
            self.m.rules.append(rule_)
            self.m.rules.sort(key=lambda r: agentctl.constraints.rules.PRIORITIES.index(r[0]))

    @precondition(lambda self: bool(self.m.rules))
    @rule(data=st.data())
    def remove_rule(self, data: st.DataObject) -> None:
        pri, text = data.draw(st.sampled_from(self.m.rules))
        what = f"{pri}|{text}"
        target = next(r for r in self.m.rules if r[1] == what or r == (pri, text))
        removed = edit.remove(self.store, what)
        assert (removed.priority, removed.text) == target
        self.m.rules.remove(target)

    # -- verify ----------------------------------------------------------------------------------
    @rule(text=TEXT)
    def tried(self, text: str) -> None:
        if not text.strip():
            self._refused(UsageError, add_tried, self.store, text)
            return
        add_tried(self.store, text)
        self.m.tried.append(text.strip())

    # -- processes -------------------------------------------------------------------------------
    @rule()
    def reopen(self) -> None:
        """A new process: nothing cached survives."""
        self.store = Store(self.store.root)

    @rule(nth=st.integers(1, 2), kind=st.sampled_from(["update", "log", "rule"]), data=st.data())
    def crash(self, nth: int, kind: str, data: st.DataObject) -> None:
        """Kill a writer (SIGKILL, no cleanup) at a step of the protocol; disk must be pre or post."""
        step = data.draw(st.sampled_from(LOG_STEPS if kind == "log" else STEPS))
        pre = copy.deepcopy(self.m)
        post = copy.deepcopy(self.m)
        if kind == "update":
            if self.m.state == "IDLE" or not self.m.entries:
                return
            todo = [e for e in post.entries if not e[1]][:1]
            for e in todo:
                e[1] = True
            post.seq += 1
            post.refresh()
        elif kind == "log":
            post.files.append(("MODIFY", "crash.py"))
        else:
            if ("P2", "crash rule") in post.rules:
                return
            post.rules.append(("P2", "crash rule"))
        pid = os.fork()
        if pid == 0:
            try:
                faults.install(faults.killer(step, nth))
                s = Store(self.store.root)
                if kind == "update":
                    agentctl.task.status.update(s, done=1)
                elif kind == "log":
                    agentctl.files.log.log(s, "MODIFY", "crash.py")
                else:
                    edit.add(s, "P2", "crash rule")
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        STATS["crashes"] += killed
        if self._matches(post):
            self.m = post
        else:
            assert self._matches(pre), "after a kill the state is neither the old nor the new one"
            self.m = pre

    # -- checks ----------------------------------------------------------------------------------
    def _refused(
        self,
        kind: type[AgentctlError] | tuple[type[AgentctlError], ...],
        fn: object,
        *args: object,
        **kw: object,
    ) -> None:
        before = self._disk()
        try:
            fn(*args, **kw)  # type: ignore[operator]
        except kind:
            pass
        else:
            raise AssertionError(f"{getattr(fn, '__name__', fn)} should have been refused")
        assert self._disk() == before

    def _disk(self) -> tuple[object, ...]:
        fields = agentctl.task.status.read_status(self.store)
        entries = (
            [[e.path, e.done] for e in agentctl.task.status.read_entries(self.store, fields)]
            if fields.get("LIST")
            else []
        )
        logged = [
            (op, p) for _, op, p in agentctl.files.log.entries(self.store) if op in agentctl.files.log.OPS
        ]
        rules = [(r.priority, r.text) for r in agentctl.constraints.rules.read(self.store)]
        tried = agentctl.verify.status.tried(agentctl.verify.status.read_status(self.store))
        return (fields, entries, logged, rules, tried)

    def _matches(self, m: Model) -> bool:
        fields, entries, logged, rules, tried = self._disk()
        assert isinstance(fields, dict)
        ok = fields["STATE"] == m.state and fields["SEQ"] == str(m.seq)
        if m.state != "IDLE":
            ok = ok and (fields.get("TASK_ID"), fields.get("DESC"), fields.get("NOTES", "")) == (
                m.task_id,
                m.desc,
                m.notes,
            )
            done = sum(1 for e in m.entries if e[1])
            ok = ok and (fields.get("TOTAL"), fields.get("DONE")) == (str(len(m.entries)), str(done))
            ok = ok and entries == m.entries
        return (
            ok
            and logged == m.files
            and rules == m.rules
            and tried == m.tried[-agentctl.verify.status.MAX_TRIED :]
        )

    @invariant()
    def disk_equals_model(self) -> None:
        STATS["steps"] += 1
        parse_everything(__import__("pathlib").Path(self.store.root))
        assert self._matches(self.m), (self._disk(), self.m)


Machine.TestCase.settings = settings(
    max_examples=300 if LONG else 60,
    stateful_step_count=60 if LONG else 30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestStateMachine = Machine.TestCase


def test_stateful_figures() -> None:
    if not STATS["examples"]:
        return
    figures(
        f"C4 {'long' if LONG else 'default'}: Hypothesis state machine, {STATS['examples']} runs, "
        f"{STATS['steps']} checked steps, {STATS['crashes']} writers killed at a protocol step: "
        "disk and model agreed after every step"
    )
