"""The join-semilattice pieces the synced document is built of: observed-remove sets, unions of
records keyed by (replica, counter), last-writer-wins values by Lamport stamp (see doc)."""

from __future__ import annotations

Stamp = tuple[int, str]  # (Lamport time, replica)
Log = dict[str, dict[int, str]]  # replica -> counter -> record line (no newline)


class ORSet:
    __slots__ = ("adds", "removed")

    def __init__(self, adds: dict[str, str] | None = None, removed: set[str] | None = None) -> None:
        self.adds: dict[str, str] = {} if adds is None else adds
        self.removed: set[str] = set() if removed is None else removed

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ORSet) and (self.adds, self.removed) == (other.adds, other.removed)

    def __repr__(self) -> str:
        return f"ORSet({self.adds!r}, {self.removed!r})"

    def values(self) -> list[str]:
        """Live values, each once, in the order of their first live tag."""
        out: list[str] = []
        seen: set[str] = set()
        for tag in sorted(self.adds, key=tag_key):
            v = self.adds[tag]
            if tag not in self.removed and v not in seen:
                seen.add(v)
                out.append(v)
        return out

    def add(self, value: str, tag: str) -> None:
        self.adds[tag] = value

    def remove(self, value: str) -> None:
        """Remove the value's additions seen here (not those made elsewhere meanwhile)."""
        self.removed.update(t for t, v in self.adds.items() if v == value)

    def join(self, other: ORSet) -> ORSet:
        adds = dict(self.adds)
        for t, v in other.adds.items():
            adds[t] = max(adds.get(t, v), v)
        return ORSet(adds, self.removed | other.removed)


def tag_key(tag: str) -> tuple[int, str]:
    head, _, rest = tag.partition(".")
    return (int(head) if head.isdigit() else 0, rest)


def join_log(a: Log, b: Log) -> Log:
    out = {r: dict(c) for r, c in a.items()}
    for r, recs in b.items():
        mine = out.setdefault(r, {})
        for n, line in recs.items():
            mine[n] = max(mine.get(n, line), line)
    return out


def join_lww(
    a: tuple[Stamp, dict[str, str]] | None, b: tuple[Stamp, dict[str, str]] | None
) -> tuple[Stamp, dict[str, str]] | None:
    if a is None or b is None:
        return a if b is None else b
    return max(a, b, key=lambda x: (x[0], sorted(x[1].items())))
