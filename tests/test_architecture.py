"""The structure the code promises, read from its own imports: every import counts, at module level,
inside a function, or under ``if TYPE_CHECKING:`` (a room that needs another's types depends on it).

* Every module lives in a declared room (a package of ``src/agentctl/``); the package itself keeps
  only ``__init__`` and ``__main__``.
* The rooms stand on floors: front ends -> operations -> workflow -> services -> ground. No import
  runs up the floors; an import across rooms on one floor is declared in ``SIDEWAYS``.
  A folder stands on one floor: every command module is in ``commands/``.
* At the level of folders too: no folder imports one above it, no two folders use each other,
  and every sideways permission (``SIDEWAYS``, docs/design.md's table) is used by some import.
* An agentctl module is imported under its own name: no ``import agentctl.x as y``, no
  ``from agentctl.x import module as y``.
* Every agentctl module a docstring or a docs page names in dotted (``agentctl.task.status``,
  ``task.status``) or room form (``task/status.py``) exists.
* No import cycle at all.
* ``docs/design.md``'s table of rooms lists exactly the modules in each folder.
* No module over 350 statements, and the median module small (statements: logical lines, which a
  formatter does not change).
* The tests too: a test file imports ``conftest``, ``tests/support/`` and its own folder's harness,
  never another test file nor a helper of another folder.
"""

from __future__ import annotations

import ast
import io
import re
import statistics
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "agentctl"

GROUND, SERVICES, WORKFLOW, OPERATIONS, FRONT = 0, 1, 2, 3, 4
FLOOR_NAMES = {
    GROUND: "ground",
    SERVICES: "services",
    WORKFLOW: "workflow",
    OPERATIONS: "operations",
    FRONT: "front ends",
}
ROOMS: dict[str, int] = {
    "ground": GROUND,
    "constraints": SERVICES,
    "files": SERVICES,
    "task": SERVICES,
    "verify": SERVICES,
    "session": SERVICES,
    "history": SERVICES,
    "userservices": SERVICES,
    "interfaces": SERVICES,
    "notify": SERVICES,
    "plan": SERVICES,
    "context": SERVICES,
    "workflow": WORKFLOW,
    "statefolder": WORKFLOW,
    "sync": WORKFLOW,
    "doctor": WORKFLOW,
    "commands": OPERATIONS,
    "operation": OPERATIONS,
    "integrations": OPERATIONS,
    "cli": FRONT,
    "mcp": FRONT,
    "web": FRONT,
    "demo": FRONT,
}
# Imports across rooms of one floor, room -> the rooms it may use there. The services' table is
# docs/design.md's "which service may use which".
SIDEWAYS: dict[str, set[str]] = {
    "files": {"constraints"},
    "task": {"constraints", "files", "notify"},
    "verify": {"files", "notify", "constraints"},
    "constraints": {"notify"},
    "session": {"notify"},
    "history": {"files"},
    "plan": {"task"},
    "interfaces": {"constraints", "files"},
    "context": {"task", "files", "verify", "session", "constraints"},
    "sync": {"workflow"},
    "doctor": {"statefolder", "workflow"},  # workflow: the walls (issue 31)
    "commands": {"operation", "integrations"},
    "demo": {"cli"},
}
OWN = {"agentctl", "agentctl.__main__"}  # the package's own modules (floor: ground, front end)
# Sizes in statements (tokenize's logical lines): ruff format spreads a call over lines, never adds one.
# The biggest module had 342 and the median 80 when the measure moved from physical lines (400 and 120).
MAX_STATEMENTS = 350
MEDIAN_CEILING = 80  # a ratchet: it only goes down


def modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(path: Path, mods: dict[str, Path], name: str) -> set[str]:
    """Every agentctl module this one imports, wherever the import stands."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                found.update(
                    ".".join(parts[:i]) for i in range(2, len(parts) + 1) if ".".join(parts[:i]) in mods
                )
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package
                for _ in range(node.level - 1):
                    up = up.rsplit(".", 1)[0]
                base = f"{up}.{base}" if base else up
            for alias in node.names:
                if f"{base}.{alias.name}" in mods:
                    found.add(f"{base}.{alias.name}")
                elif base in mods:
                    found.add(base)
    found.discard(name)
    return found


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: imports(path, mods, name) for name, path in mods.items()}


def room(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ROOMS else None


def floor(name: str) -> int:
    if name == "agentctl":
        return GROUND
    if name == "agentctl.__main__":
        return FRONT
    where = room(name)
    assert where is not None, name
    return ROOMS[where]


def violations(edges: dict[str, set[str]]) -> list[str]:
    bad = []
    for a, targets in edges.items():
        for b in targets:
            fa, fb = floor(a), floor(b)
            if fb > fa:
                bad.append(f"{a} ({FLOOR_NAMES[fa]}) imports {b} ({FLOOR_NAMES[fb]}): up the floors")
            elif (
                fb == fa
                and room(a) != room(b)
                and room(a) is not None
                and room(b) is not None
                and room(b) not in SIDEWAYS.get(room(a) or "", set())
            ):
                bad.append(
                    f"{a} imports {b}: {room(a)} may not use {room(b)} (declare it in SIDEWAYS and "
                    f"docs/design.md)"
                )
    return sorted(bad)


def cycles(edges: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected groups of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    counter = 0
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(group)
    return groups


def test_every_module_is_in_a_declared_room() -> None:
    outside = sorted(n for n in modules() if n not in OWN and room(n) is None)
    assert not outside, f"modules outside the declared rooms: {outside}"
    folders = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders <= set(ROOMS), f"undeclared rooms: {sorted(folders - set(ROOMS))}"


def test_no_import_runs_up_the_floors_or_sideways_undeclared() -> None:
    bad = violations(graph())
    assert not bad, "\n".join(bad)


def test_no_import_cycle() -> None:
    found = cycles(graph())
    assert not found, f"import cycles: {[sorted(g) for g in found]}"


def test_the_checks_find_what_they_look_for() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}) == [{"a", "b", "c"}]
    bad = violations(
        {
            "agentctl.ground.store": {"agentctl.task.status"},
            "agentctl.constraints.rules": {"agentctl.task.status"},
            "agentctl.commands.task": {"agentctl.operation.contract", "agentctl.task.status"},
            "agentctl.task.status": set(),
            "agentctl.operation.contract": set(),
        }
    )
    assert (
        len(bad) == 2 and any("up the floors" in b for b in bad) and any("may not use task" in b for b in bad)
    )


def test_type_only_and_function_imports_count(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(
        "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from agentctl.ground.store import Store\n"
        "def f() -> None:\n    from agentctl.task import status\n",
        encoding="utf-8",
    )
    mods = {"agentctl.ground.store": src, "agentctl.task.status": src, "agentctl.task": src}
    assert imports(src, mods, "agentctl.x.m") == {"agentctl.ground.store", "agentctl.task.status"}


def design_rooms() -> dict[str, set[str]]:
    """docs/design.md's table of rooms: `room/` -> the modules it lists."""
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    out: dict[str, set[str]] = {}
    for line in text.splitlines():
        m = re.match(r"\| `([a-z]+)/` \|[^|]*\|([^|]*)\|", line)
        if m:
            # what a module is for, in brackets, is not a module
            listed = re.sub(r"\([^)]*\)", "", m.group(2))
            out[m.group(1)] = set(re.findall(r"`([a-z_]+)`", listed))
    return out


def test_design_doc_lists_the_rooms_as_they_are() -> None:
    listed = design_rooms()
    actual: dict[str, set[str]] = {}
    for name, path in modules().items():
        where = room(name)
        if where is not None and path.name != "__init__.py":
            actual.setdefault(where, set()).add(path.stem)
    assert listed == actual


def test_every_room_says_what_it_holds() -> None:
    for folder in SRC.iterdir():
        init = folder / "__init__.py"
        if init.exists():
            doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
            assert doc and len(doc) > 60, (
                f"{folder.name}/__init__.py has no docstring saying what the room holds"
            )


def statements(text: str) -> int:
    """How many statements (logical lines) a module's text holds, whatever their layout."""
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return sum(1 for t in tokens if t.type == tokenize.NEWLINE)


def _sizes() -> dict[str, int]:
    return {name: statements(path.read_text(encoding="utf-8")) for name, path in modules().items()}


def test_modules_stay_small() -> None:
    over = {name: n for name, n in _sizes().items() if n > MAX_STATEMENTS}
    assert not over, f"modules over {MAX_STATEMENTS} statements: {over}"


def test_a_size_is_counted_in_statements_not_in_lines() -> None:
    one = "x = f(1, 2)\nif x:\n    y = 1\n"
    spread = "x = f(\n    1,\n    2,\n)\n# a comment\n\nif x:\n    y = 1\n"
    assert statements(one) == statements(spread) == 3


def test_median_module_is_small() -> None:
    sizes = [n for name, n in _sizes().items() if not modules()[name].name == "__init__.py"]
    median = statistics.median(sizes)
    assert median <= MEDIAN_CEILING, f"the median module has {median} statements (ceiling {MEDIAN_CEILING})"


def folder_graph(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """room -> the other rooms its modules import."""
    out: dict[str, set[str]] = {}
    for a, targets in edges.items():
        ra = room(a)
        if ra is None:
            continue
        out.setdefault(ra, set()).update(rb for rb in map(room, targets) if rb is not None and rb != ra)
    return out


def folder_violations(rooms: dict[str, set[str]]) -> list[str]:
    bad = []
    for a, targets in rooms.items():
        for b in targets:
            if ROOMS[b] > ROOMS[a]:
                bad.append(
                    f"folder {a}/ ({FLOOR_NAMES[ROOMS[a]]}) imports {b}/ ({FLOOR_NAMES[ROOMS[b]]}): up the "
                    f"floors"
                )
            if a in rooms.get(b, set()) and a < b:
                bad.append(f"folders {a}/ and {b}/ use each other")
    return sorted(bad)


def test_no_folder_imports_up_the_floors_and_no_two_folders_use_each_other() -> None:
    bad = folder_violations(folder_graph(graph()))
    assert not bad, "\n".join(bad)


def test_the_folder_check_finds_what_it_looks_for() -> None:
    bad = folder_violations({"task": {"workflow", "files"}, "workflow": {"task"}, "files": set()})
    assert bad == [
        "folder task/ (services) imports workflow/ (workflow): up the floors",
        "folders task/ and workflow/ use each other",
    ]


def design_sideways() -> dict[str, set[str]]:
    """docs/design.md's table of which room may use which on its own floor."""
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    out: dict[str, set[str]] = {}
    for line in text.splitlines():
        m = re.match(r"\| `([a-z]+)` \| ([a-z, ]+?)(?: \(.*\))? \|$", line)
        if m:
            out[m.group(1)] = set(re.sub(r"\([^)]*\)", "", m.group(2)).replace(" ", "").split(","))
    return out


def test_design_doc_sideways_table_is_the_one_the_test_keeps() -> None:
    assert design_sideways() == SIDEWAYS


def test_every_sideways_permission_is_used() -> None:
    rooms = folder_graph(graph())
    unused = sorted(
        f"{a} may use {b}"
        for a, allowed in SIDEWAYS.items()
        for b in allowed
        if b not in rooms.get(a, set()) or ROOMS[a] != ROOMS[b]
    )
    assert not unused, (
        f"sideways permissions no import uses (remove them here and in docs/design.md): {unused}"
    )


def renamed_imports(path: Path, mods: set[str]) -> list[str]:
    """Each agentctl module this file imports under another name (``as``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [
                f"{path.name}:{node.lineno}: import {a.name} as {a.asname}"
                for a in node.names
                if a.asname and a.name in mods
            ]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found += [
                f"{path.name}:{node.lineno}: from {node.module} import {a.name} as {a.asname}"
                for a in node.names
                if a.asname and a.asname != a.name and f"{node.module}.{a.name}" in mods
            ]
    return found


def test_every_agentctl_module_is_imported_under_its_own_name() -> None:
    mods = set(modules())
    files = [*SRC.rglob("*.py"), *(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]
    bad = [line for f in files for line in renamed_imports(f, mods)]
    assert not bad, "modules imported under another name:\n" + "\n".join(bad)


def test_the_rename_check_finds_what_it_looks_for(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(
        "from agentctl.task import status as task\nfrom agentctl.task.status import read_status as r\n"
        "import agentctl.files.log as files\nfrom agentctl.task import entries\n",
        encoding="utf-8",
    )
    mods = {"agentctl.task.status", "agentctl.files.log", "agentctl.task.entries"}
    assert renamed_imports(src, mods) == [
        "m.py:1: from agentctl.task import status as task",
        "m.py:3: import agentctl.files.log as files",
    ]


# Dotted words that look like a room and a module but name something else: OpenCode's events.
# + the config keys of context
OUTSIDE_NAMES = {"session.compacted", "session.created", "context.warn_at", "context.window"}
FILE_SUFFIXES = {"md", "png", "py", "json", "txt", "sh", "yml", "toml", "log", "list", "lock"}
_DOTTED = re.compile(r"(?<![\w./-])(agentctl\.)?([a-z_]+)\.([a-z_]+)(?![\w(])")
_ROOM_PATH = re.compile(r"(?<![\w./-])(?:src/)?(?:agentctl/)?([a-z_]+)/([a-z_]+)\.py\b")


def stale_names(text: str, mods: set[str]) -> list[str]:
    """The module names in ``text`` (``agentctl.task.status``, ``task.status``, ``task/status.py``)
    that are no module; ``room.NAME`` may also name what the room's ``__init__`` defines."""
    out = []
    for m in _DOTTED.finditer(text):
        where, name = m.group(2), m.group(3)
        if (
            where not in ROOMS
            or f"agentctl.{where}.{name}" in mods
            or name in FILE_SUFFIXES
            or f"{where}.{name}" in OUTSIDE_NAMES
        ):
            continue
        init = SRC / where / "__init__.py"
        if (
            m.group(1) is None
            and init.exists()
            and re.search(rf"^(def |class )?{name}\b", init.read_text(encoding="utf-8"), re.M)
        ):
            continue
        out.append(m.group(0))
    out += [
        m.group(0)
        for m in _ROOM_PATH.finditer(text)
        if m.group(1) in ROOMS and f"agentctl.{m.group(1)}.{m.group(2)}" not in mods
    ]
    return out


def test_every_module_a_docstring_or_docs_page_names_exists() -> None:
    mods = set(modules())
    bad = []
    for path in modules().values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                doc = ast.get_docstring(node)
                bad += [f"{path.relative_to(ROOT)}: {n}" for n in stale_names(doc or "", mods)]
    for page in [*(ROOT / "docs").rglob("*.md"), ROOT / "README.md", ROOT / "CONTRIBUTING.md"]:
        bad += [f"{page.relative_to(ROOT)}: {n}" for n in stale_names(page.read_text(encoding="utf-8"), mods)]
    assert not bad, "names of modules that do not exist:\n" + "\n".join(bad)


def test_the_name_check_finds_what_it_looks_for() -> None:
    mods = {"agentctl.task.status"}
    text = (
        "``task.status`` ``agentctl.task.gone`` ``task.read_status`` task/gone.py sync.md session.compacted"
    )
    assert stale_names(text, mods) == ["agentctl.task.gone", "task.read_status", "task/gone.py"]


# -- the tests' own imports: what several test files share lives in tests/support/ ----------------------
# A test file imports conftest, tests/support/ and its own folder's harness (e2e/harness.py, the model's
# world), never another test file (test_*.py) nor a helper of another folder. IN_FLIGHT names the imports
# that wait, with the reason, for a branch that edits those files now; none wait today.
IN_FLIGHT: dict[tuple[str, str], str] = {}
SUITE_TOOLS = {"suite_time.py"}  # a tool of the suite, not a helper: its own test imports it


def suite_imports(tests: Path) -> set[tuple[str, str]]:
    """(importer, imported) for each import of one module under ``tests`` by another, as paths below it."""
    tops = {p.stem for p in tests.glob("*.py")} | {p.name for p in tests.iterdir() if p.is_dir()}

    def resolve(parts: list[str]) -> Path | None:
        base = tests.joinpath(*parts)
        found = [p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()]
        return found[0] if found else None

    out = set()
    for path in tests.rglob("*.py"):
        package = list(path.relative_to(tests).parts[:-1])
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            wanted: list[tuple[list[str], list[str]]] = []
            if isinstance(node, ast.Import):
                wanted = [(a.name.split("."), []) for a in node.names if a.name.split(".")[0] in tops]
            elif isinstance(node, ast.ImportFrom) and (
                node.level or (node.module or "").split(".")[0] in tops
            ):
                base = package[: len(package) - node.level + 1] if node.level else []
                wanted = [
                    (base + (node.module.split(".") if node.module else []), [a.name for a in node.names])
                ]
            for parts, names in wanted:
                target = resolve(parts)
                hits = (
                    [target]
                    if target is not None and target.name != "__init__.py"
                    else [t for t in (resolve([*parts, n]) for n in names) if t is not None]
                )
                out |= {(str(path.relative_to(tests)), str(t.relative_to(tests))) for t in hits}
    return out


def suite_import_problems(tests: Path) -> list[str]:
    problems = []
    for importer, imported in sorted(suite_imports(tests)):
        target = Path(imported)
        if target.name == "conftest.py" or target.parts[0] == "support" or (importer, imported) in IN_FLIGHT:
            continue
        if target.name.startswith("test_"):
            problems.append(
                f"{importer} imports the test file {imported}: move what it shares to tests/support/"
            )
        elif target.parent != Path(importer).parent and imported not in SUITE_TOOLS:
            problems.append(
                f"{importer} imports {imported}, a helper of another folder: move it to tests/support/"
            )
    return problems


def test_no_test_file_imports_another_or_a_helper_outside_support() -> None:
    problems = suite_import_problems(ROOT / "tests")
    assert not problems, "\n".join(problems)
    stale = set(IN_FLIGHT) - suite_imports(ROOT / "tests")
    assert not stale, f"IN_FLIGHT entries no import needs any more: {sorted(stale)}"


def test_the_test_import_check_finds_what_it_looks_for(tmp_path: Path) -> None:
    for rel, text in {
        "conftest.py": "",
        "support/__init__.py": "",
        "support/repo.py": "from conftest import x\n",
        "a/__init__.py": "",
        "a/harness.py": "",
        "a/test_one.py": "from .harness import h\n",
        "a/test_two.py": "from .test_one import t\nfrom support.repo import r\n",
        "b/__init__.py": "",
        "b/test_three.py": "from a import harness\nfrom conftest import y\n",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    assert suite_import_problems(tmp_path) == [
        "a/test_two.py imports the test file a/test_one.py: move what it shares to tests/support/",
        "b/test_three.py imports a/harness.py, a helper of another folder: move it to tests/support/",
    ]
