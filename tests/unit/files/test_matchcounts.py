"""files.matchcounts: the kept counts answer as a fresh search does, whatever happened to the tree or the
cache."""

from __future__ import annotations

import os
import random
import subprocess
import time
from pathlib import Path

import pytest

from agentctl.files import gitchanges, matchcounts
from agentctl.files.matchcache import CACHE
from agentctl.files.patterns import ERE, LITERAL, PYTHON, Pattern, ere_python
from agentctl.ground.store import Store

PATTERNS = [
    Pattern(ERE, "from '(\\.\\./)+"),
    Pattern(LITERAL, "getUser(id)"),
    Pattern(PYTHON, r"oldCall\(\s*\d+\s*\)", ("src/**",)),
    Pattern(LITERAL, "OLD", ("docs",)),
]
LINES = [
    "import x from '../a';",
    "import y from '@/a';",
    "getUser(id);",
    "getUser({ id });",
    "oldCall( 3 )",
    "oldCall(x)",
    "OLD",
    "nothing here",
    "from '../../b' and getUser(id)",
]
NAMES = ["src/a.ts", "src/sub/b.ts", "docs/c.md", "d.txt", "src/e.ts", "docs/f.md"]


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        env=dict(
            os.environ,
            GIT_AUTHOR_NAME="t",
            GIT_AUTHOR_EMAIL="t@t",
            GIT_COMMITTER_NAME="t",
            GIT_COMMITTER_EMAIL="t@t",
        ),
    ).stdout


def _write(root: Path, rel: str, rng: random.Random) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text("\n".join(rng.choice(LINES) for _ in range(rng.randrange(0, 5))) + "\n")


def _project(tmp: Path, rng: random.Random) -> Store:
    tmp.mkdir()
    _git(tmp, "init", "-q", "-b", "main")
    for rel in NAMES[:4]:
        _write(tmp, rel, rng)
    (tmp / ".gitignore").write_text(".agent-state/\nignored.txt\n")
    _git(tmp, "add", "-A")
    _git(tmp, "commit", "-q", "-m", "base")
    (tmp / ".agent-state" / "services" / "files").mkdir(parents=True)
    return Store(str(tmp / ".agent-state"))


def _fresh(store: Store) -> list[dict[str, list[int]]]:
    found = matchcounts.search(store, PATTERNS)
    return [{p: [n for n, _ in lines] for p, lines in hits.items()} for hits in found]


def _kept(store: Store) -> list[dict[str, list[int]]]:
    matchcounts._LAST.clear()  # a new command: the cache, not this process's memory of it
    seen = matchcounts.view(Store(store.root), PATTERNS)
    return [{p: [n for n, _ in lines] for p, lines in seen.hits(p).items()} for p in PATTERNS]


def _age(root: Path) -> None:
    """Every file older than the racy window, as a tree is between one command and the next: each moved 10 s
    back from its own time, so two writes keep two times (one time for every file would make a file git
    recorded and the same file rewritten with as many bytes look alike to git's stat check, and then git
    itself -- `status`, even `add` -- takes the new content for the old: nothing a tree ever does)."""
    for folder, _, names in os.walk(root):
        if ".git" not in folder:
            for n in names:
                full = os.path.join(folder, n)
                old = os.stat(full).st_mtime_ns - 10_000_000_000
                os.utime(full, ns=(old, old))


def _step(root: Path, rng: random.Random) -> str:
    kind = rng.choice(["edit", "edit", "create", "delete", "restore", "commit", "ignored", "checkout"])
    rel = rng.choice(NAMES)
    if kind in ("edit", "create"):
        _write(root, rel, rng)
    elif kind == "delete" and (root / rel).exists():
        (root / rel).unlink()
    elif kind == "restore":
        subprocess.run(["git", "checkout", "-q", "--", rel], cwd=root, capture_output=True, check=False)
    elif kind == "commit":
        _git(root, "add", "-A")
        subprocess.run(
            ["git", "commit", "-q", "-m", "step"],
            cwd=root,
            capture_output=True,
            check=False,
            env=dict(
                os.environ,
                GIT_AUTHOR_NAME="t",
                GIT_AUTHOR_EMAIL="t@t",
                GIT_COMMITTER_NAME="t",
                GIT_COMMITTER_EMAIL="t@t",
            ),
        )
    elif kind == "ignored":
        (root / "ignored.txt").write_text("getUser(id)\n")
    elif kind == "checkout":
        subprocess.run(
            ["git", "checkout", "-q", rng.choice(["HEAD~1", "main"])],
            cwd=root,
            capture_output=True,
            check=False,
        )
    return f"{kind} {rel}"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_kept_counts_are_a_fresh_search_after_every_change(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    store = _project(tmp_path / "p", rng)
    done: list[str] = []
    for _ in range(12):
        assert _kept(store) == _fresh(store), done
        for _ in range(rng.randrange(1, 4)):
            done.append(_step(Path(store.project), rng))
        if rng.random() < 0.7:
            _age(Path(store.project))
    assert _kept(store) == _fresh(store), done


@pytest.mark.parametrize("damage", ["garbage", "counts", "truncated", "empty", "wrong head"])
def test_a_damaged_cache_gives_the_fresh_answer(tmp_path: Path, damage: str) -> None:
    store = _project(tmp_path / "p", random.Random(5))
    (Path(store.project) / "src" / "a.ts").write_text("getUser(id)\ngetUser(id)\nimport x from '../a';\n")
    _age(Path(store.project))
    want = _fresh(store)
    assert _kept(store) == want
    path = Path(store.path(CACHE))
    data = path.read_bytes()
    head, _, body = data.partition(b"\n")
    if damage == "garbage":
        data = b"\x00\xff garbage"
    elif damage == "counts":  # the format holds, a line number lies: the CRC says so
        data = head + b"\n" + body.replace(b"\x001\x00", b"\x007\x00", 1)
    elif damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "empty":
        data = b""
    else:
        data = data.replace(head.split(b"\0")[1], b"0" * 40, 1)
    assert data != path.read_bytes()
    path.write_bytes(data)
    assert _kept(store) == want


def test_nothing_changed_reads_no_file_and_runs_one_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _project(tmp_path / "p", random.Random(7))
    _age(Path(store.project))
    time.sleep(0.2)  # past the racy window of the files' ctime (which the aging set to now)
    _kept(store)
    _kept(store)  # the files read in the racy window of the first answer are read again once
    spawned = _count_git(monkeypatch)
    assert _kept(store) == _fresh(store)
    assert spawned == ["status", "grep"], spawned  # the refresh (no file read again), then the fresh search


@pytest.mark.parametrize(
    "pattern",
    [
        "a.b",
        "^x[[:digit:]]+$",
        "[^a-c]z",
        "(ab|cd){2}",
        r"\<w\w*\>",
        "x?y+",
        "[]x]",
        r"[\.]q",
        "a|^b",
        "é+",
        "(a)\\1",
        "[[:space:]]{2,}",
        "p{,2}q",
    ],
)
def test_the_python_reading_of_an_extended_regex_is_git_grep_e(tmp_path: Path, pattern: str) -> None:
    py = ere_python(pattern)
    assert py is not None
    import re

    rng = random.Random(pattern)
    alphabet = [
        "a",
        "b",
        "c",
        "d",
        "x",
        "y",
        "z",
        "q",
        ".",
        "\\",
        "]",
        " ",
        "\t",
        "1",
        "2",
        "w",
        "é",
        "p",
        "_",
    ]
    lines = list(
        dict.fromkeys("".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 8))) for _ in range(400))
    )
    (tmp_path / "f.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = subprocess.run(
        ["git", "grep", "--no-index", "-n", "-E", "-e", pattern, "--", "f.txt"],
        cwd=tmp_path,
        capture_output=True,
        env=dict(os.environ, LC_ALL="C"),
        check=False,
    )
    by_git = {int(r.split(b":", 2)[1]) for r in res.stdout.splitlines()}
    test = re.compile(py.encode("ascii")).search
    by_python = {n for n, line in enumerate(lines, 1) if test(line.encode("utf-8"))}
    assert by_python == by_git


@pytest.mark.parametrize("pattern", ["a+?", "(*a)", "x{", r"\d", r"a\'", "[[=a=]]", "*a"])
def test_an_extended_regex_python_might_read_otherwise_is_left_to_git(pattern: str) -> None:
    assert ere_python(pattern) is None


def _count_git(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The git commands started from now on (their verbs), in order."""
    spawned: list[str] = []
    real = gitchanges._Git.__init__

    def counting(self: gitchanges._Git, project: str, args: list[str], literal: bool = True) -> None:
        spawned.append(next(a for a in args if not a.startswith("-") and "=" not in a))
        real(self, project, args, literal)

    monkeypatch.setattr(gitchanges._Git, "__init__", counting)
    return spawned


def _after(store: Store, written: list[str]) -> list[dict[str, list[int]]]:
    matchcounts._LAST.clear()
    seen = matchcounts.after_writes(Store(store.root), PATTERNS, written)
    return [{p: [n for n, _ in lines] for p, lines in seen.hits(p).items()} for p in PATTERNS]


@pytest.mark.parametrize("seed", [11, 12, 13, 14])
def test_an_edit_hooks_view_searches_what_it_wrote_and_is_a_fresh_search(tmp_path: Path, seed: int) -> None:
    """Every change a hook saw (its paths given), commits and checkouts among them: the hook's view is the
    fresh answer; a moved HEAD makes it ask git for the whole tree."""
    rng = random.Random(seed)
    store = _project(tmp_path / "p", rng)
    _kept(store)
    done: list[str] = []
    for _ in range(25):
        step = _step(Path(store.project), rng)
        done.append(step)
        written = (
            [step.split(" ", 1)[1]]
            if step.split(" ", 1)[0] in ("edit", "create", "delete", "restore")
            else []
        )
        assert _after(store, written or [NAMES[0]]) == _fresh(store), done
        if rng.random() < 0.5:
            _age(Path(store.project))


def test_an_edit_hooks_view_runs_no_git_status(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _project(tmp_path / "p", random.Random(8))
    _age(Path(store.project))
    _kept(store)
    spawned = _count_git(monkeypatch)
    (Path(store.project) / "src" / "a.ts").write_text("getUser(id)\n")
    assert _after(store, ["src/a.ts"]) == _fresh(store)
    assert spawned == ["grep", "grep"], spawned  # the written file, then the fresh search: no `git status`
    spawned.clear()
    _git(Path(store.project), "add", "-A")
    _git(Path(store.project), "commit", "-q", "-m", "moved")
    assert _after(store, ["src/a.ts"]) == _fresh(store)
    assert spawned[0] == "status", spawned  # HEAD moved: the whole tree, from git
