"""The task service's status file and the two edits the agent makes after every file.

``services/task/status`` holds KEY=VALUE lines; the entry list lives in
``services/task/list-SEQ`` (see ``taskentries``). A change that touches the list writes a
new list file first and then the status naming it, so the status rename is the single
commit point (:func:`commit`): a crash leaves either the old pair or the new pair, and an
update is never half applied.

`task done` and `task update --done N` run after every file, on lists of any length: they
take the text twin below when the list is plain, else the general path (``taskedit``, loaded
only then). The twin lives here, with the status it reads and commits, so that these two
commands load this one task module and no other (tests/test_perf_guard.py). The rest of the
service lives apart: the list format (``taskentries``), corrections (``tasklist``), claims
(``taskclaims``), the list's input (``taskinput``), pausing (``taskpause``), the id
(``taskid``), start and stop (``workflow``).
"""

from __future__ import annotations

import os

from agentctl.ground import codec, lockorder
from agentctl.ground.errors import NoTask, StateError, UsageError
from agentctl.ground.store import Store, now_iso

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.task.entries import Entry

STATUS = "services/task/status"
LOCK = lockorder.TASK
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
    "LIST_SIG",
    "MATCH",
    "MATCH_PATHS",
)
MAX_LIST_BYTES = 64 << 20


def read_status(store: Store) -> dict[str, str]:
    data = store.read(STATUS)
    if data is None:
        return {"STATE": "IDLE", "SEQ": "0"}
    fields = codec.parse_status(data, store.shown(STATUS), KEYS)
    state = fields.get("STATE", "")
    if state not in STATES:
        raise StateError(
            f"{store.shown(STATUS)}: STATE={state[:20]!r} is not one of {'/'.join(STATES)}; run `agentctl "
            f"doctor`"
        )
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
        raise StateError(
            f"{store.shown(STATUS)}: LIST={name!r} is not a list file name; run `agentctl doctor`"
        )
    rel = f"services/task/{name}"
    data = store.read(rel, cap=MAX_LIST_BYTES)
    for _ in range(100):
        if data is not None:
            break
        # Readers take no lock: a writer may have committed a newer status and removed this
        # list since ``fields`` was read. Follow the status to the list it names now, and
        # bring ``fields`` along so the caller keeps a matching pair.
        fresh = read_status(store)
        if (
            fresh.get("LIST", "") in ("", name)
            or "/" in fresh["LIST"]
            or not fresh["LIST"].startswith("list-")
        ):
            break
        fields.clear()
        fields.update(fresh)
        name = fresh["LIST"]
        rel = f"services/task/{name}"
        data = store.read(rel, cap=MAX_LIST_BYTES)
    if data is None:
        raise StateError(
            f"{store.shown(rel)} is missing for the {fields.get('STATE')} task; run `agentctl doctor`"
        )
    from agentctl.task.entries import parse

    return parse(data, store.shown(rel))


def commit(
    store: Store,
    old: dict[str, str],
    new: dict[str, str],
    entries: list[Entry] | None,
    list_data: bytes | None = None,
    plain: bool = False,
) -> None:
    """Write the list (when it changed: ``entries``, or its bytes) and then the status; remove the old list.
    ``plain``: ``list_data`` is a plain list whose TOTAL and DONE are ``new``'s (see _plain_list)."""
    old_list = old.get("LIST", "")
    if entries is not None or list_data is not None:
        if list_data is None:
            from agentctl.task.entries import format_entries

            list_data = format_entries(entries or [])
        new["LIST"] = f"list-{new['SEQ']}"
        written = store.replace(f"services/task/{new['LIST']}", list_data)
        if plain:  # the file as written, and the counts of it that the status holds
            new["LIST_SIG"] = f"{_sig(written)}:{new.get('TOTAL', '')}:{new.get('DONE', '')}"
        else:
            new.pop("LIST_SIG", None)
    new["UPDATED"] = now_iso()
    ordered = {k: new[k] for k in KEYS if k in new}
    store.replace(STATUS, codec.format_status(ordered))
    if old_list and old_list != new.get("LIST"):
        try:
            os.unlink(store.path(f"services/task/{old_list}"))
        except FileNotFoundError:
            pass
    if new.get("STATE") == "DONE" and old.get("STATE") != "DONE" and store.alerts():
        from agentctl.notify import fire  # one stat above when nothing is configured (the hot path)

        fire.event(
            store,
            "task-done",
            detail=f"{new.get('DONE', '')}/{new.get('TOTAL', '')} done: {new.get('DESC', '')}",
            task=new.get("TASK_ID", ""),
        )


def next_seq(store: Store, old: dict[str, str]) -> str:
    """The SEQ a change of ``old`` commits with."""
    return str(codec.status_int(old, "SEQ", store.shown(STATUS)) + 1)


def status_lines(fields: dict[str, str]) -> list[str]:
    """The status as printed: KEY=VALUE in the file's escaped form, internal keys hidden."""
    order = [k for k in KEYS if k in fields] + [k for k in fields if k not in KEYS]
    return [
        f"{k}={codec.encode(fields[k])}"
        for k in order
        if k not in ("LIST", "NEXT_PINNED", "CLAIMS", "LIST_SIG")
    ]


class UpdateResult:
    __slots__ = ("applied", "fields", "message", "changed")

    def __init__(
        self, applied: bool, fields: dict[str, str], message: str = "", changed: list[str] | None = None
    ) -> None:
        self.applied = applied
        self.fields = fields
        self.message = message
        self.changed: list[str] = [] if changed is None else changed

    def __repr__(self) -> str:
        return f"UpdateResult(applied={self.applied!r}, message={self.message!r}, changed={self.changed!r})"


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


def _sig(st: os.stat_result) -> str:
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"


def _plain_list(store: Store, fields: dict[str, str]) -> _PlainList | None:
    """The task's list as a _PlainList, or None when it must take the general path.

    A list this path wrote is known plain, with the status's TOTAL and DONE: its status names the
    file's size, mtime and inode and those counts (``LIST_SIG``), and a list that still has them
    is read without the five scans that check it (a millisecond on 10,000 entries). A list written
    otherwise, changed since (a hand edit, a pull), or a status whose counts changed, is checked whole."""
    name = fields.get("LIST", "")
    if (
        not _PLAIN
        or not name
        or "/" in name
        or not name.startswith("list-")
        or fields.get("CLAIMS", "0") != "0"
    ):
        return None
    rel = f"services/task/{name}"
    sig = fields.get("LIST_SIG", "")
    counts = f":{fields.get('TOTAL', '')}:{fields.get('DONE', '')}"
    signed = (
        bool(sig)
        and fields.get("TOTAL", "").isdigit()
        and fields.get("DONE", "").isdigit()
        and _sig_of(store, rel) + counts == sig
    )
    data = store.read(rel, cap=MAX_LIST_BYTES)
    # unchanged meanwhile
    if signed and data and _sig_of(store, rel) + counts == sig and len(data) == int(sig.split(":", 1)[0]):
        try:
            return _PlainList(data.decode("utf-8"), int(fields["TOTAL"]), int(fields["DONE"]))
        except UnicodeDecodeError:
            return None
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


def _sig_of(store: Store, rel: str) -> str:
    try:
        return _sig(os.lstat(store.path(rel)))
    except OSError:
        return ""


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
        if "MATCH" in old:
            _refuse_matched(store, old, paths)
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
        new["SEQ"] = next_seq(store, old)
        commit(store, old, new, None, plain.text.encode("utf-8"), plain=True)
    store.log_change("task", "done", " ".join(changed)[:400])
    return UpdateResult(True, new, "", changed)


def _update_plain(
    store: Store, done: int, notes: str | None, state: str | None, seq: int | None
) -> UpdateResult | None:
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
        commit(store, old, new, None, plain.text.encode("utf-8") if marks else None, plain=True)
    store.log_change("task", "update", f"seq={new['SEQ']} done={new.get('DONE')}/{new.get('TOTAL')}")
    return UpdateResult(True, new, "", changed)


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
        raise UsageError(
            "nothing to update; give --done N, --next PATH, --notes TEXT or --state ACTIVE|PAUSED"
        )
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
            raise NoTask()
        if seq is not None and seq != cur_seq:
            return UpdateResult(
                False,
                old,
                f"not applied: SEQ is {cur_seq}, not {seq} (already applied, or read a newer state); nothing "
                f"changed",
            )
        import agentctl.task.entries
        from agentctl.task import edits  # a replay above loads neither: the hot path

        new = dict(old)
        entries = read_entries(store, old)
        changed: list[str] = []
        if next_path is not None:
            edits.pin_next(entries, next_path, old.get("TASK_ID"))
            new["NEXT"] = next_path
            new["NEXT_PINNED"] = "1"
        if done:
            changed = edits.done_in_order(entries, done, new.get("NEXT"), old.get("TASK_ID"))
        if notes is not None:
            new["NOTES"] = notes
        if state is not None and new.get("STATE") != "DONE":
            new["STATE"] = state
        agentctl.task.entries.refresh(new, entries)
        new["SEQ"] = str(cur_seq + 1)
        commit(store, old, new, entries if changed else None)
    store.log_change("task", "update", f"seq={new['SEQ']} done={new.get('DONE')}/{new.get('TOTAL')}")
    return UpdateResult(True, new, "", changed)


def mark_done(store: Store, paths: list[str]) -> UpdateResult:
    if not paths:
        raise UsageError("give the paths to mark done: `agentctl task done PATH...`")
    fast = _mark_done_plain(store, paths)
    if fast is not None:
        return fast
    import agentctl.task.entries
    from agentctl.task import edits

    with store.lock(LOCK):
        old = read_status(store)
        if old.get("STATE") == "IDLE":
            raise NoTask()
        if "MATCH" in old:
            _refuse_matched(store, old, paths)
        entries = read_entries(store, old)
        changed = edits.mark_done(entries, paths, old.get("TASK_ID"))
        if not changed:
            return UpdateResult(False, old, "already done; nothing changed")
        new = dict(old)
        agentctl.task.entries.refresh(new, entries)
        new["SEQ"] = next_seq(store, old)
        commit(store, old, new, entries)
    store.log_change("task", "done", " ".join(changed)[:400])
    return UpdateResult(True, new, "", changed)


def _refuse_matched(store: Store, fields: dict[str, str], paths: list[str]) -> None:
    """A ``--match`` task: a file that still holds a match is not done (task.matched; one git grep)."""
    from agentctl.task import matched

    matched.refuse_done(store, fields, paths)
