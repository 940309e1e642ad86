"""constraints.globs: deny-write globs read as `.gitignore` reads them, checked against git itself."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from agentctl.constraints import globs

GIT = shutil.which("git")

# pattern -> paths; each answer is git's (`git check-ignore --no-index`), asked in the test.
CASES: dict[str, list[str]] = {
    "secrets": ["secrets", "secrets/k.txt", "a/secrets/k", "secrets.txt", "xsecrets/a"],
    "*.env": [".env", "a.env", "x/y/prod.env", "a.env.bak"],
    "docs/*.md": ["docs/a.md", "docs/sub/a.md", "x/docs/a.md"],
    "/build": ["build/x", "a/build/x", "build"],
    "build/": ["build/x", "a/build/x", "build", "buildx/y"],
    "database/migrations/**": [
        "database/migrations/a.sql",
        "database/migrations/x/y",
        "database/migrations",
        "database/seed.sql",
    ],
    "src/**/gen.py": ["src/gen.py", "src/a/b/gen.py", "gen.py", "x/src/gen.py"],
    "**/a": ["a", "b/a/c", "x/y/a"],
    "a/**": ["a", "a/b", "a/b/c", "b/a/c"],
    "a**b": ["ab", "axb", "a/x/b", "x/ab"],
    "a/**/b": ["a/b", "a/x/b", "a/x/y/b", "ab"],
    "f?.py": ["f1.py", "f.py", "f12.py", "f/.py"],
    "?": ["é", "a", "ab"],  # git matches bytes: `?` is one byte, not one é
    "[ab].py": ["a.py", "b.py", "c.py"],
    "[!ab].py": ["a.py", "c.py", "x/d.py"],
    "[^ab].py": ["a.py", "c.py"],
    "keys/[[:alnum:]]*.pem": ["keys/a1.pem", "keys/_x.pem", "keys/9.pem", "keys/.pem"],
    "[[:digit:]][[:upper:]]": ["1A", "1a", "AA"],
    "[[:space:]]x": [" x", "ax"],
    "[[:punct:]]": ["_", "a", "-"],
    "data\\[1\\].csv": ["data[1].csv", "data1.csv", "x/data[1].csv"],
    "[]abc]": ["]", "a", "d", "x/]"],
    "[!]a]x": ["]x", "ax", "bx"],
    "a\\*b": ["a*b", "axb"],
    "a[b-d]e": ["ace", "aee"],
    "a[-b]": ["a-", "ab", "ac"],
    "a[b-]": ["a-", "ab", "ac"],
    "[a\\]]x": ["]x", "ax", "\\x"],
    "[[:alpha:]-]x": ["-x", "ax", "1x"],
    "a[b/c]d": ["a/d", "abd"],
    "*": ["a", "a/b", ".x"],
    "a/*": ["a/b", "a/b/c", "a"],
    "a/*/c": ["a/b/c", "a/c", "a/b/d/c"],
    "*/b": ["a/b", "b", "x/a/b"],
    "/**/a": ["a", "x/a"],
    "x[a-c]y/": ["xby/f", "xby", "q/xay/z"],
    "x/**/": ["x/a/b", "x/a", "x"],
    "a b": ["a b", "a"],
    "a\\b": ["ab", "a\\b"],
}


def _git_says(tmp: Path, pattern: str, paths: list[str]) -> dict[str, bool]:
    """{path: ignored} by a .gitignore holding only ``pattern``, as `git check-ignore --no-index` says."""
    (tmp / ".gitignore").write_text(pattern + "\n", encoding="utf-8")
    out = subprocess.run(
        [str(GIT), "-C", str(tmp), "check-ignore", "--no-index", "--stdin", "-z", "-v", "-n"],
        input=b"".join(p.encode() + b"\0" for p in paths),
        capture_output=True,
        check=False,
    )
    f = out.stdout.split(b"\0")
    return {f[i + 3].decode(): bool(f[i]) for i in range(0, len(f) - 1, 4)}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if GIT is None:
        pytest.skip("git is not installed")
    root = tmp_path_factory.mktemp("gitignore")
    subprocess.run([GIT, "init", "-q", str(root)], check=True)
    return root


def test_the_table_is_what_git_check_ignore_says(repo: Path) -> None:
    pairs = 0
    hits = 0
    for pattern, paths in CASES.items():
        assert globs.problem(pattern) == "", pattern
        said = _git_says(repo, pattern, paths)
        glob = globs.Glob(pattern)
        for path in paths:
            assert glob.match(path) is said[path], (pattern, path, said[path])
            pairs += 1
            hits += said[path]
    assert pairs >= 100 and 40 <= hits <= pairs - 40  # both answers are well represented


def test_random_globs_are_what_git_says(repo: Path) -> None:
    """Globs and paths drawn from the pieces that matter (a fixed seed: the same cases every run)."""
    rnd = random.Random(23)
    pieces = [
        "a",
        "b",
        "ab",
        "/",
        "*",
        "**",
        "**/",
        "/**",
        "?",
        ".",
        "[ab]",
        "[!a]",
        "[^b]",
        "[a-c]",
        "[]a]",
        "[[:alpha:]]",
        "[[:digit:]]",
        "\\*",
        "\\[",
        "-",
        "é",
        "[a\\]]",
        "[",
        "]",
    ]
    parts = ["a", "b", "ab", "/", "a/", ".", "[", "]", "*", "-", "é", "1", "\\"]
    compared = 0
    for _ in range(60):
        pattern = "".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 5)))
        paths = set()
        for _ in range(20):
            p = "/".join(
                s for s in "".join(rnd.choice(parts) for _ in range(rnd.randint(1, 6))).split("/") if s
            )
            if p and all(s not in (".", "..") for s in p.split("/")):
                paths.add(p)
        said = _git_says(repo, pattern, sorted(paths))
        for path in paths:
            assert globs.Glob(pattern).match(path) is said[path], (pattern, path, said[path])
            compared += 1
    assert compared > 500


@pytest.mark.parametrize(
    "pattern,words",
    [
        ("{secrets,keys}/**", "`deny-write: secrets/**` and `deny-write: keys/**`"),
        ("a[z-a]b", "range backwards"),
        ("src/[x", "unclosed '['"),
        ("[]", "unclosed '['"),
        ("[!]", "unclosed '['"),
        ("[[:foo:]]", "unknown character class"),
        ("x\\", "lone '\\'"),
        ("!x", "un-ignores"),
        ("#x", "comment"),
        ("", "needs a pattern"),
    ],
)
def test_what_git_would_read_otherwise_is_named(pattern: str, words: str) -> None:
    assert words in globs.problem(pattern)


@pytest.mark.parametrize(
    "pattern,wide",
    [
        ("{secrets,keys}/**", ["{secrets,keys}/**", "secrets/**", "keys/**"]),
        ("a[z-a]b", ["a?b"]),
        ("keys/[x/y", ["keys/*/y"]),
        ("[[:foo:]]x", ["?x"]),
        ("x\\", ["x"]),
        ("#x", ["\\#x"]),
        ("!x", []),
    ],
)
def test_what_a_broken_glob_is_taken_to_cover(pattern: str, wide: list[str]) -> None:
    assert globs.wide(pattern) == wide
    assert all(globs.problem(w) in ("", globs.problem(pattern)) for w in wide)  # the literal braces kept


def test_a_broken_glob_reading_is_always_a_valid_glob() -> None:
    rnd = random.Random(9)
    pieces = [
        "a",
        "/",
        "*",
        "[",
        "]",
        "!",
        "^",
        "-",
        "z",
        "\\",
        "{",
        "}",
        ",",
        "[:",
        ":]",
        "[:alpha:]",
        "#",
        "é",
    ]
    for _ in range(3000):
        pattern = "".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 8)))
        for w in globs.wide(pattern):  # git reads each: braces literally, the rest as meant
            assert globs.problem(w) == "" or globs.problem(w).startswith("braces"), (pattern, w)
