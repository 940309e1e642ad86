"""The task service: what the agent is doing, how far it got, what comes next.

``services/task/status`` holds KEY=VALUE lines; the entry list lives in
``services/task/list-SEQ`` (one ``MARK|PATH`` line per entry, MARK ``todo`` or
``done``). A change that touches the list writes a new list file first and then
the status naming it, so the status rename is the single commit point: a crash
leaves either the old pair or the new pair, and an update is never half applied.
"""

from __future__ import annotations

import os
import time

from agentctl import codec, protect
from agentctl.errors import CheckFailed, StateError, UsageError
from agentctl.store import Store, now_iso

STATUS = "services/task/status"
LOCK = "services/task/.lock"
STATES = ("IDLE", "ACTIVE", "PAUSED", "DONE")
KEYS = (
    "STATE",
    "TASK_ID",
    "DESC",
    "TOTAL",
    "DONE",
    "NEXT",
    "NOTES",
    "STARTED",
    "UPDATED",
    "SEQ",
    "NEXT_PINNED",
    "LIST",
    "STOPPED_BY",
    "CLAIMS",
    "SKIPPED",
    "AUTO_STOP",
)
MAX_ENTRIES = 100_000
MARKS = ("todo", "done", "skip")  # skip: set aside by `task skip`, counted apart from DONE
MAX_LIST_BYTES = 64 << 20


def _valid_id(task_id: str) -> str:
    ok = (
        0 < len(task_id) <= 64
        and task_id.isascii()
        and (task_id[0].isalnum())
        and all(c.isalnum() or c in "._-" for c in task_id)
        and ".." not in task_id
    )
    if not ok:
        raise UsageError(
            f"task id {task_id[:70]!r} is not allowed; use 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return task_id


class Entry:
    """One list entry: its mark (todo or done), its path, and any extra fields.

    Plain classes, not dataclasses, here and below: `dataclasses` costs more to import than
    the whole of `task done` (see bench/).
    """

    __slots__ = ("mark", "path", "extra")

    def __init__(self, mark: str, path: str, extra: list[str] | None = None) -> None:
        self.mark = mark
        self.path = path
        self.extra: list[str] = [] if extra is None else extra

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Entry):
            return NotImplemented
        return (self.mark, self.path, self.extra) == (other.mark, other.path, other.extra)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value: unhashable, as before

    def __repr__(self) -> str:
        return f"Entry(mark={self.mark!r}, path={self.path!r}, extra={self.extra!r})"

    @property
    def done(self) -> bool:
        return self.mark == "done"

    @property
    def closed(self) -> bool:  # done, or skipped (set aside as not to be done)
        return self.mark in ("done", "skip")


def read_status(store: Store) -> dict[str, str]:
    data = store.read(STATUS)
    if data is None:
        return {"STATE": "IDLE", "SEQ": "0"}
    fields = codec.parse_status(data, store.shown(STATUS), KEYS)
    state = fields.get("STATE", "")
    if state not in STATES:
        raise StateError(f"{store.shown(STATUS)}: STATE={state[:20]!r} is not one of {'/'.join(STATES)}; run `agentctl doctor`")
    for key in ("TOTAL", "DONE", "SEQ"):
        codec.status_int(fields, key, store.shown(STATUS))
    if "SEQ" not in fields:  # without it SEQ would restart at 0 and a replayed --seq could apply twice
        raise StateError(f"{store.shown(STATUS)} has no SEQ line; run `agentctl doctor --fix`")
    return fields


def read_entries(store: Store, fields: dict[str, str]) -> list[Entry]:
    name = fields.get("LIST", "")
    if not name:
        return []
    if "/" in name or not name.startswith("list-"):
        raise StateError(f"{store.shown(STATUS)}: LIST={name!r} is not a list file name; run `agentctl doctor`")
    rel = f"services/task/{name}"
    data = store.read(rel, cap=MAX_LIST_BYTES)
    for _ in range(100):
        if data is not None:
            break
        # Readers take no lock: a writer may have committed a newer status and removed this
        # list since ``fields`` was read. Follow the status to the list it names now, and
        # bring ``fields`` along so the caller keeps a matching pair.
        fresh = read_status(store)
        if fresh.get("LIST", "") in ("", name) or "/" in fresh["LIST"] or not fresh["LIST"].startswith("list-"):
            break
        fields.clear()
        fields.update(fresh)
        name = fresh["LIST"]
        rel = f"services/task/{name}"
        data = store.read(rel, cap=MAX_LIST_BYTES)
    if data is None:
        raise StateError(f"{store.shown(rel)} is missing for the {fields.get('STATE')} task; run `agentctl doctor`")
    entries = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StateError(f"{store.shown(rel)} is not valid UTF-8 (byte {exc.start}); run `agentctl doctor`") from None
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line:
            continue
        parts = line.split("|")
        if len(parts) < 2 or parts[0] not in MARKS:
            raise StateError(f"{store.shown(rel)} line {lineno} is not MARK|PATH; run `agentctl doctor`")
        try:
            entries.append(Entry(parts[0], codec.decode(parts[1]), [codec.decode(p) for p in parts[2:]]))
        except ValueError as exc:
            raise StateError(f"{store.shown(rel)} line {lineno}: {exc}; run `agentctl doctor`") from None
    return entries


def format_entries(entries: list[Entry]) -> bytes:
    return b"".join(codec.record(e.mark, e.path, *e.extra) for e in entries)


def read_list_file(store: Store, source: str, stdin_data: bytes | None = None, cwd: str | None = None) -> list[str]:
    """Read a list of paths (a file, or ``-`` for stdin): one a line, blank lines ignored."""
    if source == "-":
        data = stdin_data if stdin_data is not None else b""
    else:
        try:
            with open(source, "rb") as fh:
                data = fh.read(MAX_LIST_BYTES + 1)
        except OSError as exc:
            raise UsageError(f"cannot read the list file {source!r}: {exc.strerror}; give a readable file of paths") from None
    if len(data) > MAX_LIST_BYTES:
        raise UsageError(f"the list is over {MAX_LIST_BYTES} bytes; split the task")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return list_paths(store, data.decode("utf-8", "surrogateescape").split("\n"), cwd)


def list_paths(store: Store, lines: list[str], cwd: str | None = None) -> list[str]:
    """The task's entries from a list's lines: project paths, blank lines ignored, repeats dropped."""
    from agentctl.location import exists_in, resolve_path

    seen: set[str] = set()
    paths: list[str] = []
    real_dirs: dict[str, str] = {}
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip()  # entries are trimmed: `  src/a.py ` is src/a.py
        if not line:
            continue
        try:
            rel = resolve_path(store, line, cwd, exists_in(store), real_dirs)[0]  # "known" = exists
        except UsageError as exc:
            raise UsageError(f"list line {lineno}: {exc.message}") from None
        if rel not in seen:
            seen.add(rel)
            paths.append(rel)
    if len(paths) > MAX_ENTRIES:
        raise UsageError(f"the list has {len(paths)} entries, over the limit of {MAX_ENTRIES}; split the task")
    return paths


# -- claims: `todo|PATH|claim|AGENT|EXPIRY_EPOCH` -----------------------------------------------
DEFAULT_LEASE = 1800
MAX_LEASE = 7 * 86400


def claim_of(e: Entry) -> tuple[str, int] | None:
    """(agent, expiry epoch) of the entry's claim, live or expired; None if unclaimed."""
    ex = e.extra
    if "claim" in ex:
        i = ex.index("claim")
        if i + 2 < len(ex) and ex[i + 2].isdigit():
            return ex[i + 1], int(ex[i + 2])
    return None


def _live_claim(e: Entry, now: float) -> tuple[str, int] | None:
    c = claim_of(e)
    return c if c is not None and not e.closed and c[1] > now else None


def _release(e: Entry) -> None:
    if "claim" in e.extra:
        i = e.extra.index("claim")
        del e.extra[i : i + 3]


def valid_agent(agent: str) -> str:
    ok = 0 < len(agent) <= 64 and agent.isascii() and agent[0].isalnum() and all(c.isalnum() or c in "._-" for c in agent)
    if not ok:
        raise UsageError(f"agent name {agent[:70]!r} is not allowed; use 1-64 letters, digits, '.', '_' or '-'")
    return agent


def _first_todo(entries: list[Entry]) -> str:
    """The first entry neither done nor claimed by a helper under a live lease ("" if none is left).

    Entries that helpers hold are theirs: the main agent's NEXT never points at one, even
    when every remaining entry is claimed (then NEXT is empty until a claim ends).
    """
    now = time.time()
    for e in entries:
        if not e.closed and _live_claim(e, now) is None:
            return e.path
    return ""


def _commit(store: Store, old: dict[str, str], new: dict[str, str], entries: list[Entry] | None,
            list_data: bytes | None = None) -> None:
    """Write the list (when it changed: ``entries``, or its bytes) and then the status; remove the old list."""
    old_list = old.get("LIST", "")
    if entries is not None or list_data is not None:
        new["LIST"] = f"list-{new['SEQ']}"
        store.replace(f"services/task/{new['LIST']}", format_entries(entries or []) if list_data is None else list_data)
    new["UPDATED"] = now_iso()
    ordered = {k: new[k] for k in KEYS if k in new}
    store.replace(STATUS, codec.format_status(ordered))
    if old_list and old_list != new.get("LIST"):
        try:
            os.unlink(store.path(f"services/task/{old_list}"))
        except FileNotFoundError:
            pass


def _refresh(fields: dict[str, str], entries: list[Entry]) -> None:
    total = len(entries)
    done = sum(1 for e in entries if e.done)
    skipped = sum(1 for e in entries if e.mark == "skip")
    fields["TOTAL"] = str(total)
    fields["DONE"] = str(done)
    if skipped or "SKIPPED" in fields:
        fields["SKIPPED"] = str(skipped)
    pinned = fields.get("NEXT_PINNED") == "1"
    if pinned:
        pin = fields.get("NEXT", "")
        if any(e.path == pin and e.closed for e in entries):
            pinned = False
    if not pinned:
        fields["NEXT_PINNED"] = "0"
        fields["NEXT"] = _first_todo(entries)
    claimed = sum(1 for e in entries if not e.closed and claim_of(e) is not None)
    if claimed or fields.get("CLAIMS", "0") != "0":
        fields["CLAIMS"] = str(claimed)
    if total and done + skipped >= total and fields.get("STATE") in ("ACTIVE", "PAUSED"):
        fields["STATE"] = "DONE"
        fields["NEXT"] = ""
        fields["NEXT_PINNED"] = "0"


# -- the hot path: `task done` and `task update --done N` on a long list ---------------------------
# A list as `task start` writes it from ordinary paths -- valid UTF-8, one ``todo|PATH`` or
# ``done|PATH`` line per entry, no escapes, no extra fields (claims) -- is handled as text: a
# path's line is found with str.find, a mark is rewritten in place (same length), counts are
# str.count; all at C speed, so 10,000 entries cost about what 100 do. Any other list (escapes,
# claims, a hand-edited or damaged file) takes the general path through read_entries, which also
# reports damage. tests/test_perf_guard.py checks that both paths give the same files and results.

_PLAIN = True  # the tests switch it off to compare with the general path


class _PlainList:
    __slots__ = ("text", "total", "done")

    def __init__(self, text: str, total: int, done: int) -> None:
        self.text = text
        self.total = total
        self.done = done

    def lines(self, path: str, mark: str) -> list[int]:
        """Where each ``MARK|PATH`` line for ``path`` starts, in file order."""
        if not path or codec.encode(path) != path:
            return []  # a path that needs escaping cannot be in a list that holds none
        t = self.text
        head = f"{mark}|{path}\n"
        out = [0] if t.startswith(head) else []
        i = t.find("\n" + head)
        while i >= 0:
            out.append(i + 1)
            i = t.find("\n" + head, i + 1)
        return out

    def todos(self, count: int, skip: set[int]) -> list[int]:
        """The first ``count`` todo lines not in ``skip``, in file order."""
        t = self.text
        out: list[int] = []
        i = 0 if t.startswith("todo|") else t.find("\ntodo|") + 1 or -1
        while i >= 0 and len(out) < count:
            if i not in skip:
                out.append(i)
            i = t.find("\ntodo|", i) + 1 or -1
        return out

    def path_at(self, pos: int) -> str:
        return self.text[pos + 5 : self.text.index("\n", pos)]

    def mark_done(self, positions: list[int]) -> None:
        """Rewrite the marks of the todo lines starting at ``positions`` as done, in one pass."""
        parts: list[str] = []
        prev = 0
        for p in sorted(positions):
            parts += (self.text[prev:p], "done")
            prev = p + 4
        parts.append(self.text[prev:])
        self.text = "".join(parts)
        self.done += len(positions)


def _plain_list(store: Store, fields: dict[str, str]) -> _PlainList | None:
    """The task's list as a _PlainList, or None when it must take the general path."""
    name = fields.get("LIST", "")
    if not _PLAIN or not name or "/" in name or not name.startswith("list-") or fields.get("CLAIMS", "0") != "0":
        return None
    data = store.read(f"services/task/{name}", cap=MAX_LIST_BYTES)
    if not data or b"\\" in data or not data.endswith(b"\n") or b"|\n" in data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    total = text.count("\n")
    done = text.count("\ndone|") + text.startswith("done|")
    if text.count("|") != total or done + text.count("\ntodo|") + text.startswith("todo|") != total:
        return None
    return _PlainList(text, total, done)


def _refresh_plain(fields: dict[str, str], plain: _PlainList) -> None:
    """_refresh for a _PlainList (no claims, so NEXT is simply the first entry not done)."""
    fields["TOTAL"] = str(plain.total)
    fields["DONE"] = str(plain.done)
    pinned = fields.get("NEXT_PINNED") == "1"
    if pinned and plain.lines(fields.get("NEXT", ""), "done"):
        pinned = False
    if not pinned:
        fields["NEXT_PINNED"] = "0"
        first = plain.todos(1, set())
        fields["NEXT"] = plain.path_at(first[0]) if first else ""
    if plain.total and plain.done >= plain.total and fields.get("STATE") in ("ACTIVE", "PAUSED"):
        fields["STATE"] = "DONE"
        fields["NEXT"] = ""
        fields["NEXT_PINNED"] = "0"


def _mark_done_plain(store: Store, paths: list[str]) -> UpdateResult | None:
    """mark_done on a plain list; None to take the general path (which also words every refusal)."""
    with store.lock(LOCK):
        old = read_status(store)
        if old.get("STATE") == "IDLE":
            return None
        plain = _plain_list(store, old)
        if plain is None:
            return None
        marks: list[int] = []
        changed: list[str] = []
        for p in paths:
            at = plain.lines(p, "todo") + plain.lines(p, "done")
            if not at:
                return None  # not an entry: refused by the general path
            last = max(at)  # as in the general path, the last entry for a path is the one marked
            if plain.text.startswith("todo", last) and last not in marks:
                marks.append(last)
                changed.append(p)
        if not changed:
            return UpdateResult(False, old, "already done; nothing changed")
        plain.mark_done(marks)
        new = dict(old)
        _refresh_plain(new, plain)
        new["SEQ"] = str(codec.status_int(old, "SEQ", store.shown(STATUS)) + 1)
        _commit(store, old, new, None, plain.text.encode("utf-8"))
    store.log_change("task", "done", " ".join(changed)[:400])
    return UpdateResult(True, new, "", changed)


def _update_plain(store: Store, done: int, notes: str | None, state: str | None, seq: int | None) -> UpdateResult | None:
    """update(done=N) on a plain list; None to take the general path."""
    with store.lock(LOCK):
        old = read_status(store)
        cur_seq = codec.status_int(old, "SEQ", store.shown(STATUS))
        if old.get("STATE") == "IDLE" or (seq is not None and seq != cur_seq):
            return None
        plain = _plain_list(store, old)
        if plain is None or not plain.total:
            return None
        new = dict(old)
        first = plain.lines(new.get("NEXT", ""), "todo")  # NEXT first, then the list's order
        marks = (first + plain.todos(done, set(first)))[:done]
        changed = [plain.path_at(i) for i in marks]
        plain.mark_done(marks)
        if notes is not None:
            new["NOTES"] = notes
        if state is not None and new.get("STATE") != "DONE":
            new["STATE"] = state
        _refresh_plain(new, plain)
        new["SEQ"] = str(cur_seq + 1)
        _commit(store, old, new, None, plain.text.encode("utf-8") if marks else None)
    store.log_change("task", "update", f"seq={new['SEQ']} done={new.get('DONE')}/{new.get('TOTAL')}")
    return UpdateResult(True, new, "", changed)


def _busy(old: dict[str, str]) -> UsageError:
    return UsageError(f"task {old.get('TASK_ID')} is {old['STATE']}; finish it with `agentctl task stop` "
                      "or start over it with --force")


def start(store: Store, task_id: str, desc: str, paths: list[str], *, force: bool = False,
          replaced: list[StopResult] | None = None, settings: dict[str, str] | None = None) -> dict[str, str]:
    """Start a task. Over an ACTIVE or PAUSED task only with ``force``: that task is then
    archived first, as ``task stop --force`` would (nothing is discarded), and its
    StopResult appended to ``replaced``. ``settings``: extra status keys (AUTO_STOP=1)."""
    _valid_id(task_id)
    codec.check_text(desc, "--desc")
    if force and read_status(store).get("STATE") in ("ACTIVE", "PAUSED"):
        try:
            result = stop(store, force=True, extra={"REPLACED_BY": task_id})
        except CheckFailed:
            result = None  # stopped by someone else meanwhile
        if result is not None and replaced is not None:
            replaced.append(result)
    with store.lock(LOCK):
        old = read_status(store)
        if old.get("STATE") in ("ACTIVE", "PAUSED") and not force:
            raise _busy(old)
        entries = [Entry("todo", p) for p in paths]
        seq = codec.status_int(old, "SEQ", store.shown(STATUS)) + 1
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
        _refresh(new, entries)
        if not entries:
            new["STATE"] = "ACTIVE"
        _commit(store, old, new, entries)
    store.log_change("task", "start", f"{task_id} total={len(entries)}")
    from agentctl import files, gitsync

    files.start(store, task_id)  # a task's files log starts with it (stop archives it)
    gitsync.record_baseline(store, new)  # the commit and the already-dirty paths, for `files sync` (never raises)
    return new


class UpdateResult:
    __slots__ = ("applied", "fields", "message", "changed")

    def __init__(self, applied: bool, fields: dict[str, str], message: str = "", changed: list[str] | None = None) -> None:
        self.applied = applied
        self.fields = fields
        self.message = message
        self.changed: list[str] = [] if changed is None else changed

    def __repr__(self) -> str:
        return f"UpdateResult(applied={self.applied!r}, message={self.message!r}, changed={self.changed!r})"


def update(
    store: Store,
    *,
    done: int | None = None,
    next_path: str | None = None,
    notes: str | None = None,
    state: str | None = None,
    seq: int | None = None,
) -> UpdateResult:
    if done is None and next_path is None and notes is None and state is None:
        raise UsageError("nothing to update; give --done N, --next PATH, --notes TEXT or --state ACTIVE|PAUSED")
    if state is not None and state not in ("ACTIVE", "PAUSED"):
        raise UsageError(f"--state must be ACTIVE or PAUSED, got {state[:20]!r}")
    if done is not None:
        codec.check_uint(done, "--done", minimum=1)
    if seq is not None:
        codec.check_uint(seq, "--seq")
    if notes is not None:
        codec.check_text(notes, "--notes", required=False)
    if done and next_path is None:
        fast = _update_plain(store, done, notes, state, seq)
        if fast is not None:
            return fast
    with store.lock(LOCK):
        old = read_status(store)
        cur_seq = codec.status_int(old, "SEQ", store.shown(STATUS))
        if old.get("STATE") == "IDLE":
            raise UsageError("no task is running; start one with `agentctl task start --id ID --desc TEXT --files LIST`")
        if seq is not None and seq != cur_seq:
            return UpdateResult(
                False, old, f"not applied: SEQ is {cur_seq}, not {seq} (already applied, or read a newer state); nothing changed"
            )
        new = dict(old)
        entries = read_entries(store, old)
        list_changed = False
        changed: list[str] = []
        if next_path is not None:
            target = next((e for e in entries if e.path == next_path), None)
            if target is None:
                raise UsageError(f"--next {next_path!r} is not an entry of task {old.get('TASK_ID')}; give a listed path")
            if target.closed:
                raise UsageError(f"--next {next_path!r} is already {'done' if target.done else 'skipped'}; give an entry not yet done")
            new["NEXT"] = next_path
            new["NEXT_PINNED"] = "1"
        if done:
            now = time.time()  # entries claimed by helpers are theirs: --done N never takes one
            order = [e for e in entries if e.path == new.get("NEXT") and not e.closed and _live_claim(e, now) is None]
            order += [e for e in entries if not e.closed and e not in order and _live_claim(e, now) is None]
            if entries and not order and any(not e.closed for e in entries):
                raise CheckFailed(
                    f"every entry left in task {old.get('TASK_ID')} is claimed by a helper under a live lease; "
                    "mark one by name with `agentctl task done PATH`, or wait for the claims to end"
                )
            for e in order[:done]:
                e.mark = "done"
                _release(e)
                changed.append(e.path)
                list_changed = True
            if not entries:
                raise UsageError(f"task {old.get('TASK_ID')} has no entry list; --done needs one (task start --files)")
        if notes is not None:
            new["NOTES"] = notes
        if state is not None and new.get("STATE") != "DONE":
            new["STATE"] = state
        _refresh(new, entries)
        new["SEQ"] = str(cur_seq + 1)
        _commit(store, old, new, entries if list_changed else None)
    store.log_change("task", "update", f"seq={new['SEQ']} done={new.get('DONE')}/{new.get('TOTAL')}")
    return UpdateResult(True, new, "", changed)


def mark_done(store: Store, paths: list[str]) -> UpdateResult:
    if not paths:
        raise UsageError("give the paths to mark done: `agentctl task done PATH...`")
    fast = _mark_done_plain(store, paths)
    if fast is not None:
        return fast
    with store.lock(LOCK):
        old = read_status(store)
        if old.get("STATE") == "IDLE":
            raise UsageError("no task is running; start one with `agentctl task start`")
        entries = read_entries(store, old)
        index = {e.path: e for e in entries}
        missing = [p for p in paths if p not in index]
        if missing:
            raise UsageError(f"{missing[0]!r} is not an entry of task {old.get('TASK_ID')}; nothing was marked")
        changed = []
        for p in paths:
            e = index[p]
            if not e.done:
                e.mark = "done"
                _release(e)  # done releases a helper's claim
                changed.append(p)
        if not changed:
            return UpdateResult(False, old, "already done; nothing changed")
        new = dict(old)
        _refresh(new, entries)
        new["SEQ"] = str(codec.status_int(old, "SEQ", store.shown(STATUS)) + 1)
        _commit(store, old, new, entries)
    store.log_change("task", "done", " ".join(changed)[:400])
    return UpdateResult(True, new, "", changed)


class ClaimResult:
    __slots__ = ("path", "agent", "expires", "fields")

    def __init__(self, path: str, agent: str, expires: int, fields: dict[str, str]) -> None:
        self.path = path
        self.agent = agent
        self.expires = expires
        self.fields = fields


def claim(store: Store, agent: str, lease: int = DEFAULT_LEASE) -> ClaimResult:
    """Give ``agent`` the first entry neither done nor claimed under a live lease (one commit)."""
    valid_agent(agent)
    if not 1 <= lease <= MAX_LEASE:
        raise UsageError(f"--lease must be from 1 to {MAX_LEASE} seconds, got {lease}")
    with store.lock(LOCK):
        old = read_status(store)
        state = old.get("STATE")
        if state == "IDLE":
            raise UsageError("no task is running; start one with `agentctl task start --id ID --desc TEXT --files LIST`")
        if state == "PAUSED":
            raise UsageError(f"task {old.get('TASK_ID')} is PAUSED; resume it with `agentctl task update --state ACTIVE` first")
        entries = read_entries(store, old)
        now = time.time()
        target = next((e for e in entries if not e.closed and _live_claim(e, now) is None  # never a protected one
                       and not protect.denied_entries(store, [e.path])), None)
        if target is None:
            live = [c for c in (_live_claim(e, now) for e in entries) if c is not None]
            if not live:
                raise CheckFailed(f"task {old.get('TASK_ID')} has no entry left to claim: {old.get('DONE', '0')}/{old.get('TOTAL', '0')} done")
            who = sorted({a for a, _ in live})
            raise CheckFailed(
                f"no entry left to claim: {old.get('DONE', '0')}/{old.get('TOTAL', '0')} done, {len(live)} claimed under live leases "
                f"by {', '.join(who[:5])}; the first lease ends at {now_iso(min(x for _, x in live))}"
            )
        _release(target)  # an expired claim is replaced
        expires = int(now) + lease + 1  # a whole second on top: a lease never lasts less than asked
        target.extra += ["claim", agent, str(expires)]
        new = dict(old)
        _refresh(new, entries)
        new["SEQ"] = str(codec.status_int(old, "SEQ", store.shown(STATUS)) + 1)
        _commit(store, old, new, entries)
    store.log_change("task", "claim", f"{agent} {target.path} until {expires}"[:400])
    return ClaimResult(target.path, agent, expires, new)


def claims(store: Store, fields: dict[str, str], agent: str | None = None) -> list[tuple[str, str, int]]:
    """Live claims (path, agent, expiry), optionally one agent's; reads the list only when claims exist."""
    if fields.get("STATE", "IDLE") == "IDLE" or fields.get("CLAIMS", "0") == "0":
        return []
    now = time.time()
    out = []
    for e in read_entries(store, fields):
        c = _live_claim(e, now)
        if c is not None and (agent is None or c[0] == agent):
            out.append((e.path, c[0], c[1]))
    return out


def claims_lines(found: list[tuple[str, str, int]]) -> list[str]:
    """``CLAIM_n=PATH|AGENT|UNTIL`` lines (fields escaped as in every record)."""
    return [f"CLAIM_{i}={codec.encode(p)}|{codec.encode(a)}|{now_iso(x)}" for i, (p, a, x) in enumerate(found, 1)]


def set_state(store: Store, state: str) -> dict[str, str] | None:
    """PAUSE or resume the task for a runlevel switch; None when there is nothing to do."""
    with store.lock(LOCK):
        old = read_status(store)
        want_from = "ACTIVE" if state == "PAUSED" else "PAUSED"
        if old.get("STATE") != want_from:
            return None
        new = dict(old)
        new["STATE"] = state
        new["SEQ"] = str(codec.status_int(old, "SEQ", store.shown(STATUS)) + 1)
        _commit(store, old, new, None)
    store.log_change("task", "pause" if state == "PAUSED" else "resume", old.get("TASK_ID", ""))
    return new


class StopResult:
    __slots__ = ("task_id", "archive", "warning", "fields", "forced", "evidence")

    def __init__(self, task_id: str, archive: str, warning: str, fields: dict[str, str], forced: bool = False,
                 evidence: str = "") -> None:
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
        elif not store.exists(f"logs/files-{task_id}{dot}.list") and not store.exists(f"logs/files-{task_id}{dot}.log"):
            return n
        n += 1


def stop(store: Store, *, extra: dict[str, str] | None = None, force: bool = False) -> StopResult:
    """Archive the task (status, list, files log, verify journal), index it, and go back to IDLE.

    Refused (CheckFailed) when verify commands exist and an edit logged in this task is
    not covered by a passing run, unless ``force`` (then the archive says FORCED=1).
    """
    from agentctl import evidence, filecount, files, history, retention, verify, violations

    retention.policy(store)  # a wrong retention setting refuses the stop before anything moves
    with store.lock(".lock"), store.lock(LOCK):
        old = read_status(store)
        if old.get("STATE") == "IDLE":
            raise CheckFailed("no task is running; nothing to stop")
        task_id = old.get("TASK_ID", "task")
        vfields = verify.read_status(store)
        ev = evidence.check(store, vfields)
        if ev.blocks_stop and not force:
            raise CheckFailed(
                f"task {task_id} is not verified: {ev.detail()}; run `agentctl verify start` until it passes, "
                "or stop anyway with `agentctl task stop --force` (recorded as forced)"
            )
        broken = violations.stop_check(store, task_id, force)  # refused like an unverified change
        entries = read_entries(store, old)
        warning = ""
        if old.get("STATE") != "DONE":
            warning = f"task {task_id} was {old.get('STATE')} at {old.get('DONE', '0')}/{old.get('TOTAL', '0')}, not DONE"
        started = old.get("STARTED", "")
        ended = time.time()
        archived = dict(old)
        archived["ENDED"] = now_iso(ended)
        archived["DURATION"] = _duration(started, ended)
        archived.pop("CLAIMS", None)
        archived["FILES_TOUCHED"] = str(len(files.touched(store)))
        vstate = vfields.get("STATE", "IDLE")
        if vstate in ("PASSED", "FAILED"):
            archived["LAST_VERIFY"] = f"{vstate} {vfields.get('LAST_RUN', '')}"
        else:
            archived["LAST_VERIFY"] = f"PASSED {vfields['LAST_PASS']}" if vfields.get("LAST_PASS") else "never"
        archived["VERIFIED"] = ev.verdict
        archived["EVIDENCE"] = ev.detail()
        archived["FORCED"] = "1" if ev.blocks_stop or broken else "0"
        archived.update(violations.archive_fields(store, old.get("STARTED", ""), broken))
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
        archived["VERIFY_JOURNAL"] = f"logs/verify-{task_id}{dot}.journal" if store.exists(verify.JOURNAL) else ""
        store.replace(done_rel, codec.format_status({k: v for k, v in archived.items() if k != "LIST"}))
        store.replace(f"logs/files-{task_id}{dot}.list", format_entries(entries))
        seq = codec.status_int(old, "SEQ", store.shown(STATUS))
        new = {"STATE": "IDLE", "SEQ": str(seq + 1), "TASK_ID": task_id}
        _commit(store, old, new, None)
        files.archive(store, f"files-{task_id}{dot}")
        filecount.keep_empty(store)
        verify.archive_task(store, f"verify-{task_id}{dot}")
        history.append_index(store, archived, done_rel)
        violations.force(store, task_id)  # a forced stop closes the open violations (recorded above)
    store.log_change("task", "stop", f"{task_id} -> {done_rel}" + (" FORCED" if ev.blocks_stop or broken else ""))
    try:
        retention.gc(store)  # every stop keeps logs/ within the retention policy
    except (OSError, StateError) as exc:
        store.log_change("gc", "failed", str(exc)[:200])
    return StopResult(task_id, done_rel, warning, archived, ev.blocks_stop or bool(broken), ev.line())


def _duration(started: str, ended: float) -> str:
    try:
        t0 = time.mktime(time.strptime(started[:19], "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return ""
    secs = max(0, int(ended - t0))
    return f"{secs // 3600}h{secs % 3600 // 60:02d}m{secs % 60:02d}s"


def status_lines(fields: dict[str, str]) -> list[str]:
    """The status as printed: KEY=VALUE in the file's escaped form, internal keys hidden."""
    order = [k for k in KEYS if k in fields] + [k for k in fields if k not in KEYS]
    return [f"{k}={codec.encode(fields[k])}" for k in order if k not in ("LIST", "NEXT_PINNED", "CLAIMS")]


def on_runlevel_stop(store: Store) -> str:
    """A runlevel without the task service pauses it (never archives it)."""
    return "PAUSED (kept, not archived)" if set_state(store, "PAUSED") else "nothing running"


def on_runlevel_start(store: Store) -> str:
    return "resumed (PAUSED -> ACTIVE)" if set_state(store, "ACTIVE") else "running"
