"""The page a supervisor wants (issue 35.5) in headless Chromium: the progress chart, a file's diff,
the interfaces' counts, the tab title, the banner's wording, the cards' headings, the timeline on a
phone, and the screenshots of docs/web.md (``AGENTCTL_WEB_SHOTS=1`` writes them into docs/).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from conftest import run
from support.browser import CHROMIUM, NO_CHROMIUM, NO_PLAYWRIGHT, WAIT_MS, open_page, text
from support.web import HOSTILE_NAME, Served, make_old_name_repo, make_supervised

if not os.path.exists(CHROMIUM):
    pytest.skip(NO_CHROMIUM, allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT)

DOCS = Path(__file__).resolve().parents[2] / "docs"
SHOTS = os.environ.get("AGENTCTL_WEB_SHOTS") == "1"  # read at import: the hermetic fixture clears AGENTCTL_*


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_old_name_repo(tmp_path / "shop-api")


@pytest.fixture
def supervised(repo: Path) -> Path:
    return make_supervised(repo)


def _chart(pg: Any) -> None:
    pg.wait_for_selector("#chart svg path.done", state="attached", timeout=WAIT_MS)


def _diff(pg: Any, row: Any) -> None:
    """Click a touched file's row and wait for its diff."""
    row.click()
    pg.wait_for_selector("#diff .add", timeout=WAIT_MS)


def test_the_chart_shows_progress_compactions_runs_and_the_finish(page: Any, supervised: Path) -> None:
    s = Served(supervised, "--no-open")
    try:
        open_page(page, s)
        _chart(page)
        assert (
            page.locator("#chart svg path.total").count() == 1
            and page.locator("#chart svg line.proj").count() == 1
        )
        assert page.locator("#chart svg line.comp").count() == 1
        assert (
            page.locator("#chart svg circle.fail").count() == 1
            and page.locator("#chart svg circle.pass").count() == 1
        )
        note = text(page, "#chart-note")
        assert re.fullmatch(
            r"projected finish \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(in .+ at \d+\.\d entries/hour\)", note
        ), note
        done = page.locator("#chart svg path.done").bounding_box()
        # a line that rises across the chart
        assert done is not None and done["width"] > 300 and done["height"] > 40
        assert run("task", "done", "src/m6.py", cwd=supervised).code == 0  # live: no reload
        page.wait_for_function(
            "() => document.querySelector('#chart svg path.done title').textContent === 'DONE 7 of 10'",
            timeout=WAIT_MS,
        )
        assert page.errors == []
    finally:
        s.stop()


def test_no_projection_yet_is_said(page: Any, repo: Path) -> None:
    (repo / "list.txt").write_text("src/m0.py\nsrc/m1.py\n")
    assert run("task", "start", "--id", "t", "--desc", "d", "--files", "list.txt", cwd=repo).code == 0
    s = Served(repo, "--no-open")
    try:
        open_page(page, s)
        _chart(page)
        assert text(page, "#chart-note") == "no projection yet (fewer than two entries done)"
        assert page.locator("#chart svg line.proj").count() == 0
    finally:
        s.stop()


def test_a_click_on_a_file_shows_its_diff(page: Any, supervised: Path) -> None:
    s = Served(supervised, "--no-open")
    try:
        open_page(page, s)
        page.fill("#files-q", "m1.py")
        page.wait_for_function(
            "() => document.querySelectorAll('#files tbody tr').length === 1", timeout=WAIT_MS
        )
        _diff(page, page.locator("#files tbody tr"))
        assert text(page, "#diff-path") == "src/m1.py"
        assert "+from lib import new_name" in text(page, "#diff") and page.locator("#diff .del").count() == 2
        assert text(page, "#diff-note").startswith("against ")
        page.click("#diff-close")
        assert page.is_hidden("#diff-panel")
    finally:
        s.stop()


def test_a_hostile_file_name_in_the_diff_is_text(page: Any, repo: Path) -> None:
    (repo / HOSTILE_NAME).write_text(
        "<script>window.__pwned=2</script><img src=x onerror=window.__pwned=3>\n"
    )
    (repo / "list.txt").write_text(HOSTILE_NAME + "\n")
    assert (
        run("task", "start", "--id", "t", "--desc", "d", "--files", "list.txt", "--force", cwd=repo).code == 0
    )
    assert run("files", "log", "CREATE", HOSTILE_NAME, cwd=repo).code == 0
    s = Served(repo, "--no-open")
    try:
        open_page(page, s)
        _diff(page, page.locator("#files tbody tr"))
        assert text(page, "#diff-path") == HOSTILE_NAME and "+<script>window.__pwned=2</script>" in text(
            page, "#diff"
        )
        assert text(page, "#diff-note") == "not tracked by git: shown as all new"
        page.wait_for_timeout(300)
        assert page.evaluate("window.__pwned") is None and page.evaluate("window.__ran") == []
        assert page.evaluate("document.querySelectorAll('img, iframe, script:not([src])').length") == 0
        assert page.errors == []
    finally:
        s.stop()


def test_interfaces_title_banner_and_headings(page: Any, supervised: Path) -> None:
    s = Served(supervised, "--no-open")
    try:
        open_page(page, s)
        assert text(page, "#verify-state") == "PASSED"  # the scenario's times agree: the pass is this task's
        assert text(page, "#interfaces .badge") == "PENDING 8"
        assert "lib.name: old_name -> new_name (8 old uses in 4 files)" in text(page, "#interfaces")
        assert page.title() == "⚠ 6/10 · agentctl"  # the open violation needs the person
        banner = text(page, "#violations")
        assert (
            " — restore it with `git checkout -- db/schema.sql`" in banner
            and "restore: restore" not in banner
        )
        heads = page.evaluate("""[...document.querySelectorAll('.card > h2')]
            .filter(h => h.getClientRects().length).map(h => {
            const prev = h.previousElementSibling, a = h.getBoundingClientRect();
            const b = prev ? prev.getBoundingClientRect() : null;
            return [h.textContent.trim().slice(0, 20), b ? b.bottom : -1, a.top]; })""")
        assert len(heads) >= 10
        for name, above, top in heads:
            assert above <= top, (name, above, top)  # nothing above a heading reaches into it
        box = page.locator("#constraints").bounding_box()
        head = page.locator("#constraints + h2").bounding_box()
        # and it stands apart
        assert box is not None and head is not None and box["y"] + box["height"] + 8 <= head["y"]
        # the person saw it; the check passes
        assert run("constraints", "ack", "db/schema.sql", cwd=supervised).code == 0
        page.wait_for_function("() => document.title === '6/10 · agentctl'", timeout=WAIT_MS)
        (supervised / "check.sh").write_text("exit 1\n")
        assert run("verify", "start", cwd=supervised).code == 1  # a failure needs the person again
        page.wait_for_function("() => document.title === '⚠ 6/10 · agentctl'", timeout=WAIT_MS)
    finally:
        s.stop()


def test_the_timeline_bars_read_on_a_phone(browser: Any, supervised: Path) -> None:
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    s = Served(supervised, "--no-open")
    try:
        pg = ctx.new_page()
        open_page(pg, s)
        pg.wait_for_selector("#timeline svg rect.edits", timeout=WAIT_MS)
        bars = pg.evaluate(
            "[...document.querySelectorAll('#timeline svg rect.edits')].map(r => {"
            "const b = r.getBoundingClientRect(); return [b.width, b.height]; })"
        )
        assert bars and all(w >= 6 and h >= 6 for w, h in bars), bars
        _chart(pg)
        labels = pg.evaluate(
            "[...document.querySelectorAll('#chart svg text.axis')].map(t => {"
            "const b = t.getBoundingClientRect(); return [b.left, b.right, b.top]; })"
        )
        axis = sorted(b for b in labels if b[2] > labels[0][2] + 20)  # the time labels under the chart
        assert len(axis) >= 2 and all(a[1] <= b[0] for a, b in zip(axis, axis[1:], strict=False)), axis
        chart = pg.locator("#chart svg").bounding_box()
        assert chart is not None and chart["x"] >= 0 and chart["x"] + chart["width"] <= 390
        assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        ctx.close()
        s.stop()


def test_the_screenshots(browser: Any, tmp_path: Path) -> None:
    """docs/web.png (1280×800: the whole page, its first 800 px the first screen) and docs/web-phone.png
    (390×844, the whole page) of the supervised scenario."""
    out = DOCS if SHOTS else tmp_path
    # a short path in the header, as a person's would be
    work = Path(tempfile.mkdtemp(prefix="agentctl-web-demo-"))
    try:
        _shots(browser, make_supervised(make_old_name_repo(work / "shop-api")), out)
    finally:
        shutil.rmtree(work)


def _shots(browser: Any, supervised: Path, out: Path) -> None:
    s = Served(supervised, "--no-open")
    try:
        for name, view, full in (
            ("web.png", {"width": 1280, "height": 800}, True),
            ("web-phone.png", {"width": 390, "height": 844}, True),
        ):
            ctx = browser.new_context(viewport=view, device_scale_factor=1)
            try:
                pg = ctx.new_page()
                open_page(pg, s)
                _chart(pg)
                pg.wait_for_selector("#timeline svg", timeout=WAIT_MS)
                if not full or view["width"] > 800:  # the wide shot also shows a file's diff
                    _diff(pg, pg.locator("#files tbody tr", has_text="src/m1.py"))
                pg.evaluate("document.fonts.ready")
                pg.screenshot(path=str(out / name), full_page=full)
                assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and (
                    out / name
                ).stat().st_size > 20_000
            finally:
                ctx.close()
    finally:
        s.stop()
