"""Make docs/web.png and docs/web-phone.png: `agentctl web` on a demo state, photographed by headless
Chromium at 1280x800 (the whole page; the first 800 px are what a supervisor sees first) and at a
phone's 390 px.

    .venv/bin/python bench/web_screenshot.py [OUT.png [PHONE.png]]

The demo state is the seed's scenario mid-task (``states.build_fresh``: 120 files, 37 done, a
failing type check with 3 fixes tried), with two helpers holding claims, two compactions
(through the real Claude Code hook) and a dozen archived tasks. Its times are then moved
back over an afternoon (the files log, the verify journal, agent.log and the task's STARTED,
in their documented plain formats), so the timeline and the rate have a story to show.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import states  # noqa: E402
import web  # noqa: E402

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
SPAN = 3 * 3600  # the afternoon the demo task has been running


def _iso(t: float) -> str:
    from agentctl.ground.store import now_iso

    return now_iso(t)


def _retime(path: str, times: list[float]) -> None:
    """Give the n-th timed line of a ``TIME|...`` log the n-th of ``times`` (the rest keep theirs)."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    k = 0
    for i, line in enumerate(lines):
        if "|" in line and k < len(times):
            lines[i] = _iso(times[k]) + line[line.index("|") :]
            k += 1
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines))


def build_demo(agentctl: str, project: str) -> None:
    states.build_fresh(agentctl, project)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCTL_")}

    def ctl(*args: str, stdin: str | None = None) -> None:
        subprocess.run(
            [agentctl, *args], cwd=project, env=env, input=stdin, text=True, check=True, capture_output=True
        )

    for i in range(states.N_TOUCHED, 60):
        ctl("files", "log", "MODIFY", states.scenario_path(i))
    ctl("task", "update", "--done", "18")
    for agent in ("helper-1", "helper-2", "helper-1"):
        ctl("task", "claim", "--agent", agent)
    payload = json.dumps(
        {"session_id": "demo", "cwd": project, "hook_event_name": "SessionStart", "source": "compact"}
    )
    for _ in range(2):
        ctl("hook", "claude", "session-start", stdin=payload)
    state = os.path.join(project, ".agent-state")
    web.add_history(project, 12)
    now = time.time()
    start = now - SPAN
    # edits spread over the afternoon, a little faster after each compaction
    edits = [start + 120 + SPAN * 0.93 * (i / 60) ** 0.8 for i in range(61)]
    _retime(os.path.join(state, "services/files/status"), [start] + edits)
    _retime(os.path.join(state, "services/verify/journal"), [now - 1500, now - 1400, now - 900, now - 400])
    status = os.path.join(state, "services/task/status")
    with open(status, encoding="utf-8") as fh:
        text = fh.read()
    with open(status, "w", encoding="utf-8") as fh:
        fh.write(re.sub(r"^STARTED=.*$", "STARTED=" + _iso(start), text, flags=re.M))
    last = now - SPAN * 0.25
    sess = os.path.join(state, "session")
    with open(sess, encoding="utf-8") as fh:
        text = fh.read()
    text = re.sub(r"^LAST_COMPACTION=.*$", "LAST_COMPACTION=" + _iso(last), text, flags=re.M)
    text = re.sub(r"^LAST_COMPACTION_TS=.*$", f"LAST_COMPACTION_TS={last:.3f}", text, flags=re.M)
    with open(sess, "w", encoding="utf-8") as fh:
        fh.write(text)
    log = os.path.join(state, "logs/agent.log")
    with open(log, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    marks = iter([now - SPAN * 0.62, last])
    claims = iter([now - 1800, now - 1200, now - 600])
    for i, line in enumerate(lines):
        if "|session|compact|" in line:
            lines[i] = _iso(next(marks)) + line[line.index("|") :]
        elif "|task|claim|" in line:
            lines[i] = _iso(next(claims)) + line[line.index("|") :]
    with open(log, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0] if args else HERE.parent / "docs" / "web.png").resolve()
    phone = Path(args[1] if len(args) > 1 else out.with_name(out.stem + "-phone.png")).resolve()
    from playwright.sync_api import sync_playwright

    agentctl = str(Path(sys.executable).parent / "agentctl")
    with tempfile.TemporaryDirectory(prefix="agentctl-web-demo-") as work:
        project = os.path.join(work, "shop-frontend")
        os.makedirs(project)
        build_demo(agentctl, project)
        server = web.Server(agentctl, project)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                for path, size, scale in (
                    (out, {"width": 1280, "height": 800}, 1),
                    (phone, {"width": 390, "height": 844}, 1),
                ):
                    page = browser.new_page(viewport=size, device_scale_factor=scale)  # type: ignore[arg-type]
                    page.goto(f"http://127.0.0.1:{server.port}/?token={server.token}")
                    page.wait_for_selector("body[data-version]")
                    page.wait_for_timeout(300)
                    page.screenshot(path=str(path), full_page=True)
                    page.close()
                browser.close()
        finally:
            server.stop()
    print(f"wrote {out} and {phone}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
