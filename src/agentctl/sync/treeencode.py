"""A document as the files of a git tree (the layout is treeformat's)."""

from __future__ import annotations

from agentctl.ground import codec
from agentctl.sync.crdt import Log, ORSet, Stamp
from agentctl.sync.doc import Doc
from agentctl.sync.epoch import HEAD_KEYS
from agentctl.sync.treeformat import CHUNK_SIZE, FORMAT, FORMAT_LINE, VERIFY_KEYS


def _lines(items: list[str]) -> bytes:
    return "".join(f"{x}\n" for x in items).encode("utf-8", "surrogateescape")


def _orset(s: ORSet) -> bytes:
    rows = [f"A|{t}|{codec.encode(v)}" for t, v in sorted(s.adds.items())] + [
        f"R|{t}" for t in sorted(s.removed)
    ]
    return _lines(rows)


def _stamped(st: tuple[Stamp, dict[str, str]] | None, keys: tuple[str, ...]) -> bytes:
    if st is None:
        return b""
    (clock, replica), fields = st
    extra = sorted(k for k in fields if k not in keys)
    out = {"STAMP": f"{clock}.{replica}", **{k: fields[k] for k in (*keys, *extra) if k in fields}}
    return codec.format_status(out)


def _log_files(prefix: str, log: Log) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for replica, recs in log.items():
        chunks: dict[int, list[str]] = {}
        for n in sorted(recs):
            chunks.setdefault(n // CHUNK_SIZE, []).append(f"{n}|{recs[n]}")
        for k, rows in chunks.items():
            out[f"{prefix}/{replica}/{k:06d}"] = _lines(rows)
    return out


def encode(doc: Doc) -> dict[str, bytes]:
    files = {
        "FORMAT": FORMAT_LINE % FORMAT,
        "meta": codec.format_status(
            {"CLOCK": str(doc.clock), "SEQ": str(doc.seq), "LAST_COMPACTION": doc.last_compaction}
        ),
        "constraints": _orset(doc.constraints),
        "tried": _orset(doc.tried),
        "interfaces": _orset(doc.interfaces),
        "counters": _lines([f"{r}|{n}" for r, n in sorted(doc.compactions.items())]),
        "verify": _stamped(doc.verify, VERIFY_KEYS),
        "stopped": _lines(sorted(doc.stopped)),
        "index": _lines(sorted(doc.index)),
        "plan": _lines([doc.plan[k].line() for k in sorted(doc.plan)]),
    }
    for eid, e in doc.epochs.items():
        p = f"task/{eid}"
        files[f"{p}/head"] = codec.format_status({k: e.head[k] for k in HEAD_KEYS if k in e.head})
        files[f"{p}/list"] = _lines([codec.encode(x) for x in e.paths])
        files[f"{p}/done"] = _lines([str(i) for i in sorted(e.done)])
        files[f"{p}/marks"] = _lines(
            [
                f"{c}.{r}|{m}|{codec.encode(path)}|{codec.encode(note)}"
                for path, ((c, r), m, note) in sorted(e.marks.items())
            ]
        )
        files[f"{p}/claims"] = _lines(
            [f"{i}|{a}|{x}" for i in sorted(e.claims) for a, x in sorted(e.claims[i].items())]
        )
        files[f"{p}/state"] = _lines(
            [f"{k}|{c}.{r}|{codec.encode(v)}" for k, ((c, r), v) in sorted(e.fields.items())]
        )
        files.update(_log_files(f"{p}/files", e.files))
        files.update(_log_files(f"{p}/journal", e.journal))
    for name, versions in doc.archives.items():
        for blob, data in versions.items():
            files[f"archive/{name}/{blob}"] = data
    return files
