"""bench/run.py's verdict: one table line a figure, a miss is a figure over its goal, and it sets the exit
code."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "agentctl_bench_run", Path(__file__).resolve().parents[3] / "bench" / "run.py"
)
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def _row(fresh: float, floor: float, large: float, lfloor: float, rss: float = 1.0) -> dict[str, object]:
    return {
        "command": "resume",
        "floor": "read",
        "fresh_ms": fresh,
        "floor_ms": floor,
        "large_ms": large,
        "large_floor_ms": lfloor,
        "rss_delta_mib": rss,
        "ratio_spread": "1.00-1.10",
        "large_floor_spread": "1.00-1.20",
        "large_spread": "0.90-1.10",
    }


def _git(hook: float, git: float, floor: float) -> dict[str, object]:
    return {
        "files": 30_000,
        "hook_ms": hook,
        "git_ms": git,
        "floor_ms": floor,
        "ratio_spread": "1.1-1.2",
        "floor_spread": "1.0-1.1",
        "least_spread": "1.2-1.3",
    }


def test_every_goal_met_is_no_miss() -> None:
    lines = bench.goals([_row(22.0, 20.0, 23.0, 20.0)], [_git(110.0, 100.0, 105.0)], (900, 1900))
    assert bench.missed(lines) == []
    assert all(len(ln) == 8 for ln in lines)
    table = bench.table(lines).splitlines()
    assert table[0].count("|") == 9 and len(table) == len(lines) + 2
    ratios = {ln[0] + " / " + ln[2]: ln[4] for ln in lines}
    assert ratios["`resume`, fresh state / its floor (read)"] == "1.10"
    assert ratios["Bash hook (`files sync`), 30,000-file repository / one `git status --porcelain`"] == "1.10"


def test_a_figure_over_its_goal_is_a_miss_and_explaining_lines_never_are() -> None:
    lines = bench.goals([_row(25.0, 20.0, 23.0, 20.0, rss=6.0)], [_git(140.0, 100.0, 130.0)], (1001, 1900))
    assert bench.missed(lines) == [
        "`resume`, fresh state",  # 1.25 > 1.2
        "`resume`, peak RSS over the floor's, large",  # 6 MiB > 5
        "Bash hook (`files sync`), 30,000-file repository",  # 1.40 > 1.15
        "`resume`, the 120-file scenario (characters)",  # 1001 > 1000
    ]
    info = [ln for ln in lines if ln[-1] == "-"]
    assert [ln[2] for ln in info] == ["interpreter + the same `git status`", "one `git status --porcelain`"]
    assert [ln[4] for ln in info] == ["1.08", "1.30"] and all(ln[6] == "-" for ln in info)
