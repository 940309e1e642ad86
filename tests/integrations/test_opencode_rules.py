"""Issue 23 point 3: the OpenCode plugin has no second reader of the rules that can disagree.

Every rule spelling agentctl accepts (and lines it cannot read) is written to the rules file by
hand; the plugin runs under Node three ways: with the real ``agentctl`` on PATH (agentctl's own
verdict), installed (the command recorded at install) with no ``agentctl`` on PATH (the same
verdict, always), and as the bare source with no agentctl at all (it may deny more, never less).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agentctl.integrations import opencode
from conftest import run

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

PATHS = ["secrets/k.txt", "secrets/deep/x", "data[1].csv", "keys/a1.pem", "src/ok.py"]
SPELLINGS = [
    "P0|deny-write: secrets/**",
    "P0|deny-write : secrets/**",
    "P0|deny-write\t: secrets/**",
    " p0 | DENY-WRITE:secrets/** \r",
    "\ufeffP0|deny-write: secrets/**",
    "P0|deny\\x2dwrite: secrets/**",
    "P0|deny-write: secrets/",
    "P0|deny-write: ./secrets/**",
    "P0|deny-write: data\\[1\\].csv",
    "P0|deny-write: data\\\\[1\\\\].csv",
    "P0|deny-write: keys/[[:alnum:]]*.pem",
    "P0|deny-write: [s]ecrets/**",
    "P0|deny-write: {secrets,keys}/**",
    "P0|deny-write: secrets/[z-a]",
    "deny-write: secrets/**",
    "P0 deny-write: secrets/**",
    "P0|deny write secrets/**",
    "\u00a0# P0|deny-write: secrets/**",
    "P1\ufeff|deny-write: secrets/**",
    "P1|deny-write: secrets/**",
    "  # P0|deny-write: secrets/**",
    "P0|never push to main",
    "P2|style",
]
DRIVER = textwrap.dedent("""
    import { AgentctlPlugin } from %(plugin)s
    const dir = %(dir)s
    const hooks = await AgentctlPlugin({ directory: dir })
    const out = {}
    for (const rel of %(paths)s) {
      try {
        await hooks["tool.execute.before"]({ tool: "write", sessionID: "s", callID: rel },
                                           { args: { filePath: dir + "/" + rel } })
        out[rel] = "allowed"
      } catch (err) { out[rel] = "denied: " + err.message }
    }
    console.log(JSON.stringify(out))
""")


def _verdicts(tmp: Path, project: Path, plugin: Path, path_var: str) -> dict[str, str]:
    driver = tmp / f"driver-{plugin.stem}.mjs"
    driver.write_text(
        DRIVER
        % {"plugin": json.dumps(str(plugin)), "dir": json.dumps(str(project)), "paths": json.dumps(PATHS)}
    )
    env = dict(os.environ, PATH=path_var)
    env.pop("AGENTCTL_STATE_DIR", None)
    done = subprocess.run(
        [str(NODE), str(driver)], capture_output=True, text=True, timeout=120, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    out: dict[str, str] = json.loads(done.stdout)
    return out


def test_every_spelling_gets_agentctls_verdict_or_a_deny(tmp_path: Path, project: Path) -> None:
    (project / "secrets").mkdir()
    assert run("install", "opencode", cwd=project).code == 0
    installed = project / ".opencode" / "plugin" / "agentctl.js"
    assert b'const RECORDED = ["' in installed.read_bytes()  # the command recorded at install
    bare = Path(opencode.__file__).with_name(opencode.SOURCE)  # no recorded command: no agentctl at all
    with_agentctl = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    nowhere = str(tmp_path / "empty")
    rules = project / ".agent-state" / "services" / "constraints" / "status"
    agreed = denied = 0
    for spelling in SPELLINGS:
        rules.write_bytes((spelling + "\n").encode("utf-8"))
        truth = _verdicts(tmp_path, project, installed, with_agentctl)
        recorded = _verdicts(tmp_path, project, installed, nowhere)
        alone = _verdicts(tmp_path, project, bare, nowhere)
        for rel in PATHS:
            said = truth[rel].split(":", 1)[0]
            assert recorded[rel].split(":", 1)[0] == said, (spelling, rel, truth[rel], recorded[rel])
            if said == "denied":
                denied += 1
                assert alone[rel].startswith("denied"), (spelling, rel, truth[rel], alone[rel])
            elif alone[rel] == "allowed":
                agreed += 1
    assert denied >= 30 and agreed >= 15, (denied, agreed)  # both verdicts were really exercised


def test_a_lone_plugin_denies_when_the_rules_cannot_be_read(tmp_path: Path, project: Path) -> None:
    bare = Path(opencode.__file__).with_name(opencode.SOURCE)
    rules = project / ".agent-state" / "services" / "constraints" / "status"
    rules.write_bytes(b"P1|fine\nP2|\xff\n")  # not UTF-8: nothing can be told
    assert _verdicts(tmp_path, project, bare, str(tmp_path / "empty"))["src/ok.py"].startswith("denied")
    rules.write_bytes(b"P1|fine\n# a note\n\nP2 | style\n")
    assert _verdicts(tmp_path, project, bare, str(tmp_path / "empty"))["src/ok.py"] == "allowed"
