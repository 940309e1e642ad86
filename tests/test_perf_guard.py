"""Regression guard for the hot path (not timed; bench/run.py does the timing).

Each hot-path command runs in a fresh interpreter through the console-script entry point
(``agentctl.cli:main``) and must not pull in modules it does not need: argparse, json,
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
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run

# Never on the hot path: what the issue names, and what `dataclasses` would bring with it.
HEAVY = {"argparse", "json", "subprocess", "dataclasses", "inspect", "typing", "ast", "dis", "tokenize",
         "asyncio", "threading", "mcp", "pydantic", "anyio", "httpx", "uuid", "tempfile", "shutil", "logging"}

PROBE = """
import sys
base = set(sys.modules)
from agentctl.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
sys.stderr.write("\\nMODULES=" + ",".join(sorted(set(sys.modules) - base)) + "\\n")
sys.stderr.write("FILES=" + ",".join(sorted({m for m in set(sys.modules) - base
                                            if getattr(sys.modules[m], "__file__", None)})) + "\\n")
"""


def _loaded(project: Path, *args: str, stdin: bytes | None = None) -> set[str]:
    """Modules a fresh interpreter loads for `agentctl ARGS` beyond its own start-up."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCTL_")}
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=project, input=stdin, capture_output=True,
                          env=env, check=False, timeout=60)
    err = proc.stderr.decode("utf-8", "replace")
    line = next((ln for ln in err.splitlines() if ln.startswith("MODULES=")), None)
    assert line is not None, err
    assert "internal error" not in err, err
    return set(filter(None, line[8:].split(",")))


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
    loaded = _loaded(project, *args, stdin=stdin)
    heavy = {m for m in loaded if m.split(".")[0] in HEAVY}
    assert not heavy, f"`agentctl {' '.join(args)}` imports {sorted(heavy)}; keep them off the hot path (see bench/)"
    foreign = _third_party(loaded)
    assert not foreign, f"`agentctl {' '.join(args)}` imports third-party modules {sorted(foreign)}"
    return loaded


@pytest.fixture
def busy(project: Path) -> Path:
    (project / "list.txt").write_text("".join(f"src/f{i}.ts\n" for i in range(20)))
    assert run("task", "start", "--id", "t1", "--desc", "d", "--files", "list.txt", cwd=project).code == 0
    assert run("constraints", "add", "P0", "deny-write: db/**", cwd=project).code == 0
    assert run("files", "log", "MODIFY", "src/f1.ts", cwd=project).code == 0
    return project


@pytest.mark.parametrize("args", [
    ("files", "log", "MODIFY", "src/f2.ts"),
    ("files", "check", "src/f1.ts"),
    ("files", "check", "src/f9.ts"),
    ("task", "done", "src/f3.ts"),
    ("task", "update", "--done", "1", "--seq", "3"),
    ("task", "update", "--done", "1", "--seq", "1"),  # a replay: a no-op
    ("resume",),
])
def test_hot_path_imports_nothing_heavy(busy: Path, args: tuple[str, ...]) -> None:
    loaded = _check(busy, args)
    # Not even what pip's launcher may bring: these commands run below the floor without them.
    extra = {m for m in loaded if m.split(".")[0] in ("re", "enum", "signal", "contextlib", "collections")}
    assert not extra, f"`agentctl {' '.join(args)}` imports {sorted(extra)}; import them where they are used"


def _hooks_available() -> bool:
    from agentctl import cli

    return "hook" in cli.EXTENSIONS


def _payload(project: Path, event: str, tool: str) -> bytes:
    target = str(project / "src" / "f4.ts")
    data: dict[str, object] = {"session_id": "s", "cwd": str(project), "hook_event_name": event, "tool_name": tool,
                               "tool_input": {"file_path": target, "old_string": "a", "new_string": "b"}}
    if event == "PostToolUse":
        data["tool_response"] = {"filePath": target, "success": True}
    return json.dumps(data).encode()


@pytest.mark.skipif(not _hooks_available(), reason="the editor-hook commands are not in this build")
@pytest.mark.parametrize("event,word", [("PostToolUse", "post-tool-use"), ("PreToolUse", "pre-tool-use")])
def test_edit_hooks_import_no_subprocess(busy: Path, event: str, word: str) -> None:
    args = ("hook", "claude", word)
    loaded = _loaded(busy, *args, stdin=_payload(busy, event, "Edit"))
    heavy = {m for m in loaded if m.split(".")[0] in (HEAVY - {"json"}) | {"mcp"}}
    assert not heavy, f"`agentctl {' '.join(args)}` on an Edit imports {sorted(heavy)}"
    assert not _third_party(loaded), sorted(_third_party(loaded))


# -- the fast text path of task done / task update --done gives what the general path gives -------

NAMES = ["a", "ab", "a/b", "a.b", "b", "src/x.ts", "src/x.tsx", "é/ü.ts", "c d", "back\\slash", "pi|pe", "done", "todo"]


def _pair(base: str, paths: list[str], done_first: int) -> tuple[object, object]:
    from agentctl import layout, task

    stores = []
    for n in range(2):
        root = os.path.join(base, str(n))
        os.makedirs(os.path.join(root, ".git"))
        store, _ = layout.init(root)
        task.start(store, "t1", "desc", paths)
        if done_first:
            task.update(store, done=done_first)
        stores.append(store)
    return stores[0], stores[1]


def _snapshot(store: object) -> tuple[dict[str, str], bytes]:
    from agentctl import task
    from agentctl.store import Store

    assert isinstance(store, Store)
    fields = task.read_status(store)
    data = store.read(f"services/task/{fields['LIST']}", cap=1 << 26) if fields.get("LIST") else b""
    return {k: v for k, v in fields.items() if k not in ("UPDATED", "STARTED")}, data or b""


def _apply(store: object, op: tuple[str, object], plain: bool) -> object:
    from agentctl import task
    from agentctl.errors import AgentctlError
    from agentctl.store import Store

    assert isinstance(store, Store)
    task._PLAIN = plain
    try:
        kind, arg = op
        if kind == "done":
            assert isinstance(arg, list)
            r = task.mark_done(store, arg)
        elif kind == "update":
            assert isinstance(arg, tuple)
            n, stale, notes = arg
            seq = int(task.read_status(store)["SEQ"]) - (1 if stale else 0)
            r = task.update(store, done=n, seq=seq, notes=notes)
        else:
            assert isinstance(arg, str)
            r = task.update(store, next_path=arg)
        return (r.applied, r.message, r.changed, {k: v for k, v in r.fields.items() if k not in ("UPDATED", "STARTED")})
    except AgentctlError as exc:
        return (type(exc).__name__, exc.message)
    finally:
        task._PLAIN = True


OPS = st.one_of(
    st.tuples(st.just("done"), st.lists(st.sampled_from(NAMES + ["missing"]), min_size=1, max_size=3)),
    st.tuples(st.just("update"), st.tuples(st.integers(1, 4), st.booleans(), st.sampled_from([None, "n"]))),
    st.tuples(st.just("next"), st.sampled_from(NAMES)),
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(paths=st.lists(st.sampled_from(NAMES), min_size=1, max_size=len(NAMES) + 3),
       done_first=st.integers(0, 3), ops=st.lists(OPS, min_size=1, max_size=6))
def test_fast_task_path_matches_general_path(paths: list[str], done_first: int, ops: list[tuple[str, object]]) -> None:
    with tempfile.TemporaryDirectory(prefix="agentctl-guard-") as base:
        fast, general = _pair(base, paths, min(done_first, len(paths)))
        for op in ops:
            got = _apply(fast, op, plain=True)
            want = _apply(general, op, plain=False)
            assert got == want, op
            assert _snapshot(fast) == _snapshot(general), op


def test_fast_task_path_is_taken_for_plain_lists(project: Path) -> None:
    from agentctl import task
    from agentctl.store import Store

    store = Store(str(project / ".agent-state"))
    task.start(store, "t1", "d", [f"src/f{i}.ts" for i in range(5)])
    assert task._plain_list(store, task.read_status(store)) is not None
    task.start(store, "t2", "d", ["src/a|b.ts", "src/c.ts"], force=True)  # an escaped path: the general path
    assert task._plain_list(store, task.read_status(store)) is None


# -- files check finds exactly what a parse of the whole log finds; resume's FILES read is bounded ---

LOG_OPS = ["CREATE", "MODIFY", "DELETE", "SESSION_START", "BOGUS"]


def _log_store(base: str, records: list[tuple[str, str]], junk: list[bytes]) -> object:
    from agentctl import codec, layout

    os.makedirs(os.path.join(base, ".git"))
    store, _ = layout.init(base)
    lines = [codec.record("2026-01-01T00:00:00+00:00", op, path) for op, path in records]
    for i, extra in enumerate(junk):  # malformed lines, a field too many, a bad escape, a fragment
        lines.insert(min(3 * i, len(lines)), extra)
    with open(store.path("services/files/status"), "wb") as fh:
        fh.write(b"".join(lines))
    return store


@settings(max_examples=100, deadline=None)
@given(records=st.lists(st.tuples(st.sampled_from(LOG_OPS), st.sampled_from(NAMES)), max_size=40),
       junk=st.lists(st.sampled_from([b"x|y\n", b"t|MODIFY|a|b\n", b"t|MODIFY|a\\q\n", b"\n", b"t|MODIFY|ab"]), max_size=3),
       probe=st.sampled_from(NAMES), chunk=st.sampled_from([1, 7, 40, 64, 1 << 20]))
def test_files_check_matches_a_full_parse(records: list[tuple[str, str]], junk: list[bytes], probe: str,
                                          chunk: int) -> None:
    from agentctl import files
    from agentctl.store import Store

    with tempfile.TemporaryDirectory(prefix="agentctl-guard-") as base:
        store = _log_store(base, records, junk)
        assert isinstance(store, Store)
        want = [e for e in files.entries(store) if e[2] == probe and e[1] in files.OPS]
        saved, files.CHECK_CHUNK = files.CHECK_CHUNK, chunk  # lines cut across reads
        try:
            assert files.check(store, probe) == want
        finally:
            files.CHECK_CHUNK = saved


@settings(max_examples=50, deadline=None)
@given(records=st.lists(st.tuples(st.sampled_from(LOG_OPS[:4]), st.sampled_from(NAMES)), max_size=60),
       window=st.integers(40, 4000))
def test_resume_files_summary_is_bounded_and_exact_when_it_fits(records: list[tuple[str, str]], window: int) -> None:
    from agentctl import files
    from agentctl.store import Store

    with tempfile.TemporaryDirectory(prefix="agentctl-guard-") as base:
        store = _log_store(base, records, [])
        assert isinstance(store, Store)
        full = files.touched(store)
        count, exact, last = files.recent(store, 3, window)
        assert exact == (files.size(store) <= window)
        if exact:
            assert (count, last) == (len(full), [p for p, _, _ in full[-3:]])
        else:
            assert count <= len(full) and set(last) <= {p for p, _, _ in full}


@settings(max_examples=60, deadline=None)
@given(batches=st.lists(st.lists(st.tuples(st.sampled_from(LOG_OPS), st.sampled_from(NAMES)), max_size=15),
                        min_size=1, max_size=5),
       junk=st.lists(st.sampled_from([b"x|y\n", b"t|MODIFY|a|b\n", b"t|MODIFY|a\\q\n", b"\n", b"t|MODIFY|ab"]), max_size=2),
       slack=st.integers(0, 200), chunk=st.sampled_from([16, 1 << 18]), damage=st.sampled_from(["", "truncate", "header"]))
def test_files_check_through_the_index_matches_a_full_parse(batches: list[list[tuple[str, str]]], junk: list[bytes],
                                                            slack: int, chunk: int, damage: str) -> None:
    """The index (used from INDEX_MIN on, extended past INDEX_SLACK) never changes an answer, damaged or not."""
    from agentctl import codec, files
    from agentctl.store import Store

    saved = files.INDEX_MIN, files.INDEX_SLACK, files.CHECK_CHUNK
    files.INDEX_MIN, files.INDEX_SLACK, files.CHECK_CHUNK = 0, slack, chunk
    try:
        with tempfile.TemporaryDirectory(prefix="agentctl-guard-") as base:
            store = _log_store(base, batches[0], junk)
            assert isinstance(store, Store)
            for n, batch in enumerate(batches):
                if n:
                    with open(store.path(files.LOG), "ab") as fh:
                        fh.write(b"".join(codec.record("2026-01-02T00:00:00+00:00", op, p) for op, p in batch))
                for probe in NAMES:
                    want = [e for e in files.entries(store) if e[2] == probe and e[1] in files.OPS]
                    assert files.check(store, probe) == want, (n, probe)
                index = store.path(files.INDEX)
                if damage and os.path.exists(index):
                    with open(index, "r+b") as fh:
                        if damage == "truncate":
                            fh.truncate(max(0, os.path.getsize(index) - 7))
                        else:
                            fh.write(b"agentctl-files-index 1 1 2 3 00 00")
    finally:
        files.INDEX_MIN, files.INDEX_SLACK, files.CHECK_CHUNK = saved


def test_files_check_reads_little_of_a_long_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a 100,000-entry log, a check (after the first builds the index) reads kilobytes, not the log."""
    from agentctl import codec, files, layout

    (tmp_path / ".git").mkdir()
    store, _ = layout.init(str(tmp_path))
    with open(store.path(files.LOG), "wb") as fh:
        fh.write(b"".join(codec.record("2026-01-01T00:00:00+00:00", "MODIFY", f"src/m{i % 9000:05d}.ts")
                          for i in range(100_000)))
    assert len(files.check(store, "src/m00007.ts")) == 12  # builds the index
    assert os.path.getsize(store.path(files.INDEX)) > 1 << 20
    read = 0
    real = os.pread

    def counting(fd: int, n: int, offset: int) -> bytes:
        nonlocal read
        data = real(fd, n, offset)
        read += len(data)
        return data

    with open(store.path(files.LOG), "ab") as fh:
        fh.write(codec.record("2026-01-02T00:00:00+00:00", "CREATE", "src/m00007.ts"))
    monkeypatch.setattr(os, "pread", counting)
    found = files.check(store, "src/m00007.ts")
    monkeypatch.undo()
    assert len(found) == 13 and found[-1][1] == "CREATE"
    assert 0 < read < 100_000, read


@settings(max_examples=300, deadline=None)
@given(value=st.text(max_size=40), limit=st.integers(10, 400))
def test_resume_fast_escape_is_the_codec_escape(value: str, limit: int) -> None:
    from agentctl import codec, resume

    text = codec.encode(value)
    assert resume._v(value, limit) == (text if len(text) <= limit else text[: limit - 3] + "...")
