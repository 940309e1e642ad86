"""The table of environment variables (cli/environment.py) names every variable the code reads, and the
man page and the reference show every row of it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from agentctl.cli import environment, manpage, reference

SRC = Path(__file__).resolve().parents[3] / "src" / "agentctl"
ENV_NAME = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*_?$")


def _read_names(only_reads: bool = False) -> set[str]:
    """Every name the code reads: the first argument of os.environ.get / os.getenv / os.environ[...], a
    name an environment-reading helper is given (``env("AGENTCTL_WEB_…")``), the tuples named *_VARS and
    the constants named ENV_*; and every literal starting with AGENTCTL_."""
    found: set[str] = set()
    for path in SRC.rglob("*.py"):
        if path.name == "environment.py" and path.parent.name == "cli":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                func = ast.unparse(node.func)
                if func.endswith(("environ.get", "getenv")) or func == "env":
                    found.add(node.args[0].value)
                elif func.endswith("expanduser") and node.args[0].value.startswith("~"):
                    found.add("HOME")
            elif (
                isinstance(node, ast.Subscript)
                and ast.unparse(node.value).endswith("environ")
                and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str)
            ):
                found.add(node.slice.value)
            elif (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                name = node.targets[0].id
                if name.endswith("_VARS") and isinstance(node.value, ast.Tuple) or name.startswith("ENV_"):
                    for c in ast.walk(node.value):
                        if (
                            isinstance(c, ast.Constant)
                            and isinstance(c.value, str)
                            and ENV_NAME.match(c.value)
                        ):
                            found.add(c.value)
            if (
                not only_reads
                and isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value.startswith("AGENTCTL_")
                and ENV_NAME.match(node.value)
            ):
                found.add(node.value)
    return found


def _covered(name: str) -> bool:
    names = [n for n, _ in environment.READ + environment.GIVEN]
    return name in names or any(n.endswith("*") and name.startswith(n[:-1]) for n in names)


def test_the_table_names_every_environment_variable_the_code_reads() -> None:
    found = _read_names()
    # the scan works
    assert {"AGENTCTL_STATE_DIR", "AGENTCTL_LOCK_TIMEOUT", "CLAUDE_PROJECT_DIR", "TMPDIR"} <= found
    assert sorted(n for n in found if not _covered(n)) == []


def test_a_variable_the_code_reads_from_the_environment_is_a_row_of_its_own() -> None:
    """Not hidden by a wildcard of the ones agentctl sets (AGENTCTL_NOTIFY_WINDOW is the person's)."""
    read = {n for n, _ in environment.READ + environment.GIVEN}  # by name: no wildcard
    assert sorted(_read_names(only_reads=True) - read) == []


def test_the_table_names_no_variable_the_code_never_mentions() -> None:
    found = _read_names()
    stale = [n for n, _ in environment.READ if n not in found]
    assert stale == []


def test_the_man_page_and_the_reference_show_every_row() -> None:
    man, ref = manpage.render(), reference.render()
    for name, _ in environment.READ + environment.GIVEN:
        assert f".B {manpage.esc(name)}" in man and f"| `{name}` |" in ref, name
