"""agentctl.task.listcheck: a task list that is source code is told apart from a list of paths."""

from __future__ import annotations

import pytest

from agentctl.task import listcheck


@pytest.mark.parametrize(
    "line",
    [
        "import os",
        "from x import y",
        "def main():",
        "class A(B):",
        "return 1",
        "#!/bin/sh",
        "#include <stdio.h>",
        "// a comment",
        "/* block */",
        "* item of a doc comment",
        "}",
        "{",
        "const a = 1",
        "fn main() {",
        "@decorator",
        "@app.route('/x')",
        "x = compute(a, b)",
        "a -> b",
        "foo;",
        "if (x) {",
    ],
)
def test_code_lines(line: str) -> None:
    assert listcheck.looks_like_code(line), line


@pytest.mark.parametrize(
    "line",
    [
        "src/app.py",
        "docs/My Notes.md",
        "src/it's (old).md",
        "docs/[id]/page.tsx",
        "README",
        "Makefile",
        "@scope/pkg/index.js",
        "  src/new one.py  ",
        "",
        "   ",
        "importer.py",
        "src/define.ts",
    ],
)
def test_path_lines(line: str) -> None:
    assert not listcheck.looks_like_code(line), line


def test_code_lines_counts_only_non_blank_lines_and_names_the_first() -> None:
    assert listcheck.code_lines(["", "src/a.py", "import os", "  ", "def f():"]) == (2, 3, "import os")
    assert listcheck.code_lines([]) == (0, 0, "")


def test_is_code_at_the_share_and_not_below() -> None:
    paths = [f"src/f{i}.py" for i in range(7)]
    assert listcheck.is_code(paths) == (False, "")
    two_of_ten = ["import os", "import sys", *paths[:7], "src/x.py"]
    assert not listcheck.is_code(two_of_ten)[0]  # 2 of 10 < 30 %
    three_of_ten = ["import os", "import sys", "def f():", *paths]
    code, reason = listcheck.is_code(three_of_ten)
    assert code and reason == "3 of its 10 lines look like source code, not paths (first: 'import os')"
    assert listcheck.CODE_SHARE == 0.3


def test_a_single_code_line_is_code() -> None:
    assert listcheck.is_code(["print(x)"])[0]
    assert listcheck.is_code([""]) == (False, "")
