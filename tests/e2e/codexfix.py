"""Codex as the e2e tests drive it: its pinned binary, its home and environment, one `codex exec` run,
and the scripted model's requests told apart."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from .fake_openai import (
    JSON,
    Reply,
    input_items,
    item_text,
)
from .harness import (
    HERE,
    Binary,
    Pinned,
    Run,
    clean_env,
    find_binary,
    require_integration,
    run_cli,
)

Codex = Binary


CODEX = Pinned("Codex", "codex", HERE / "install_codex.sh", "CODEX_VERSION", "AGENTCTL_CODEX_BIN")


RUN_TIMEOUT = 120  # seconds for one `codex exec`


@pytest.fixture(scope="session")
def codex(tmp_path_factory: pytest.TempPathFactory) -> Codex:
    home = tmp_path_factory.mktemp("codex-version")
    return find_binary(CODEX, home, {"CODEX_HOME": str(home)})


@pytest.fixture(scope="module")
def agentctl_with_codex_integration() -> None:
    require_integration("codex", "the Codex hook integration")


COMPACT_MARKER = "CONTEXT CHECKPOINT COMPACTION"  # in Codex's summarization prompt


AUTO_COMPACT_LIMIT = 20_000  # model_auto_compact_token_limit


def is_compaction(body: JSON) -> bool:
    items = input_items(body)
    return bool(items) and COMPACT_MARKER in item_text(items[-1])


def classify(body: JSON) -> str:
    return "compact" if is_compaction(body) else "main"


def shell(cmd: str) -> Reply:
    # login=false: a login shell would reset PATH from /etc/profile and lose agentctl
    return Reply.function("exec_command", {"cmd": cmd, "login": False})


RECORDER = """\
import os, sys, time
data = sys.stdin.buffer.read()
name = "%d-%d-%s.json" % (time.time_ns(), os.getpid(), sys.argv[2])
with open(os.path.join(sys.argv[1], name), "wb") as f:
    f.write(data)
"""


HOOK_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "Stop",
)


def write_codex_home(home: Path, base_url: str, project: Path, payloads: Path) -> None:
    """A CODEX_HOME: the scripted provider, the project trusted, and user-level hooks that
    only record every payload (agentctl's hooks are the project's .codex/hooks.json)."""
    recorder = home / "record_hook.py"
    recorder.write_text(RECORDER)
    (home / "config.toml").write_text(
        'model = "gpt-5.5"\n'  # a model in Codex's bundled catalog: it gets the apply_patch tool
        'model_provider = "e2e"\n'
        f"model_auto_compact_token_limit = {AUTO_COMPACT_LIMIT}\n"
        "check_for_update_on_startup = false\n"
        "[analytics]\nenabled = false\n"
        "[model_providers.e2e]\n"
        'name = "agentctl e2e scripted model"\n'
        f"base_url = {json.dumps(base_url)}\n"
        'env_key = "AGENTCTL_E2E_OPENAI_KEY"\n'
        'wire_api = "responses"\n'
        f"[projects.{json.dumps(str(project))}]\n"
        'trust_level = "trusted"\n'
    )
    hooks = {
        event: [
            {
                "hooks": [
                    {
                        "type": "command",
                        "timeout": 10,
                        "command": f"'{sys.executable}' '{recorder}' '{payloads}' {event}",
                    }
                ]
            }
        ]
        for event in HOOK_EVENTS
    }
    (home / "hooks.json").write_text(json.dumps({"hooks": hooks}, indent=1))


def _own_tmp(codex_home: Path) -> Path:
    folder = codex_home.parent / "codex-tmp"
    folder.mkdir(exist_ok=True)
    return folder


def codex_env(home: Path, codex_home: Path, agentctl_bin: Path) -> dict[str, str]:
    env = clean_env(home, ("LANG", "LC_ALL", "TERM", "TMPDIR"), [agentctl_bin])
    env.update(
        CODEX_HOME=str(codex_home),
        # Codex refuses to create its sandbox helper (codex-linux-sandbox, run by bwrap) under the
        # temporary folder, and CODEX_HOME is in pytest's: a TMPDIR of its own keeps it outside that
        TMPDIR=str(_own_tmp(codex_home)),
        AGENTCTL_E2E_OPENAI_KEY="sk-e2e-dummy-key",
        # anything that is not the loopback model server goes to a dead local proxy
        HTTPS_PROXY="http://127.0.0.1:9",
        HTTP_PROXY="http://127.0.0.1:9",
        ALL_PROXY="http://127.0.0.1:9",
        NO_PROXY="127.0.0.1,localhost",
    )
    return env


def run_codex(codex: Codex, project: Path, env: dict[str, str], label: str, args: list[str]) -> Run:
    return run_cli(codex, project, env, label, args, RUN_TIMEOUT)
