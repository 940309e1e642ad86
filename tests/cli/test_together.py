"""Co-change rules (`together: GLOB -> GLOB`) and tasks whose progress is proven from the tree
(`task start --match REGEX`), through the real agentctl on a real git repository: the seed's
scenario of old relative imports moved to an alias, a routes folder that must change with its
types file, and a revert after a compaction."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import run
from support.hooks import Fired, command_for, env_for, fire, install

RULE = "together: src/routes/** -> types/api.d.ts"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    (root / "src" / "routes").mkdir(parents=True)
    (root / "src" / "lib").mkdir(parents=True)
    (root / "types").mkdir()
    (root / "src" / "routes" / "user.ts").write_text(
        "import { db } from '../lib/db'\nexport const user = 1\n"
    )
    (root / "src" / "routes" / "order.ts").write_text(
        "import { db } from '../lib/db'\nimport x from '../../x'\n"
    )
    (root / "src" / "lib" / "db.ts").write_text("export const db = {}\n")
    (root / "src" / "lib" / "ok.ts").write_text("import { db } from '@/lib/db'\n")
    (root / "types" / "api.d.ts").write_text("export type User = {}\n")
    (root / "ignored.ts").write_text("import z from '../z'\n")
    (root / ".gitignore").write_text("ignored.ts\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    assert run("init", cwd=root).code == 0
    return root


def _list(repo: Path, *paths: str) -> str:
    lst = repo.parent / "list.txt"
    lst.write_text("".join(p + "\n" for p in paths))
    return str(lst)


def test_a_together_rule_is_checked_at_add_with_the_right_spelling(repo: Path) -> None:
    r = run("constraints", "add", "P0", RULE, cwd=repo)
    assert r.code == 0 and f"P0|{RULE}" in r.out
    before = (repo / ".agent-state" / "services" / "constraints" / "status").read_bytes()
    for near, right in (
        ("together: src/routes/** => types/api.d.ts", RULE),
        ("co-change: src/a.ts, src/b.ts", "together: src/a.ts -> src/b.ts"),
        ("together src/routes/** -> types/api.d.ts", RULE),
    ):
        r = run("constraints", "add", "P0", near, cwd=repo)
        assert r.code == 2 and f"write it as '{right}'" in r.err and r.err.count("\n") == 1, r.err
    r = run("constraints", "add", "P1", "together: a.ts -> a.ts", cwd=repo)
    assert r.code == 2 and "names one side twice" in r.err
    assert (repo / ".agent-state" / "services" / "constraints" / "status").read_bytes() == before


def test_a_p0_together_rule_holds_the_stop_until_the_other_side_changed(repo: Path) -> None:
    assert run("constraints", "add", "P0", RULE, cwd=repo).code == 0
    assert (
        run(
            "task",
            "start",
            "--id",
            "api",
            "--desc",
            "d",
            "--files",
            _list(repo, "src/routes/user.ts", "types/api.d.ts"),
            cwd=repo,
        ).code
        == 0
    )
    r = run("constraints", "check", "src/routes/user.ts", cwd=repo)
    assert r.code == 0 and f"triggers P0|{RULE}: change types/api.d.ts in the same task" in r.out
    data = run("--json", "constraints", "check", "src/routes/user.ts", cwd=repo).data()
    assert data["together"] == [{"rule": f"P0|{RULE}", "with": "types/api.d.ts"}]
    assert run("--json", "constraints", "check", "src/lib/db.ts", cwd=repo).data()["together"] == []
    assert "TOGETHER" not in run("resume", cwd=repo).out  # nothing changed yet: nothing pending
    with open(repo / "src" / "routes" / "user.ts", "a") as f:
        f.write("export const more = 2\n")
    assert run("files", "sync", cwd=repo).code == 0  # a shell edit, found by git
    line = f"TOGETHER: src/routes/user.ts changed; types/api.d.ts not yet (P0 `{RULE}`)"
    assert line in run("resume", cwd=repo).out
    r = run("task", "stop", cwd=repo)
    assert r.code == 1 and "changed src/routes/user.ts but not types/api.d.ts" in r.err and "--force" in r.err
    assert run("task", "status", cwd=repo).kv()["STATE"] == "ACTIVE"  # refused: nothing moved
    (repo / "types" / "api.d.ts").write_text("export type User = { id: string }\n")
    assert run("files", "log", "MODIFY", "types/api.d.ts", cwd=repo).code == 0
    assert "TOGETHER" not in run("resume", cwd=repo).out
    r = run("task", "stop", cwd=repo)
    assert r.code == 0, r.err
    archive = (repo / ".agent-state" / "logs" / "task-api.done").read_text()
    assert "TOGETHER_NOT_DONE" not in archive and "FORCED=0" in archive


def test_a_forced_stop_records_the_rule_and_a_p1_rule_only_reminds(repo: Path) -> None:
    assert run("constraints", "add", "P0", RULE, cwd=repo).code == 0
    assert run("constraints", "add", "P1", "together: src/lib/** -> src/routes/order.ts", cwd=repo).code == 0
    assert (
        run(
            "task",
            "start",
            "--id",
            "f",
            "--desc",
            "d",
            "--files",
            _list(repo, "src/routes/user.ts"),
            cwd=repo,
        ).code
        == 0
    )
    assert run("files", "log", "MODIFY", "src/lib/db.ts", cwd=repo).code == 0
    out = run("resume", cwd=repo).out
    assert "TOGETHER: src/lib/db.ts changed; src/routes/order.ts not yet (P1 " in out
    r = run("task", "stop", cwd=repo)  # a P1 rule only reminds
    assert r.code == 0 and "TOGETHER: src/lib/db.ts changed" in r.err
    assert (
        run(
            "task",
            "start",
            "--id",
            "g",
            "--desc",
            "d",
            "--files",
            _list(repo, "src/routes/user.ts"),
            cwd=repo,
        ).code
        == 0
    )
    assert run("files", "log", "MODIFY", "src/routes/user.ts", cwd=repo).code == 0
    assert run("task", "stop", cwd=repo).code == 1
    r = run("task", "stop", "--force", cwd=repo)
    assert r.code == 0 and "together rule's other side did not change" in r.err, r.err
    archive = (repo / ".agent-state" / "logs" / "task-g.done").read_text()
    assert (
        "FORCED=1" in archive
        and "TOGETHER_NOT_DONE=src/routes/user.ts changed; types/api.d.ts not yet" in archive
    )


def test_the_post_edit_hook_says_a_together_rule_is_pending_in_that_turn(repo: Path, bindir: Path) -> None:
    install(repo, "claude", restart=False)
    assert run("constraints", "add", "P0", RULE, cwd=repo).code == 0
    assert (
        run(
            "task",
            "start",
            "--id",
            "h",
            "--desc",
            "d",
            "--files",
            _list(repo, "src/routes/user.ts"),
            cwd=repo,
        ).code
        == 0
    )

    def edit(rel: str, uid: str, old: str, new: str, text: str) -> Fired:
        """Write ``text`` to ``rel`` and fire the installed Claude Code post-edit hook for that Edit."""
        target = repo / rel
        target.write_text(text)
        payload = {
            "session_id": "s",
            "hook_event_name": "PostToolUse",
            "tool_name": "Edit",
            "tool_use_id": uid,
            "cwd": str(repo),
            "tool_input": {"file_path": str(target), "old_string": old, "new_string": new},
            "tool_response": {"filePath": str(target)},
        }
        return fire(
            command_for(repo, "claude", "PostToolUse", "Edit"),
            json.dumps(payload),
            repo,
            bindir,
            env_for("claude", repo),
        )

    fired = edit("src/routes/user.ts", "toolu_t1", "1", "2", "export const user = 2\n")
    assert fired.code == 0, fired.err
    said = fired.json()["hookSpecificOutput"]["additionalContext"]
    assert "you changed src/routes/user.ts, so change types/api.d.ts in this task too" in said
    # an edit outside the left side says nothing
    fired = edit("src/lib/db.ts", "toolu_t2", "{}", "1", "export const db = 1\n")
    assert (fired.code, fired.out) == (0, ""), fired.err
    # a second edit on the left side is named itself
    fired = edit("src/routes/order.ts", "toolu_t3", "x", "2", "export const order = 2\n")
    said = fired.json()["hookSpecificOutput"]["additionalContext"]
    assert "you changed src/routes/order.ts, so change types/api.d.ts" in said, said


OLD = r"from '(\.\./)+"


def test_a_match_task_lists_the_files_holding_the_old_form_and_refuses_done_while_it_stays(
    repo: Path,
) -> None:
    r = run("task", "start", "--id", "alias", "--desc", "relative imports to @/", "--match", OLD, cwd=repo)
    assert r.code == 0, r.err
    entries = (repo / ".agent-state" / "services" / "task").glob("list-*")
    listed = [ln.split("|", 1)[1] for ln in next(iter(entries)).read_text().splitlines()]
    # path order; ignored.ts and ok.ts left out
    assert listed == ["src/routes/order.ts", "src/routes/user.ts"]
    r = run("task", "done", "src/routes/user.ts", cwd=repo)
    assert r.code == 1 and "src/routes/user.ts:1" in r.err and "nothing was marked" in r.err
    assert run("task", "status", cwd=repo).kv()["DONE"] == "0"
    (repo / "src" / "routes" / "user.ts").write_text("import { db } from '@/lib/db'\nexport const user = 1\n")
    assert run("task", "done", "src/routes/user.ts", cwd=repo).code == 0
    status = run("task", "status", cwd=repo)
    assert "LEFT=1 (files still holding the old form, counted from the tree)" in status.out
    data = run("--json", "task", "status", cwd=repo).data()
    assert data["match"] == {"left": 1, "reverted": [], "added": [], "migrated": []}


def test_a_revert_after_a_compaction_is_shown_and_a_new_old_form_joins_the_list(repo: Path) -> None:
    assert (
        run(
            "task", "start", "--id", "alias", "--desc", "d", "--match", OLD, "--paths", "src/**", cwd=repo
        ).code
        == 0
    )
    for name in ("user", "order"):
        (repo / "src" / "routes" / f"{name}.ts").write_text("import { db } from '@/lib/db'\n")
        assert run("task", "done", f"src/routes/{name}.ts", cwd=repo).code == 0
    assert "LEFT=0" in run("resume", cwd=repo).out
    # after a compaction the agent writes the old form back, and a new file with it
    (repo / "src" / "routes" / "user.ts").write_text("// again\nimport { db } from '../lib/db'\n")
    (repo / "src" / "lib" / "new.ts").write_text("import { db } from './db'\nimport q from '../../q'\n")
    (repo / "notsrc.ts").write_text("import q from '../q'\n")  # outside --paths: not part of the task
    out = run("resume", cwd=repo).out
    assert "REVERTED 1 (marked done, the old form is back; todo again): src/routes/user.ts:2" in out
    assert "ADDED 1 to the list (a new match): src/lib/new.ts" in out and "notsrc.ts" not in out
    assert "LEFT=2" in out and "TASK alias ACTIVE 1/3" in out  # the reverted entry is todo again (issue 30.4)
    assert "NEXT=src/routes/user.ts" in out
    assert run("task", "done", "src/routes/user.ts", cwd=repo).code == 1  # still holds it


def test_match_refusals_are_one_line_and_change_nothing(repo: Path) -> None:
    before = (repo / ".agent-state" / "services" / "task" / "status").read_bytes()
    for args, code, text in (
        (("--match", "no such import anywhere"), 1, "holds a match"),
        (("--match", "a(b"), 2, "the one dialect"),
        (("--match", OLD, "--files", "x"), 2, "give one of"),
        (("--paths", "src/**", "--files", _list(repo, "a")), 2, "--paths narrows --match"),
    ):
        r = run("task", "start", "--id", "m", "--desc", "d", *args, cwd=repo)
        assert r.code == code and text in r.err and r.err.count("\n") == 1, (args, r.err)
    assert (repo / ".agent-state" / "services" / "task" / "status").read_bytes() == before
