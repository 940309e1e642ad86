"""Issue 3, point 6: a catalogue of hostile inputs, grouped by kind, each with its expected outcome.

Outcomes: **RT** - stored and read back exactly (through every text channel it applies to: the
task's DESC and NOTES, a constraint, a tried fix, a files-log path); **REJ** - refused with the
documented exit code (2 usage, 3 state/environment), one line on stderr, state unchanged;
**SAFE** - the command proceeds without following or harming anything outside the folder.

Around every case: nothing is executed (a CANARY file never appears), nothing is written
outside `.agent-state/` (the project and a planted outside folder are snapshotted), no
traceback ever reaches stderr. The write runs through the real `agentctl` executable; reads
back go through the same entry point in-process (faster, same code).
"""

from __future__ import annotations

import json
import os
import posixpath
import resource
import shutil
import signal
import stat
import subprocess
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import AGENTCTL

from .forking import ctl
from .helpers import chdir, figures, outside_snapshot, parse_everything, state_files

# -- the harness --------------------------------------------------------------------------------


class Env:
    """One case's world: a project with a running task, a canary, an outside folder."""

    def __init__(self, root: Path, template: Path) -> None:
        self.root = root
        self.project = root / "proj"
        shutil.copytree(template, self.project, symlinks=True)
        self.state = self.project / ".agent-state"
        self.outside = root / "outside"
        self.outside.mkdir()
        (self.outside / "precious.txt").write_text("precious\n")
        self.calls: list[subprocess.CompletedProcess[bytes]] = []

    def run(
        self,
        *args: str,
        env: dict[str, str] | None = None,
        stdin: bytes | None = None,
        shell: str = "",
        cwd: Path | None = None,
        **kw: object,
    ) -> subprocess.CompletedProcess[bytes]:
        full = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCTL_")}
        full.update(env or {})
        cmd = AGENTCTL + list(args)
        if shell:  # run through sh to close descriptors: shell is e.g. '2>&-'
            cmd = ["/bin/sh", "-c", f'exec "$@" {shell}', "sh", *cmd]
        if "stdout" not in kw:
            kw["capture_output"] = True
        r: subprocess.CompletedProcess[bytes] = subprocess.run(
            cmd, cwd=cwd or self.project, env=full, input=stdin, timeout=30, check=False, **kw
        )  # type: ignore[call-overload]
        self.calls.append(r)
        return r

    def read(self, *args: str) -> dict[str, object]:
        """``agentctl --json ARGS`` through the entry point, in-process."""
        import contextlib
        import io

        from agentctl.cli.main import main

        out, err = io.StringIO(), io.StringIO()
        with chdir(self.project), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["--json", *args])
        assert code in (0, 1), err.getvalue()
        doc = json.loads(out.getvalue())
        assert doc["format"] == 1 and doc["exit"] == code
        data: dict[str, object] = doc["data"]
        return data

    def rejected(
        self, r: subprocess.CompletedProcess[bytes], code: int, before: dict[str, bytes], *words: str
    ) -> None:
        err = r.stderr.decode("utf-8", "replace")
        assert r.returncode == code, (r.args, r.returncode, err, r.stdout[:300])
        assert err.count("\n") == 1 and err.startswith("agentctl: "), err
        for w in words:
            assert w in err, (w, err)
        assert state_files(self.state) == before


def _texts(env: Env) -> dict[str, str]:
    task = env.read("task", "status")["task"]
    assert isinstance(task, dict)
    return {"DESC": task.get("DESC", ""), "NOTES": task.get("NOTES", "")}


def _controls(text: str) -> bool:
    return any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or ord(c) in (0x2028, 0x2029) for c in text)


def round_trip(env: Env, value: str, *, path: bool = True) -> None:
    """RT through every text channel; constraint and tried texts are stored stripped (documented)."""
    ok = env.run("task", "start", "--id", "t2", "--desc", value, "--files", "l.txt", "--force")
    assert ok.returncode == 0, ok.stderr
    assert env.run("task", "update", "--notes", value).returncode == 0
    got = _texts(env)
    assert got == {"DESC": value, "NOTES": value}, (got, value)
    if value.strip() and _controls(value.strip()):  # a rule is one line of plain text (issue 31.9): refused
        assert env.run("constraints", "add", "P1", value).returncode == 2
    elif value.strip():
        assert env.run("constraints", "add", "P1", value).returncode == 0
        rules = env.read("constraints", "list")["constraints"]
        assert isinstance(rules, list) and {"priority": "P1", "text": value.strip(), "shared": False} in rules
        r = env.run("constraints", "remove", f"P1|{value.strip()}")
        assert r.returncode == 0, r.stderr
        assert env.run("verify", "tried", value).returncode == 0
        fields = env.read("verify", "status")["verify"]
        assert isinstance(fields, dict) and value.strip() in fields.values()
    if path:
        p = f"src/{value}"
        assert env.run("files", "log", "MODIFY", "--", p).returncode == 0
        entries = env.read("files", "status")["entries"]
        p = posixpath.normpath(p)  # the path is made relative to the project like any path
        assert isinstance(entries, list)
        assert entries[-1][1:] == ["MODIFY", p], (entries[-1], p)
        r = env.run("files", "check", "--", p)
        assert r.returncode == 0, r.stderr
    # one record per line, whatever the value: every file still parses, one STATE line
    parse_everything(env.state)
    status = (env.state / "services/task/status").read_bytes()
    assert status.count(b"\nSTATE=") + status.startswith(b"STATE=") == 1


@dataclass
class Case:
    group: str
    name: str
    expect: str  # RT | REJ | SAFE
    check: Callable[[Env], None]


CASES: list[Case] = []


def case(group: str, name: str, expect: str) -> Callable[[Callable[[Env], None]], Callable[[Env], None]]:
    def deco(fn: Callable[[Env], None]) -> Callable[[Env], None]:
        CASES.append(Case(group, name, expect, fn))
        return fn

    return deco


def rt(group: str, name: str, value: str, path: bool = True) -> None:
    CASES.append(Case(group, name, "RT", lambda env: round_trip(env, value, path=path)))


def rej(group: str, name: str, args: list[str], code: int, *words: str, stdin: bytes | None = None) -> None:
    def check(env: Env) -> None:
        before = state_files(env.state)
        env.rejected(env.run(*args, stdin=stdin), code, before, *words)

    CASES.append(Case(group, name, "REJ", check))


# -- 1. shell and code injection ---------------------------------------------------------------------
G = "injection"
rt(G, "command substitution $(...)", "$(touch CANARY)")
rt(G, "backticks", "`touch CANARY`")
rt(G, "; && | chains", "; touch CANARY && touch CANARY | touch CANARY")
rt(G, "${IFS} tricks", "${IFS}touch${IFS}CANARY")
rt(G, "$HOME and $PATH never expanded", "$HOME:$PATH:~")
rt(G, "shell assignment", "x; STATE=DONE")
rt(G, "quoted assignment", "x' STATE='DONE")
rt(G, "newline + fake line", "ok\nSTATE=DONE")
rt(G, "newline + SEQ", "n\nSEQ=999999\nLIST=list-0")
rt(G, "python format markers", "{0.__class__} %s%n {} {!r}")
rt(G, "newline + command", "a\ntouch CANARY\n")


@case(G, "a list line that is a shell command is only a path", "RT")
def _(env: Env) -> None:
    r = env.run(
        "task",
        "start",
        "--id",
        "t3",
        "--desc",
        "d",
        "--files",
        "-",
        "--force",
        stdin=b"rm -rf /tmp/x; touch CANARY\n",
    )
    assert r.returncode == 0, r.stderr
    task = env.read("task", "status")["task"]
    assert isinstance(task, dict) and task["NEXT"] == "rm -rf /tmp/x; touch CANARY"


@case(G, "dangerous variable names as options", "REJ")
def _(env: Env) -> None:
    before = state_files(env.state)
    for opt in ("--LD_PRELOAD=/x.so", "--PATH=/tmp", "--STATE=DONE"):
        env.rejected(env.run("task", "update", opt), 2, before, "unknown option")


# -- 2. record format ---------------------------------------------------------------------------------
G = "record format"
rt(G, "| inside values", "a|b||c|")
rt(G, "P0|text|extra as constraint text", "P0|text|extra")
rt(G, "= inside and leading", "=a=b=")
rt(G, "CRLF and lone CR", "a\r\nb\rc")
rt(G, "Unicode line separators", "a\u2028b\u2029c\u0085d\x0be\x0cf\x1cg\x1dh\x1ei")
rt(G, "percent-encoded text stays literal", "%41%0A%")
rt(G, "checksum-like trailer", "#crc32=00000000")
rt(G, "backslash escapes stay literal", "C:\\new\\x41\\u2028\\\\n\\")
rt(G, "# at the start", "# not a comment")
rt(G, "NUL-like escapes as text", "\\x00 \\0")


# -- 3. paths, ids, names ---------------------------------------------------------------------------
G = "paths"
rej(G, "../../etc/passwd", ["files", "log", "MODIFY", "../../etc/passwd"], 2, "outside the project")
rej(G, "absolute /etc/shadow", ["files", "log", "MODIFY", "/etc/shadow"], 2, "outside the project")
rej(G, "src/../../x", ["files", "log", "MODIFY", "src/../../x"], 2, "outside the project")
rej(
    G,
    "/dev/stdin and /proc/self/mem",
    ["task", "done", "/dev/stdin", "/proc/self/mem"],
    2,
    "outside the project",
)
rej(
    G,
    "NUL in a list file line",
    ["task", "start", "--id", "n", "--desc", "d", "--files", "-", "--force"],
    2,
    "NUL",
    stdin=b"a.py\nx\x00y.py\n",
)
rej(G, "a path of 4,097 characters", ["files", "log", "MODIFY", "p" * 4097], 2, "4096")
rej(G, "the project root itself", ["files", "log", "MODIFY", "."], 2, "project root")


@case(G, "absolute path inside the project", "RT")
def _(env: Env) -> None:
    assert env.run("files", "log", "MODIFY", str(env.project / "src/a.py")).returncode == 0
    entries = env.read("files", "status")["entries"]
    assert isinstance(entries, list) and entries[-1][2] == "src/a.py"


@case(G, "./a/./b and a//b normalised", "RT")
def _(env: Env) -> None:
    for raw in ("./a/./b", "a//b", "a/b/"):
        assert env.run("files", "log", "MODIFY", raw).returncode == 0
    entries = env.read("files", "status")["entries"]
    assert isinstance(entries, list) and [e[2] for e in entries[-3:]] == ["a/b"] * 3


rt(G, "~ and $HOME stay literal", "~/.bashrc $HOME/x")
rt(G, "Windows and URL forms stay literal", "C:\\x \\\\server\\share file:///etc/passwd")
rt(G, "look-alike slashes stay literal", "a\uff0fb\u2215c")


@case(G, "a path through a symlink to outside", "REJ")
def _(env: Env) -> None:
    (env.project / "link").symlink_to(env.outside)
    before = state_files(env.state)
    env.rejected(env.run("files", "log", "MODIFY", "link/precious.txt"), 2, before, "symlink")


@case(G, "a path starting with -", "RT")
def _(env: Env) -> None:
    before = state_files(env.state)
    env.rejected(env.run("files", "log", "MODIFY", "-rf"), 2, before, "unknown option")
    assert env.run("files", "log", "MODIFY", "--", "-rf").returncode == 0
    entries = env.read("files", "status")["entries"]
    assert isinstance(entries, list) and entries[-1][2] == "-rf"


@case(G, "NFC and NFD are two paths", "RT")
def _(env: Env) -> None:
    nfc, nfd = unicodedata.normalize("NFC", "café.py"), unicodedata.normalize("NFD", "café.py")
    assert nfc != nfd
    for p in (nfc, nfd):
        assert env.run("files", "log", "MODIFY", p).returncode == 0
    entries = env.read("files", "status")["entries"]
    assert isinstance(entries, list) and [e[2] for e in entries[-2:]] == [nfc, nfd]


@case(G, "task ids that would escape logs/", "REJ")
def _(env: Env) -> None:
    before = state_files(env.state)
    for tid in ("../../evil", "a/b", ".", "..", "", "-x", "a b", "x" * 65, "ünï"):
        env.rejected(env.run("task", "start", "--id", tid, "--desc", "d", "--force"), 2, before)


@case(G, "a task id of 64 characters", "RT")
def _(env: Env) -> None:
    tid = "A" + "b.-_9" * 12 + "xyz"
    assert len(tid) == 64
    assert env.run("task", "start", "--id", tid, "--desc", "d", "--force", "--empty").returncode == 0
    task = env.read("task", "status")["task"]
    assert isinstance(task, dict) and task["TASK_ID"] == tid


@case(G, "service and runlevel names", "REJ")
def _(env: Env) -> None:
    before = state_files(env.state)
    for name in ("../x", "X", "a b", "a/b"):
        r = env.run(name, "start")
        env.rejected(r, 2, before)
    for level in ("../x", "nope"):
        env.rejected(env.run("runlevel", level), 2, before)


@case(G, "--state-dir and AGENTCTL_STATE_DIR at /, /etc, a file, nothing", "REJ")
def _(env: Env) -> None:
    before = state_files(env.state)
    for target in ("/", "/etc", str(env.outside / "precious.txt"), str(env.root / "missing")):
        env.rejected(env.run("--state-dir", target, "status"), 3, before)
        env.rejected(env.run("status", env={"AGENTCTL_STATE_DIR": target}), 3, before)


# -- 4. planted files, links and races in .agent-state ---------------------------------------------
G = "planted"


@case(G, ".agent-state itself a symlink", "REJ")
def _(env: Env) -> None:
    real = env.root / "real-state"
    env.state.rename(real)
    env.state.symlink_to(real)
    before = state_files(real)
    r = env.run("constraints", "add", "P0", "x")
    assert r.returncode == 3 and b"symlink" in r.stderr and r.stderr.count(b"\n") == 1
    assert state_files(real) == before


@case(G, "status a symlink to an outside file", "SAFE")
def _(env: Env) -> None:
    status = env.state / "services/constraints/status"
    status.unlink()
    status.symlink_to(env.outside / "precious.txt")
    r = env.run("constraints", "list")
    assert r.returncode == 3 and b"symlink" in r.stderr and b"doctor" in r.stderr
    assert env.run("doctor", "--fix").returncode == 0
    assert not status.is_symlink() and (env.outside / "precious.txt").read_text() == "precious\n"


@case(G, "the next list file planted as a symlink: the rewrite replaces the link", "SAFE")
def _(env: Env) -> None:
    task = env.read("task", "status")["task"]
    assert isinstance(task, dict)
    nxt = env.state / f"services/task/list-{int(task['SEQ']) + 1}"
    nxt.symlink_to(env.outside / "precious.txt")
    assert env.run("task", "done", "a.py").returncode == 0
    assert not nxt.is_symlink() and nxt.read_bytes().startswith(b"done|a.py\n")
    assert (env.outside / "precious.txt").read_text() == "precious\n"


@case(G, "a lock file a symlink (O_NOFOLLOW)", "REJ")
def _(env: Env) -> None:
    lock = env.state / "services/files/.lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(env.outside / "precious.txt")
    before = state_files(env.state)
    env.rejected(env.run("files", "log", "MODIFY", "a.py"), 3, before, "services/files/.lock")
    assert (env.outside / "precious.txt").read_text() == "precious\n"


@case(G, "a symlink at a temp-file name of a dead process", "SAFE")
def _(env: Env) -> None:
    planted = env.state / "services/constraints/.status.999999.deadbeef.tmp"
    planted.symlink_to(env.outside / "precious.txt")
    assert env.run("constraints", "add", "P1", "x").returncode == 0
    assert not planted.is_symlink() and (env.outside / "precious.txt").read_text() == "precious\n"


@case(G, "logs/ a symlink to an outside folder", "REJ")
def _(env: Env) -> None:
    shutil.rmtree(env.state / "logs")
    (env.state / "logs").symlink_to(env.outside)
    r = env.run("constraints", "add", "P1", "x")
    assert r.returncode == 3 and b"logs is a symlink" in r.stderr
    assert sorted(p.name for p in env.outside.iterdir()) == ["precious.txt"]
    assert env.run("doctor", "--fix").returncode == 0
    assert sorted(p.name for p in env.outside.iterdir()) == ["precious.txt"]
    assert env.run("constraints", "add", "P1", "x").returncode == 0


@case(G, "status hard-linked to an outside file", "SAFE")
def _(env: Env) -> None:
    status = env.state / "services/constraints/status"
    partner = env.outside / "partner"
    os.link(status, partner)
    before = partner.read_bytes()
    assert env.run("constraints", "add", "P1", "new").returncode == 0
    assert partner.read_bytes() == before and b"new" in status.read_bytes()


@case(G, "a FIFO at a status path", "REJ")
def _(env: Env) -> None:
    status = env.state / "services/verify/status"
    status.unlink()
    os.mkfifo(status)
    t0 = time.monotonic()
    r = env.run("verify", "status")
    assert r.returncode == 3 and b"not a regular file" in r.stderr and time.monotonic() - t0 < 5


@case(G, "a folder at a status path", "REJ")
def _(env: Env) -> None:
    status = env.state / "services/constraints/status"
    status.unlink()
    status.mkdir()
    r = env.run("constraints", "list")
    assert r.returncode == 3 and b"not a regular file" in r.stderr and r.stderr.count(b"\n") == 1


@case(G, "a 1 GB sparse status file", "REJ")
def _(env: Env) -> None:
    status = env.state / "services/constraints/status"
    with open(status, "r+b") as fh:
        fh.truncate(1 << 30)
    t0 = time.monotonic()
    r = env.run("constraints", "list")
    assert r.returncode == 3 and b"limit" in r.stderr and time.monotonic() - t0 < 5


@case(G, "a world-writable state folder", "REJ")
def _(env: Env) -> None:
    env.state.chmod(0o777)
    before = state_files(env.state)
    env.rejected(env.run("status"), 3, before, "chmod o-w")


@case(G, "a reused task id never overwrites an archive", "SAFE")
def _(env: Env) -> None:
    assert env.run("task", "stop", "--force").returncode == 0
    first = (env.state / "logs/task-t1.done").read_bytes()
    assert env.run("task", "start", "--id", "t1", "--desc", "again", "--files", "l.txt").returncode == 0
    assert env.run("task", "stop", "--force").returncode == 0
    assert (env.state / "logs/task-t1.done").read_bytes() == first
    assert b"DESC=again" in (env.state / "logs/task-t1.2.done").read_bytes()


# -- 5. encoding and Unicode -------------------------------------------------------------------------
G = "encoding"
rt(
    G,
    "bytes that are not UTF-8 (from argv)",
    b"\xff\xfe caf\xe9 \xed\xa0\x80".decode("utf-8", "surrogateescape"),
)
rt(G, "ANSI escapes and an OSC title", "\x1b[2J\x1b]0;pwned\x07 red")
rt(G, "bidi controls (Trojan Source)", "access\u202e\u2066 // admin\u2069\u2067")
rt(G, "zero-width characters", "a\u200bb\ufeffc\u200dd")
rt(G, "emoji, astral, combining marks", "👩‍💻 𝔘 e\u0301 ﷽")
rt(G, "Chinese text", "将旧模块导入替换为路径别名")
rt(G, "control characters", "".join(chr(c) for c in range(1, 32)) + "\x7f")


@case(G, "Chinese stays readable in the file", "RT")
def _(env: Env) -> None:
    assert env.run("constraints", "add", "P0", "禁止修改 database/migrations 目录").returncode == 0
    assert "P0|禁止修改 database/migrations 目录\n" in (env.state / "services/constraints/status").read_text(
        "utf-8"
    )


@case(G, "a list file that is not UTF-8, with a BOM", "RT")
def _(env: Env) -> None:
    data = b"\xef\xbb\xbfa.py\n\xff\xfe.py\n\xc0\xaf.py\r\n"
    r = env.run("task", "start", "--id", "enc", "--desc", "d", "--files", "-", "--force", stdin=data)
    assert r.returncode == 0, r.stderr
    r = env.run("task", "done", "\xff\xfe.py".encode("latin-1").decode("utf-8", "surrogateescape"))
    assert r.returncode == 0, r.stderr
    task = env.read("task", "status")["task"]
    assert isinstance(task, dict) and (task["DONE"], task["TOTAL"]) == (1, 3)


@case(G, "resume shows control and bidi characters escaped", "SAFE")
def _(env: Env) -> None:
    assert env.run("task", "update", "--notes", "\x1b[2J\u202eevil\n").returncode == 0
    out = env.run("resume").stdout.decode()
    assert "\x1b" not in out and "\u202e" not in out and "\\x1b[2J\\u202eevil\\n" in out


@case(G, "a lone surrogate (JSON/MCP input)", "REJ")
def _(env: Env) -> None:
    before = state_files(env.state)
    with chdir(env.project):
        code, _, err = ctl("task", "update", "--notes", "a\ud800b")
    assert code == 2 and "surrogate" in err and err.count("\n") == 1
    assert state_files(env.state) == before


@case(G, "odd locales and encodings", "RT")
def _(env: Env) -> None:
    for extra in (
        {"LC_ALL": "C", "LANG": "C"},
        {"PYTHONUTF8": "0", "LC_ALL": "POSIX"},
        {"PYTHONIOENCODING": "ascii"},
    ):
        value = "café 将 \u2028"
        r = env.run("task", "update", "--notes", value, env=extra)
        assert r.returncode == 0, (extra, r.stderr)
        assert _texts(env)["NOTES"] == value
        out = env.run("task", "status", env=extra)
        assert out.returncode == 0 and b"Traceback" not in out.stderr


# -- 6. sizes ---------------------------------------------------------------------------------------
G = "sizes"


@case(G, "a value exactly at the limit, and one over", "RT")
def _(env: Env) -> None:
    assert env.run("task", "update", "--notes", "é" * 4096).returncode == 0
    assert _texts(env)["NOTES"] == "é" * 4096
    before = state_files(env.state)
    env.rejected(env.run("task", "update", "--notes", "é" * 4097), 2, before, "4096")


@case(G, "1 MB: argv cannot carry it; through a list file it is refused", "REJ")
def _(env: Env) -> None:
    with pytest.raises(OSError):  # E2BIG: the kernel refuses before agentctl runs
        subprocess.run(
            AGENTCTL + ["task", "update", "--notes", "x" * (1 << 20)], capture_output=True, check=False
        )
    before = state_files(env.state)
    env.rejected(
        env.run(
            "task",
            "start",
            "--id",
            "big",
            "--desc",
            "d",
            "--files",
            "-",
            "--force",
            stdin=b"a.py\n" + b"b" * (1 << 20) + b"\n",
        ),
        2,
        before,
        "line 2",
    )


@case(G, "100 KB in one argument", "REJ")
def _(env: Env) -> None:
    before = state_files(env.state)
    env.rejected(env.run("constraints", "add", "P1", "x" * 100_000), 2, before, "limit")


rej(G, "an empty description", ["task", "start", "--id", "e", "--desc", "", "--force"], 2, "empty")
rej(
    G,
    "a whitespace-only description",
    ["task", "start", "--id", "e", "--desc", " \t\n", "--force"],
    2,
    "empty",
)


@case(G, "an empty note (optional)", "RT")
def _(env: Env) -> None:
    assert env.run("task", "update", "--notes", "").returncode == 0
    assert _texts(env)["NOTES"] == ""


@case(
    G, "10,000 constraints: resume prints every P0 rule, says the budget was too small, nothing else", "SAFE"
)
def _(env: Env) -> None:
    rules = "".join(f"P{i % 3}|rule number {i} " + "x" * 50 + "\n" for i in range(10_000))
    (env.state / "services/constraints/status").write_text(rules)
    t0 = time.monotonic()
    r = env.run("resume", "--max-chars", "2000")
    out = r.stdout.decode().splitlines()
    assert r.returncode == 0 and time.monotonic() - t0 < 5
    assert sum(1 for ln in out if ln.startswith("P0|")) == 3334  # P0 rules are never cut
    assert any(ln.startswith("BUDGET too small") for ln in out) and not any(
        ln.startswith(("P1|", "P2|")) for ln in out
    )


# -- 7. numbers -------------------------------------------------------------------------------------
G = "numbers"
for _v in ("-1", "0", "1e3", "0x10", "1_000", " 5", "5 ", "+5", "٣", "5" * 5000, "", "1.0"):
    rej(G, f"--done {_v[:12]!r}", ["task", "update", "--done", _v], 2, "--done")
for _v in ("-5", "abc", "٣"):
    rej(G, f"--seq {_v!r}", ["task", "update", "--done", "1", "--seq", _v], 2)
for _v in ("0", "-1", "inf", "nan", "1e9"):
    rej(G, f"--timeout {_v!r}", ["verify", "start", "--timeout", _v], 2, "--timeout")
rej(G, "--max-chars below the floor", ["resume", "--max-chars", "5"], 2)


@case(G, "--done larger than what remains is capped", "RT")
def _(env: Env) -> None:
    assert env.run("task", "update", "--done", "999999999").returncode == 0
    task = env.read("task", "status")["task"]
    assert isinstance(task, dict) and task["DONE"] == task["TOTAL"] == 3 and task["STATE"] == "DONE"


@case(G, "a planted TOTAL=abc or DONE=-3", "REJ")
def _(env: Env) -> None:
    status = env.state / "services/task/status"
    for bad in (b"TOTAL=abc", b"DONE=-3"):
        status.write_bytes(status.read_bytes().replace(b"TOTAL=3", bad).replace(b"DONE=0", bad))
        before = state_files(env.state)
        env.rejected(env.run("task", "status"), 3, before, "agentctl doctor")


# -- 8. arguments -----------------------------------------------------------------------------------
G = "arguments"
rej(G, "an unknown flag", ["task", "update", "--frobnicate", "1"], 2, "unknown option")
rej(G, "an unknown command", ["frobnicate"], 2, "unknown command")
rej(G, "a flag without its value", ["task", "update", "--notes"], 2, "needs a value")
rej(
    G,
    "a value given to a flag",
    ["task", "start", "--force=yes", "--id", "x", "--desc", "d"],
    2,
    "takes no value",
)
rej(G, "an unknown priority", ["constraints", "add", "P9", "x"], 2, "P0, P1 or P2")
rej(G, "an unknown files operation", ["files", "log", "RENAME", "a.py"], 2, "CREATE")


# -- 9. process context -----------------------------------------------------------------------------
G = "process"


def _no_stray_bytes(env: Env) -> None:
    parse_everything(env.state)
    for p in env.state.rglob("*"):
        if p.is_file() and not p.name.endswith(".lock"):
            assert b"agentctl:" not in p.read_bytes() or p.name in ("agent.log", "README"), p


@case(G, "stderr closed, a failing command", "REJ")
def _(env: Env) -> None:
    before = state_files(env.state)
    r = env.run("task", "update", "--done", "x", shell="2>&-")
    assert r.returncode == 2 and state_files(env.state) == before
    r = env.run("task", "update", "--notes", "with stderr closed", shell="2>&-")
    assert r.returncode == 0
    _no_stray_bytes(env)


@case(G, "stdout closed", "SAFE")
def _(env: Env) -> None:
    r = env.run("task", "update", "--notes", "with stdout closed", shell=">&-")
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    assert _texts(env)["NOTES"] == "with stdout closed"
    _no_stray_bytes(env)


@case(G, "stdin closed", "SAFE")
def _(env: Env) -> None:
    r = env.run("task", "start", "--id", "s", "--desc", "d", "--files", "-", "--force", shell="<&-")
    # no list
    assert r.returncode == 2 and b"holds no path" in r.stderr and b"Traceback" not in r.stderr, r.stderr
    r = env.run("task", "start", "--id", "s", "--desc", "d", "--empty", "--force", shell="<&-")
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    _no_stray_bytes(env)


@case(G, "stdin, stdout and stderr all closed", "SAFE")
def _(env: Env) -> None:
    for args in (
        ("files", "log", "MODIFY", "closed.py"),
        ("task", "update", "--notes", "all closed"),
        ("task", "update", "--done", "bad"),
    ):
        env.run(*args, shell="<&- >&- 2>&-")
    assert _texts(env)["NOTES"] == "all closed"
    entries = env.read("files", "status")["entries"]
    assert isinstance(entries, list) and entries[-1][2] == "closed.py"
    _no_stray_bytes(env)


@case(G, "stdout a closed pipe", "SAFE")
def _(env: Env) -> None:
    for args in (("resume",), ("task", "update", "--notes", "into a closed pipe"), ("--help",)):
        rd, wr = os.pipe()
        os.close(rd)
        try:
            r = env.run(*args, stdout=wr, stderr=subprocess.PIPE, capture_output=False)
        finally:
            os.close(wr)
        assert r.returncode == 0 and b"Traceback" not in r.stderr, (args, r.stderr)
    assert _texts(env)["NOTES"] == "into a closed pipe"  # a broken pipe never undoes a committed change


@case(G, "umask 000 still gives private files", "SAFE")
def _(env: Env) -> None:
    old = os.umask(0)
    try:
        assert env.run("constraints", "add", "P1", "umask").returncode == 0
        assert env.run("task", "done", "a.py").returncode == 0
    finally:
        os.umask(old)
    for p in (env.state / "services/constraints/status", env.state / "services/task/status"):
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, p


@case(G, "the current folder deleted", "REJ")
def _(env: Env) -> None:
    gone = env.project / "gone"
    gone.mkdir()
    script = f'cd {gone} && rmdir {gone} && exec "$@"'
    r = subprocess.run(["/bin/sh", "-c", script, "sh", *AGENTCTL, "status"], capture_output=True, check=False)
    assert r.returncode == 3 and b"no longer exists" in r.stderr and r.stderr.count(b"\n") == 1


@case(G, "HOME unset", "SAFE")
def _(env: Env) -> None:
    full = {k: v for k, v in os.environ.items() if k != "HOME" and not k.startswith("AGENTCTL_")}
    r = subprocess.run(
        AGENTCTL + ["files", "log", "MODIFY", "nohome.py"],
        cwd=env.project,
        env=full,
        capture_output=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr


@case(G, "a garbage AGENTCTL_LOCK_TIMEOUT", "SAFE")
def _(env: Env) -> None:
    for value in ("abc", "-1", "nan", "1e999"):
        assert env.run("files", "log", "MODIFY", "t.py", env={"AGENTCTL_LOCK_TIMEOUT": value}).returncode == 0


@case(G, "a full disk (RLIMIT_FSIZE)", "REJ")
def _(env: Env) -> None:
    before = state_files(env.state)

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))

    r = env.run("task", "update", "--notes", "x" * 200, preexec_fn=limit)
    err = r.stderr.decode()
    assert r.returncode == 3 and err.count("\n") == 1 and "services/task" in err and "disk" in err, err
    assert state_files(env.state) == before
    assert env.run("task", "update", "--notes", "after").returncode == 0


@case(G, "a full disk (a 512 KB tmpfs, when mounting is allowed)", "REJ")
def _(env: Env) -> None:
    mnt = env.root / "tiny"
    mnt.mkdir()
    if (
        os.geteuid() != 0
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mnt)], capture_output=True, check=False
        ).returncode
        != 0
    ):
        pytest.skip("needs root and mount to make a real ENOSPC")
    try:
        proj = mnt / "p"
        shutil.copytree(env.project, proj, symlinks=True)
        fd = os.open(mnt / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while True:
                os.write(fd, b"\0" * 4096)
        except OSError:
            pass
        finally:
            os.close(fd)
        before = state_files(proj / ".agent-state")
        r = env.run("constraints", "add", "P1", "y" * 1500, cwd=proj)
        err = r.stderr.decode()
        assert r.returncode == 3 and "No space left" in err and err.count("\n") == 1, err
        assert state_files(proj / ".agent-state") == before
        (mnt / "filler").unlink()
        again = env.run("constraints", "add", "P1", "y" * 1500, cwd=proj)
        assert again.returncode == 0, again.stderr
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


@case(G, "a read-only state folder", "REJ")
def _(env: Env) -> None:
    before = state_files(env.state)
    if os.geteuid() == 0:
        if (
            subprocess.run(
                ["mount", "--bind", str(env.state), str(env.state)], capture_output=True, check=False
            ).returncode
            != 0
        ):
            pytest.skip("needs mount to make a folder read-only for root")
        subprocess.run(["mount", "-o", "remount,ro,bind", str(env.state)], check=True)
        undo = ["umount", str(env.state)]
    else:
        for p in [env.state, *env.state.rglob("*")]:
            if p.is_dir():
                p.chmod(0o500)
        undo = ["chmod", "-R", "u+w", str(env.state)]
    try:
        for args in (
            ("constraints", "add", "P1", "x"),
            ("files", "log", "MODIFY", "a.py"),
            ("task", "done", "a.py"),
        ):
            env.rejected(env.run(*args), 3, before)
        assert env.run("resume").returncode == 0  # reading needs no write
    finally:
        subprocess.run(undo, check=False)


# -- the runner ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("hostile-template")
    proj = base / "proj"
    proj.mkdir()
    (proj / ".git").mkdir()
    (proj / "l.txt").write_text("a.py\nb.py\nc.py\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCTL_")}
    for args in (["init"], ["task", "start", "--id", "t1", "--desc", "hostile", "--files", "l.txt"]):
        assert (
            subprocess.run(AGENTCTL + args, cwd=proj, env=env, capture_output=True, check=False).returncode
            == 0
        )
    return proj


@pytest.mark.parametrize("c", CASES, ids=[f"{c.group}: {c.name}" for c in CASES])
def test_hostile_input(c: Case, template: Path, tmp_path: Path) -> None:
    env = Env(tmp_path, template)
    outside_before = outside_snapshot(tmp_path, env.state)
    outside_before = {k: v for k, v in outside_before.items() if not k.startswith("proj/.agent-state")}
    c.check(env)
    for r in env.calls:
        assert b"Traceback" not in r.stderr and b"internal error" not in r.stderr, (r.args, r.stderr)
        assert r.returncode in (0, 1, 2, 3), (r.args, r.returncode)
    assert not list(tmp_path.rglob("CANARY")) and not Path("CANARY").exists(), "something was executed"
    after = outside_snapshot(tmp_path, env.state)
    changed = {k for k in set(outside_before) | set(after) if outside_before.get(k) != after.get(k)}
    allowed = ("proj/link", "real-state", "outside/partner", "proj/gone", "tiny")  # what the case itself made
    assert {k for k in changed if not k.startswith(allowed)} == set(), changed
    assert (env.outside / "precious.txt").read_text() == "precious\n"


def test_catalogue_size() -> None:
    groups: dict[str, int] = {}
    for c in CASES:
        groups[c.group] = groups.get(c.group, 0) + 1
    assert len(CASES) >= 60
    kinds = {k: sum(1 for c in CASES if c.expect == k) for k in ("RT", "REJ", "SAFE")}
    figures(
        f"E1 hostile inputs: {len(CASES)} catalogue entries in {len(groups)} groups "
        f"({', '.join(f'{g} {n}' for g, n in groups.items())}); expected outcomes RT {kinds['RT']}, "
        f"REJ {kinds['REJ']}, SAFE {kinds['SAFE']}; nothing executed, nothing written outside .agent-state"
    )


def test_nothing_runs_a_stored_value() -> None:
    """Static gate: no shell, eval or exec anywhere; only modules that run what the developer
    configured (verify commands, service scripts, git, the demo) start processes."""
    src = Path(__file__).resolve().parents[2] / "src" / "agentctl"
    for p in src.rglob("*.py"):
        text = p.read_text()
        for bad in ("shell=True", "os.system(", "eval(", "exec(", "os.popen(", "pickle"):
            assert bad not in text, (p, bad)
    runners = {
        p.relative_to(src).as_posix()
        for p in src.rglob("*.py")
        if "subprocess." in p.read_text() and "import subprocess" in p.read_text()
    }
    # one process runner; the demo is a front end; notify's deliverer runs the person's own alert commands
    # one process runner; the demo is a front end
    assert runners <= {"ground/proc.py", "demo/scenario.py", "notify/deliver.py"}, runners
