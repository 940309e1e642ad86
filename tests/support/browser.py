"""Headless Chromium (Debian's package) driven by Playwright, for the `agentctl web` browser tests: the
``browser`` and ``page`` fixtures and the ways a test opens the page and reads it. This module imports
without Chromium or Playwright (conftest registers it for every test); the fixtures skip, saying why,
where either cannot be had, and no browser is ever downloaded."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from support.web import Served

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
HOOKED = """
window.__ran = [];
window.alert = window.confirm = window.prompt = (m) => { window.__ran.push(String(m)); };
"""
WAIT_MS = 5000  # a change must show within a couple of seconds; generous under a loaded machine
NO_CHROMIUM = f"no Chromium at {CHROMIUM} (apt-get install -y chromium)"
NO_PLAYWRIGHT = "Playwright is not installed (pip install -e . --group dev)"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.skip(NO_CHROMIUM)
    sync_api = pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT)
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    with sync_api.sync_playwright() as p:
        try:
            b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        except Exception as exc:  # a Chromium that cannot start here (libraries, sandbox)
            pytest.skip(f"Chromium at {CHROMIUM} does not start: {str(exc).splitlines()[0]}")
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1300, "height": 1600})
    ctx.add_init_script(HOOKED)
    pg = ctx.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    yield pg
    ctx.close()


def open_page(page: Any, s: Served) -> None:
    """Open the served page and wait until it has its data."""
    resp = page.goto(s.url)
    assert resp is not None and resp.status == 200 and page.url == f"http://127.0.0.1:{s.port}/"
    page.wait_for_selector("body[data-version]", timeout=WAIT_MS * 2)


def text(page: Any, sel: str) -> str:
    """The visible text of the first element ``sel`` selects."""
    return str(page.inner_text(sel))
