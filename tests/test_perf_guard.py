"""Regression guard for the hot path (not timed; bench/run.py does the timing).

Each hot-path command runs in a fresh interpreter through the console-script entry point
(``agentctl.cli.main:main``) and must not pull in modules it does not need: argparse, json,
subprocess, dataclasses (it drags in inspect, ast, dis, tokenize: more than a whole
`files log`), typing, the MCP SDK, or anything third-party. And the fast text path of
`task done` / `task update --done N` must leave exactly the files and results of the
general path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentctl.constraints.rules import Rule
from conftest import run
from support.hotpath import HEAVY, HOOK_HEAVY, modules_loaded


def _third_party(names: set[str]) -> set[str]:
    """Loaded modules that are neither the standard library nor agentctl."""
    stdlib = {os.path.realpath(sysconfig.get_paths()[k]) for k in ("stdlib", "platstdlib")}
    out = set()
    for name in names:
        mod = sys.modules.get(name)
        if mod is None:
            try:
                __import__(name)
            except Exception:
                out.add(name)
                continue
            mod = sys.modules[name]
        origin = getattr(mod, "__file__", None)
        if origin is None or name == "agentctl" or name.startswith("agentctl."):
            continue
        real = os.path.realpath(origin)
        if "site-packages" in real or not any(real.startswith(s + os.sep) for s in stdlib):
            out.add(name)
    return out


def _check(project: Path, args: tuple[str, ...], stdin: bytes | None = None) -> set[str]:
    loaded = modules_loaded(project, *args, stdin=stdin)
    heavy = {m for m in loaded if m.split(".")[0] in HEAVY}
    assert not heavy, (
        f"`agentctl {' '.join(args)}` imports {sorted(heavy)}; keep them off the hot path (see bench/)"
    )
    foreign = _third_party(loaded)
    assert not foreign, f"`agentctl {' '.join(args)}` imports third-party modules {sorted(foreign)}"
    return loaded


@pytest.mark.parametrize(
    "args",
    [
        ("files", "log", "MODIFY", "src/f2.ts"),
        ("files", "check", "src/f1.ts"),
        ("files", "check", "src/f9.ts"),
        ("task", "done", "src/f3.ts"),
        ("task", "update", "--done", "1", "--seq", "3"),
        ("task", "update", "--done", "1", "--seq", "1"),  # a replay: a no-op
        ("resume",),
    ],
)
def test_hot_path_imports_nothing_heavy(busy: Path, args: tuple[str, ...]) -> None:
    loaded = _check(busy, args)
    # Not even what pip's launcher may bring: these commands run below the floor without them.
    extra = {m for m in loaded if m.split(".")[0] in ("re", "enum", "signal", "contextlib", "collections")}
    assert not extra, f"`agentctl {' '.join(args)}` imports {sorted(extra)}; import them where they are used"


def test_task_done_from_stdin_and_completion_stay_light(busy: Path) -> None:
    """Issue 26: `task done -` and the completion scripts' `__complete` load nothing heavy, and no difflib
    (the typo suggestions are for the error path only)."""
    for args, data in (
        (("task", "done", "-"), b"src/f5.ts\nsrc/f6.ts\n"),
        (("__complete", "task", "done", ""), None),
        (("files", "check", "src/f1.ts"), None),
    ):
        loaded = _check(busy, args, stdin=data)
        assert "difflib" not in loaded and "agentctl.cli.suggest" not in loaded, args
    assert "src/f5.ts" not in run("__complete", "task", "done", "", cwd=busy).out.split()


def _hooks_available() -> bool:
    from agentctl.operation import registry

    return ("hook",) in registry.COMMANDS


def _payload(project: Path, event: str, tool: str, rel: str = "src/f4.ts", **extra: object) -> bytes:
    target = str(project / rel)
    data: dict[str, object] = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": {"file_path": target, "old_string": "a", "new_string": "b"},
        "tool_use_id": f"toolu_{os.urandom(6).hex()}",
    }
    if event == "PostToolUse":
        data["tool_response"] = {"filePath": target, "success": True}
    data.update(extra)
    return json.dumps(data).encode()


@pytest.mark.skipif(not _hooks_available(), reason="the editor-hook commands are not in this build")
@pytest.mark.parametrize(
    "event,word,tool,rel,extra",
    [
        ("PostToolUse", "post-tool-use", "Edit", "src/f4.ts", {}),
        (
            "PostToolUse",
            "post-tool-use",
            "Write",
            "src/new.ts",
            {},
        ),  # not logged yet: the files check decides CREATE
        (
            "PreToolUse",
            "pre-tool-use",
            "Edit",
            "src/f4.ts",
            {},
        ),  # a P0 deny-write rule exists, but cannot match
        ("PreToolUse", "pre-tool-use", "Read", "src/f4.ts", {}),
        (
            "PreToolUse",
            "pre-tool-use",
            "Bash",
            "src/f4.ts",
            {"tool_input": {"command": "npm test -- src/f4.ts"}},
        ),  # shellguard
        ("SessionStart", "session-start", "", "", {"source": "compact"}),
        ("SessionStart", "session-start", "", "", {"source": "startup"}),
        ("SubagentStart", "subagent-start", "", "", {"agent_id": "helper-1"}),
    ],
)
def test_hooks_import_no_json_or_re(
    busy: Path,
    event: str,
    word: str,
    tool: str,
    rel: str,
    extra: dict[str, object],
) -> None:
    args = ("hook", "claude", word)
    payload = _payload(busy, event, tool, rel or "src/f4.ts", **extra)
    loaded = modules_loaded(busy, *args, stdin=payload)
    heavy = {m for m in loaded if m.split(".")[0] in HOOK_HEAVY}
    assert not heavy, (
        f"`agentctl {' '.join(args)}` ({event} {tool}) imports {sorted(heavy)}; see hookrun's docstring"
    )
    assert not _third_party(loaded), sorted(_third_party(loaded))


@pytest.mark.skipif(not _hooks_available(), reason="the editor-hook commands are not in this build")
def test_hooks_still_act_without_json(busy: Path) -> None:
    """The slim path still does the work: logs the edit once, denies per P0, counts the compaction."""
    post = _payload(busy, "PostToolUse", "Edit", "src/f6.ts")
    for _ in range(2):  # a double delivery: logged once
        assert run("hook", "claude", "post-tool-use", cwd=busy, stdin=post).code == 0
    assert run("files", "check", "src/f6.ts", cwd=busy).out.count("MODIFY") == 1
    deny = run(
        "hook", "claude", "pre-tool-use", cwd=busy, stdin=_payload(busy, "PreToolUse", "Edit", "db/x.sql")
    )
    out = json.loads(deny.out)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "deny-write: db/**" in out["permissionDecisionReason"]
    start = run(
        "hook",
        "claude",
        "session-start",
        cwd=busy,
        stdin=_payload(busy, "SessionStart", "", source="compact"),
    )
    text = json.loads(start.out)["hookSpecificOutput"]["additionalContext"]
    assert "1 compaction," in text and "P0|deny-write: db/**" in text


# -- the hooks' JSON without the json module: json's own results and errors -------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
    max_leaves=16,
)


def _outcome(fn: Callable[[bytes], object], raw: bytes) -> tuple[str, str]:
    try:
        return "ok", repr(fn(raw))
    except Exception as exc:  # the same exception, with the same message
        return type(exc).__name__, str(exc)


@settings(max_examples=400, deadline=None)
@given(
    value=JSON_VALUES,
    ascii=st.booleans(),
    indent=st.sampled_from([None, 0, 2, "\t"]),
    pad=st.sampled_from(["", " ", "\n\t\r ", "\ufeff", "\x00", "\x0b"]),
    tail=st.sampled_from(["", " \n", "x", "}", " {}", "\x00", "\x0c"]),
    encoding=st.sampled_from(["utf-8", "utf-8", "utf-8-sig", "utf-16", "utf-32-le"]),
    cut=st.integers(0, 2),
    flip=st.integers(0, 300),
)
def test_hook_payload_parse_is_json_loads(
    value: object,
    ascii: bool,
    indent: int | str | None,
    pad: str,
    tail: str,
    encoding: str,
    cut: int,
    flip: int,
) -> None:
    from agentctl.integrations import hookio

    text = pad + json.dumps(value, ensure_ascii=ascii, indent=indent) + tail
    raw = text.encode(encoding, "surrogatepass")
    raw = raw[: len(raw) - cut] if cut < len(raw) else raw
    assert _outcome(hookio.loads, raw) == _outcome(json.loads, raw)
    if raw and flip % 3 == 0:  # one byte damaged
        i = flip % len(raw)
        bad = raw[:i] + bytes([raw[i] ^ (1 << (flip % 8))]) + raw[i + 1 :]
        assert _outcome(hookio.loads, bad) == _outcome(json.loads, bad)


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=24), head=st.sampled_from([b"", b"{", b"[", b" ", b'{"a": ']))
def test_hook_payload_parse_of_any_bytes_is_json_loads(raw: bytes, head: bytes) -> None:
    from agentctl.integrations import hookio

    assert _outcome(hookio.loads, head + raw) == _outcome(json.loads, head + raw)


REPLIES = (
    st.recursive(
        st.text(max_size=12),
        lambda kids: st.dictionaries(st.text(max_size=6), kids, max_size=4),
        max_leaves=12,
    )
    | JSON_VALUES
    | st.dictionaries(st.integers(0, 3), st.text(max_size=3), max_size=2)
)


@settings(max_examples=300, deadline=None)
@given(value=REPLIES)
def test_hook_reply_is_json_dumps(value: object) -> None:
    from agentctl.integrations import hookio

    assert hookio.dumps(value) == json.dumps(value, ensure_ascii=True)


GLOB_PARTS = [
    "a",
    "b",
    "ab",
    "/",
    "*",
    "**",
    "**/",
    "/**",
    "?",
    ".",
    "[ab]",
    "[!a]",
    "[a-",
    "[",
    "]",
    "\\",
    " ",
    "-",
]
PATH_PARTS = ["a", "b", "ab", "/", "a/", ".", "[", "]", "*", "?", "-", " ", "\n"]


# What each glob part may stand for in a path the glob matches (so that matches are drawn often).
INSTANCES = {
    "**/": ["", "a/", "b/a/"],
    "**": ["", "a", "a/b"],
    "/**": ["/", "/a", "/a/b"],
    "*": ["", "b", "ab"],
    "?": ["a", "."],
    "[ab]": ["a", "b"],
    "[!a]": ["b"],
}


def _same_deny(rules: list[Rule], path: str) -> None:
    import warnings

    import agentctl.constraints.rules

    def full(rel: str) -> object:
        return next(
            (rule for rule, rx in agentctl.constraints.rules.deny_write_rules(rules) if rx.match(rel)), None
        )

    def outcome(fn: Callable[[str], object]) -> tuple[str, str]:
        try:
            return "ok", repr(fn(path))
        except Exception as exc:
            return type(exc).__name__, str(exc)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # re's FutureWarning for a "[[" class, on both sides alike
        assert outcome(lambda rel: agentctl.constraints.rules.match(rules, rel)) == outcome(full), (
            rules,
            path,
        )


@pytest.mark.parametrize(
    "glob,path",
    [
        ("**/a", "a"),
        ("**/a", "b/a/c"),
        ("a/**", "a"),
        ("a/**", "a/b"),
        ("/a/", "a"),
        ("a/", "x/a/b"),
        ("*.env", ".env"),
        ("*.env", "a/b.env"),
        ("a?b", "a/b"),
        ("a?b", "axb"),
        ("**", "a"),
        ("", "a"),
        ("[a-", "a"),
        ("[z-a]", "b"),
        ("db/**", "db"),
        ("db/**", "dbx/y"),
        ("a**b", "a/x/b"),
        ("a\\b", "a\\b"),
        ("a b", "a b"),
        ("/**/a", "a"),
    ],
)
def test_hook_deny_check_edge_cases(glob: str, path: str) -> None:
    import agentctl.constraints.rules

    _same_deny([agentctl.constraints.rules.Rule("P0", "deny-write: " + glob)], path)


@settings(max_examples=1000, deadline=None)
@given(
    globs=st.lists(
        st.tuples(
            st.sampled_from(["P0", "P0", "P0", "P1"]),
            st.sampled_from(["deny-write:", "deny-write:", "DENY-WRITE: ", "note:"]),
            st.lists(st.sampled_from(GLOB_PARTS), max_size=5),
        ),
        max_size=3,
    ),
    data=st.data(),
)
def test_hook_deny_check_is_constraints_denied(
    globs: list[tuple[str, str, list[str]]], data: st.DataObject
) -> None:
    """The hooks skip compiling globs that cannot match; the answer (or the error) is constraints'."""
    import agentctl.constraints.rules

    rules = [agentctl.constraints.rules.Rule(pri, head + "".join(parts)) for pri, head, parts in globs]
    anywhere = st.lists(st.sampled_from(PATH_PARTS), min_size=1, max_size=6).map("".join)
    # mostly a path made to match one of the globs (give or take)
    if globs and data.draw(st.integers(0, 3)) > 0:
        parts = data.draw(st.sampled_from(globs))[2]
        path = (
            data.draw(st.sampled_from(["", "x/"]))
            + "".join(data.draw(st.sampled_from(INSTANCES.get(p, [p]))) for p in parts)
            + data.draw(st.sampled_from(["", "/c"]))
        )
        path = path or "a"
    else:
        path = data.draw(anywhere)
    _same_deny(list(rules), path)


# -- the fast text path of task done / task update --done gives what the general path gives -------

NAMES = [
    "a",
    "ab",
    "a/b",
    "a.b",
    "b",
    "src/x.ts",
    "src/x.tsx",
    "é/ü.ts",
    "c d",
    "back\\slash",
    "pi|pe",
    "done",
    "todo",
]


def _pair(base: str, paths: list[str], done_first: int) -> tuple[object, object]:
    from agentctl.statefolder import init
    from agentctl.task import status
    from agentctl.workflow import taskflow

    stores = []
    for n in range(2):
        root = os.path.join(base, str(n))
        os.makedirs(os.path.join(root, ".git"))
        store, _ = init.init(root)
        taskflow.start(store, "t1", "desc", paths)
        if done_first:
            status.update(store, done=done_first)
        stores.append(store)
    return stores[0], stores[1]


SNAP_SKIP = ("UPDATED", "STARTED", "LIST_SIG")  # times, and the list file's own inode and mtime


def _snapshot(store: object) -> tuple[dict[str, str], bytes]:
    from agentctl.ground.store import Store
    from agentctl.task import status

    assert isinstance(store, Store)
    fields = status.read_status(store)
    data = store.read(f"services/task/{fields['LIST']}", cap=1 << 26) if fields.get("LIST") else b""
    return {k: v for k, v in fields.items() if k not in SNAP_SKIP}, data or b""


def _apply(store: object, op: tuple[str, object], plain: bool) -> object:
    from agentctl.ground.errors import AgentctlError
    from agentctl.ground.store import Store
    from agentctl.task import status

    assert isinstance(store, Store)
    status._PLAIN = plain
    try:
        kind, arg = op
        if kind == "done":
            assert isinstance(arg, list)
            r = status.mark_done(store, arg)
        elif kind == "update":
            assert isinstance(arg, tuple)
            n, stale, notes = arg
            seq = int(status.read_status(store)["SEQ"]) - (1 if stale else 0)
            r = status.update(store, done=n, seq=seq, notes=notes)
        else:
            assert isinstance(arg, str)
            r = status.update(store, next_path=arg)
        return (r.applied, r.message, r.changed, {k: v for k, v in r.fields.items() if k not in SNAP_SKIP})
    except AgentctlError as exc:
        return (type(exc).__name__, exc.message)
    finally:
        status._PLAIN = True


OPS = st.one_of(
    st.tuples(st.just("done"), st.lists(st.sampled_from(NAMES + ["missing"]), min_size=1, max_size=3)),
    st.tuples(st.just("update"), st.tuples(st.integers(1, 4), st.booleans(), st.sampled_from([None, "n"]))),
    st.tuples(st.just("next"), st.sampled_from(NAMES)),
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    paths=st.lists(st.sampled_from(NAMES), min_size=1, max_size=len(NAMES) + 3),
    done_first=st.integers(0, 3),
    ops=st.lists(OPS, min_size=1, max_size=6),
)
def test_fast_task_path_matches_general_path(
    paths: list[str], done_first: int, ops: list[tuple[str, object]]
) -> None:
    with tempfile.TemporaryDirectory(prefix="agentctl-guard-") as base:
        fast, general = _pair(base, paths, min(done_first, len(paths)))
        for op in ops:
            got = _apply(fast, op, plain=True)
            want = _apply(general, op, plain=False)
            assert got == want, op
            assert _snapshot(fast) == _snapshot(general), op


def test_a_list_the_fast_path_wrote_is_trusted_until_it_changes(project: Path) -> None:
    # After a plain commit the status signs the list (size, mtime, inode, TOTAL, DONE): the next
    # `task done` reads it without checking it. Any change to the file is seen and checked again.
    from agentctl.ground.store import Store
    from agentctl.task import status
    from agentctl.workflow import taskflow

    store = Store(str(project / ".agent-state"))
    taskflow.start(store, "t1", "d", ["src/a.ts", "src/b.ts", "src/c.ts"])
    assert "LIST_SIG" not in status.read_status(store)  # written by the general path: not signed
    assert status.mark_done(store, ["src/a.ts"]).changed == ["src/a.ts"]
    fields = status.read_status(store)
    listed = Path(store.path(f"services/task/{fields['LIST']}"))
    st = listed.stat()
    assert fields["LIST_SIG"] == f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}:3:1"
    assert "LIST_SIG" not in " ".join(status.status_lines(fields))  # internal, never shown
    # A hand edit in place that keeps the size: `todo|src/b.ts` becomes the unparsable `TODO|src/b.ts`.
    with open(listed, "r+b") as fh:
        text = fh.read()
        fh.seek(0)
        fh.write(text.replace(b"todo|src/b.ts", b"TODO|src/b.ts"))
    assert listed.stat().st_size == st.st_size
    os.utime(listed, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # its mtime moved, as any write's does
    # checked, and not plain: the general path
    assert status._plain_list(store, status.read_status(store)) is None
    # The counts are part of the signature: a status whose DONE changed without the list is checked too.
    with open(listed, "r+b") as fh:
        fh.write(text)
    os.utime(listed, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert status._plain_list(store, status.read_status(store)) is not None  # as signed again: trusted
    plain = status._plain_list(store, dict(status.read_status(store), DONE="2"))
    assert plain is not None and plain.done == 1  # not trusted with DONE=2: counted from the file


def test_fast_task_path_is_taken_for_plain_lists(project: Path) -> None:
    from agentctl.ground.store import Store
    from agentctl.task import status
    from agentctl.workflow import taskflow

    store = Store(str(project / ".agent-state"))
    taskflow.start(store, "t1", "d", [f"src/f{i}.ts" for i in range(5)])
    assert status._plain_list(store, status.read_status(store)) is not None
    # an escaped path: the general path
    taskflow.start(store, "t2", "d", ["src/a|b.ts", "src/c.ts"], force=True)
    assert status._plain_list(store, status.read_status(store)) is None


# -- files check finds exactly what a parse of the whole log finds; resume's FILES read is bounded ---

LOG_OPS = ["CREATE", "MODIFY", "DELETE", "SESSION_START", "BOGUS"]


def _log_store(base: str, records: list[tuple[str, str]], junk: list[bytes]) -> object:
    from agentctl.ground import codec
    from agentctl.statefolder import init

    os.makedirs(os.path.join(base, ".git"))
    store, _ = init.init(base)
    lines = [codec.record("2026-01-01T00:00:00+00:00", op, path) for op, path in records]
    for i, extra in enumerate(junk):  # malformed lines, a field too many, a bad escape, a fragment
        lines.insert(min(3 * i, len(lines)), extra)
    with open(store.path("services/files/status"), "wb") as fh:
        fh.write(b"".join(lines))
    return store


@settings(max_examples=100, deadline=None)
@given(
    records=st.lists(st.tuples(st.sampled_from(LOG_OPS), st.sampled_from(NAMES)), max_size=40),
    junk=st.lists(
        st.sampled_from([b"x|y\n", b"t|MODIFY|a|b\n", b"t|MODIFY|a\\q\n", b"\n", b"t|MODIFY|ab"]), max_size=3
    ),
    probe=st.sampled_from(NAMES),
    chunk=st.sampled_from([1, 7, 40, 64, 1 << 20]),
)
def test_files_check_matches_a_full_parse(
    records: list[tuple[str, str]], junk: list[bytes], probe: str, chunk: int
) -> None:
    import agentctl.files.log
    from agentctl.ground.store import Store

    with tempfile.TemporaryDirectory(prefix="agentctl-guard-") as base:
        store = _log_store(base, records, junk)
        assert isinstance(store, Store)
        want = [
            e for e in agentctl.files.log.entries(store) if e[2] == probe and e[1] in agentctl.files.log.OPS
        ]
        # lines cut across reads
        saved, agentctl.files.log.CHECK_CHUNK = (agentctl.files.log.CHECK_CHUNK, chunk)
        try:
            assert agentctl.files.log.check(store, probe) == want
        finally:
            agentctl.files.log.CHECK_CHUNK = saved


@settings(max_examples=50, deadline=None)
@given(
    records=st.lists(st.tuples(st.sampled_from(LOG_OPS[:4]), st.sampled_from(NAMES)), max_size=60),
    window=st.integers(40, 4000),
)
def test_resume_files_summary_is_bounded_and_exact_when_it_fits(
    records: list[tuple[str, str]], window: int
) -> None:
    import agentctl.files.log
    from agentctl.ground.store import Store

    with tempfile.TemporaryDirectory(prefix="agentctl-guard-") as base:
        store = _log_store(base, records, [])
        assert isinstance(store, Store)
        full = agentctl.files.log.touched(store)
        count, exact, last = agentctl.files.log.recent(store, 3, window)
        assert exact == (agentctl.files.log.size(store) <= window)
        if exact:
            by_last_touch: list[str] = []
            # by record time, then path
            for _, op, path in agentctl.files.log.ordered(agentctl.files.log.entries(store)):
                if op != "SESSION_START":
                    if path in by_last_touch:
                        by_last_touch.remove(path)
                    by_last_touch.append(path)
            assert (count, last) == (len(full), by_last_touch[-3:])
        else:
            assert count <= len(full) and set(last) <= {p for p, _, _ in full}


@settings(max_examples=60, deadline=None)
@given(
    batches=st.lists(
        st.lists(st.tuples(st.sampled_from(LOG_OPS), st.sampled_from(NAMES)), max_size=15),
        min_size=1,
        max_size=5,
    ),
    junk=st.lists(
        st.sampled_from([b"x|y\n", b"t|MODIFY|a|b\n", b"t|MODIFY|a\\q\n", b"\n", b"t|MODIFY|ab"]), max_size=2
    ),
    slack=st.integers(0, 200),
    chunk=st.sampled_from([16, 1 << 18]),
    damage=st.sampled_from(["", "truncate", "header"]),
)
def test_files_check_through_the_index_matches_a_full_parse(
    batches: list[list[tuple[str, str]]], junk: list[bytes], slack: int, chunk: int, damage: str
) -> None:
    """The index (used from INDEX_MIN on, extended past INDEX_SLACK) never changes an answer, damaged or
    not."""
    import agentctl.files.index
    import agentctl.files.log
    from agentctl.ground import codec
    from agentctl.ground.store import Store

    saved = agentctl.files.log.INDEX_MIN, agentctl.files.index.SLACK, agentctl.files.log.CHECK_CHUNK
    agentctl.files.log.INDEX_MIN, agentctl.files.index.SLACK, agentctl.files.log.CHECK_CHUNK = 0, slack, chunk
    try:
        with tempfile.TemporaryDirectory(prefix="agentctl-guard-") as base:
            store = _log_store(base, batches[0], junk)
            assert isinstance(store, Store)
            for n, batch in enumerate(batches):
                if n:
                    with open(store.path(agentctl.files.log.LOG), "ab") as fh:
                        fh.write(
                            b"".join(codec.record("2026-01-02T00:00:00+00:00", op, p) for op, p in batch)
                        )
                for probe in NAMES:
                    want = [
                        e
                        for e in agentctl.files.log.entries(store)
                        if e[2] == probe and e[1] in agentctl.files.log.OPS
                    ]
                    assert agentctl.files.log.check(store, probe) == want, (n, probe)
                index = store.path(agentctl.files.index.INDEX)
                if damage and os.path.exists(index):
                    with open(index, "r+b") as fh:
                        if damage == "truncate":
                            fh.truncate(max(0, os.path.getsize(index) - 7))
                        else:
                            fh.write(b"agentctl-files-index 1 1 2 3 00 00")
    finally:
        agentctl.files.log.INDEX_MIN, agentctl.files.index.SLACK, agentctl.files.log.CHECK_CHUNK = saved


def test_files_check_reads_little_of_a_long_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a 100,000-entry log, a check (after the first builds the index) reads kilobytes, not the log."""
    import agentctl.files.index
    import agentctl.files.log
    from agentctl.ground import codec
    from agentctl.statefolder import init

    (tmp_path / ".git").mkdir()
    store, _ = init.init(str(tmp_path))
    with open(store.path(agentctl.files.log.LOG), "wb") as fh:
        fh.write(
            b"".join(
                codec.record("2026-01-01T00:00:00+00:00", "MODIFY", f"src/m{i % 9000:05d}.ts")
                for i in range(100_000)
            )
        )
    assert len(agentctl.files.log.check(store, "src/m00007.ts")) == 12  # builds the index
    assert os.path.getsize(store.path(agentctl.files.index.INDEX)) > 1 << 20
    read = 0
    real = os.pread

    def counting(fd: int, n: int, offset: int) -> bytes:
        nonlocal read
        data = real(fd, n, offset)
        read += len(data)
        return data

    with open(store.path(agentctl.files.log.LOG), "ab") as fh:
        fh.write(codec.record("2026-01-02T00:00:00+00:00", "CREATE", "src/m00007.ts"))
    monkeypatch.setattr(os, "pread", counting)
    found = agentctl.files.log.check(store, "src/m00007.ts")
    monkeypatch.undo()
    assert len(found) == 13 and found[-1][1] == "CREATE"
    assert 0 < read < 100_000, read


@settings(max_examples=300, deadline=None)
@given(value=st.text(max_size=40), limit=st.integers(10, 400))
def test_a_shown_value_is_its_codec_escape_cut_to_the_limit(value: str, limit: int) -> None:
    from agentctl.ground import codec

    text = codec.encode(value)
    assert codec.shown(value, limit) == (text if len(text) <= limit else text[: limit - 3] + "...")


# -- the evidence line reads a bounded part of the files log, and says so when it is not all ---------


@settings(max_examples=150, deadline=None)
@given(
    records=st.lists(
        st.tuples(st.sampled_from(LOG_OPS[:4]), st.sampled_from(NAMES)), min_size=1, max_size=40
    ),
    pass_at=st.none() | st.integers(0, 40),
    failed=st.booleans(),
    window=st.integers(40, 3000),
)
def test_evidence_is_bounded_and_exact_when_it_fits(
    records: list[tuple[str, str]], pass_at: int | None, failed: bool, window: int
) -> None:
    import agentctl.files.log
    import agentctl.verify.status
    from agentctl.ground import codec
    from agentctl.ground.store import Store
    from agentctl.verify import evidence

    with tempfile.TemporaryDirectory(prefix="agentctl-guard-") as base:
        store = _log_store(base, [("SESSION_START", "t1")] + records, [])
        assert isinstance(store, Store)
        with open(store.path(agentctl.verify.status.COMMANDS), "w", encoding="utf-8") as fh:
            fh.write("true\n")
        ident = evidence.log_identity(store)
        lines = open(store.path(agentctl.files.log.LOG), "rb").read().split(b"\n")[:-1]
        vfields = {"STATE": "FAILED" if failed else "PASSED", "RUN_LOG": ident}
        offset = 0
        if pass_at is not None:
            offset = sum(len(ln) + 1 for ln in lines[: min(pass_at, len(lines))])
            vfields.update(
                LAST_PASS="2026-01-01T00:00:00+00:00", LAST_PASS_LOG=ident, LAST_PASS_POS=str(offset)
            )
        # what check() used to compute, whatever the log's length
        full = agentctl.files.log.since(store, offset)
        want = evidence.Evidence(
            "never" if pass_at is None else ("no" if full or failed else "yes"),
            full,
            vfields.get("LAST_PASS", ""),
            failed,
        )
        saved, evidence.WINDOW = evidence.WINDOW, window
        try:
            got = evidence.check(store, vfields)
        finally:
            evidence.WINDOW = saved
        assert (got.verdict, got.blocks_stop, got.failed) == (want.verdict, want.blocks_stop, want.failed)
        # (or a window without one entry)
        if agentctl.files.log.size(store) - offset <= window or got._changed is not None:
            assert got.line() == want.line()
        else:  # the first names as before; the count a lower bound, marked with "+"
            n = len(got._head)
            assert 0 < n <= len(full) and got._head == full[:n]
            line = got.line()
            assert (
                f"{n}+ files changed" in line
                and f": {', '.join(codec.encode(p) for p in full[: min(n, evidence.SHOW)])} (" in line
            )
        assert got.as_dict() == want.as_dict()  # the whole list, when asked for
        assert got.line() == want.line()  # ... after which the count is exact


def test_resume_evidence_does_not_read_the_whole_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """100,000 edits since the last pass: resume's VERIFIED line reads a window, never the whole log."""
    import agentctl.files.log
    import agentctl.verify.status
    from agentctl.ground import codec
    from agentctl.statefolder import init
    from agentctl.verify import evidence
    from agentctl.workflow import resume, taskflow

    (tmp_path / ".git").mkdir()
    store, _ = init.init(str(tmp_path))
    taskflow.start(store, "t1", "d", ["src/a.ts"])
    with open(store.path(agentctl.verify.status.COMMANDS), "w", encoding="utf-8") as fh:
        fh.write("true\n")
    with open(store.path(agentctl.files.log.LOG), "ab") as log:
        log.write(
            b"".join(
                codec.record("2026-01-01T00:00:00+00:00", "MODIFY", f"src/m{i % 9000:05d}.ts")
                for i in range(100_000)
            )
        )

    def whole_log(*args: object) -> list[str]:
        raise AssertionError("files.since read the whole log")

    monkeypatch.setattr(agentctl.files.log, "since", whole_log)
    text = resume.build(store, 2000)
    assert (
        "VERIFIED=never (no passing run in this task yet; " in text
        and "+ files changed: src/m00000.ts" in text
    )
    ev = evidence.check(store)
    assert ev.verdict == "never" and ev.blocks_stop


@settings(max_examples=300, deadline=None)
@given(value=st.text(max_size=40) | st.text(alphabet=st.characters(max_codepoint=0x80), max_size=40))
def test_codec_fast_path_is_the_escape_loop(value: str) -> None:
    from agentctl.ground import codec

    slow = value if not any(codec._needs_escape(c) for c in value) else None
    if slow is not None:
        assert codec.encode(value) == value
    else:
        assert codec.encode(value) != value and codec.decode(codec.encode(value)) == value
    assert codec.encode(value) == "".join(codec.encode(c) for c in value)  # per character, the loop's answer


@settings(max_examples=200, deadline=None)
@given(
    records=st.lists(st.tuples(st.sampled_from(LOG_OPS), st.sampled_from(NAMES)), max_size=30),
    junk=st.lists(
        st.sampled_from(
            [
                b"x|y\n",
                b"t|MODIFY|a|b\n",
                b"t|MODIFY|a\\q\n",
                b"\n",
                b"t|MODIFY|ab",
                b"t|MOD\\x49FY|a\n",
                b"t|MODIFY|\xff\n",
            ]
        ),
        max_size=3,
    ),
)
def test_files_entries_fast_path_is_the_record_parse(
    records: list[tuple[str, str]], junk: list[bytes]
) -> None:
    """Without a backslash in the log, entries() splits lines itself; the answer is split_record's."""
    import agentctl.files.log
    from agentctl.ground import codec

    lines = [codec.record("2026-01-01T00:00:00+00:00", op, path) for op, path in records]
    for i, extra in enumerate(junk):
        lines.insert(min(2 * i, len(lines)), extra)
    data = b"".join(lines)
    want = []
    for line in data.decode("utf-8", "surrogateescape").split("\n")[:-1]:
        rec = codec.split_record(line, 3)
        if rec is not None and (rec[1] in agentctl.files.log.OPS or rec[1] == "SESSION_START"):
            want.append((rec[0], rec[1], rec[2]))
    assert agentctl.files.log.entries(None, data) == want  # type: ignore[arg-type]  # the store is not read when data is given


ENVELOPE_PARTS = [
    "*** Add File: ",
    "*** Update File: ",
    "*** Delete File: ",
    "*** Move to: ",
    "*** Move to:",
    "***  Add File: ",
    "a",
    "b c",
    "é",
    " ",
    "\t",
    "\r",
    "\n",
    "\n",
    "\x1c",
    "\x85",
    "\xa0",
    "\u2028",
    "\u3000",
    "\u200b",
    "\x0b",
    "\x0c",
    "*",
    "*** ",
    ":",
    "|",
]


@settings(max_examples=500, deadline=None)
@given(text=st.lists(st.sampled_from(ENVELOPE_PARTS), max_size=12).map("".join))
def test_codex_envelope_lines_are_the_regex_matches(text: str) -> None:
    """Codex's patch reader (no `re` on the hook path) finds what the envelope regex finds."""
    import re

    from agentctl.integrations import codex

    rx = re.compile(r"^[^\S\n]*\*\*\* (Add File|Update File|Delete File|Move to): (.+?)\s*$", re.MULTILINE)
    ops = {"Add File": "CREATE", "Update File": "MODIFY", "Delete File": "DELETE", "Move to": "MOVE"}
    assert codex.envelope_lines(text) == [(ops[m.group(1)], m.group(2)) for m in rx.finditer(text)]


@pytest.mark.skipif(not _hooks_available(), reason="the editor-hook commands are not in this build")
@pytest.mark.parametrize(
    "event,word,extra",
    [
        ("PreToolUse", "pre-tool-use", {"tool_name": "apply_patch"}),
        ("PostToolUse", "post-tool-use", {"tool_name": "apply_patch"}),
        ("SessionStart", "session-start", {"source": "compact"}),
    ],
)
def test_codex_hooks_import_no_json_or_re(
    busy: Path,
    event: str,
    word: str,
    extra: dict[str, object],
) -> None:
    patch = "*** Begin Patch\n*** Update File: src/f5.ts\n@@\n-a\n+b\n*** End Patch\n"
    payload = {
        "session_id": "s",
        "cwd": str(busy),
        "hook_event_name": event,
        "tool_use_id": "call_1",
        "tool_input": {"command": patch},
        **extra,
    }
    loaded = modules_loaded(busy, "hook", "codex", word, stdin=json.dumps(payload).encode())
    heavy = {m for m in loaded if m.split(".")[0] in HOOK_HEAVY}
    assert not heavy, f"`agentctl hook codex {word}` imports {sorted(heavy)}"
    if word == "post-tool-use":
        assert run("files", "check", "src/f5.ts", cwd=busy).code == 0  # the patch was logged


@pytest.mark.skipif(not _hooks_available(), reason="the editor-hook commands are not in this build")
def test_shell_hook_starts_git_without_subprocess(tmp_path: Path) -> None:
    """The Bash hook (`files sync`) in a real repository: git through posix_spawn, none of HOOK_HEAVY loaded,
    and still the edit made through the shell is logged."""
    from support.hooks import git, log_entries, make_git_project

    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    (proj / "list.txt").write_text("src/app.py\n")
    assert run("task", "start", "--id", "t1", "--desc", "d", "--files", "list.txt", cwd=proj).code == 0
    git(proj, "status")
    (proj / "src" / "app.py").write_text("edited through the shell\n")
    payload = json.dumps(
        {
            "session_id": "s",
            "cwd": str(proj),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "sed -i s/a/b/ src/app.py"},
            "tool_use_id": "toolu_bash_1",
            "tool_response": {"stdout": "", "stderr": "", "interrupted": False},
        }
    ).encode()
    loaded = modules_loaded(proj, "hook", "claude", "post-tool-use", stdin=payload)
    heavy = {m for m in loaded if m.split(".")[0] in HOOK_HEAVY}
    assert not heavy, (
        f"the Bash hook imports {sorted(heavy)}; git is started with posix_spawn (see gitstatus)"
    )
    assert not _third_party(loaded), sorted(_third_party(loaded))
    assert ("MODIFY", "src/app.py") in log_entries(proj)


# -- notify: a hook with no alert configured pays one stat at most ---------------------------------

NOTIFY_PROBE = """
import os, sys
seen = []
real_stat = os.stat
def stat(path, *a, **k):
    if isinstance(path, (str, bytes)) and ("/.agent-state/notify" in os.fsdecode(path)
                                           or "/agentctl/notify/" in os.fsdecode(path)):
        seen.append(os.fsdecode(path))
    return real_stat(path, *a, **k)
os.stat = stat
from agentctl.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
mods = ",".join(m for m in sys.modules if "notify" in m)
sys.stderr.write("\\nNOTIFY_STATS=%d NOTIFY_MODULES=%s\\n" % (len(seen), mods))
"""


@pytest.mark.skipif(not _hooks_available(), reason="the editor-hook commands are not in this build")
@pytest.mark.parametrize(
    "word,event,tool,rel,extra",
    [
        ("post-tool-use", "PostToolUse", "Edit", "db/x.sql", {}),  # a P0 violation recorded: still one stat
        ("pre-tool-use", "PreToolUse", "Edit", "db/x.sql", {}),  # a deny
        ("pre-tool-use", "PreToolUse", "Edit", "src/f4.ts", {}),
        ("session-start", "SessionStart", "", "", {"source": "compact"}),  # a compaction
    ],
)
def test_a_hook_without_notify_config_pays_one_stat_at_most(
    busy: Path,
    word: str,
    event: str,
    tool: str,
    rel: str,
    extra: dict[str, object],
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCTL_")}
    proc = subprocess.run(
        [sys.executable, "-c", NOTIFY_PROBE, "hook", "claude", word],
        cwd=busy,
        env=env,
        input=_payload(busy, event, tool, rel or "src/f4.ts", **extra),
        capture_output=True,
        check=False,
        timeout=60,
    )
    line = next(ln for ln in proc.stderr.decode().splitlines() if ln.startswith("NOTIFY_STATS="))
    stats, modules = line.split()
    assert int(stats.split("=")[1]) <= 1, line
    assert modules == "NOTIFY_MODULES=", line  # nothing of agentctl.notify loaded


def test_task_done_to_done_without_notify_config_pays_one_stat(busy: Path) -> None:
    (busy / "one.txt").write_text("src/only.ts\n")
    assert (
        run("task", "start", "--id", "t2", "--desc", "d", "--files", "one.txt", "--force", cwd=busy).code == 0
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCTL_")}
    proc = subprocess.run(
        [sys.executable, "-c", NOTIFY_PROBE, "task", "done", "src/only.ts"],
        cwd=busy,
        env=env,
        capture_output=True,
        check=False,
        timeout=60,
    )
    line = next(ln for ln in proc.stderr.decode().splitlines() if ln.startswith("NOTIFY_STATS="))
    assert line == "NOTIFY_STATS=1 NOTIFY_MODULES=", line  # the task reached DONE: one look, nothing loaded
    assert run("task", "status", cwd=busy).kv()["STATE"] == "DONE"


# `_json` is CPython's private C half of json: a hook without it (another interpreter) uses json itself.
WITHOUT_C_JSON = (
    sys.executable,
    "-c",
    "import sys; sys.modules['_json'] = None; sys.argv[0] = 'agentctl'; "
    "from agentctl.cli.entry import main; main()",
)


@pytest.mark.skipif(not _hooks_available(), reason="the editor-hook commands are not in this build")
def test_hooks_act_the_same_when_the_private_json_module_cannot_be_imported(busy: Path) -> None:
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.modules['_json'] = None\n"
            "from agentctl.integrations import hookio\n"
            "assert hookio._make_scanner is None and hookio._quote is None",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr  # the fallback is taken, not the C scanner
    post = _payload(busy, "PostToolUse", "Edit", "src/f6.ts")
    assert run("hook", "claude", "post-tool-use", cwd=busy, stdin=post, command=WITHOUT_C_JSON).code == 0
    assert run("files", "check", "src/f6.ts", cwd=busy).out.count("MODIFY") == 1
    pre = _payload(busy, "PreToolUse", "Edit", "db/x.sql")
    slow = run("hook", "claude", "pre-tool-use", cwd=busy, stdin=pre, command=WITHOUT_C_JSON)
    fast = run("hook", "claude", "pre-tool-use", cwd=busy, stdin=pre)
    assert json.loads(slow.out) == json.loads(fast.out)
    assert json.loads(slow.out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    bad = run("hook", "claude", "pre-tool-use", cwd=busy, stdin=b"{not json", command=WITHOUT_C_JSON)
    good = run("hook", "claude", "pre-tool-use", cwd=busy, stdin=b"{not json")
    assert (bad.code, bad.out) == (good.code, good.out)
