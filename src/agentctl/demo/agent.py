"""The scripted agent of `agentctl demo`: one life, in a fresh process that knows only the startup
protocol (run ``agentctl resume``, follow NEXT, ``files check`` before editing, ``task done``
after), ended after a few steps, sometimes right after an edit and before ``task done``, as a
compaction would. Run as ``python -m agentctl.demo.agent PROJECT STEPS CRASH``.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys

OLD = "from '../../old/"
NEW = "from '@/"


def ctl(*args: str) -> tuple[int, str]:
    """Run one agentctl command in this process (the same entry point as the console script)."""
    from agentctl.cli.main import main  # the demo plays an agent: it drives the CLI

    buf = io.StringIO()
    err = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, buf.getvalue() + err.getvalue()


def agent_life(project: str, steps: int, crash_mid_edit: bool) -> list[str]:
    """One life of the scripted agent. Knows nothing but the startup protocol."""
    os.chdir(project)
    said: list[str] = []
    code, text = ctl("resume")
    nxt = next((ln[5:] for ln in text.split("\n") if ln.startswith("NEXT=")), "")
    task_line = next((ln for ln in text.split("\n") if ln.startswith("TASK ")), "")
    said.append(
        f"woke up; `agentctl resume` says: {task_line.split(':')[0]}" + (f", NEXT={nxt}" if nxt else "")
    )
    for step in range(steps):
        code, text = ctl("task", "status")
        fields = dict(ln.split("=", 1) for ln in text.split("\n") if "=" in ln)
        nxt = fields.get("NEXT", "")
        if fields.get("STATE") == "DONE" or not nxt:
            code, text = ctl("verify", "start")
            said.append(f"all entries done; verify: {text.splitlines()[-1] if code else 'PASSED'}")
            if code == 0:
                ctl("task", "stop")
                said.append("task archived with `agentctl task stop`")
            return said
        already, _ = ctl("files", "check", nxt)
        if already == 0:
            said.append(f"{nxt}: already edited before the memory loss (files check) -> not edited again")
        else:
            with open(nxt, encoding="utf-8") as fh:
                content = fh.read()
            with open(nxt, "w", encoding="utf-8") as fh:
                fh.write(content.replace(OLD, NEW))
            ctl("files", "log", "MODIFY", nxt)
            if crash_mid_edit and step == steps - 1:
                said.append(f"edited {nxt}, then the context was compacted before `task done`")
                return said
        ctl("task", "done", nxt)
    said.append(f"context compacted after {steps} steps")
    return said


__all__ = ["NEW", "OLD", "agent_life", "ctl"]


if __name__ == "__main__":
    for line in agent_life(sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"):
        print(line)
