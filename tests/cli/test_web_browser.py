"""`agentctl web` in a real browser: headless Chromium (Debian's package) driven by Playwright.

The real `agentctl web` runs on a real state folder. The page shows the CLI's numbers; changes
made by CLI commands and hooks appear without a reload; hostile values render as visible text
and run nothing; requests without the token are refused. Skips (saying why) where Chromium or
Playwright cannot be had; no browser is ever downloaded.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import run
from support.browser import CHROMIUM, NO_CHROMIUM, NO_PLAYWRIGHT, WAIT_MS, open_page, text
from support.web import Served, make_busy

if not os.path.exists(CHROMIUM):
    pytest.skip(NO_CHROMIUM, allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT)


@pytest.fixture
def busy(project: Path) -> Path:
    return make_busy(project)  # the same state as the plain-HTTP tests


def _until(page: Any, sel: str, want: str, t0: float) -> float:
    page.wait_for_function(
        "([s, w]) => document.querySelector(s).innerText.includes(w)", arg=[sel, want], timeout=WAIT_MS
    )
    return time.monotonic() - t0


def test_the_page_shows_the_cli_numbers(page: Any, busy: Path, tmp_path: Path) -> None:
    s = Served(busy, "--no-open")
    try:
        open_page(page, s)
        task = run("--json", "task", "status", cwd=busy).data()["task"]
        assert text(page, "#done-total").startswith("2/5") and "40%" in text(page, "#done-total")
        assert text(page, "#next") == task["NEXT"] and text(page, "#state") == "ACTIVE"
        assert text(page, "#runlevel") == "work" and text(page, "#task-id") == "t1"
        assert text(page, "#verify-state") == "FAILED" and "src/m1.py:3: error: bad import" in text(
            page, "#verify-errors"
        )
        assert text(page, "#tried") == "re-export the old name"
        assert text(page, "#files-count").startswith("2 paths, 3 log entries")
        assert page.inner_text("#resume") == run("resume", cwd=busy).out.rstrip("\n")
        assert page.inner_text("#brief") == run("resume", "--brief", cwd=busy).out.rstrip("\n")
        assert page.locator("#constraints .rule").count() == 2 and text(page, "#constraints").startswith("P0")
        assert "helper-1" in text(page, "#claims") and "src/m2.py" in text(page, "#claims")
        assert (
            page.locator("#timeline svg rect.edits").count() >= 1
            and page.locator("#timeline svg circle.fail").count() == 1
        )
        assert page.locator("#timeline svg rect.claim").count() == 1
        page.click("#history tbody tr")
        page.wait_for_selector("#detail:not([hidden])", timeout=WAIT_MS)
        assert text(page, "#detail-id") == "old1" and "old/a.py" in text(page, "#detail-files")
        page.fill("#files-q", "m1")
        page.wait_for_function(
            "() => document.querySelectorAll('#files tbody tr').length === 1", timeout=WAIT_MS
        )
        page.click("#files tbody tr")
        page.wait_for_selector("#files tr.entries", timeout=WAIT_MS)
        assert "MODIFY" in text(page, "#files tr.entries")
        shot = tmp_path / "web.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
        assert page.errors == [] and page.evaluate("window.__ran") == []
    finally:
        s.stop()


def test_changes_appear_live_without_a_reload(page: Any, busy: Path) -> None:
    s = Served(busy, "--no-open")
    try:
        open_page(page, s)
        page.evaluate("window.__same_page = true")
        took = []
        t0 = time.monotonic()
        assert run("verify", "start", cwd=busy).code == 1  # the same failure after the fix tried: a repeat
        took.append(_until(page, "#repeat", "REPEATED: this failure is identical to run 1", t0))
        assert (
            page.locator("#runs tr.REPEAT").count() == 1
            and page.locator("#timeline svg circle.fail").count() == 2
        )
        t0 = time.monotonic()
        assert run("task", "done", "src/m2.py", cwd=busy).code == 0
        took.append(_until(page, "#done-total", "3/5", t0))
        t0 = time.monotonic()
        assert run("files", "log", "CREATE", "src/live.py", cwd=busy).code == 0
        took.append(_until(page, "#files", "src/live.py", t0))
        (busy / "check.sh").write_text("echo ok\n")
        t0 = time.monotonic()
        assert run("verify", "start", cwd=busy).code == 0
        took.append(_until(page, "#verify-state", "PASSED", t0))
        assert page.locator("#timeline svg circle.pass").count() == 1
        payload = json.dumps(
            {"session_id": "s", "cwd": str(busy), "hook_event_name": "SessionStart", "source": "compact"}
        )
        t0 = time.monotonic()
        assert run("hook", "claude", "session-start", cwd=busy, stdin=payload).code == 0
        took.append(_until(page, "#compactions", "1 (last", t0))
        assert page.locator("#timeline svg line.comp").count() == 1
        assert page.evaluate("window.__same_page") is True  # the same document all along: no reload
        assert max(took) < WAIT_MS / 1000, took
        assert page.errors == []
    finally:
        s.stop()


HOSTILE_DESC = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'
HOSTILE_RULE = '<a href="javascript:window.__pwned=3">click</a>'
HOSTILE_TRIED = '<svg onload="window.__pwned=4"></svg>'
HOSTILE_PATH = "<iframe src=javascript:window.__pwned=5>.py"
BIDI_PATH = "src/evil\u202egnp.py"


def test_hostile_values_are_text_and_run_nothing(page: Any, project: Path) -> None:
    (project / "old.txt").write_text(HOSTILE_PATH + "\n")
    assert (
        run(
            "task",
            "start",
            "--id",
            "old1",
            "--desc",
            "archived " + HOSTILE_DESC,
            "--files",
            "old.txt",
            "--force",
            cwd=project,
        ).code
        == 0
    )  # --force: a hostile list looks like source code
    assert run("files", "log", "MODIFY", HOSTILE_PATH, cwd=project).code == 0
    assert run("task", "stop", "--force", cwd=project).code == 0
    entries = [HOSTILE_PATH, "javascript:window.__pwned=6", BIDI_PATH, "src/bell\x07\x1b[31m.py", "src/ok.py"]
    (project / "list.txt").write_text("".join(e + "\n" for e in entries))
    assert (
        run(
            "task",
            "start",
            "--id",
            "x1",
            "--desc",
            HOSTILE_DESC,
            "--files",
            "list.txt",
            "--force",
            cwd=project,
        ).code
        == 0
    )
    assert (
        run("task", "update", "--notes", "one\ntwo\u2066three\x00".replace("\x00", "\x7f"), cwd=project).code
        == 0
    )
    assert run("constraints", "add", "P1", HOSTILE_RULE, cwd=project).code == 0
    for e in entries[:4]:
        assert run("files", "log", "MODIFY", e, cwd=project).code == 0, e
    (project / "check.sh").write_text("echo '<script>window.__pwned=7</script> error in x.py:1'\nexit 1\n")
    assert run("verify", "add", "sh check.sh", cwd=project).code == 0
    assert run("verify", "start", cwd=project).code == 1
    assert run("verify", "tried", HOSTILE_TRIED, cwd=project).code == 0
    s = Served(project, "--no-open")
    try:
        open_page(page, s)
        page.wait_for_timeout(500)
        assert page.evaluate("window.__pwned") is None and page.evaluate("window.__ran") == []
        assert page.evaluate("document.querySelectorAll('script').length") == 1
        assert (
            page.evaluate("document.querySelectorAll('img, iframe, a, object, embed, main svg svg').length")
            == 0
        )
        assert (
            page.evaluate(
                "[...document.querySelectorAll('*')].filter(e => [...e.attributes].some("
                "a => a.name.startsWith('on') || a.value.includes('javascript:'))).length"
            )
            == 0
        )
        assert text(page, "#desc") == HOSTILE_DESC
        assert HOSTILE_RULE in text(page, "#constraints") and text(page, "#tried") == HOSTILE_TRIED
        assert "<script>window.__pwned=7</script> error in x.py:1" in text(page, "#verify-errors")
        files = text(page, "#files")
        assert HOSTILE_PATH in files and "javascript:window.__pwned=6" in files
        assert "src/evil⟨U+202E⟩gnp.py" in files and "src/bell⟨U+0007⟩⟨U+001B⟩[31m.py" in files
        assert "\u202e" not in files and "\x1b" not in files
        assert text(page, "#notes") == "one⟨U+000A⟩two⟨U+2066⟩three⟨U+007F⟩"
        assert page.locator("#files .esc").count() >= 3  # marked, so the reader sees what was hidden
        assert "archived " + HOSTILE_DESC in text(page, "#history")
        page.click("#history tbody tr")
        page.wait_for_selector("#detail:not([hidden])", timeout=WAIT_MS)
        assert ("archived " + HOSTILE_DESC) in text(page, "#detail-summary") and HOSTILE_PATH in text(
            page, "#detail-files"
        )
        assert page.evaluate("window.__pwned") is None and page.evaluate("window.__ran") == []
        assert page.evaluate("document.querySelectorAll('img, iframe, a, object, embed').length") == 0
        assert page.errors == []
    finally:
        s.stop()


def test_the_browser_without_the_token_gets_nothing(browser: Any, busy: Path) -> None:
    s = Served(busy, "--no-open")
    ctx = browser.new_context()
    try:
        pg = ctx.new_page()
        for url in (
            f"http://127.0.0.1:{s.port}/",
            f"http://127.0.0.1:{s.port}/api/state",
            f"http://127.0.0.1:{s.port}/?token=wrong",
        ):
            resp = pg.goto(url)
            assert resp is not None and resp.status == 403
            assert "move the imports" not in pg.content() and "token" in pg.inner_text("body")
        resp = pg.goto(f"http://localhost:{s.port}/?token={s.token}")  # the other allowed name
        assert resp is not None and resp.status == 200
        pg.wait_for_selector("body[data-version]", timeout=WAIT_MS * 2)
        assert pg.inner_text("#desc") == "move the imports"
        cookie = next(c for c in ctx.cookies() if c["name"] == f"agentctl_web_{s.port}")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        assert pg.evaluate("document.cookie") == ""  # HttpOnly: the page's script never sees the token
    finally:
        ctx.close()
        s.stop()


# -- issue 26.6: what matters first, a phone's width, one time format ---------------------------------

SPLIT_WORDS = """() => {
  // Every word of visible text outside paths and code: laid out on one line, or broken only after a
  // slash, a dash or a hyphen between letters ("re-export"). A word cut elsewhere ("MO DIF Y",
  // "2026- 12-01", "helper- 1") is returned.
  const bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest('pre, .path, svg, script, style, [hidden]')
        || !el.getClientRects().length) continue;
    const text = n.textContent, rx = /\\S+/g;
    for (let m = rx.exec(text); m; m = rx.exec(text)) {
      let prev = null;
      for (let i = 0; i < m[0].length; i++) {
        const r = document.createRange();
        r.setStart(n, m.index + i); r.setEnd(n, m.index + i + 1);
        const box = r.getBoundingClientRect();
        if (!box.width) continue;
        // after a slash or a dash; after a hyphen in prose
        const c = m[0][i - 1], ok = '/\u2014\u2013'.includes(c)
          || (c === '-' && /\\p{L}/u.test(m[0][i - 2] || '') && /\\p{L}/u.test(m[0][i]));
        if (prev !== null && box.top > prev + 2 && !ok) {
          bad.push(m[0] + ' in ' + el.tagName.toLowerCase() + (el.id ? '#' + el.id : ''));
          break;
        }
        prev = box.top;
      }
    }
  }
  return bad;
}"""

ISO = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"


def _broken(busy: Path) -> None:
    """The busy state plus what must be seen first: an open P0 violation and a repeated failure."""
    assert run("files", "log", "MODIFY", "db/schema.sql", cwd=busy).code == 0  # a write the P0 rule denies
    assert run("verify", "start", cwd=busy).code == 1  # the same failure after the fix tried: a repeat


def _box(page: Any, sel: str) -> dict[str, float]:
    box = page.locator(sel).bounding_box()
    assert box is not None and box["width"] > 0 and box["height"] > 0, f"{sel} is not shown"
    return dict(box)


def test_what_matters_is_above_the_fold_at_1280x800(browser: Any, busy: Path, tmp_path: Path) -> None:
    _broken(busy)
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    s = Served(busy, "--no-open")
    try:
        page = ctx.new_page()
        open_page(page, s)
        page.wait_for_selector("#violations:not([hidden])", timeout=WAIT_MS)
        page.wait_for_selector("#repeat:not([hidden])", timeout=WAIT_MS)
        assert page.evaluate("window.scrollY") == 0
        for sel in (
            "#done-total",
            "#next",
            "#last",
            "#violations",
            "#verify-state",
            "#verify-errors",
            "#tried",
            "#repeat",
        ):
            box = _box(page, sel)
            assert box["y"] >= 0 and box["y"] + box["height"] <= 800, (sel, box)
        assert "db/schema.sql" in text(page, "#violations") and "deny-write: db/**" in text(
            page, "#violations"
        )
        assert "src/m1.py:3: error: bad import" in text(page, "#verify-errors")
        assert text(page, "#tried") == "re-export the old name"
        assert text(page, "#repeat").startswith(("REPEATED", "SAME ERROR"))  # the "same error" alert
        last = text(page, "#last")
        assert "db/schema.sql" in last or "verify run" in last, last  # the newest thing done, and when
        assert re.search(ISO, last) and " ago)" in last
        shot = tmp_path / "web-1280.png"
        page.screenshot(path=str(shot))
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    finally:
        ctx.close()
        s.stop()


def test_a_phone_width_reads(browser: Any, busy: Path, tmp_path: Path) -> None:
    _broken(busy)
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    s = Served(busy, "--no-open")
    try:
        page = ctx.new_page()
        open_page(page, s)
        page.wait_for_selector("#timeline svg", timeout=WAIT_MS)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways page
        split = page.evaluate(SPLIT_WORDS)
        assert split == [], " | ".join(split)
        cells = page.evaluate(
            "[...document.querySelectorAll('#files td:not(.path), #runs td:nth-child(-n+3)')]"
            ".filter(td => td.scrollWidth > td.clientWidth + 1).map(td => td.innerText)"
        )
        assert cells == []
        labels = page.locator("#timeline svg text.axis")
        boxes = [labels.nth(i).bounding_box() for i in range(labels.count())]
        # 11 px text
        assert len(boxes) >= 3 and all(b is not None and b["height"] >= 10 for b in boxes), boxes
        axis = sorted(
            (b for b in boxes if b is not None and b["y"] > boxes[0]["y"] + 20), key=lambda b: b["x"]
        )
        assert len(axis) >= 2
        for a, b in zip(axis, axis[1:], strict=False):
            assert a["x"] + a["width"] <= b["x"], (a, b)  # the time labels do not overlap
        svg = page.locator("#timeline svg").bounding_box()
        assert svg is not None and svg["x"] >= 0 and svg["x"] + svg["width"] <= 390
        shot = tmp_path / "web-390.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    finally:
        ctx.close()
        s.stop()


def test_one_time_format_across_the_page(page: Any, busy: Path) -> None:
    _broken(busy)
    s = Served(busy, "--no-open")
    try:
        open_page(page, s)
        texts = page.evaluate(
            "[...document.querySelectorAll('#timeline svg text.axis')].slice(1).map(t => t.textContent)"
        )
        times = [t for t in texts if ":" in t]
        assert times and all(re.fullmatch(r"\d\d:\d\d:\d\d|\d\d-\d\d \d\d:\d\d", t) for t in times), texts
        titles = page.evaluate(
            "[...document.querySelectorAll('#timeline svg title')].map(t => t.textContent)"
        )
        assert titles and all(re.search(ISO, t) for t in titles if " at " in t or " from " in t), titles
        body = page.inner_text("body") + " ".join(titles) + " ".join(texts)
        assert not re.search(r"\d\d?:\d\d(:\d\d)? ?[AaPp]\.?[Mm]\b", body)  # no 12-hour clock anywhere
        assert re.search(ISO, text(page, "#generated")) and re.search(ISO, text(page, "#verify-last"))
        assert page.errors == []
    finally:
        s.stop()


def test_the_page_shows_the_plan_with_the_running_task_highlighted(page: Any, project: Path) -> None:
    (project / "l.txt").write_text("src/a.ts\n")
    assert (
        run("plan", "add", "migrate", "--desc", "migrate the imports", "--files", "l.txt", cwd=project).code
        == 0
    )
    assert run("plan", "add", "api", "--desc", "change the API", "--after", "migrate", cwd=project).code == 0
    s = Served(project, "--no-open")
    try:
        open_page(page, s)
        assert page.is_visible("#plan-card")
        rows = page.locator("#plan tbody tr")
        assert rows.count() == 2 and page.locator("#plan tr.running").count() == 0
        assert "api\tplanned\tmigrate\tmigrate\tchange the API" in text(page, "#plan")
        assert run("plan", "next", cwd=project).code == 0  # shows without a reload
        _until(page, "#plan-head", "1 active", time.monotonic())
        running = page.locator("#plan tr.running")
        assert running.count() == 1 and running.inner_text().startswith("migrate\tactive")
        assert (
            page.evaluate("getComputedStyle(document.querySelector('#plan tr.running td')).fontWeight")
            == "700"
        )
        assert page.errors == []
    finally:
        s.stop()
