"""Protected paths: one identity per file.

A write is judged by every name of the file it changes (:func:`judge`): the path as spelled,
its resolved target, and a hard-linked file's other names; a case-insensitive filesystem
matches without case.
"""

from __future__ import annotations

import os
import stat

import agentctl.constraints.denytext
import agentctl.constraints.rules
from agentctl.constraints.rules import Rule
from agentctl.ground.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.constraints.rules import Broken


def judge(
    store: Store,
    rules: list[Rule],
    spelled: str | None,
    target: str | None,
    broken: list[Broken] | tuple[()] = (),
) -> tuple[Rule, str] | None:
    """(rule, the path it matched) if a P0 deny-write rule forbids a write; one identity per file.

    A write is judged by every name of the file it changes: the path as spelled, its resolved
    target (symlinked folders and files, ``..``), and, for a file with more than one hard link,
    each other name of the same inode found under the denied folders (see :func:`_links`).
    On a case-insensitive filesystem the globs match without case. ``broken``: the rules file's
    lines that cannot be taken as written (rules.read_checked); a path one of them may have meant
    (its ``wide`` globs) is refused too, by that line (a :class:`Broken`).
    """
    wide = [b for b in broken if b.wide]
    if not wide and not any(r.priority == "P0" for r in rules):
        return None
    fold = case_insensitive(store)

    def hit(rel: str) -> Rule | None:
        return agentctl.constraints.rules.match(rules, rel, fold) or (
            agentctl.constraints.rules.match_broken(wide, rel, fold) if wide else None
        )

    for rel in (spelled, target):
        if rel is not None:
            rule = hit(rel)
            if rule is not None:
                return rule, rel
    if target is None:
        return None
    try:
        st = os.stat(os.path.join(store.project, target))
    except (OSError, ValueError):
        return None
    if st.st_nlink < 2 or not stat.S_ISREG(st.st_mode):
        return None
    for alias in _links(
        store, rules + [Rule("P0", "deny-write: " + w) for b in wide for w in b.wide], (st.st_dev, st.st_ino)
    ):
        rule = hit(alias)
        if rule is not None:
            return rule, alias
    return None


MAX_LINK_SCAN = 20_000  # entries looked at to find a hard-linked file's other names


def _links(store: Store, rules: list[Rule], key: tuple[int, int]) -> list[str]:
    """Other names of inode ``key`` under the literal folders of the P0 deny globs (the project root
    for a glob without one), at most MAX_LINK_SCAN entries looked at; .git and the state folder skipped."""
    roots = deny_roots(store, rules)
    found: list[str] = []
    budget = MAX_LINK_SCAN
    skip = {".git", os.path.relpath(store.root, store.project)}
    stack = sorted(roots)
    return _scan_links(store, stack, skip, budget, key, found)


def deny_roots(store: Store, rules: list[Rule]) -> set[str]:
    """The literal folders the P0 deny globs of ``rules`` start from ({""}: the project root, for a glob
    that matches at any depth); every file such a glob can match is under one of them."""
    roots: set[str] = set()
    for r in rules:
        pattern = agentctl.constraints.denytext.deny_pattern(r.text) if r.priority == "P0" else None
        if pattern is None:
            continue
        head = pattern.strip("/")
        cut = min((head.find(c) for c in "*?[" if c in head), default=len(head))
        if "/" not in pattern.rstrip("/"):
            roots.add("")  # unanchored: it matches at any depth
            continue
        if cut == len(head):
            roots.add(head)  # no wildcard: a folder (or a file, found in its parent)
        roots.add(head[:cut].rsplit("/", 1)[0] if "/" in head[:cut] else "")
    if "" in roots:
        roots = {""}
    return roots


def _scan_links(
    store: Store, stack: list[str], skip: set[str], budget: int, key: tuple[int, int], found: list[str]
) -> list[str]:
    while stack and budget > 0:
        rel = stack.pop()
        try:
            it = os.scandir(os.path.join(store.project, rel) if rel else store.project)
        except OSError:
            continue
        with it:
            for entry in it:
                budget -= 1
                if budget <= 0:
                    break
                child = f"{rel}/{entry.name}" if rel else entry.name
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if child not in skip:
                            stack.append(child)
                    elif entry.is_file(follow_symlinks=False):
                        st = entry.stat(follow_symlinks=False)
                        if (st.st_dev, st.st_ino) == key:
                            found.append(child)
                except OSError:
                    continue
    return found


_FOLD: dict[str, bool] = {}


def case_insensitive(store: Store) -> bool:
    """Does the project's filesystem ignore case? Tested once per process: the state folder's name in
    upper case is looked up (AGENTCTL_CASE_FOLD=1 or 0 overrides, for a filesystem that varies by folder)."""
    forced = os.environ.get("AGENTCTL_CASE_FOLD")
    if forced in ("0", "1"):
        return forced == "1"
    hit = _FOLD.get(store.root)
    if hit is None:
        name = os.path.basename(store.root)
        other = os.path.join(os.path.dirname(store.root), name.swapcase())
        try:
            hit = other != store.root and os.path.samestat(os.stat(store.root), os.stat(other))
        except (OSError, ValueError):
            hit = False
        _FOLD[store.root] = hit
    return hit
