"""What the Claude Code and Codex end-to-end tests share (standard library + pytest).

* :class:`RecordingServer` -- the threaded loopback HTTP server under both
  scripted model servers (``fake_anthropic``, ``fake_openai``): it records
  every request (path + parsed JSON body), asks a stateless policy what to
  answer, keeps policy errors for the test, and writes each answered request
  to ``record_dir``.  A subclass says which paths mean what.
* Binary discovery: :func:`find_binary` reads the pinned version from an
  install script (``install_claude.sh``, ``install_codex.sh``; each pins its
  own), looks in ``${AGENTCTL_E2E_CACHE:-$HOME/.cache/agentctl-e2e}``, honours
  the override variable, and skips with the reason and the command to run.
* Running things: :func:`agentctl_command`, :func:`agentctl`, :func:`ok`,
  :func:`require_integration`, :func:`clean_env`, :func:`run_cli` (its own
  process group), :class:`Run`, :func:`dump_artifacts`, :func:`make_project`.
* Talking to a fake server directly: :func:`post_json`, :func:`sse`,
  :func:`parse_sse`.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Generic, TypeVar

import pytest

from conftest import run

JSON = dict[str, Any]

HERE = Path(__file__).resolve().parent
# Captured at import: tests/conftest.py points HOME at a temporary folder per test.
ENV_AT_START = dict(os.environ)

ReplyT = TypeVar("ReplyT")
ServerT = TypeVar("ServerT", bound="RecordingServer[Any]")


# --------------------------------------------------------------------------
# the recording loopback server


@dataclass
class Recorded:
    """One request the server received."""

    seq: int
    method: str
    path: str
    body: JSON
    received_at: float
    reply: JSON | None = None
    kind: str = ""

    def as_json(self) -> JSON:
        return {
            "seq": self.seq,
            "method": self.method,
            "path": self.path,
            "kind": self.kind,
            "received_at": self.received_at,
            "body": self.body,
            "reply": self.reply,
        }


def sse(event: str, data: JSON) -> bytes:
    """One server-sent event."""
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class Exchange:
    """One request being answered: its path and how to send the answer."""

    def __init__(self, handler: BaseHTTPRequestHandler, headers: Mapping[str, str]) -> None:
        self._handler = handler
        self._headers = headers

    @property
    def path(self) -> str:
        """The request path without its query."""
        return self._handler.path.split("?", 1)[0]

    def send(
        self, status: int, content_type: str, data: bytes, extra: Mapping[str, str] | None = None
    ) -> None:
        handler = self._handler
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        for key, value in (extra or {}).items():
            handler.send_header(key, value)
        handler.send_header("Content-Length", str(len(data)))
        for key, value in self._headers.items():
            handler.send_header(key, value)
        handler.end_headers()
        handler.wfile.write(data)

    def send_json(self, status: int, payload: JSON) -> None:
        self.send(status, "application/json", json.dumps(payload).encode())

    def send_stream(self, data: bytes) -> None:
        self.send(200, "text/event-stream", data, {"Cache-Control": "no-cache"})


class RecordingServer(Generic[ReplyT]):
    """A threaded HTTP server on 127.0.0.1 (a free port) that records every request.

    Subclasses implement :meth:`on_post` (and :meth:`on_get`)
    and answer through :meth:`consult`, which asks the policy.  Use as a
    context manager or start()/stop().
    """

    thread_name = "fake-model"
    #: answer HEAD with an empty 200 (else 501, as BaseHTTPRequestHandler does)
    answers_head = False
    #: headers sent with every answer
    headers: Mapping[str, str] = {}

    def __init__(
        self,
        policy: Callable[[JSON], ReplyT],
        *,
        record_dir: Path | None,
        input_tokens: Callable[[JSON], int],
        on_request: Callable[[Recorded], None] | None,
    ) -> None:
        self.policy = policy
        self.input_tokens = input_tokens
        self.on_request = on_request
        self.record_dir = record_dir
        self._lock = threading.Lock()
        self._records: list[Recorded] = []
        self._seq = itertools.count(1)
        self.errors: list[str] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- what a subclass decides -------------------------------------------
    def on_get(self, exchange: Exchange, record: Recorded) -> None:
        exchange.send_json(200, {})

    def on_post(self, exchange: Exchange, record: Recorded) -> None:
        raise NotImplementedError

    def consult(
        self,
        record: Recorded,
        kind: Callable[[JSON], str],
        answer: Callable[[str, JSON], ReplyT],
        on_error: Callable[[str], ReplyT],
    ) -> ReplyT:
        """Name the request's kind, call ``on_request``, then ``answer(kind, body)``.
        An exception anywhere is kept in :attr:`errors` and answered with ``on_error(text)``."""
        try:
            record.kind = kind(record.body)
            if self.on_request is not None:
                self.on_request(record)
            return answer(record.kind, record.body)
        except Exception as exc:  # noqa: BLE001 - surfaced to the test
            self.errors.append(f"request {record.seq}: {exc!r}")
            return on_error(f"[fake model error: {exc!r}]")

    # -- lifecycle -------------------------------------------------------
    def start(self: ServerT) -> ServerT:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return

            def do_GET(self) -> None:  # noqa: N802
                server.on_get(Exchange(self, server.headers), server._record("GET", self.path, {}))

            def do_HEAD(self) -> None:  # noqa: N802
                if not server.answers_head:
                    self.send_error(501, "Unsupported method ('HEAD')")
                    return
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else {}
                except (json.JSONDecodeError, UnicodeDecodeError):
                    body = {
                        "_raw": raw.decode("utf-8", "replace"),
                        "_encoding": self.headers.get("Content-Encoding", ""),
                    }
                if not isinstance(body, dict):
                    body = {"_value": body}
                server.on_post(Exchange(self, server.headers), server._record("POST", self.path, body))

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name=self.thread_name, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self: ServerT) -> ServerT:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    # -- records ---------------------------------------------------------
    def _record(self, method: str, path: str, body: JSON) -> Recorded:
        record = Recorded(next(self._seq), method, path, body, time.time())
        with self._lock:
            self._records.append(record)
        return record

    def save(self, record: Recorded) -> None:
        """Write the request and its reply to ``record_dir/NNNN-kind.json``."""
        if self.record_dir is None:
            return
        self.record_dir.mkdir(parents=True, exist_ok=True)
        (self.record_dir / f"{record.seq:04d}-{record.kind}.json").write_text(
            json.dumps(record.as_json(), indent=1)
        )

    @property
    def requests(self) -> list[Recorded]:
        with self._lock:
            return list(self._records)


def post_json(port: int, path: str, body: JSON) -> tuple[int, str, bytes]:
    """POST ``body`` to the server on ``port``: (status, content type, raw answer)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.getheader("Content-Type") or "", resp.read()
    finally:
        conn.close()


def parse_sse(raw: bytes) -> list[tuple[str, JSON]]:
    """A server-sent-event stream as (event, data) pairs."""
    out = []
    for chunk in raw.decode().split("\n\n"):
        if not chunk.strip():
            continue
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


# --------------------------------------------------------------------------
# finding a pinned CLI


def cache_root() -> Path:
    env = ENV_AT_START.get("AGENTCTL_E2E_CACHE")
    home = ENV_AT_START.get("HOME") or str(Path.home())
    return Path(env) if env else Path(home) / ".cache" / "agentctl-e2e"


def pinned_version(script: Path, variable: str) -> str:
    """The version pinned by the ``VARIABLE=`` line of an install script."""
    match = re.search(rf"^{variable}=([0-9A-Za-z.\-]+)\s*$", script.read_text(), re.MULTILINE)
    if not match:
        raise RuntimeError(f"no {variable}= line in {script}")
    return match.group(1)


@dataclass(frozen=True)
class Binary:
    """A CLI that ran ``--version``."""

    path: Path
    version: str


@dataclass(frozen=True)
class Pinned:
    """Where an install script puts a CLI: ``<cache>/<name>-<version>/node_modules/.bin/<name>``."""

    label: str  # for skip messages, e.g. "Claude Code"
    name: str  # the executable, e.g. "claude"
    script: Path
    version_variable: str  # e.g. "CLAUDE_CODE_VERSION"
    override: str  # the variable naming the binary instead, e.g. "AGENTCTL_CLAUDE_BIN"

    def path(self) -> Path:
        env = ENV_AT_START.get(self.override)
        if env:
            return Path(env)
        version = pinned_version(self.script, self.version_variable)
        return cache_root() / f"{self.name}-{version}" / "node_modules" / ".bin" / self.name

    def hint(self) -> str:
        return f"run `bash {self.script.relative_to(HERE.parent.parent)}` (or set {self.override})"


def find_binary(pinned: Pinned, home: Path, extra_env: Mapping[str, str] | None = None) -> Binary:
    """The pinned CLI after ``--version`` worked (run with ``HOME=home``), else pytest.skip."""
    path, hint = pinned.path(), pinned.hint()
    if not path.exists():
        pytest.skip(f"{pinned.label} binary not found at {path}; {hint}")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), **(extra_env or {})}
    try:
        done = subprocess.run(
            [str(path), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            env=env,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"`{path} --version` could not run: {exc!r}; {hint}")
    if done.returncode != 0:
        pytest.skip(
            f"`{path} --version` failed (exit {done.returncode}): "
            f"{(done.stderr or done.stdout).strip()[:300]}; {hint}"
        )
    return Binary(path, done.stdout.strip())


# --------------------------------------------------------------------------
# running agentctl and the CLIs


def agentctl_command() -> list[str]:
    """How to run agentctl: $AGENTCTL_E2E_AGENTCTL, the script beside this
    Python, `agentctl` on PATH, or `python -m agentctl` as a last resort."""
    env = ENV_AT_START.get("AGENTCTL_E2E_AGENTCTL")
    if env:
        return [env]
    beside = Path(sys.executable).parent / "agentctl"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("agentctl")
    if found:
        return [found]
    return [sys.executable, "-m", "agentctl"]


def ok(project: Path, *args: str) -> str:
    done = run(*args, cwd=project, command=agentctl_command())
    assert done.code == 0, f"agentctl {' '.join(args)} failed ({done.code}): {done.err}{done.out}"
    return done.out


def require_integration(agent: str, what: str) -> None:
    """Skip unless ``agentctl install AGENT --help`` works (``what``: the integration's name)."""
    try:
        done = subprocess.run(
            [*agentctl_command(), "install", agent, "--help"], capture_output=True, text=True, timeout=60
        )
    except OSError as exc:
        pytest.skip(f"agentctl cannot run: {exc!r}")
    if done.returncode != 0:
        pytest.skip(
            f"`agentctl install {agent}` is not available yet ({what}); "
            f"`{' '.join(agentctl_command())} install {agent} --help` exited {done.returncode}: "
            f"{(done.stderr or done.stdout).strip()[:200]}"
        )


def clean_env(home: Path, keep: Sequence[str], first_on_path: Sequence[Path] = ()) -> dict[str, str]:
    """Only the ``keep`` variables of this environment, a temporary ``HOME``, and a PATH of
    ``first_on_path``, this Python's folder, then this environment's PATH."""
    env = {key: os.environ[key] for key in keep if key in os.environ}
    path = [str(p) for p in first_on_path]
    path.append(str(Path(sys.executable).parent))
    path.append(os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"))
    env.update(PATH=os.pathsep.join(path), HOME=str(home))
    return env


@dataclass
class Run:
    label: str
    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def run_cli(
    binary: Binary, project: Path, env: dict[str, str], label: str, args: list[str], timeout: float
) -> Run:
    """One CLI run, in its own process group: an npm launcher (node) may start the native
    binary as a child, which a plain kill of the launcher would orphan."""
    start = time.monotonic()
    proc = subprocess.Popen(
        [str(binary.path), *args],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        err += f"\n[e2e: killed after {timeout}s]"
    return Run(label, args, proc.returncode, out, err, time.monotonic() - start)


def dump_artifacts(where: Path, server: RecordingServer[Any], runs: list[Run], program: str) -> None:
    """``requests.jsonl`` (every request with its reply) and ``runs.txt`` (each run's output)."""
    with (where / "requests.jsonl").open("w") as out:
        for record in server.requests:
            out.write(json.dumps(record.as_json()) + "\n")
    with (where / "runs.txt").open("w") as out:
        for run in runs:
            out.write(
                f"== {run.label}: {program} {' '.join(run.args)}\n"
                f"exit {run.returncode} in {run.seconds:.1f}s\n"
                f"-- stdout\n{run.stdout}\n-- stderr\n{run.stderr}\n"
            )


# --------------------------------------------------------------------------
# the scenario project


def file_rel(i: int) -> str:
    return f"src/mod{i + 1:02d}.py"


def file_text(i: int, api: str) -> str:
    return (
        f'"""Module {i + 1}."""\n\nfrom api import {api} as api\n\n\ndef run() -> str:\n    return '
        f'api("mod{i + 1:02d}")\n'
    )


def make_project(root: Path, n_files: int, api: str, secret_rel: str, secret_text: str) -> tuple[Path, Path]:
    """A git project with ``src/mod01.py`` … (each importing ``api``) and a secret file;
    returns it and a file listing the modules (for ``agentctl task start --files``)."""
    project = root / "project"
    (project / "src").mkdir(parents=True)
    (project / "secrets").mkdir()
    for i in range(n_files):
        (project / file_rel(i)).write_text(file_text(i, api))
    (project / secret_rel).write_text(secret_text)
    git = ["git", "-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=project, check=True)
    subprocess.run([*git, "add", "."], cwd=project, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "initial"], cwd=project, check=True)
    listfile = root / "files.txt"
    listfile.write_text("".join(file_rel(i) + "\n" for i in range(n_files)))
    return project, listfile


# --------------------------------------------------------------------------
# reading agentctl's KEY=VALUE lines out of what a scripted model was sent

NEXT_RE = re.compile(r"(?:^|\s)NEXT=(\S*)", re.MULTILINE)
KEY_RE = re.compile(r"(?:^|\s)(STATE|TASK_ID|DONE|TOTAL)=(\S*)", re.MULTILINE)


def parse_kv(text: str) -> dict[str, str]:
    """STATE, TASK_ID, DONE, TOTAL and the last NEXT= in ``text`` (a resume block, a command's output)."""
    out = dict(KEY_RE.findall(text))
    nexts = NEXT_RE.findall(text)
    if nexts:
        out["NEXT"] = nexts[-1]
    return out


def says_task_done(kv: dict[str, str]) -> bool:
    if kv.get("STATE") == "DONE" or kv.get("NEXT", "x") in ("", "-", "none", "(none)"):
        return True
    return "DONE" in kv and kv.get("DONE") == kv.get("TOTAL")
