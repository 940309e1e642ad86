"""Fingerprints of the protected files: detection that does not ask git.

git can be told to look away from a file (``git update-index --skip-worktree`` or
``--assume-unchanged``, an exclude, an ignore file), and then a write to it shows nowhere that asks
git. So every file under a P0 deny glob, tracked or not, is fingerprinted (size, mtime, inode, and
its content's SHA-256) at ``task start`` and when a person acknowledges a violation
(:func:`take`, :func:`refresh`); ``files scan`` (and every hook that runs it), ``task stop`` and
``resume`` compare (:func:`changed`): a file whose size, mtime or inode moved is hashed again, and
one whose content differs, a new one and a removed one are writes, judged and told as any other.

The record, ``FILE|PATH|SIZE:MTIME_NS:INODE|SHA256[,SHA256...]`` lines (the contents accepted: at
task start, and each a person acknowledged), then ``COVER`` and ``RULE|TEXT`` lines (the P0 rules it
covers: a rule added while the task runs brings its files in as they are then, :func:`cover`, never
as writes), lives in the ledger (constraints.ledger, ``prints-NAME``: out of the working tree), else
in ``services/constraints/prints``. A walk looks at most MAX_WALK entries under the globs' literal
folders (.git and the state folder skipped).
"""

from __future__ import annotations

import os

import agentctl.constraints.denytext
import agentctl.constraints.rules
import agentctl.ground.digest
from agentctl.ground import codec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.constraints.rules import Rule
    from agentctl.ground.store import Store

LOCAL = "services/constraints/prints"
MAX_WALK = 50_000
EMPTY_DIR = "dir"  # the signature of an empty folder (``PATH/``): made or removed, never modified


def _where(store: Store) -> str:
    from agentctl.constraints import ledger

    return ledger.path(store.root, "prints") or LOCAL


def _p0(store: Store) -> list[Rule]:
    from agentctl.constraints import lastseen

    return [
        r
        for r in lastseen.enforced(store, persist=False)
        if r.priority == "P0" and agentctl.constraints.denytext.deny_pattern(r.text)
    ]


def walk(store: Store, rules: list[Rule]) -> dict[str, str]:
    """{path: SIZE:MTIME_NS:INODE} of every regular file (or symlink) a P0 deny glob of ``rules`` matches,
    and {PATH/: EMPTY_DIR} of every empty folder one matches (git shows no empty folder)."""
    from agentctl.constraints import protect

    if not rules:
        return {}
    roots = sorted(protect.deny_roots(store, rules))
    roots = [r for r in roots if not any(r != o and (o == "" or r.startswith(o + "/")) for o in roots)]
    fold = protect.case_insensitive(store)
    skip = {".git", os.path.relpath(store.root, store.project).replace(os.sep, "/")}
    out: dict[str, str] = {}
    budget = MAX_WALK
    stack = list(roots)
    while stack and budget > 0:
        rel = stack.pop()
        full = os.path.join(store.project, rel) if rel else store.project
        try:
            st = os.lstat(full)
        except OSError:
            continue
        if rel and (os.path.islink(full) or not os.path.isdir(full)):
            if agentctl.constraints.rules.match(rules, rel, fold) is not None:
                out[rel] = _sig(st)
            continue
        try:
            it = os.scandir(full)
        except OSError:
            continue
        with it:
            empty = True
            for entry in it:
                empty = False
                budget -= 1
                if budget <= 0:
                    break
                child = f"{rel}/{entry.name}" if rel else entry.name
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if child not in skip:
                            stack.append(child)
                    elif agentctl.constraints.rules.match(rules, child, fold) is not None:
                        out[child] = _sig(entry.stat(follow_symlinks=False))
                except OSError:
                    continue
        if empty and rel and agentctl.constraints.rules.match(rules, rel, fold) is not None:
            out[rel + "/"] = EMPTY_DIR  # an empty folder made under a deny glob: a write git never shows
    return out


def _sig(st: os.stat_result) -> str:
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"


def digest(store: Store, rel: str) -> str:
    """SHA-256 of the file's content (ground.digest); "-" when it cannot be read."""
    return agentctl.ground.digest.digest(store.project, rel)


def _load(store: Store, task: str | None = None) -> dict[str, tuple[str, str]] | None:
    """The fingerprints, None when there are none (or, given ``task``, none for that task: taken for
    another one, as after a ``task start`` whose ledger write was refused inside the agent's sandbox)."""
    from agentctl.constraints import ledger

    file = _where(store)
    data = store.read(LOCAL, cap=32 << 20) if file == LOCAL else ledger.read(file, 32 << 20)
    if data is None:
        return None
    head = codec.split_record(data.split(b"\n", 1)[0].decode("utf-8", "surrogateescape"), 2)
    if head is None or head[0] != "PRINTS" or (task is not None and head[1] != task):
        return None
    _HEAD[store.root] = head[1]
    out: dict[str, tuple[str, str]] = {}
    covered: set[str] | None = None
    for line in data.decode("utf-8", "surrogateescape").split("\n"):
        fields = codec.split_record(line, 4) if line.startswith("FILE|") else None
        if fields is not None:
            out[fields[1]] = (fields[2], fields[3])
        elif line == "COVER":
            covered = set()
        elif line.startswith("RULE|") and covered is not None:
            covered.add(codec.decode(line[5:]))
    _COVER[store.root] = covered  # None: a record of an older agentctl (no COVER line), every rule
    return out


_HEAD: dict[str, str] = {}  # the task the fingerprints read last were taken for
_COVER: dict[str, set[str] | None] = {}  # the P0 rules they cover (None: an older record, every rule)


def _save(store: Store, prints: dict[str, tuple[str, str]], task: str | None = None) -> None:
    from agentctl.constraints import ledger

    head = task if task is not None else _HEAD.get(store.root, "")
    covered = _COVER.get(store.root)
    data = (
        codec.record("PRINTS", head)
        + (b"COVER\n" if covered is not None else b"")
        + b"".join(codec.record("RULE", t) for t in sorted(covered or ()))
        + b"".join(codec.record("FILE", p, s, d) for p, (s, d) in sorted(prints.items()))
    )
    file = _where(store)
    if file != LOCAL and ledger.write(store, file, data):
        return
    os.makedirs(store.path("services/constraints"), mode=0o700, exist_ok=True)
    store.replace(LOCAL, data)


def take(store: Store, task: str) -> int:
    """Fingerprint every protected file now (``task start``: ``task`` names it, see :func:`task_key`); how
    many."""
    rules = _p0(store)
    now = walk(store, rules)
    _COVER[store.root] = {r.text for r in rules}
    _save(store, {p: (s, digest(store, p)) for p, s in now.items()}, task)
    return len(now)


def cover(store: Store, task: str) -> int:
    """Bring in the files of the P0 rules the fingerprints of ``task`` do not cover yet (a rule added,
    pulled or made shared while the task runs), as they are now: what was written before a rule existed
    broke none. The files an older rule covers stay as they were (a new one there is a write). How many
    came in."""
    prints = _load(store, task) if task else None
    if prints is None:
        return 0
    return _adopt(store, prints, _p0(store))


def _adopt(store: Store, prints: dict[str, tuple[str, str]], rules: list[Rule]) -> int:
    covered = _COVER.get(store.root)
    if covered is None:
        return 0  # an older record: it covers every rule
    texts = {r.text for r in rules}
    fresh = [r for r in rules if r.text not in covered]
    if not fresh and covered <= texts:
        return 0
    from agentctl.constraints import protect

    fold = protect.case_insensitive(store)
    if not covered <= texts:  # a rule let go: its files are forgotten (brought in anew if it comes back)
        for path in [p for p in prints if agentctl.constraints.rules.match(rules, p, fold) is None]:
            del prints[path]
    old = [r for r in rules if r not in fresh]
    came = 0
    now = [
        (p, s)
        for p, s in walk(store, fresh).items()
        if agentctl.constraints.rules.match(old, p, fold) is None
    ]
    for path, sig in now:
        if path not in prints:
            prints[path] = (sig, digest(store, path))
            came += 1
    from agentctl.constraints import violations

    violations.accept(store, [p for p, _ in now])  # what git shows changed before the rule is no write either
    _COVER[store.root] = texts
    try:
        _save(store, prints)
    except Exception:  # a read-only place: brought in again next time
        pass
    return came


def refresh(store: Store, rel: str) -> None:
    """A person acknowledged the write to ``rel``: its fingerprint is the file as it is now."""
    prints = _load(store)
    if prints is None:
        return
    try:
        st = os.lstat(os.path.join(store.project, rel))
    except OSError:
        prints.pop(rel, None)
    # the content acknowledged joins the ones accepted (a restore to the task's start is no write either)
    else:
        d = digest(store, rel)
        accepted = [x for x in prints.get(rel, ("", ""))[1].split(",") if x and x != d][-7:]
        prints[rel] = (_sig(st), ",".join(accepted + [d]))
    _save(store, prints)


def task_key(fields: dict[str, str]) -> str:
    """The running task as the fingerprints name it (its id and start time; "" when none runs)."""
    return (
        ""
        if fields.get("STATE", "IDLE") == "IDLE"
        else f"{fields.get('TASK_ID', '')}@{fields.get('STARTED', '')}"
    )


def changed(store: Store, task: str) -> dict[str, str]:
    """{path: CREATE|MODIFY|DELETE} of the protected files that differ from their fingerprints taken for
    ``task`` (:func:`task_key`). None for it yet: they are taken now ({}). A file whose stat moved but
    whose content did not is fingerprinted again (so the next compare costs a stat)."""
    if not task:
        return {}  # no task runs: a person's own edits between tasks are theirs
    prints = _load(store, task)
    rules = _p0(store)
    if prints is None:
        if rules:
            take(store, task)
        return {}
    _adopt(store, prints, rules)  # a rule the record does not cover yet: its files as they are now
    now = walk(store, rules)
    out: dict[str, str] = {}
    moved = False
    for path, sig in now.items():
        old = prints.get(path)
        if old is None:
            out[path] = "CREATE"
        elif old[0] != sig and sig != EMPTY_DIR:
            d = digest(store, path)
            if d in old[1].split(","):  # as at task start, or as a person acknowledged it
                prints[path] = (sig, old[1])
                moved = True
            else:
                out[path] = "MODIFY"
    fold = None
    for path in prints:
        if path not in now:
            if fold is None:
                from agentctl.constraints import protect

                fold = protect.case_insensitive(store)
            # still protected (a rule let go: forgotten)
            if agentctl.constraints.rules.match(rules, path, fold) is not None:
                out[path] = "DELETE"
    if moved:
        try:
            _save(store, prints)
        except Exception:  # a read-only place: compared again next time
            pass
    return out
