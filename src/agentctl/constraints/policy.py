"""The P0 policy: the one object that answers "is this path denied", read once per call.

Every question about a denied path -- the pre-edit hook's decision (integrations.gate), a write
judged after it landed (violations.note), NEXT marked write-protected and `files check`'s note
(workflow.pathanswers), the entries a helper may claim (task.claims) -- asks :func:`of`, which
reads the rules once (rules.read_checked: this copy's rules file and the project's shared file,
ground.sharedfile, and the lines that cannot be taken as written), adds the P0 rules that vanished
without a person (lastseen.enforced) and knows whether
the filesystem ignores case. The object is kept for the store while the rules file and the
vanished-rules record are as they were (their size, times and inode), so a call that asks ten
questions reads the file once, and a call that changes the rules sees the change at once.
"""

from __future__ import annotations

import os

import agentctl.constraints.rules
from agentctl.constraints.rules import Rule
from agentctl.ground.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.constraints.rules import Broken


class Policy:
    """The rules a write is judged by, as one call reads them."""

    __slots__ = ("store", "rules", "broken", "written", "p0")

    def __init__(self, store: Store, written: list[Rule], broken: list[Broken], enforced: list[Rule]) -> None:
        self.store = store
        self.written = written  # the rules file's rules, as written
        self.rules = enforced  # and the vanished P0 rules, still enforced
        self.broken = broken  # the lines that cannot be taken as written
        self.p0 = [r for r in enforced if r.priority == "P0"]

    @property
    def any(self) -> bool:
        """Is any path denied at all (a P0 rule, or a broken line that may mean one)?"""
        return bool(self.p0) or any(b.wide for b in self.broken)

    def judge(self, spelled: str | None, target: str | None) -> tuple[Rule, str] | None:
        """(rule, the name it matched) when a write is denied, by every name of the file (protect.judge)."""
        if not self.any:
            return None
        from agentctl.constraints import protect

        return protect.judge(self.store, self.rules, spelled, target, self.broken)

    def denied(self, path: str) -> Rule | None:
        """The P0 rule that denies ``path`` as spelled (cheap: no other name of the file looked up)."""
        from agentctl.constraints import protect

        return (
            agentctl.constraints.rules.match(self.p0, path, protect.case_insensitive(self.store))
            if self.p0
            else None
        )

    def vanished(self, rule: Rule) -> bool:
        """Is ``rule`` enforced only because it left the rules file without a person?"""
        return rule not in self.written


_KEPT: dict[tuple[str, bool], tuple[tuple[object, ...], Policy]] = {}


def _sig(path: str) -> tuple[object, ...]:
    try:
        st = os.stat(path)
    except OSError:
        return ("-",)
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def of(store: Store, persist: bool = True) -> Policy:
    """The P0 policy of ``store`` now; ``persist=False``: decide without writing (a pre-edit hook)."""
    from agentctl.constraints import lastseen
    from agentctl.ground import sharedfile

    key = (store.root, persist)
    sig = (
        _sig(store.path(agentctl.constraints.rules.STATUS)),
        _sig(store.path(lastseen.SEEN)),
        sharedfile.signature(store),
    )
    kept = _KEPT.get(key)
    if kept is not None and kept[0] == sig:
        return kept[1]
    written, broken = agentctl.constraints.rules.read_checked(store)
    enforced = lastseen.enforced(store, written, persist=persist)
    policy = Policy(store, written, broken, enforced)
    _KEPT[key] = (
        (
            _sig(store.path(agentctl.constraints.rules.STATUS)),
            _sig(store.path(lastseen.SEEN)),
            sharedfile.signature(store),
        ),
        policy,
    )
    return policy


def denied_entries(store: Store, paths: list[str]) -> list[tuple[str, str]]:
    """(path, rule text) for each of ``paths`` a P0 deny-write rule forbids (by its spelling: cheap)."""
    policy = of(store)
    if not policy.p0:
        return []
    return [(p, rule.text) for p, rule in ((p, policy.denied(p)) for p in paths) if rule is not None]
