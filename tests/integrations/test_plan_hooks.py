"""The plan after a compaction, through Claude Code's installed SessionStart hook: the injected block
carries the plan's line, and its DO NEXT names the stop and the next ready task (or what the rest waits
for)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import run
from support.hooks import context_of


def test_after_a_compaction_do_next_names_the_stop_and_the_next_ready_task(proj: Path, claude: Any) -> None:
    assert run("task", "stop", "--force", cwd=proj).code == 0
    (proj.parent / "plan.md").write_text(
        "- [ ] app: convert src/app.py\n- [ ] tests: the tests (after: app)\n"
        "- [ ] docs: the docs (after: tests)\n"
    )
    assert run("plan", "import", str(proj.parent / "plan.md"), cwd=proj).code == 0
    assert run("plan", "edit", "app", "--files", "-", cwd=proj, stdin="src/app.py\n").code == 0
    text = context_of(claude("session_start_compact", "SessionStart", "compact"))
    assert (
        "PLAN 0 of 3 done; ready: app; blocked: tests waits for app (ready); docs waits for tests (planned)"
        in text
    )
    assert (
        "\nDO NEXT: no task is running; start the plan's next task with `agentctl plan next` (ready: app).\n"
        in text
    )
    assert run("plan", "next", cwd=proj).code == 0
    (proj / "src" / "app.py").write_text("from api import NEW_API\n")
    assert run("files", "log", "MODIFY", "src/app.py", cwd=proj).code == 0
    assert run("task", "done", "src/app.py", cwd=proj).code == 0
    text = context_of(claude("session_start_compact", "SessionStart", "compact"))
    assert "PLAN 0 of 3 done; running here: app" in text
    step = next(ln for ln in text.splitlines() if ln.startswith("DO NEXT:"))
    assert step.startswith("DO NEXT: every entry is done") and "`agentctl task stop`" in step
    assert step.endswith("(it marks app done in the plan); then `agentctl plan next` starts tests.")
