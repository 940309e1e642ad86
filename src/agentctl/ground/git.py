"""One way to run git: an argument list (never a shell), a timeout, no prompt, plain output.

Every call gets a fixed identity and no signing (``-c user.name=agentctl ...``) so plumbing
that makes commits works on a machine with no git identity and never uses the user's key;
``LC_ALL=C`` so messages are parseable; ``GIT_TERMINAL_PROMPT=0`` so a remote asking for a
password fails instead of hanging. Nothing here reads or changes ``.git/config``.
"""

from __future__ import annotations

import os

from agentctl.ground import proc
from agentctl.ground.errors import StateError

DEFAULT_TIMEOUT = 60.0
IDENTITY = ("-c", "user.name=agentctl", "-c", "user.email=agentctl@localhost", "-c", "commit.gpgsign=false")


class GitError(StateError):
    """git exited non-zero (or could not run); ``code`` is its exit status (-1: not run, -2: timeout)."""

    def __init__(self, message: str, code: int = -1, stderr: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.stderr = stderr


class Result:
    __slots__ = ("code", "out", "err")

    def __init__(self, code: int, out: bytes, err: bytes) -> None:
        self.code = code
        self.out = out
        self.err = err

    def __repr__(self) -> str:
        return f"Result(code={self.code!r}, out={self.out[:60]!r}, err={self.err[:60]!r})"

    @property
    def text(self) -> str:
        return self.out.decode("utf-8", "surrogateescape")

    @property
    def error(self) -> str:
        lines = [ln for ln in self.err.decode("utf-8", "replace").splitlines() if ln.strip()]
        return lines[-1].strip()[:300] if lines else f"exit {self.code}"


def git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(LC_ALL="C", LANG="C", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
    env.pop("GIT_INDEX_FILE", None)  # set per call only, by the caller that means it
    if extra:
        env.update(extra)
    return env


def run(
    cwd: str,
    args: list[str],
    *,
    data: bytes | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    check: bool = True,
    env: dict[str, str] | None = None,
) -> Result:
    """Run ``git ARGS`` in ``cwd``; with ``check`` a non-zero exit raises GitError (one line)."""
    cmd = ["git", *IDENTITY, *args]
    try:
        res = Result(*proc.capture(cmd, cwd, data if data is not None else b"", timeout, git_env(env)))
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH; install git", -1) from None
    except proc.Timeout:
        raise GitError(
            f"`git {args[0]}` did not finish within {timeout:g}s; check the remote or retry", -2
        ) from None
    except OSError as exc:
        raise GitError(f"cannot run git: {exc.strerror}", -1) from None
    if check and res.code != 0:
        raise GitError(f"`git {args[0]}` failed: {res.error}", res.code, res.err.decode("utf-8", "replace"))
    return res


def out(cwd: str, args: list[str], **kw: object) -> str:
    """stdout of ``git ARGS`` without the trailing newline."""
    return run(cwd, args, **kw).text.rstrip("\n")  # type: ignore[arg-type]
