"""OpenCode: ``agentctl install|uninstall opencode`` and ``agentctl hook opencode EVENT``.

The hook payloads are the ones OpenCode 1.18.33 handed its plugins
(tests/fixtures/payloads/opencode_*, captured from the real CLI; ``__PROJECT__`` is the
test project), wrapped the way our plugin sends them (``cwd`` added). The plugin itself
runs under Node against a stub ``agentctl`` in ``test_plugin_*``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

from agentctl.integrations import opencode
from conftest import run, start_task

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "payloads"
PLUGIN = ".opencode/plugin/agentctl.js"
P0 = "deny-write: secrets/**"


def payload(name: str, project: Path, **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (FIXTURES / f"opencode_{name}.json").read_text().replace("__PROJECT__", str(project))
    )
    data.update(cwd=str(project), **extra)
    return data


def hook(project: Path, event: str, data: dict[str, Any], cwd: Path | None = None) -> tuple[int, str, str]:
    r = run("hook", "opencode", event, cwd=cwd or project, stdin=json.dumps(data))
    return r.code, r.out, r.err


def files_log(project: Path) -> list[str]:
    text = (project / ".agent-state" / "services" / "files" / "status").read_text()
    return [line.split("|", 1)[1] for line in text.splitlines() if "|" in line]


@pytest.fixture
def proj(project: Path) -> Path:
    (project / "src").mkdir()
    (project / "secrets").mkdir()
    assert run("constraints", "add", "P0", P0, cwd=project).code == 0
    return project


# -- install / uninstall ----------------------------------------------------------------------


def test_install_writes_the_plugin_and_uninstall_removes_exactly_it(proj: Path) -> None:
    r = run("install", "opencode", cwd=proj)
    assert r.code == 0, r.err
    assert f"{PLUGIN}: created: plugin written" in r.out
    written = (proj / PLUGIN).read_bytes()
    # as packaged, but for the command recorded (the installing interpreter's, as that process names it)
    assert (
        opencode.unrecorded(written)
        == opencode.unrecorded(opencode.plugin_text())
        == Path(opencode.__file__).with_name(opencode.SOURCE).read_bytes()
    )
    assert b'const RECORDED = ["/' in written and written.startswith(opencode.MARKER.encode())
    again = run("install", "opencode", cwd=proj)
    assert f"{PLUGIN}: unchanged: plugin already up to date" in again.out
    (proj / ".opencode" / "opencode.json").write_text("{}\n")  # OpenCode's own file beside ours stays
    r = run("uninstall", "opencode", cwd=proj)
    assert r.code == 0 and f"{PLUGIN}: removed: plugin removed" in r.out, r.out
    assert not (proj / ".opencode" / "plugin").exists()
    assert (proj / ".opencode" / "opencode.json").read_text() == "{}\n"
    assert "not there" in run("uninstall", "opencode", cwd=proj).out


def test_an_old_plugin_of_ours_is_updated(proj: Path) -> None:
    (proj / ".opencode" / "plugin").mkdir(parents=True)
    (proj / PLUGIN).write_text(opencode.MARKER + " (an older one)\nexport const X = async () => ({})\n")
    r = run("install", "opencode", cwd=proj)
    assert r.code == 0 and "updated" in r.out, r.out
    assert opencode.unrecorded((proj / PLUGIN).read_bytes()) == opencode.unrecorded(opencode.plugin_text())


def test_a_users_file_of_that_name_is_never_touched(proj: Path) -> None:
    (proj / ".opencode" / "plugin").mkdir(parents=True)
    mine = "// my own plugin\nexport const Mine = async () => ({})\n"
    (proj / PLUGIN).write_text(mine)
    r = run("install", "opencode", cwd=proj)
    assert r.code == 3 and r.out == ""
    assert r.err.count("\n") == 1 and "is not agentctl's" in r.err and "Traceback" not in r.err, r.err
    assert (proj / PLUGIN).read_text() == mine
    r = run("uninstall", "opencode", cwd=proj)
    assert r.code == 0 and "not agentctl's plugin; left alone" in r.out
    assert (proj / PLUGIN).read_text() == mine


def test_install_from_a_subfolder_targets_the_project(proj: Path) -> None:
    r = run("install", "opencode", cwd=proj / "src")
    assert r.code == 0, r.err
    assert (proj / PLUGIN).exists() and not (proj / "src" / ".opencode").exists()


# -- the hook events, with the payloads OpenCode sent ------------------------------------------


def test_before_write_allows_and_denies_by_the_p0_rule(proj: Path) -> None:
    code, out, _ = hook(proj, "tool-execute-before", payload("tool.execute.before-write", proj))
    assert (code, json.loads(out)) == (0, {"decision": "allow"})
    denied = payload("tool.execute.before-edit", proj)
    denied["output"]["args"]["filePath"] = str(proj / "secrets" / "token.txt")
    code, out, _ = hook(proj, "tool-execute-before", denied, cwd=proj / "src")
    answer = json.loads(out)
    assert code == 0 and answer["decision"] == "deny"
    assert answer["reason"] == (
        "P0 constraint `deny-write: secrets/**` (agentctl) forbids writing "
        "secrets/token.txt; the edit was not made"
    )
    assert (
        "hook|deny|opencode secrets/token.txt" in (proj / ".agent-state" / "logs" / "agent.log").read_text()
    )


def test_before_apply_patch_denies_when_any_path_is_denied(proj: Path) -> None:
    patch = (
        "*** Begin Patch\n*** Update File: src/m.py\n@@\n-a\n+b\n*** Add File: secrets/new.txt\n+x\n"
        "*** End Patch"
    )
    data: dict[str, Any] = {
        "input": {"tool": "apply_patch", "sessionID": "s", "callID": "c1"},
        "output": {"args": {"patchText": patch}},
        "cwd": str(proj),
    }
    code, out, _ = hook(proj, "tool-execute-before", data)
    assert json.loads(out)["decision"] == "deny" and "secrets/new.txt" in json.loads(out)["reason"]
    data["output"]["args"]["patchText"] = patch.replace("secrets/new.txt", "src/new.py")
    code, out, _ = hook(proj, "tool-execute-before", data)
    assert json.loads(out) == {"decision": "allow"}


def test_after_write_and_edit_log_once_per_call(proj: Path) -> None:
    write = payload("tool.execute.after-write", proj)
    assert hook(proj, "tool-execute-after", write)[:2] == (0, "")
    assert hook(proj, "tool-execute-after", write)[:2] == (0, "")  # delivered twice: logged once
    edit = payload("tool.execute.after-edit", proj)
    assert hook(proj, "tool-execute-after", edit)[:2] == (0, "")
    assert files_log(proj) == ["CREATE|src/m.py", "MODIFY|src/m.py"]
    read = payload("tool.execute.after-read", proj)
    assert hook(proj, "tool-execute-after", read)[:2] == (0, "")
    assert files_log(proj) == ["CREATE|src/m.py", "MODIFY|src/m.py"]


def test_after_write_over_an_existing_file_is_a_modify(proj: Path) -> None:
    write = payload("tool.execute.after-write", proj)
    write["output"]["metadata"]["exists"] = True
    write["input"]["args"]["filePath"] = "src/relative.py"  # relative to the session's folder
    hook(proj, "tool-execute-after", write)
    assert files_log(proj) == ["MODIFY|src/relative.py"]


def test_after_apply_patch_logs_every_file(proj: Path) -> None:
    patch = (
        "*** Begin Patch\n*** Add File: src/a.py\n+x\n*** Update File: src/b.py\n*** Move to: src/c.py\n"
        "@@\n-a\n+b\n*** Delete File: src/d.py\n*** End Patch"
    )
    data = {
        "input": {"tool": "apply_patch", "sessionID": "s", "callID": "c2", "args": {"patchText": patch}},
        "output": {"title": "", "metadata": {}},
        "cwd": str(proj),
    }
    hook(proj, "tool-execute-after", data)
    assert files_log(proj) == ["CREATE|src/a.py", "DELETE|src/b.py", "CREATE|src/c.py", "DELETE|src/d.py"]


def test_after_bash_syncs_with_git(tmp_path: Path) -> None:
    proj = tmp_path / "gitproj"
    proj.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=proj, check=True)
    (proj / "a.txt").write_text("a\n")
    subprocess.run([*git, "add", "."], cwd=proj, check=True)
    subprocess.run([*git, "commit", "-qm", "i"], cwd=proj, check=True)
    assert run("init", cwd=proj).code == 0
    (proj / "list.txt").write_text("a.txt\n")
    assert run("task", "start", "--id", "t", "--desc", "d", "--files", "list.txt", cwd=proj).code == 0
    (proj / "made-by-shell.txt").write_text("x\n")
    assert hook(proj, "tool-execute-after", payload("tool.execute.after-bash", proj))[:2] == (0, "")
    assert "CREATE|made-by-shell.txt" in files_log(proj)


def test_compacting_gives_the_state_and_compacted_counts_once(proj: Path) -> None:
    start_task(proj, ["src/a.py", "src/b.py"], task_id="t-1", desc="convert", listing=proj.parent / "t-1.txt")
    code, out, _ = hook(proj, "session-compacting", payload("experimental.session.compacting", proj))
    context = json.loads(out)["context"]
    assert code == 0 and context.startswith("agentctl working state of this project")
    assert "t-1" in context and f"P0|{P0}" in context and "NEXT=src/a.py" in context
    session = proj / ".agent-state" / "session"
    assert "PRE_COMPACT=" in session.read_text() and "COMPACTIONS" not in session.read_text()
    event = {"event": payload("event.session.compacted", proj)}
    assert hook(proj, "session-compacted", event)[:2] == (0, "")
    assert hook(proj, "session-compacted", event)[:2] == (0, "")  # the same event twice
    assert "COMPACTIONS=1\n" in session.read_text()
    other = json.loads(json.dumps(event))
    other["event"]["id"] = "evt_another"
    hook(proj, "session-compacted", other)
    assert "COMPACTIONS=2\n" in session.read_text()


def test_system_transform_gives_the_resume_block(proj: Path) -> None:
    start_task(proj, ["src/a.py"], task_id="t-2", desc="convert", listing=proj.parent / "t-2.txt")
    for source, why in (
        ("start", "as this OpenCode run began"),
        ("compact", "right after the conversation was compacted"),
    ):
        code, out, _ = hook(
            proj, "system-transform", {"input": {"sessionID": "ses_x"}, "source": source, "cwd": str(proj)}
        )
        text = json.loads(out)["system"]
        assert code == 0 and why in text.split("\n", 1)[0]
        assert "t-2" in text and "NEXT=src/a.py" in text and f"P0|{P0}" in text
        assert text.count("\n") > 2
    _, out, _ = hook(
        proj,
        "system-transform",
        {"input": {"sessionID": "ses_child"}, "source": "subagent", "cwd": str(proj)},
    )
    brief = json.loads(out)["system"]
    assert "brief form" in brief and f"P0|{P0}" in brief and "t-2" in brief and len(brief) < 1000


def test_no_state_folder_and_bad_input_stay_quiet(tmp_path: Path, proj: Path) -> None:
    bare = tmp_path / "bare"
    (bare / ".git").mkdir(parents=True)
    assert hook(bare, "tool-execute-before", payload("tool.execute.before-write", bare)) == (0, "", "")
    r = run("hook", "opencode", "tool-execute-before", cwd=proj, stdin="{not json")
    assert (r.code, r.out) == (0, "") and r.err.count("\n") == 1 and "Traceback" not in r.err
    r = run("hook", "opencode", "no-such-event", cwd=proj, stdin="{}")
    assert (r.code, r.out) == (0, "") and "unknown agent or event" in r.err


# -- the plugin itself, under Node, against a stub agentctl -------------------------------------

NODE = shutil.which("node")
DRIVER = textwrap.dedent("""
    import { AgentctlPlugin } from %(plugin)s
    const hooks = await AgentctlPlugin({ directory: %(dir)s })
    const out = { systems: [] }
    const request = async () => {
      const o = { system: ["base"] }
      await hooks["experimental.chat.system.transform"]({ sessionID: "s", model: {} }, o)
      out.systems.push(o.system)
    }
    try {
      await hooks["tool.execute.before"]({ tool: "write", sessionID: "s", callID: "c" },
                                          { args: { filePath: %(dir)s + "/secrets/x" } })
      out.before = "allowed"
    } catch (err) { out.before = "denied: " + err.message }
    await hooks["tool.execute.before"]({ tool: "read", sessionID: "s", callID: "r" }, { args: {} })
    await hooks["tool.execute.after"]({ tool: "read", sessionID: "s", callID: "r", args: {} },
                                      { title: "", output: "", metadata: {} })
    await hooks["tool.execute.after"]({ tool: "edit", sessionID: "s", callID: "e", args: { filePath: "a" } },
                                      { title: "", output: "", metadata: {} })
    await request()
    await request()
    const ctx = { context: [] }
    await hooks["experimental.session.compacting"]({ sessionID: "s" }, ctx)
    out.context = ctx.context
    await request()  // the summariser's
    await hooks.event({ event: { id: "evt_1", type: "session.compacted", properties: { sessionID: "s" } } })
    await request()
    await request()
    const loop = {}
    loop.self = loop  // a payload JSON cannot hold: no agentctl call, no exception into OpenCode
    await hooks["tool.execute.after"]({ tool: "write", sessionID: "s", callID: "w", args: { filePath: "b" } },
                                      { title: "", output: "", metadata: loop })
    out.circular = "survived"
    console.log(JSON.stringify(out))
""")
STUB = textwrap.dedent("""\
    #!/bin/sh
    payload=$(cat)
    printf '%%s %%s\\n' "$3" "$payload" >> "%(calls)s"
    case "%(mode)s" in
      fail) exit 1 ;;
      quiet) exit 0 ;;
      garbage) echo 'not json'; exit 0 ;;
    esac
    case "$3" in
      tool-execute-before) echo '{"decision": "deny", "reason": "STUB-REASON"}' ;;
      session-compacting) echo '{"context": "STUB-CONTEXT"}' ;;
      system-transform) n=$(grep -c '^system-transform' "%(calls)s")
        echo "{\\"system\\": \\"STUB-BLOCK-$n\\"}" ;;
    esac
""")


def drive_plugin(tmp_path: Path, project: Path, mode: str, tag: str = "") -> tuple[dict[str, Any], list[str]]:
    """Run the plugin's hooks under Node with a stub ``agentctl`` (answering, failing, silent or garbled)."""
    name = f"{mode}{tag}"
    bindir, calls = tmp_path / f"bin-{name}", tmp_path / f"calls-{name}.txt"
    bindir.mkdir()
    stub = bindir / "agentctl"
    stub.write_text(STUB % {"calls": calls, "mode": mode})
    stub.chmod(0o755)
    driver = tmp_path / f"driver-{name}.mjs"
    src = Path(opencode.__file__).with_name(opencode.SOURCE)
    driver.write_text(DRIVER % {"plugin": json.dumps(str(src)), "dir": json.dumps(str(project))})
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}", CLAUDE_PROJECT_DIR="/elsewhere")
    done = subprocess.run([str(NODE), str(driver)], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    lines = calls.read_text().splitlines() if calls.exists() else []
    return json.loads(done.stdout), lines


needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


@needs_node
def test_plugin_applies_agentctls_answers(tmp_path: Path, proj: Path) -> None:
    out, calls = drive_plugin(tmp_path, proj, "answer")
    assert out["before"] == "denied: STUB-REASON"
    assert out["context"] == ["STUB-CONTEXT"] and out["circular"] == "survived"
    # fetched at the first request, then the same text reused without asking; none in the summariser's
    # request (its prompt has the state); after session.compacted a fresh one, then reused
    assert out["systems"] == [
        ["base", "STUB-BLOCK-1"],
        ["base", "STUB-BLOCK-1"],
        ["base"],
        ["base", "STUB-BLOCK-2"],
        ["base", "STUB-BLOCK-2"],
    ]
    events = [line.split(" ", 1)[0] for line in calls]
    assert events == [
        "tool-execute-before",
        "tool-execute-after",
        "system-transform",
        "session-compacting",
        "session-compacted",
        "system-transform",
    ], events  # nothing for a read
    sent = [json.loads(line.split(" ", 1)[1]) for line in calls]
    assert sent[0]["cwd"] == str(proj) and sent[0]["input"]["tool"] == "write"
    assert sent[0]["output"]["args"]["filePath"] == f"{proj}/secrets/x"
    assert (sent[2]["source"], sent[5]["source"]) == ("start", "compact")
    assert sent[4]["event"]["id"] == "evt_1"


@pytest.mark.parametrize("mode", ["fail", "quiet", "garbage"])
@needs_node
def test_plugin_fails_closed_only_for_a_possibly_denied_write(tmp_path: Path, proj: Path, mode: str) -> None:
    out, _ = drive_plugin(tmp_path, proj, mode)
    assert out["before"].startswith(
        "denied: agentctl could not check this write against the project's P0 deny-write rules"
    ), out
    assert out["context"] == [] and out["systems"] == [["base"]] * 5
    # without a deny-write rule nothing could be denied: the write goes ahead
    assert run("constraints", "remove", P0, cwd=proj).code == 0
    out, _ = drive_plugin(tmp_path, proj, mode, "-no-rule")
    assert out["before"] == "allowed"


@needs_node
def test_plugin_allows_when_agentctl_is_missing_and_there_is_no_state(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    (bare / ".git").mkdir(parents=True)
    out, calls = drive_plugin(tmp_path, bare, "answer")
    assert out["before"] == "denied: STUB-REASON"  # the stub answers: applied
    driver = tmp_path / "driver-answer.mjs"
    done = subprocess.run(
        [str(NODE), str(driver)],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, PATH=str(tmp_path / "empty")),
    )  # no agentctl at all
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["before"] == "allowed"


@needs_node
def test_plugin_bounds_the_time_it_waits_for_agentctl(tmp_path: Path, proj: Path) -> None:
    """A hung agentctl is killed after 10 s before a write; the write is then denied (a rule exists)."""
    bindir = tmp_path / "bin-hang"
    bindir.mkdir()
    pidfile = tmp_path / "hung.pid"
    stub = bindir / "agentctl"
    stub.write_text(f'#!/bin/sh\necho $$ > "{pidfile}"\nexec sleep 60\n')
    stub.chmod(0o755)
    driver = tmp_path / "hang.mjs"
    src = Path(opencode.__file__).with_name(opencode.SOURCE)
    driver.write_text(
        textwrap.dedent(f"""
        import {{ AgentctlPlugin }} from {json.dumps(str(src))}
        const hooks = await AgentctlPlugin({{ directory: {json.dumps(str(proj))} }})
        const t = Date.now()
        let said = "allowed"
        try {{
          await hooks["tool.execute.before"]({{ tool: "edit", sessionID: "s", callID: "c" }},
                                             {{ args: {{ filePath: "src/a.py" }} }})
        }} catch (err) {{ said = err.message }}
        console.log(JSON.stringify({{ said, ms: Date.now() - t }}))
    """)
    )
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run([str(NODE), str(driver)], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert 9_500 <= out["ms"] < 30_000, out
    assert "timed out after 10s" in out["said"] and "the edit was not made" in out["said"], out
    pid = int(pidfile.read_text())
    assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()
