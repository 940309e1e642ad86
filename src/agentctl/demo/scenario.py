"""`agentctl demo`: the seed's scenario, played by a scripted agent that keeps forgetting.

A temporary project holds 120 files whose imports must move from relative paths
to the ``@/`` alias. The scripted agent (``demoagent``) works in "lives": each life is
a fresh process that knows only the startup protocol (run ``agentctl resume``, follow
NEXT, check ``files check`` before editing, ``task done`` after). Each life ends
abruptly after a few steps, sometimes right after an edit and before recording
it done, as a compaction would. At the end every file must be changed exactly
once, and the checks must pass.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable

from agentctl.demo.agent import NEW, OLD, ctl
from agentctl.operation.contract import Ctx, Result

N_FILES = 120
# (steps before the memory loss, whether it strikes between an edit and `task done`)
LIVES = [(17, False), (23, True), (9, False), (31, True), (26, False), (40, False), (40, False)]

CHECK_SCRIPT = f"""\
import pathlib, sys
bad = [str(p) for p in sorted(pathlib.Path("src").rglob("*.tsx")) if {OLD!r} in p.read_text()]
for p in bad:
    print(f"{{p}}:1 error: old relative import still present")
sys.exit(1 if bad else 0)
"""


def _make_project(root: str) -> None:
    for i in range(1, N_FILES + 1):
        folder = os.path.join(root, "src", ["components", "utils", "hooks"][i % 3])
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"m{i:03d}.tsx"), "w", encoding="utf-8") as fh:
            fh.write(f"import {{ thing{i} }} {OLD}lib/thing{i}'\nexport const v{i} = thing{i}\n")
    os.makedirs(os.path.join(root, "database", "migrations"))
    with open(os.path.join(root, "check_imports.py"), "w", encoding="utf-8") as fh:
        fh.write(CHECK_SCRIPT)
    with open(os.path.join(root, "files.txt"), "w", encoding="utf-8") as fh:
        for i in range(1, N_FILES + 1):
            fh.write(f"src/{['components', 'utils', 'hooks'][i % 3]}/m{i:03d}.tsx\n")


def run_demo(keep: bool = False, quiet: bool = False, say: Callable[[str], None] = print) -> int:
    """Play the scenario; each line of its story goes to ``say`` (nothing with ``quiet``)."""

    def out(text: str) -> None:
        if not quiet:
            say(text)

    root = tempfile.mkdtemp(prefix="agentctl-demo-")
    env = dict(os.environ)
    env.pop("AGENTCTL_STATE_DIR", None)
    try:
        _make_project(root)
        os.chdir(root)
        out(f"demo project: {root} ({N_FILES} files to move from '../../old/' imports to '@/')")
        for args in (
            ("init",),
            ("constraints", "add", "P0", "deny-write: database/migrations/**"),
            ("constraints", "add", "P0", "API route changes must also update types/api.d.ts"),
            ("constraints", "add", "P1", "run the checks before finishing"),
            (
                "verify",
                "add",
                f"{shlex.quote(sys.executable)} check_imports.py",
            ),  # a venv path may hold a space
            (
                "task",
                "start",
                "--id",
                "refactor-imports-001",
                "--desc",
                "replace old relative imports with the @/ alias",
                "--files",
                "files.txt",
            ),
        ):
            code, text = ctl(*args)
            if code:
                out(f"setup failed: agentctl {' '.join(args)}: {text.strip()}")
                return 1
        out(
            "set up: agentctl init; 2 P0 rules, 1 P1 rule; a verify command; task refactor-imports-001 over "
            "120 files\n"
        )
        finished = False
        for n, (steps, crash) in enumerate(LIVES, 1):
            proc = subprocess.run(
                [sys.executable, "-m", "agentctl.demo.agent", root, str(steps), "1" if crash else "0"],
                capture_output=True,
                text=True,
                env=env,
                check=False,
            )
            lines = [ln for ln in proc.stdout.split("\n") if ln]
            if proc.returncode != 0:
                out(f"life {n} failed: {proc.stderr.strip()[-300:]}")
                return 1
            out(f"life {n} (a fresh process; memory empty):")
            for ln in lines:
                out(f"  {ln}")
            if any("task archived" in ln for ln in lines):
                finished = True
                break
        return _report(root, finished, out)
    finally:
        os.chdir(os.path.expanduser("~") if os.path.isdir(os.path.expanduser("~")) else "/")
        if keep:
            say(f"\nkept: {root}")  # even with --quiet: the folder is the point of --keep
        else:
            shutil.rmtree(root, ignore_errors=True)


def _report(root: str, finished: bool, say: Callable[[str], None]) -> int:
    from agentctl.files import log
    from agentctl.ground.store import Store

    edits: dict[str, int] = {}
    logs = os.path.join(root, ".agent-state", "logs")
    archived = [f for f in os.listdir(logs) if f.startswith("files-refactor") and f.endswith(".log")]
    store = Store(os.path.join(root, ".agent-state"))
    for name in archived:
        data = store.read(f"logs/{name}", cap=1 << 26) or b""
        for _, op, path in log.entries(store, data):
            if op == "MODIFY":
                edits[path] = edits.get(path, 0) + 1
    contents_ok = 0
    for dirpath, _, names in os.walk(os.path.join(root, "src")):
        for name in names:
            with open(os.path.join(dirpath, name), encoding="utf-8") as fh:
                text = fh.read()
            if text.count(NEW) == 1 and OLD not in text:
                contents_ok += 1
    once = sum(1 for v in edits.values() if v == 1)
    say("")
    say(
        f"result: task finished={'yes' if finished else 'no'}; files converted {contents_ok}/{N_FILES}; "
        f"edited exactly once {once}/{N_FILES} (files log); edited twice "
        f"{sum(1 for v in edits.values() if v > 1)}"
    )
    ok = finished and contents_ok == N_FILES and once == N_FILES and len(edits) == N_FILES
    say("demo OK: every file changed exactly once across the memory losses" if ok else "demo FAILED")
    return 0 if ok else 1


def demo(ctx: Ctx, *, keep: bool = False, quiet: bool = False) -> Result:
    """`agentctl demo`: the story is shown as it happens (progress); the result is its exit code."""
    return Result(code=run_demo(keep=keep, quiet=quiet, say=ctx.say))


__all__ = ["demo", "run_demo"]
