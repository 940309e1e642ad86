"""The command table: every entry reaches a real operation by the names it gives, its positional
arguments map to keyword arguments by their marks, and ``call`` runs an operation as the MCP tools do."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from agentctl.operation import registry
from agentctl.operation.contract import Ctx, Result
from agentctl.operation.registry import COMMANDS, Command, dest
from agentctl.statefolder import init


def _names(cmd: Command) -> set[str]:
    return {dest(opt) for opt in cmd.options} | {a.rstrip("?+*") for a in cmd.args}


@pytest.mark.parametrize("key", sorted(COMMANDS), ids=lambda k: " ".join(k))
def test_every_entry_reaches_its_operation_by_its_names(key: tuple[str, ...]) -> None:
    cmd = COMMANDS[key]
    fn = cmd.operation()
    assert callable(fn), cmd.target
    params = list(inspect.signature(fn).parameters.values())
    assert params and params[0].kind in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    ), f"{cmd.target} takes the ctx first"
    keywords = {p.name: p for p in params[1:] if p.kind is not inspect.Parameter.VAR_KEYWORD}
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    names = _names(cmd)
    if not takes_any:
        missing = names - set(keywords)
        assert not missing, (
            f"{cmd.target} has no keyword parameter for {sorted(missing)}: those never reach it"
        )
    required = {n for n, p in keywords.items() if p.default is inspect.Parameter.empty}
    assert required <= names, (
        f"{cmd.target} requires {sorted(required - names)}, which `{cmd.usage}` never gives"
    )


def test_dest_maps_an_option_to_its_keyword() -> None:
    assert dest("--max-chars") == "max_chars"
    assert dest("--json") == "json"
    assert dest("-h") == "h"


def _cmd(*args: str) -> Command:
    return Command(("x",), "agentctl.commands.statefolder:status", "x", "test", {}, args)


def test_arguments_by_mark() -> None:
    assert _cmd("a", "b?").arguments(["1"]) == {"a": "1", "b": None}
    assert _cmd("a", "b?").arguments(["1", "2"]) == {"a": "1", "b": "2"}
    assert _cmd("a", "rest+").arguments(["1", "2", "3"]) == {"a": "1", "rest": ["2", "3"]}
    assert _cmd("words*").arguments([]) == {"words": []}
    assert _cmd("words*").arguments(["x", "y"]) == {"words": ["x", "y"]}


def test_min_and_max_positional_counts() -> None:
    assert (_cmd().min_pos, _cmd().max_pos) == (0, 0)
    assert (_cmd("a", "b?").min_pos, _cmd("a", "b?").max_pos) == (1, 2)
    assert (_cmd("a", "rest+").min_pos, _cmd("a", "rest+").max_pos) == (2, None)
    assert (_cmd("words*").min_pos, _cmd("words*").max_pos) == (0, None)


def test_the_table_has_the_seed_commands_and_only_known_kinds() -> None:
    for key in [("task", "start"), ("files", "log"), ("resume",), ("doctor",), ("@custom",)]:
        assert key in COMMANDS
    for cmd in COMMANDS.values():
        assert set(cmd.options.values()) <= set(registry.KINDS), cmd.usage
        assert not set(cmd.options) & set(registry.GLOBAL_FLAGS), cmd.usage


def test_call_runs_the_operation_with_keywords(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    store, _ = init.init(str(tmp_path))
    ctx = Ctx(state_dir=store.root)
    result = registry.call(("constraints", "add"), ctx, priority="P0", text=["deny-write:", "db/**"])
    assert isinstance(result, Result) and result.code == 0
    listed = registry.call(("constraints", "list"), ctx)
    assert any("deny-write: db/**" in line for line in listed.lines), listed.lines
    with pytest.raises(TypeError):
        registry.call(("constraints", "list"), ctx, no_such_option=True)
