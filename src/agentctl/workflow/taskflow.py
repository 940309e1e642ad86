"""Starting and stopping a task: the work that spans the services.

A start writes the task's status and list, then starts its files log and records the git
baseline for `files scan`; a stop refuses an unverified change, archives the status, the
list, the files log and the verify journal, indexes the task in ``logs/index`` and applies
the retention policy. This module sits above the services (``task``, ``files``, ``verify``,
``evidence``, ``violations``, ``history``, ``gitsync``, ``retention``); none of them imports it.
"""

from __future__ import annotations

import time

import agentctl.task.entries
from agentctl.constraints import together
from agentctl.ground import codec, lockorder
from agentctl.ground.errors import CheckFailed, NoTask, StateError, UsageError
from agentctl.ground.store import Store, now_iso
from agentctl.task import status
from agentctl.task.entries import refresh
from agentctl.task.ids import valid_id


def busy(old: dict[str, str]) -> UsageError:
    return UsageError(
        f"task {old.get('TASK_ID')} is {old['STATE']}; finish it with `agentctl task stop` "
        "or start over it with --force"
    )


def start(
    store: Store,
    task_id: str,
    desc: str,
    paths: list[str],
    *,
    force: bool = False,
    replaced: list[StopResult] | None = None,
    settings: dict[str, str] | None = None,
) -> dict[str, str]:
    """Start a task. Over an ACTIVE or PAUSED task only with ``force``: that task is then
    archived first, as ``task stop --force`` would (nothing is discarded), and its
    StopResult appended to ``replaced``. ``settings``: extra status keys (AUTO_STOP=1)."""
    valid_id(task_id)
    codec.check_text(desc, "--desc")
    if force and status.read_status(store).get("STATE") in ("ACTIVE", "PAUSED"):
        try:
            result = stop(store, force=True, extra={"REPLACED_BY": task_id})
        except CheckFailed:
            result = None  # stopped by someone else meanwhile
        if result is not None and replaced is not None:
            replaced.append(result)
    with store.lock(status.LOCK):
        old = status.read_status(store)
        if old.get("STATE") in ("ACTIVE", "PAUSED") and not force:
            raise busy(old)
        entries = [agentctl.task.entries.Entry("todo", p) for p in paths]
        seq = codec.status_int(old, "SEQ", store.shown(status.STATUS)) + 1
        new = {
            "STATE": "ACTIVE",
            "TASK_ID": task_id,
            "DESC": desc,
            "NOTES": "",
            "STARTED": now_iso(),
            "SEQ": str(seq),
            "NEXT_PINNED": "0",
        }
        new.update(settings or {})
        refresh(new, entries)
        if not entries:
            new["STATE"] = "ACTIVE"
        status.commit(store, old, new, entries)
    store.log_change("task", "start", f"{task_id} total={len(entries)}")
    from agentctl.files import log
    from agentctl.interfaces import lifecycle
    from agentctl.workflow import gitscan

    log.start(store, task_id)  # a task's files log starts with it (stop archives it)
    lifecycle.on_task_start(store, task_id)  # and no interface change yet
    # the commit and the already-dirty paths, for `files scan` (never raises)
    gitscan.record_baseline(store, new)
    return new


class StopResult:
    __slots__ = ("task_id", "archive", "warning", "fields", "forced", "evidence", "plan")

    def __init__(
        self,
        task_id: str,
        archive: str,
        warning: str,
        fields: dict[str, str],
        forced: bool = False,
        evidence: str = "",
    ) -> None:
        self.plan = ""  # the line about the plan of a plan task (marked done), else ""
        self.task_id = task_id
        self.archive = archive
        self.warning = warning
        self.fields = fields
        self.forced = forced
        self.evidence = evidence


def _archive_number(store: Store, task_id: str, old: dict[str, str]) -> int:
    """The first N whose archive names are free, or hold this very task (a stop killed half-way)."""
    n = 1
    while True:
        dot = f".{n}" if n > 1 else ""
        done_rel = f"logs/task-{task_id}{dot}.done"
        if store.exists(done_rel):
            try:
                prev = codec.parse_status(store.read(done_rel) or b"", store.shown(done_rel))
            except StateError:
                prev = {}
            if all(prev.get(k) == old.get(k) for k in ("TASK_ID", "STARTED", "SEQ")):
                return n
        elif not store.exists(f"logs/files-{task_id}{dot}.list") and not store.exists(
            f"logs/files-{task_id}{dot}.log"
        ):
            return n
        n += 1


def stop(store: Store, *, extra: dict[str, str] | None = None, force: bool = False) -> StopResult:
    """Archive the task (status, list, files log, verify journal), index it, and go back to IDLE.

    Refused (CheckFailed) when verify commands exist and an edit logged in this task is
    not covered by a passing run, unless ``force`` (then the archive says FORCED=1).
    """
    import agentctl.plan.lifecycle
    import agentctl.verify.status
    from agentctl.constraints import violations
    from agentctl.files import count, log
    from agentctl.ground import logsgc, retention
    from agentctl.history import index
    from agentctl.interfaces import lifecycle
    from agentctl.task import progress
    from agentctl.verify import evidence

    retention.policy(store)  # a wrong retention setting refuses the stop before anything moves
    with store.locks(lockorder.FOLDER, status.LOCK):
        old = status.read_status(store)
        if old.get("STATE") == "IDLE":
            raise NoTask("no task is running; nothing to stop")
        task_id = old.get("TASK_ID", "task")
        vfields = agentctl.verify.status.read_status(store)
        ev = evidence.check(store, vfields)
        if ev.blocks_stop and not force:
            raise CheckFailed(
                f"task {task_id} is not verified: {ev.detail()}; {ev.remedy()}, "
                "or stop anyway with `agentctl task stop --force` (recorded as forced)"
            )
        from agentctl.constraints import fingerprints

        # a protected file written where git does not look
        violations.note(store, [], fingerprints.changed(store, fingerprints.task_key(old)))
        broken = violations.stop_check(store, task_id, force)  # refused like an unverified change
        apart = _together_check(store, task_id, force)  # a P0 co-change not made: refused the same way
        ending = lifecycle.stop_check(store, task_id, force)  # an interface with old uses left: the same
        # a --match task whose tree still holds the old form: the same
        tree = progress.stop_check(store, old, force)
        entries = status.read_entries(store, old)
        stored = old
        if tree is not None:  # archived as the tree shows it
            old = dict(tree.fields, SEQ=stored.get("SEQ", "0"), LIST=stored.get("LIST", ""))
            entries = tree.entries
        warning = ""
        if old.get("STATE") != "DONE":
            warning = (
                f"task {task_id} was {old.get('STATE')} at "
                f"{old.get('DONE', '0')}/{old.get('TOTAL', '0')}, not DONE"
            )
        started = old.get("STARTED", "")
        ended = time.time()
        archived = dict(old)
        archived["ENDED"] = now_iso(ended)
        archived["DURATION"] = _duration(started, ended)
        archived.pop("CLAIMS", None)
        archived.pop("LIST_SIG", None)  # the list file's identity: nothing once the list is archived
        archived["FILES_TOUCHED"] = str(len(log.touched(store)))
        vstate = vfields.get("STATE", "IDLE")
        if vstate in ("PASSED", "FAILED"):
            archived["LAST_VERIFY"] = f"{vstate} {vfields.get('LAST_RUN', '')}"
        else:
            archived["LAST_VERIFY"] = (
                f"PASSED {vfields['LAST_PASS']}" if vfields.get("LAST_PASS") else "never"
            )
        archived["VERIFIED"] = ev.verdict
        archived["EVIDENCE"] = ev.detail()
        forced_apart = [p for p in apart if p.rule.priority == "P0"]
        unfinished = tree is not None and bool(tree.left or tree.reverted)
        archived["FORCED"] = (
            "1" if ev.blocks_stop or broken or forced_apart or ending.forced or unfinished else "0"
        )
        if tree is not None:
            archived["LEFT"] = str(tree.left)
            if tree.reverted:
                archived["REVERTED"] = " ".join(f"{p}:{n}" for p, n in tree.reverted)[:2000]
        archived.update(violations.archive_fields(store, old.get("STARTED", ""), broken))
        archived.update(ending.fields())
        if apart:
            archived["TOGETHER_NOT_DONE"] = "; ".join(p.line()[10:] for p in apart)[:2000]
            reminder = "; ".join(p.line() for p in apart if p.rule.priority != "P0")
            if reminder:
                warning = (warning + "; " if warning else "") + reminder
        if extra:
            archived.update(extra)
        # The archives are written first and the status rename is the commit point; the
        # files log moves only after it, so a kill at any instant leaves either the task
        # running with its files log in place, or the task stopped (a log not yet moved is
        # archived by the next `task start`). A stop retried after a kill reuses the
        # archive names it had picked, so nothing is archived twice.
        n = _archive_number(store, task_id, old)
        dot = f".{n}" if n > 1 else ""
        done_rel = f"logs/task-{task_id}{dot}.done"
        archived["FILES_LIST"] = f"logs/files-{task_id}{dot}.list"
        archived["FILES_LOG"] = f"logs/files-{task_id}{dot}.log"
        archived["VERIFY_JOURNAL"] = (
            f"logs/verify-{task_id}{dot}.journal" if store.exists(agentctl.verify.status.JOURNAL) else ""
        )
        # a plan task: its place in the plan
        archived.update(agentctl.plan.lifecycle.archive_fields(store, old))
        store.replace(done_rel, codec.format_status({k: v for k, v in archived.items() if k != "LIST"}))
        store.replace(f"logs/files-{task_id}{dot}.list", agentctl.task.entries.format_entries(entries))
        seq = codec.status_int(old, "SEQ", store.shown(status.STATUS))
        new = {"STATE": "IDLE", "SEQ": str(seq + 1), "TASK_ID": task_id}
        status.commit(store, stored, new, None)
        log.archive(store, f"files-{task_id}{dot}")
        count.keep_empty(store)
        agentctl.verify.status.archive_task(store, f"verify-{task_id}{dot}")
        lifecycle.archive(store, f"interfaces-{task_id}{dot}", ending)
        index.append_index(store, archived, done_rel)
        violations.force(store, task_id)  # a forced stop closes the open violations (recorded above)
    forced = ev.blocks_stop or bool(broken) or bool(forced_apart) or ending.forced or unfinished
    store.log_change("task", "stop", f"{task_id} -> {done_rel}" + (" FORCED" if forced else ""))
    # a plan task is done in the plan (after the task's locks)
    planned = agentctl.plan.lifecycle.on_task_stop(store, old, done_rel, forced)
    try:
        logsgc.gc(store)  # every stop keeps logs/ within the retention policy
    except (OSError, StateError) as exc:
        store.log_change("gc", "failed", str(exc)[:200])
    result = StopResult(task_id, done_rel, warning, archived, forced, ev.line())
    result.plan = planned
    return result


def _together_check(store: Store, task_id: str, force: bool) -> list[together.Pending]:
    """`task stop`: the together rules this task left pending; refused (CheckFailed) while a P0 one
    is, unless ``force`` (a P1 one is a reminder in the stop's warning)."""
    from agentctl.constraints import rules
    from agentctl.workflow import cochanges

    apart = cochanges.of_task(store, rules.read(store))
    hard = [p for p in apart if p.rule.priority == "P0"]
    if hard and not force:
        first = hard[0]
        raise CheckFailed(
            f"task {task_id} changed {first.left_path} but not {first.right}, which P0 `{first.rule.text}` "
            f"requires "
            f"in the same task ({len(hard)} rule{'s' if len(hard) > 1 else ''}); change it, or stop anyway "
            f"with "
            "`agentctl task stop --force` (recorded in the archive)"
        )
    return apart


def _duration(started: str, ended: float) -> str:
    try:
        t0 = time.mktime(time.strptime(started[:19], "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return ""
    secs = max(0, int(ended - t0))
    return f"{secs // 3600}h{secs % 3600 // 60:02d}m{secs % 60:02d}s"
