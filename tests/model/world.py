"""The model test's world: a bare remote, copies of one project (clones, a worktree), and the ways an
agent acts on them -- the real `agentctl`, the hook command strings `agentctl install` wrote, real git."""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from conftest import AGENTCTL, Result, run

from . import truth as t
from .matchtruth import MatchTruth

AGENTS = ("claude", "codex", "gemini")
CONFIGS = {"claude": ".claude/settings.json", "codex": ".codex/hooks.json", "gemini": ".gemini/settings.json"}
ENV = {"claude": ("CLAUDE_PROJECT_DIR",), "codex": (), "gemini": ("GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR")}
GIT_ID = ["-c", "user.name=model", "-c", "user.email=model@example.invalid", "-c", "init.defaultBranch=main"]


INVOKED: set[tuple[str, ...]] = set()  # the registry commands the model ran (tests/model/test_coverage.py)


def command_of(args: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The registry key of an `agentctl ARGS` call."""
    from agentctl.operation.registry import COMMANDS

    words = [a for a in args if not a.startswith("-")]
    if tuple(words[:2]) in COMMANDS:
        return tuple(words[:2])
    return tuple(words[:1])


def git(cwd: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(["git", *GIT_ID, *args], cwd=cwd, capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} in {cwd}: {done.stderr.strip()}")
    return done.stdout


def bindir() -> Path:
    """The folder of the `agentctl` the hook commands call (first on PATH)."""
    return Path(AGENTCTL[0]).parent


def matches(matcher: object, value: str) -> bool:
    """How the agents apply a matcher: all or none, an exact `a|b` list, else a regular expression."""
    if matcher in (None, "", "*"):
        return True
    text = str(matcher)
    if re.fullmatch(r"[A-Za-z0-9_|, -]+", text):
        return value in re.split(r"[|,]", text)
    return re.search(text, value) is not None


@dataclass
class Copy:
    """One working copy of the project: its folder, and the hook commands installed in it."""

    name: str
    root: Path
    hooks: dict[str, list[tuple[str, object, str]]] = field(default_factory=dict)

    def agentctl(
        self, *args: str, sub: str = "", stdin: str | None = None, env: dict[str, str] | None = None
    ) -> Result:
        INVOKED.add(command_of(args))
        return run(*args, cwd=self.root / sub if sub else self.root, stdin=stdin, env=env)

    def load_hooks(self) -> None:
        for agent in AGENTS:
            doc = json.loads((self.root / CONFIGS[agent]).read_text())
            self.hooks[agent] = [
                (event, entry.get("matcher"), h["command"])
                for event, entries in doc["hooks"].items()
                for entry in entries
                for h in entry["hooks"]
            ]

    def command(self, agent: str, event: str, value: str = "") -> str:
        found = {cmd for ev, m, cmd in self.hooks[agent] if ev == event and matches(m, value)}
        assert len(found) == 1, (agent, event, value, self.hooks[agent])
        return found.pop()

    def fire(
        self, agent: str, event: str, value: str, data: dict[str, object], sub: str = ""
    ) -> subprocess.CompletedProcess[str]:
        """The installed command for (agent, event, tool or source), run as the agent runs it: `sh -c`,
        the payload as JSON on stdin, from ``sub``, with the agent's project variables."""
        env = dict(os.environ, PATH=f"{bindir()}{os.pathsep}{os.environ.get('PATH', '')}")
        env.update({var: str(self.root) for var in ENV[agent]})
        data.setdefault("cwd", str(self.root / sub) if sub else str(self.root))
        INVOKED.add(("hook",))
        done = subprocess.run(
            ["sh", "-c", self.command(agent, event, value)],
            input=json.dumps(data),
            text=True,
            cwd=self.root / sub if sub else self.root,
            env=env,
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert "Traceback" not in done.stderr, done.stderr
        return done

    def shell(self, command: str, sub: str = "") -> subprocess.CompletedProcess[str]:
        """A shell command the agent runs (its own tool), from ``sub``: `agentctl` on PATH."""
        env = dict(os.environ, PATH=f"{bindir()}{os.pathsep}{os.environ.get('PATH', '')}")
        return subprocess.run(
            ["sh", "-c", command],
            cwd=self.root / sub if sub else self.root,
            env=env,
            text=True,
            capture_output=True,
            timeout=120,
            check=False,
        )


def make_origin(tmp: Path, files: dict[str, str]) -> tuple[Path, Copy]:
    """A bare remote (HEAD: main) and the first clone ``a`` with ``files`` committed and pushed,
    state initialised, the three agents' hooks installed and committed."""
    bare = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(bare))
    root = tmp / "a"
    git(tmp, "clone", "-q", str(bare), str(root))
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    a = Copy("a", root)
    assert a.agentctl("init").code == 0
    for agent in AGENTS:
        r = a.agentctl("install", agent)
        assert r.code == 0, r.err
    git(root, "add", "-A", "--", ".", ":!.agent-state")
    git(root, "commit", "-q", "-m", "the project")
    git(root, "push", "-q", "origin", "main")
    a.load_hooks()
    return bare, a


def clone(tmp: Path, bare: Path, name: str) -> Copy:
    root = tmp / name
    git(tmp, "clone", "-q", "-b", "main", str(bare), str(root))
    c = Copy(name, root)
    c.load_hooks()
    return c


def worktree(tmp: Path, of: Copy, name: str) -> Copy:
    root = tmp / name
    git(of.root, "worktree", "add", "-q", "-b", name, str(root))
    c = Copy(name, root)
    c.load_hooks()
    return c


def setup(tmp: Path) -> tuple[dict[str, Copy], t.Truth, Path]:
    """The model's start: a remote, copy a with a running task pushed, worktrees w (its stream pulled)
    and m (the --match tasks' tree); the copies by name, the truth, the bare remote."""
    bare, a = make_origin(tmp, t.BASE)
    assert a.agentctl("constraints", "add", "P0", "deny-write: secrets/**").code == 0
    (a.root / t.DRAFT).parent.mkdir()
    (a.root / t.DRAFT).write_text("a draft, written before any rule protects it\n")
    (tmp / "list.txt").write_text("".join(p + "\n" for p in t.ENTRIES))
    r = a.agentctl(
        "task", "start", "--id", "t1", "--desc", "convert the imports", "--files", str(tmp / "list.txt")
    )
    assert r.code == 0, r.err
    assert a.agentctl("verify", "add", t.VERIFY).code == 0
    assert a.agentctl("sync", "push").code == 0
    truth = t.Truth()
    truth.start("a")
    truth.push("a")
    w = worktree(tmp, a, "w")
    assert w.agentctl("init").code == 0
    r = w.agentctl("sync", "pull", "--stream", "main")
    assert r.code == 0, r.err
    truth.join("w", repo="a")
    m = worktree(tmp, a, "m")  # the --match tasks and the plan (tests/model/matchtruth.py): stream m, its own
    assert m.agentctl("init").code == 0
    files = git(m.root, "ls-files", "-co", "--exclude-standard", "-z").split("\0")
    tree = {p: (m.root / p).read_text() for p in files if p}
    truth.match = MatchTruth(tree, dict(tree))
    return {"a": a, "w": w, "m": m}, truth, bare
