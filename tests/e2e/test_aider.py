"""End to end with the real Aider against a scripted Chat Completions model on loopback.

Aider has no hooks: ``agentctl install aider`` puts the startup protocol in a read-only
file named by ``read:`` and wraps the user's ``lint-cmd``, which Aider runs with each file it
edited. The test drives the real Aider (pinned in tests/e2e/install_aider.sh, its own venv
in ``${AGENTCTL_E2E_CACHE:-$HOME/.cache/agentctl-e2e}/aider-<version>``, or
``$AGENTCTL_AIDER_BIN``) through three ``--message`` runs in a git project: one reply that
edits two files, one whose edit the user's linter rejects (Aider sends the lint output back
and the model fixes it), one more file. It asserts every edit logged as it happened, the
protocol in every request, and the user's own lint command run on each file with its output
and exit code kept.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from .fake_chat import JSON, FakeChat, Recorded, Reply, all_text, last_user_text, messages, system_text
from .harness import (
    ENV_AT_START,
    HERE,
    Binary,
    Pinned,
    Run,
    cache_root,
    clean_env,
    dump_artifacts,
    file_rel,
    find_binary,
    make_project,
    ok,
    pinned_version,
    require_integration,
    run_cli,
)


@dataclass(frozen=True)
class PinnedVenv(Pinned):
    """A Python CLI installed into its own venv: ``<cache>/<name>-<version>/venv/bin/<name>``."""

    def path(self) -> Path:
        env = ENV_AT_START.get(self.override)
        if env:
            return Path(env)
        version = pinned_version(self.script, self.version_variable)
        return cache_root() / f"{self.name}-{version}" / "venv" / "bin" / self.name


AIDER = PinnedVenv("Aider", "aider", HERE / "install_aider.sh", "AIDER_VERSION", "AGENTCTL_AIDER_BIN")
RUN_TIMEOUT = 180

N_FILES = 4
OLD, NEW = "OLD_API", "NEW_API"
LINT_BAIT = (
    "  # TODO-LINT"  # the user's linter rejects a file with this; the model's first edit of mod03 adds it
)
BAIT_REL = file_rel(2)
FILES_MESSAGE = "I have *added these files to the chat*"
FIX_MESSAGE = "# Fix any errors below"
PROTOCOL_MARK = "## Working state (agentctl)"
FILE_BLOCK = re.compile(r"^(\S+)\n```[^\n]*\n(.*?)^```$", re.MULTILINE | re.DOTALL)

USER_LINT = """#!/bin/sh
# the user's own linter: one line per file; rejects a file holding TODO-LINT
for f in "$@"; do
  if grep -q TODO-LINT "$f"; then echo "$f:3:1: E999 USER-LINT-FAIL leftover TODO-LINT"; exit 3; fi
  echo "USER-LINT-OK $f"
done
"""


@pytest.fixture(scope="session")
def aider(tmp_path_factory: pytest.TempPathFactory) -> Binary:
    return find_binary(AIDER, tmp_path_factory.mktemp("aider-version"))


def classify(body: JSON) -> str:
    if "commit message" in system_text(body):
        return "commit"
    return "main" if any(FILES_MESSAGE in str(m.get("content")) for m in messages(body)) else "side"


def chat_files(body: JSON) -> dict[str, str]:
    """The files Aider says are in the chat, with the contents it sent (the latest message)."""
    for message in reversed(messages(body)):
        text = str(message.get("content") or "")
        if message.get("role") == "user" and text.startswith(FILES_MESSAGE):
            return {path: content for path, content in FILE_BLOCK.findall(text)}
    return {}


def policy(body: JSON) -> Reply:
    """The scripted model, stateless: edit each chat file that still holds the old API (the
    bait file gets a leftover marker the user's linter rejects), and remove the marker when
    Aider sends the linter's complaint back."""
    kind = classify(body)
    if kind == "commit":
        return Reply.say("convert to the new API")
    if kind == "side":
        return Reply.say("ok")
    fixing = last_user_text(body).lstrip().startswith(FIX_MESSAGE)
    blocks = []
    for path, content in sorted(chat_files(body).items()):
        for line in content.splitlines():
            if OLD in line:
                new = line.replace(OLD, NEW) + (LINT_BAIT if path == BAIT_REL else "")
            elif fixing and line.endswith(LINT_BAIT):
                new = line[: -len(LINT_BAIT)]
            else:
                continue
            blocks.append(
                f"{path}\n```python\n<<<<<<< SEARCH\n{line}\n=======\n{new}\n>>>>>>> REPLACE\n```\n"
            )
    return Reply.say("\n".join(blocks) if blocks else "Nothing left to change.")


def test_aider_edits_logged_protocol_sent_user_lint_chained(
    aider: Binary, agentctl_bin: Path, tmp_path: Path
) -> None:
    require_integration("aider", "the Aider integration")
    started = time.monotonic()
    project, listfile = make_project(tmp_path, N_FILES, OLD, "secrets/token.txt", "TOKEN=x\n")
    files = [file_rel(i) for i in range(N_FILES)]
    lint_script = tmp_path / "user-lint.sh"
    lint_script.write_text(USER_LINT)
    lint_script.chmod(0o755)
    user_config = f'# my Aider settings\nauto-commits: true\nlint-cmd:\n  - "python: {lint_script}"\n'
    (project / ".aider.conf.yml").write_text(user_config)
    ok(project, "init")
    ok(project, "constraints", "add", "P0", "deny-write: secrets/**")
    ok(project, "task", "start", "--id", "e2e-aider", "--desc", "convert", "--files", str(listfile))
    ok(project, "install", "aider")
    assert "agentctl hook aider lint --" in (project / ".aider.conf.yml").read_text()

    home = tmp_path / "aider-home"
    home.mkdir()
    log = project / ".agent-state" / "services" / "files" / "status"
    log_seen: dict[int, str] = {}

    def snapshot(record: Recorded) -> None:
        log_seen[record.seq] = log.read_text() if log.exists() else ""

    common = [
        "--model",
        "openai/fake-model",
        "--weak-model",
        "openai/fake-model",
        "--edit-format",
        "diff",
        "--yes-always",
        "--no-pretty",
        "--no-stream",
        "--analytics-disable",
        "--no-check-update",
        "--no-show-model-warnings",
        "--no-show-release-notes",
        "--map-tokens",
        "0",
    ]
    plan = [("two-files", files[:2]), ("lint-fix", [files[2]]), ("last", [files[3]])]
    runs: list[Run] = []
    spans: dict[str, tuple[int, int]] = {}
    with FakeChat(policy, record_dir=tmp_path / "requests", classify=classify, on_request=snapshot) as server:
        env = clean_env(home, ("LANG", "LC_ALL", "TMPDIR"), [agentctl_bin])
        env.update(
            OPENAI_API_BASE=server.base_url,
            OPENAI_API_KEY="e2e-dummy-key",
            TERM="dumb",
            HTTPS_PROXY="http://127.0.0.1:9",
            HTTP_PROXY="http://127.0.0.1:9",
            NO_PROXY="127.0.0.1,localhost",
            GIT_AUTHOR_NAME="e2e",
            GIT_AUTHOR_EMAIL="e2e@example.invalid",
            GIT_COMMITTER_NAME="e2e",
            GIT_COMMITTER_EMAIL="e2e@example.invalid",
        )
        try:
            for label, targets in plan:
                before = len(server.chat_requests())
                message = "Convert " + " and ".join(targets) + f" from {OLD} to {NEW}."
                run = run_cli(
                    aider, project, env, label, [*common, "--message", message, *targets], RUN_TIMEOUT
                )
                runs.append(run)
                spans[label] = (before, len(server.chat_requests()))
                assert run.returncode == 0, f"{label} (artifacts in {tmp_path}): {run.stderr}{run.stdout}"
        finally:
            dump_artifacts(tmp_path, server, runs, "aider")
    where = f"(artifacts in {tmp_path})"
    assert server.errors == [], where
    requests = server.chat_requests()
    main = [r for r in requests if r.kind == "main"]

    # every file converted, once, and the bait removed after the linter's complaint
    for rel in files:
        text = (project / rel).read_text()
        assert text.count(NEW) == 1 and OLD not in text and "TODO-LINT" not in text, (rel, text)

    # the protocol file was in every request of the agent loop
    assert main and all(PROTOCOL_MARK in all_text(r.body) for r in main), where
    assert all(".aider.agentctl.md" in all_text(r.body) for r in main)

    # the user's own linter ran on each edited file, through agentctl, its output and exit code kept
    output = "".join(r.stdout + r.stderr for r in runs)
    for rel in files:
        assert f"USER-LINT-OK {rel}" in output, (rel, where)
    fix = [r for r in main if last_user_text(r.body).lstrip().startswith(FIX_MESSAGE)]
    assert len(fix) == 1, f"Aider sent {len(fix)} lint complaints back {where}"
    complaint = last_user_text(fix[0].body)
    assert f"{BAIT_REL}:3:1: E999 USER-LINT-FAIL leftover TODO-LINT" in complaint, complaint
    # the command Aider ran
    assert "agentctl hook aider lint --" in complaint and str(lint_script) in complaint
    lo, hi = spans["lint-fix"]
    assert lo <= requests.index(fix[0]) < hi

    # every edit logged by the lint command, already when Aider sent its next request
    entries = [line.split("|") for line in log.read_text().splitlines() if line.count("|") == 2]
    logged = [(op, path) for _, op, path in entries if op != "SESSION_START"]
    for rel in files:
        assert ("MODIFY", rel) in logged, (rel, logged)
    assert logged.count(("MODIFY", BAIT_REL)) == 2, logged  # two edits: the bait, then the fix
    for rel in (files[0], files[1], files[3]):
        assert logged.count(("MODIFY", rel)) == 1, (rel, logged)
    after_first = [r for r in requests if requests.index(r) >= spans["lint-fix"][0]]
    assert after_first and all(f"|MODIFY|{files[0]}" in log_seen[r.seq] for r in after_first)
    assert f"|MODIFY|{BAIT_REL}" in log_seen[fix[0].seq], (
        "the bait edit was not logged before the fix request"
    )
    assert not any(p.startswith("secrets") for _, p in logged)
    # nothing was left for `files sync` to find among the task's files
    synced = ok(project, "files", "sync")
    assert not any(rel in synced for rel in files), synced

    # agentctl's config lines go away again, leaving the user's file as it was
    ok(project, "uninstall", "aider")
    assert (project / ".aider.conf.yml").read_text() == user_config
    assert not (project / ".aider.agentctl.md").exists()
    (tmp_path / "summary.txt").write_text(
        f"{len(requests)} model requests, {time.monotonic() - started:.1f}s\n"
        + "".join(f"{r.label}: exit {r.returncode} {r.seconds:.1f}s\n" for r in runs)
        + json.dumps(logged)
        + "\n"
    )
