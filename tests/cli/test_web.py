"""`agentctl web` over plain HTTP: the real server as a subprocess on a real state folder.

What the page's data says equals what the CLI says; the token and the Host header are required
on every request; the server writes nothing but its start and stop lines; signals stop it at
once. The browser side (rendering, live updates, hostile values) is in test_web_browser.py.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import run
from support.web import Served, make_busy

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@pytest.fixture
def busy(project: Path) -> Path:
    return make_busy(project)


@pytest.fixture
def served(busy: Path) -> Iterator[Served]:
    s = Served(busy, "--no-open")
    yield s
    s.stop()


def _kv(text: str) -> dict[str, str]:
    return dict(ln.split("=", 1) for ln in text.splitlines() if "=" in ln)


def test_prints_its_url_first_and_binds_loopback(served: Served) -> None:
    assert served.url.startswith("http://127.0.0.1:") and served.host == "127.0.0.1"
    assert len(served.token) >= 32 and "/?token=" in served.url


def test_state_is_what_the_cli_says(served: Served, busy: Path) -> None:
    d = served.json("/api/state")
    task = run("--json", "task", "status", cwd=busy).data()["task"]
    assert d["task"]["DONE"] == task["DONE"] == 2 and d["task"]["TOTAL"] == task["TOTAL"] == 5
    assert d["task"]["NEXT"] == task["NEXT"] and d["task"]["STATE"] == "ACTIVE"
    assert d["progress"]["done"] == 2 and d["progress"]["total"] == 5 and d["progress"]["percent"] == 40.0
    assert d["runlevel"]["name"] == run("runlevel", cwd=busy).out.splitlines()[0].split("=")[1]
    assert d["resume"] == run("resume", cwd=busy).out.rstrip("\n")
    assert d["brief"] == run("resume", "--brief", cwd=busy).out.rstrip("\n")
    v = d["verify"]
    assert v["STATE"] == "FAILED" and v["tried"] == ["re-export the old name"]
    assert v["errors"] == _kv(run("verify", "status", cwd=busy).out)["ERRORS"].split("\\n")
    assert [e["event"] for e in v["runs"]] == ["FAIL", "TRIED"]
    rules = run("--json", "constraints", "list", cwd=busy).data()["constraints"]
    assert d["constraints"] == rules and rules[0]["priority"] == "P0"
    listed = run("--json", "files", "list", cwd=busy).data()["files"]
    assert d["files"]["count"] == len(listed) == 2 and d["files"]["lines"] == 3
    m0 = next(f for f in d["files"]["shown"] if f["path"] == "src/m0.py")
    assert m0["count"] == 2 and m0["ops"] == {"MODIFY": 2}
    claims = run("--json", "task", "status", cwd=busy).data()["claims"]
    assert [(c["path"], c["agent"], c["expires"]) for c in d["claims"]] == [
        (c["path"], c["agent"], c["expires"]) for c in claims
    ]
    assert [t["ID"] for t in d["history"]["tasks"]] == ["old1"]
    assert d["violations"] == [] and d["errors"] == []
    tl = d["timeline"]
    assert (
        sum(tl["edits"]) == 3
        and [r["ok"] for r in tl["runs"]] == [False]
        and list(tl["claims"]) == ["helper-1"]
    )


def test_searches_and_details_are_the_history_commands(served: Served, busy: Path) -> None:
    detail = served.json("/api/task?id=old1")
    shown = run("--json", "history", "show", "old1", cwd=busy).data()
    assert detail["task"] == shown["task"] and [f["path"] for f in detail["files"]] == ["old/a.py"]
    found = served.json("/api/history?q=earlier")
    assert [t["task"]["ID"] for t in found["tasks"]] == ["old1"] and found["tasks"][0]["matched"] == [
        "description"
    ]
    assert served.json("/api/history?q=nothing-like-this")["tasks"] == []
    assert [f["path"] for f in served.json("/api/files?q=M1")["shown"]] == ["src/m1.py"]
    assert served.json("/api/file?path=src/m0.py")["entries"] == [
        [e[0], e[1]] for e in run("--json", "files", "check", "src/m0.py", cwd=busy).data()["entries"]
    ]
    code, _, body = served.request("/api/task?id=nope")
    assert code == 400 and b"no archived task" in body and b"Traceback" not in body


def test_every_request_needs_the_token(served: Served) -> None:
    for path in ("/", "/static/web.js", "/api/state", "/api/version", "/api/task?id=old1", "/nope"):
        for cookie in (
            None,
            f"agentctl_web_{served.port}=wrong",
            f"agentctl_web_{served.port + 1}={served.token}",
        ):
            code, headers, body = served.request(path, cookie=cookie)
            assert code == 403, (path, cookie, code)
            assert b"move the imports" not in body and b"src/m" not in body and len(body) < 200
            assert headers["content-security-policy"] == CSP
        wrong = served.token[:-1] + ("y" if served.token.endswith("x") else "x")  # never the token itself
        code, _, _ = served.request(path + ("&" if "?" in path else "?") + "token=" + wrong, cookie=None)
        assert code == 403


def test_the_token_in_the_url_becomes_a_strict_cookie(served: Served) -> None:
    code, headers, _ = served.request(f"/?token={served.token}", cookie=None)
    assert code == 303 and headers["location"] == "/"
    cookie = headers["set-cookie"]
    assert cookie.startswith(f"{served.cookie};") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    code, headers, body = served.request("/")
    assert code == 200 and headers["content-type"].startswith("text/html") and b"/static/web.js" in body
    assert headers["content-security-policy"] == CSP
    assert headers["x-content-type-options"] == "nosniff" and headers["referrer-policy"] == "no-referrer"
    # nothing inline, nothing fetched
    assert b"<script>" not in body and b"http://" not in body and b"https://" not in body
    code, headers, _ = served.request("/static/web.js")
    assert code == 200 and headers["content-type"].startswith("text/javascript")
    assert served.json(f"/api/version?token={served.token}")["version"]  # a script may give it in the query


@pytest.mark.parametrize(
    "host", ["evil.example:{port}", "127.0.0.1:{other}", "localhost", "", "127.0.0.1.nip.io:{port}"]
)
def test_a_foreign_host_header_is_refused(served: Served, host: str) -> None:
    for path in ("/", "/api/state", f"/?token={served.token}"):
        code, _, body = served.request(path, host=host.format(port=served.port, other=served.port + 1))
        assert code == 421 and b"move the imports" not in body
    assert served.request("/api/version", host=f"localhost:{served.port}")[0] == 200


def test_it_is_read_only(served: Served, busy: Path) -> None:
    state = busy / ".agent-state"

    def every_byte() -> dict[str, tuple[bytes, int]]:
        return {
            str(p.relative_to(state)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(state.rglob("*"))
            if p.is_file()
        }

    before = every_byte()
    for _ in range(3):
        for path in (
            "/",
            "/static/web.js",
            "/static/web.css",
            "/api/state",
            "/api/version",
            "/api/files?q=m",
            "/api/history?q=old",
            "/api/history",
            "/api/task?id=old1",
            "/api/file?path=src/m0.py",
            "/api/chart",
            "/api/diff?path=src/m0.py",
            "/api/diff?path=../x",
            "/x",
        ):
            served.request(path)
        for method in ("POST", "PUT", "DELETE"):
            code, headers, _ = served.request("/api/state", method=method)
            assert code == 405 and headers["allow"] == "GET, HEAD"
    assert every_byte() == before


def test_changes_show_without_rereading(served: Served, busy: Path) -> None:
    v1 = served.json("/api/version")["version"]
    assert served.json("/api/version")["version"] == v1
    assert run("task", "done", "src/m2.py", cwd=busy).code == 0
    v2 = served.json("/api/version")["version"]
    assert v2 != v1 and served.json("/api/state")["task"]["DONE"] == 3
    assert run("files", "log", "CREATE", "src/new.py", cwd=busy).code == 0
    d = served.json("/api/state")
    assert d["files"]["count"] == 3 and d["files"]["shown"][0]["path"] == "src/new.py" and d["version"] != v2


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_stops_it_at_once_and_is_logged(busy: Path, sig: str) -> None:
    s = Served(busy, "--no-open")
    assert s.request("/api/version")[0] == 200
    t0 = time.monotonic()
    code = s.stop(getattr(signal, sig))
    assert time.monotonic() - t0 < 5
    assert code == 128 + getattr(signal, sig)
    log = (busy / ".agent-state/logs/agent.log").read_text()
    assert f"|web|start|127.0.0.1:{s.port} pid={s.proc.pid}" in log
    assert f"|web|stop|pid={s.proc.pid} signal={getattr(signal, sig)}" in log


def test_bad_options_are_one_line(busy: Path) -> None:
    r = run("web", "--port", "70000", "--no-open", cwd=busy)
    assert r.code == 2 and r.err.count("\n") == 1 and "--port" in r.err
    r = run("web", "--host", "a/b", "--no-open", cwd=busy)
    assert r.code == 2 and "--host" in r.err
    s = Served(busy, "--no-open")
    try:
        r = run("web", "--port", str(s.port), "--no-open", cwd=busy, timeout=30)
        assert (
            r.code == 3 and r.err.count("\n") == 1 and "cannot listen" in r.err and "Traceback" not in r.err
        )
    finally:
        s.stop()
    r = run("web", "--no-open", cwd=busy.parent)
    assert r.code == 3 and "agent-state" in r.err


def test_another_host_says_why_it_is_risky(busy: Path) -> None:
    s = Served(busy, "--no-open", "--host", "127.0.0.2")
    try:
        assert s.url.startswith("http://127.0.0.2:")
        assert s.request("/api/version", host=f"127.0.0.2:{s.port}")[0] == 200
    finally:
        s.stop()
    assert s.proc.stderr is not None
    err = s.proc.stderr.read().decode()
    assert err.count("\n") == 1 and "127.0.0.2" in err and "ssh -L" in err


def test_opens_the_browser_only_when_asked_and_available(busy: Path, tmp_path: Path) -> None:
    record = tmp_path / "opened"
    browser = tmp_path / "browser.sh"
    # the browser as `ps` would show it: its whole command line, and what the page it was given says; each
    # file written whole under another name and renamed, the command line last: the test waits for the
    # content it reads, never for a file that is still being written
    browser.write_text(
        f'#!/bin/sh\ncat "${{1#file://}}" > {record}.page.tmp && mv {record}.page.tmp {record}.page\n'
        f'echo "$0 $*" > {record}.tmp && mv {record}.tmp {record}\n'
    )
    browser.chmod(0o755)
    env = {"BROWSER": str(browser), "DISPLAY": ":99"}
    s = Served(busy, env=env)
    try:
        deadline = time.monotonic() + 20
        while not record.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        line = record.read_text().strip()
        assert s.token not in line, line  # never on a command line
        opener = busy / ".agent-state" / f"web-open.{s.port}.html"
        assert line.endswith(" " + opener.as_uri())
        page = Path(f"{record}.page").read_text()
        assert f'url={s.url}"' in page.replace("&amp;", "&")  # the page redirects to the token URL
        assert opener.stat().st_mode & 0o777 == 0o600
        assert s.request(f"/?token={s.token}", cookie=None)[0] == 303
        assert not opener.exists()  # gone at the token's first use
    finally:
        s.stop()
    record.unlink()
    for extra, more in ((("--no-open",), {}), ((), {"DISPLAY": "", "WAYLAND_DISPLAY": ""})):
        s = Served(busy, *extra, env={**env, **more})
        assert s.request("/api/version")[0] == 200
        time.sleep(0.5)
        s.stop()
        assert not record.exists()
        assert not list((busy / ".agent-state").glob("web-open.*"))


def test_the_opener_page_goes_with_the_server(busy: Path, tmp_path: Path) -> None:
    browser = tmp_path / "browser.sh"
    browser.write_text(f"#!/bin/sh\ntouch {tmp_path}/ran\n")
    browser.chmod(0o755)
    s = Served(busy, env={"BROWSER": str(browser), "DISPLAY": ":99"})
    opener = busy / ".agent-state" / f"web-open.{s.port}.html"
    deadline = time.monotonic() + 20
    while not (tmp_path / "ran").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert opener.exists()  # the token was never used
    assert s.stop() != 0
    assert not opener.exists()


def _idle_socket(s: Served) -> Any:
    import socket

    sock = socket.create_connection((s.host, s.port), timeout=60)
    return sock


def test_a_half_open_connection_is_closed_when_idle(busy: Path) -> None:
    s = Served(busy, "--no-open", env={"AGENTCTL_WEB_IDLE_TIMEOUT": "0.5"})
    try:
        sock = _idle_socket(s)
        sock.sendall(b"GET / HTTP/1.1\r\n")  # a request that never ends
        # the server hangs up (without the timeout: blocks until the 60 s timeout)
        assert sock.recv(1024) == b""
        sock.close()
        assert s.request("/api/version")[0] == 200  # and still serves
    finally:
        s.stop()


def test_connections_are_bounded_and_the_rest_told_busy(busy: Path) -> None:
    s = Served(
        busy, "--no-open", env={"AGENTCTL_WEB_MAX_CONNECTIONS": "2", "AGENTCTL_WEB_IDLE_TIMEOUT": "120"}
    )
    try:
        from agentctl.web.server import RESERVE

        # the slots, then the reserve for the token's holders
        held = [_idle_socket(s) for _ in range(2 + RESERVE)]
        for sock in held:  # each has a thread: a request line and headers on it are answered
            sock.sendall(
                f"GET /api/version HTTP/1.1\r\nHost: {s.host}:{s.port}\r\nCookie: {s.cookie}\r\n\r\n".encode()
            )
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        code, _, body = s.request("/api/version")
        assert code == 503 and b"too many connections" in body
        for sock in held:
            sock.close()
        deadline = time.monotonic() + 20
        while (code := s.request("/api/version")[0]) == 503 and time.monotonic() < deadline:
            time.sleep(0.05)  # the threads see the close
        assert code == 200
    finally:
        s.stop()


def test_a_client_with_the_cookie_is_answered_while_200_half_open_connections_are_held(busy: Path) -> None:
    """Issue 31.8: half-open connections hold no thread and no slot (one reader takes every request head,
    each within its header timeout); a flood of resets prints no traceback."""
    import socket
    import struct

    s = Served(
        busy, "--no-open", env={"AGENTCTL_WEB_IDLE_TIMEOUT": "120", "AGENTCTL_WEB_MAX_CONNECTIONS": "4"}
    )
    try:
        held = []
        for i in range(200):
            sock = _idle_socket(s)
            sock.sendall(b"GET /api/version HTTP/1.1\r\n" if i % 2 else b"G")  # a head that never ends
            held.append(sock)
        for _ in range(5):
            code, _, body = s.request("/api/version")
            assert code == 200 and b"version" in body, (code, body)
        assert s.request("/api/version", cookie=None)[0] == 403  # and the others are still judged
        for _ in range(300):  # a flood of connections reset at once, mid-head or before it
            sock = _idle_socket(s)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            sock.close()
        for sock in held:
            sock.close()
        assert s.request("/api/version")[0] == 200
    finally:
        s.stop()
        err = s.proc.stderr.read().decode() if s.proc.stderr else ""
    assert "Traceback" not in err and "Exception" not in err, err


def test_the_listen_backlog_is_not_five() -> None:
    from agentctl.web.server import BACKLOG, make_server

    assert BACKLOG > 5
    server = make_server(None, "127.0.0.1", 0)  # type: ignore[arg-type]
    try:
        assert server.request_queue_size == BACKLOG
    finally:
        server.server_close()


def test_command_stays_off_the_hot_path(busy: Path) -> None:
    code = (
        "import sys; from agentctl.cli.main import main; main(['resume']); "
        "sys.stderr.write(' '.join(m for m in sys.modules if m.startswith(('agentctl.web.page', 'http'))))"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=busy, capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stderr.strip() == ""
    assert "usage: agentctl web [--port N] [--no-open] [--host H]" in run("help", "web", cwd=busy).out


def test_a_broken_p0_rule_shows_until_acknowledged(tmp_path: Path) -> None:
    """A write to a denied path made anyway (here: plainly, as a shell would) is on the page, with the rule
    and how to restore it, and leaves it once acknowledged."""
    from support.hooks import make_git_project

    proj = make_git_project(tmp_path)
    assert run("init", cwd=proj).code == 0
    assert run("constraints", "add", "P0", "deny-write: secrets/**", cwd=proj).code == 0
    (tmp_path / "list").write_text("src/app.py\n")
    assert (
        run("task", "start", "--id", "t1", "--desc", "d", "--files", str(tmp_path / "list"), cwd=proj).code
        == 0
    )
    s = Served(proj, "--no-open")
    try:
        assert s.json("/api/state")["violations"] == []
        (proj / "secrets" / "key.txt").write_text("changed anyway\n")
        assert run("files", "sync", cwd=proj).code == 0
        got = s.json("/api/state")["violations"]
        assert [v["path"] for v in got] == ["secrets/key.txt"] and "secrets/**" in got[0]["rule"]
        assert "git" in got[0]["restore"] and "secrets/key.txt" in got[0]["restore"]
        assert run("constraints", "ack", "secrets/key.txt", cwd=proj).code == 0
        assert s.json("/api/state")["violations"] == []
    finally:
        s.stop()
