"""webserver: the bound server answers only its own Host with its token; everything else is refused."""

from __future__ import annotations

import http.client
import threading
from pathlib import Path

import pytest

from agentctl.statefolder import init
from agentctl.web.data import View
from agentctl.web.server import CSP, allowed_hosts, make_server, netloc


def test_netloc_and_allowed_hosts() -> None:
    assert netloc("127.0.0.1", 80) == "127.0.0.1:80" and netloc("::1", 80) == "[::1]:80"
    assert allowed_hosts("0.0.0.0", 8080) == {"127.0.0.1:8080", "localhost:8080", "0.0.0.0:8080"}


@pytest.fixture
def served(tmp_path: Path) -> object:
    (tmp_path / ".git").mkdir()
    store, _ = init.init(str(tmp_path))
    server = make_server(View(store), "127.0.0.1", 0, token="sekrit")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _get(port: int, path: str, host: str | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers={"Host": host or f"127.0.0.1:{port}"})
    return conn.getresponse()


def test_token_host_and_headers(served: object) -> None:
    port: int = served.server_port  # type: ignore[attr-defined]
    assert _get(port, "/api/version").status == 403
    assert _get(port, "/api/version?token=wrong").status == 403
    assert _get(port, "/api/version?token=sekrit", host=f"evil.example:{port}").status == 421
    ok = _get(port, "/api/version?token=sekrit")
    assert ok.status == 200 and ok.getheader("Content-Security-Policy") == CSP and b'"version"' in ok.read()
    first = _get(port, "/?token=sekrit")
    assert first.status == 303 and "HttpOnly; SameSite=Strict" in (first.getheader("Set-Cookie") or "")
    assert _get(port, "/nothing?token=sekrit").status == 404
