"""The P0 rules last seen, so that one never silently stops being enforced.

A P0 rule leaves the rules file in one proper way: a person's ``agentctl constraints remove``
(an agent's is asked of the person by the pre-tool hook, refused over MCP). Any other way (a
hand or shell edit of the file, a ``sync pull``) leaves it *vanished*: still enforced (the
deny-write matchers use the rules in the file and the vanished ones, :func:`enforced`), shown by
``resume`` and said by the hook or command that noticed it, until a person confirms the removal
(``agentctl constraints confirm-removal N|TEXT``, :func:`confirm`) or the rule is back.

The record lives in the ledger (constraints.ledger: ``<git common dir>/agentctl/<worktree>/p0-NAME``),
out of reach of ``git clean``, ``rm -rf .agent-state`` and globs over the project; outside a git
working tree, in ``services/constraints/p0-seen`` (local: never synced), where it was before (a
ledger not written yet takes that old record). It holds ``STATUS|SIGNATURE`` (the rules
file's size, mtime and inode when last compared), ``SEEN|TEXT`` for each P0 rule seen and
``GONE|TIME|TEXT`` for each vanished one. The hot path compares the rules file's signature with
the recorded one (a stat and a small read) and parses nothing more while they agree. A P0 rule
added by any way is simply seen; only its disappearance needs a person.
"""

from __future__ import annotations

import os

from agentctl.constraints.rules import LOCK, STATUS, Rule, read
from agentctl.ground import codec
from agentctl.ground.errors import StateError, UsageError
from agentctl.ground.store import Store, now_iso

SEEN = "services/constraints/p0-seen"
# (time, text) this process found vanished (operation.run and the hooks say it)
NOTICED: list[tuple[str, str]] = []


class Record:
    __slots__ = ("status", "seen", "gone", "folder")

    def __init__(
        self, status: str = "", seen: list[str] | None = None, gone: dict[str, str] | None = None
    ) -> None:
        self.status = status  # the rules file's signature when last compared ("": never)
        self.seen = seen or []  # the P0 rule texts present then, in the file's order
        self.gone = gone or {}  # text -> when it was found missing, its removal not confirmed
        self.folder = ""  # the state folder's identity when last compared (ledger.folder_id; "": unknown)

    def data(self) -> bytes:
        return (
            codec.record("STATUS", self.status)
            + b"".join(codec.record("SEEN", t) for t in self.seen)
            + b"".join(codec.record("GONE", w, t) for t, w in self.gone.items())
            + (codec.record("FOLDER", self.folder) if self.folder else b"")
        )


def parse(data: bytes) -> tuple[Record, list[int]]:
    """The record, and the numbers (from 1) of the lines that are none of its records."""
    rec = Record()
    bad = []
    for n, line in enumerate(data.decode("utf-8", "surrogateescape").split("\n")[:-1], 1):
        kind = line.partition("|")[0]
        fields = codec.split_record(line, 3 if kind == "GONE" else 2)
        if fields is None or kind not in ("STATUS", "SEEN", "GONE", "FOLDER"):
            bad.append(n)
        elif kind == "FOLDER":
            rec.folder = fields[1]
        elif kind == "STATUS":
            rec.status = fields[1]
        elif kind == "SEEN":
            rec.seen.append(fields[1])
        else:
            rec.gone[fields[2]] = fields[1]
    return rec, bad


def where(store: Store) -> str:
    """The record's file: in the ledger (an absolute path) when the project is a git working tree, else
    ``SEEN`` in the state folder."""
    from agentctl.constraints import ledger

    return ledger.path(store.root, "p0") or SEEN


def _load(store: Store) -> Record | None:
    from agentctl.constraints import ledger

    file = where(store)
    if file == SEEN:
        data = store.read(SEEN, cap=8 << 20)
    else:
        data = ledger.read(file)
        if data is None:
            data = store.read(SEEN, cap=8 << 20)  # the record from before the ledger, once
    return None if data is None else parse(data)[0]


def _save(store: Store, rec: Record) -> None:
    """Write the record (with the state folder it was compared with) to the ledger; where the ledger
    cannot be written (the agent's sandbox keeps it read-only), to the state folder, for the next writer."""
    from agentctl.constraints import ledger

    file = where(store)
    if file != SEEN:
        if not rec.folder or rec.folder == "-":
            rec.folder = ledger.folder_id(store.root)
        if ledger.write(store, file, rec.data()):
            return
    store.replace(SEEN, rec.data())


def folder_line(store: Store) -> list[str]:
    """``STATE FOLDER REPLACED`` when the state folder is not the one the ledger last compared ([] if it
    is)."""
    from agentctl.constraints import ledger

    if where(store) == SEEN:
        return []
    rec = _load(store)
    note = ledger.folder_note(store, rec.folder if rec is not None else "")
    return [note] if note else []


def acknowledge_folder(store: Store) -> bool:
    """A person's ``constraints confirm-removal``/``doctor --fix`` takes this state folder as the one the
    ledger compares with (its rules stay as recorded); False if nothing was to take."""
    from agentctl.constraints import ledger

    rec = _load(store)
    if rec is None or not rec.folder or rec.folder == ledger.folder_id(store.root):
        return False
    rec.folder = ledger.folder_id(store.root)
    with store.lock(LOCK):
        _save(store, rec)
    return True


def status_signature(store: Store) -> str:
    """The rules file's size, mtime and inode, and the shared file's (ground.sharedfile) when there is one."""
    from agentctl.ground import sharedfile

    other = sharedfile.signature(store)
    try:
        st = os.stat(store.path(STATUS))
    except (OSError, ValueError):
        return "-" + (f"+{other}" if other else "")
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}" + (f"+{other}" if other else "")


def _compare(store: Store, rec: Record | None) -> tuple[Record, list[tuple[str, str]]]:
    """The record brought up to the rules file as it is now, and the P0 rules newly found missing.
    The signature is taken before the file is read: a change between them is compared next time."""
    sig = status_signature(store)
    now = [r.text for r in read(store) if r.priority == "P0"]
    old = rec or Record()
    here = set(now)
    # a vanished rule back in the file: seen again
    gone = {t: w for t, w in old.gone.items() if t not in here}
    when = now_iso()
    newly = [(when, t) for t in old.seen if t not in here and t not in gone]
    gone.update((t, w) for w, t in newly)
    fresh = Record(sig, now, gone)
    fresh.folder = old.folder
    return fresh, newly


def vanished(store: Store, persist: bool = True) -> list[tuple[str, str]]:
    """(since, text) of each P0 rule that left the rules file without a person's confirmation.

    While the rules file is as last compared, the record answers. Otherwise it is compared again
    and, with ``persist``, written under the constraints lock (the newly vanished are added to
    NOTICED for the answer to say); without (a pre-edit hook: decide, write nothing), or when the
    lock is not free in time, the answer is computed and the next writer records it.
    """
    rec = _load(store)
    if rec is not None and rec.status == status_signature(store):
        return [(w, t) for t, w in rec.gone.items()]
    if rec is None and not any(r.priority == "P0" for r in read(store)):
        return []  # no P0 rule seen yet: nothing to keep, no file made
    if persist:
        try:
            with store.lock(LOCK):
                fresh, newly = _compare(store, _load(store))
                _save(store, fresh)
            NOTICED.extend(newly)
            for _, text in newly:
                store.log_change(
                    "constraints", "vanished", f"P0|{text} left the rules file without `constraints remove`"
                )
            return [(w, t) for t, w in fresh.gone.items()]
        except StateError:
            if store.lock_deadline is None:
                raise
    fresh, _ = _compare(store, rec)
    return [(w, t) for t, w in fresh.gone.items()]


def enforced(store: Store, rules: list[Rule] | None = None, persist: bool = True) -> list[Rule]:
    """The rules to judge a write by: the file's (``rules`` if already read) and the vanished P0 ones."""
    rules = read(store) if rules is None else rules
    gone = vanished(store, persist)
    if not gone:
        return rules
    have = {r.text for r in rules if r.priority == "P0"}
    return rules + [Rule("P0", t) for _, t in gone if t not in have]


def take_noticed() -> list[str]:
    """What to say about the P0 rules this process found vanished (once each), and forget them."""
    found = list(NOTICED)
    NOTICED.clear()
    return [vanished_line(t, w, "P0 RULE VANISHED") for w, t in found]


def vanished_line(text: str, since: str, head: str = "P0 VANISHED") -> str:
    return (
        f"{head}: `{text}` left the rules file at {since} without `agentctl constraints remove` (a hand "
        "or shell edit, a pull); it is still enforced. Only a person may confirm its removal: "
        f"`agentctl constraints confirm-removal {_sh(text)}`; or put it back: `agentctl constraints add P0 "
        f"{_sh(text)}` "
        "(with --shared where it stood in agentctl.rules)"
    )


def gone_rules(store: Store, persist: bool = True) -> list[Rule]:
    """The vanished P0 rules as rules (resume lists them with the others: they still hold)."""
    return [Rule("P0", t) for _, t in vanished(store, persist)]


def lines(store: Store, persist: bool = True) -> list[str]:
    """``P0 VANISHED`` lines for resume (``persist=False``: it writes nothing): every vanished rule (never
    cut)."""
    return [vanished_line(t, w) for w, t in vanished(store, persist)]


def _sh(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


# -- the rules' own writers (under LOCK): a person's change is recorded, anything else compared first --


def edited(store: Store, removed: str | None = None) -> None:
    """After ``constraints add|remove`` rewrote the rules file (under LOCK, held by the caller): a P0
    rule removed by ``removed`` (its text) is let go; what else left the file before is kept vanished."""
    rec = _load(store)
    if rec is None and removed is None and not any(r.priority == "P0" for r in read(store)):
        return
    before = rec or Record()
    if removed is not None and removed not in before.seen and removed not in before.gone:
        before.seen.append(removed)  # seen only now: a person removes it, nothing vanished
    if removed is not None:
        before.seen = [t for t in before.seen if t != removed]
        before.gone.pop(removed, None)
    fresh, newly = _compare(store, before)
    _save(store, fresh)
    NOTICED.extend(newly)


def before_edit(store: Store) -> None:
    """Before ``constraints add|remove`` rewrites the rules file (under LOCK): compare the file as it is,
    so that a rule that vanished by hand just before is kept vanished, not taken as the person's change."""
    rec = _load(store)
    if rec is not None and rec.status == status_signature(store):
        return
    if rec is None and not any(r.priority == "P0" for r in read(store)):
        return
    fresh, newly = _compare(store, rec)
    _save(store, fresh)
    NOTICED.extend(newly)


def confirm(store: Store, what: str) -> str:
    """A person confirms that a vanished P0 rule is removed (by its number in the P0 VANISHED list,
    from 1, its text or ``P0|text``); its text. It is no longer enforced."""
    with store.lock(LOCK):
        before_edit(store)
        rec = _load(store) or Record()
        order = list(rec.gone)
        if not order:
            raise UsageError(
                "no P0 rule has vanished from the rules file; `agentctl constraints list` shows the rules "
                "(remove one with `agentctl constraints remove`)"
            )
        text = None
        if what.isascii() and what.isdigit():
            n = int(what)
            if not 1 <= n <= len(order):
                raise UsageError(
                    f"there is no vanished P0 rule number {n}; `agentctl resume` lists them (1 to "
                    f"{len(order)})"
                )
            text = order[n - 1]
        else:
            bare = what[3:] if what[:3].upper() == "P0|" else what
            text = next((t for t in order if t in (what, bare)), None)
        if text is None:
            raise UsageError(
                f"no vanished P0 rule reads {what[:80]!r}; `agentctl resume` lists them on P0 VANISHED lines"
            )
        del rec.gone[text]
        _save(store, rec)
    store.log_change("constraints", "confirm-removal", f"P0|{text}")
    return text
