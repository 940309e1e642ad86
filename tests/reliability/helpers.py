"""Shared pieces of the reliability suite: seeds, figures, folder snapshots, invariant checks."""

from __future__ import annotations

import os
import random
import re
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agentctl.ground import codec
from agentctl.ground.tempfiles import parse_temp_name
from support import faults

LONG = os.environ.get("AGENTCTL_LONG") == "1"
_SEED_ENV = os.environ.get("AGENTCTL_TEST_SEED", "")  # read at import: the hermetic fixture clears AGENTCTL_*
FIGURES: list[str] = []


def figures(line: str) -> None:
    """One summary line of measured figures: printed, and repeated in the terminal summary."""
    FIGURES.append(line)
    print(line)


def rng(name: str) -> random.Random:
    """A seeded generator; AGENTCTL_TEST_SEED=N replays a run (the seed is printed)."""
    seed = int(_SEED_ENV) if _SEED_ENV.isdigit() else random.SystemRandom().randrange(1 << 32)
    print(f"{name}: seed {seed} (replay with AGENTCTL_TEST_SEED={seed})")
    return random.Random(seed)


def scaled(default: int, long: int) -> int:
    return long if LONG else default


def mode() -> str:
    return "long" if LONG else "default"


# -- the state folder ---------------------------------------------------------------------------

SKIP_NAMES = re.compile(
    r"(^|/)(agent\.log(\.1)?|quarantine-[^/]*|\.[^/]*\.lock|\.lock|backup-format[^/]*/.*)$"
)
TIME_KEYS = {
    "UPDATED",
    "STARTED",
    "ENDED",
    "DURATION",
    "LAST_RUN",
    "LAST_COMPACTION",
    "LAST_COMPACTION_TS",
    "PRE_COMPACT",
    "PRE_COMPACT_TS",
    "LAST_PASS",
    "LAST_VERIFY",
}
STAMP = re.compile(r"\d{8}T\d{6}")


def state_files(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` except logs that grow, locks and temp files."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink() or not p.is_file() or SKIP_NAMES.search(rel) or parse_temp_name(p.name) is not None:
            continue
        out[rel] = p.read_bytes()
    return out


def normalised(root: Path) -> dict[str, object]:
    """State files with times taken out, so two runs of one operation compare equal."""
    out: dict[str, object] = {}
    files = state_files(root)
    named = re.search(rb"(?m)^LIST=(.*)$", files.get("services/task/status", b""))
    for rel, data in files.items():
        key = STAMP.sub("TIME", rel)
        if rel.startswith("services/task/list-") and (
            named is None or rel != "services/task/" + named.group(1).decode()
        ):
            continue  # a list no status names is invisible to every reader (doctor --fix removes it)
        if re.search(r"(^|/)(status|session|runlevel|[^/]*\.done)$", rel) and not rel.endswith(
            "files/status"
        ):
            try:
                fields = codec.parse_status(data, rel)
            except Exception:  # a damaged file is its own value: it will compare unequal
                out[key] = ("damaged", data)
                continue
            # LIST_SIG: an inode
            out[key] = {k: v for k, v in fields.items() if k not in TIME_KEYS and k != "LIST_SIG"}
        elif rel == "services/constraints/p0-seen":  # the P0 rules last seen; its STATUS line is an inode
            out[key] = [ln for ln in data.split(b"\n") if not ln.startswith(b"STATUS|")]
        elif rel.endswith("files/status") or re.search(r"(^|/)logs/files-[^/]*\.log$", rel):
            # a log is what a reader gets from it: its complete, well-formed records, times taken out
            pieces = data.split(b"\n")
            pieces.pop()
            recs = []
            for line in pieces:
                try:
                    rec = codec.split_record(line.decode("utf-8"), 3)
                except UnicodeDecodeError:
                    rec = None
                if rec is not None:
                    recs.append(tuple(rec[1:]))
            if recs:  # an empty log and no log read the same
                out[key] = recs
        else:  # other files as bytes, times taken out and a cut-off last line (a torn append) ignored
            data = DURATION.sub(b"DURATION", ISO_TIME.sub(b"TIME", data))
            data = data[: data.rfind(b"\n") + 1]
            if rel.startswith("logs/") and all(ln.startswith(b"#") for ln in data.split(b"\n") if ln):
                continue  # a log with no record yet (a header at most) reads like no log
            out[key] = data
    return out


DURATION = re.compile(rb"\b\d+h\d\dm\d\ds\b")
ISO_TIME = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[+-]\d\d:\d\d|Z)?")


def temp_files(root: Path) -> list[str]:
    return [str(p.relative_to(root)) for p in root.rglob(".*.tmp") if parse_temp_name(p.name) is not None]


def outside_snapshot(top: Path, state: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime_ns) of every file under ``top`` outside the state folder."""
    out = {}
    for p in top.rglob("*"):
        if state in p.parents or p == state:
            continue
        try:
            st = p.lstat()
        except FileNotFoundError:
            continue
        if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
            out[str(p.relative_to(top))] = (st.st_size, st.st_mtime_ns)
    return out


def log_lines_ok(data: bytes, fields: int) -> tuple[int, int]:
    """(well-formed lines, malformed lines) of a ``|`` record log; a cut-off tail counts as malformed."""
    pieces = data.split(b"\n")
    tail = pieces.pop()
    good = bad = 0
    for raw in pieces:
        try:
            ok = codec.split_record(raw.decode("utf-8"), fields) is not None
        except UnicodeDecodeError:
            ok = False
        good += ok
        bad += not ok
    return good, bad + (1 if tail else 0)


def parse_everything(root: Path) -> None:
    """Read every status file with the library's own readers; raise on anything damaged."""
    import agentctl.files.log
    import agentctl.verify.status
    from agentctl.constraints import rules
    from agentctl.ground.store import Store
    from agentctl.session import compactions
    from agentctl.task import status
    from agentctl.userservices import runlevels

    store = Store(str(root))
    fields = status.read_status(store)
    if fields.get("LIST"):
        status.read_entries(store, fields)
    agentctl.files.log.entries(store)
    rules.read(store)
    agentctl.verify.status.read_status(store)
    compactions.read(store)
    runlevels.current(store)


def copy_folder(src: Path, dst: Path) -> None:
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True)


# -- running the real command ---------------------------------------------------------------------


def fault_env(step: str, nth: int = 1) -> dict[str, str]:
    return faults.env(f"{step}:{nth}")


@contextmanager
def chdir(path: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)
