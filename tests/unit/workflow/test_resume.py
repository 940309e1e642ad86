"""`agentctl resume` on a long files log: the same bytes whichever way the count is made.

The count of touched paths comes from the index's header (plus lookups past it) once the index
exists; from the rows when the index is built; from the whole log when it cannot be written. The
output must not depend on which: it is compared byte for byte, and with ``files.touched``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agentctl.files.index
import agentctl.files.log
from agentctl.ground import codec
from agentctl.statefolder.opening import open_store
from conftest import run


def _long_task(project: Path) -> None:
    (project / ".git").mkdir()
    assert run("init", cwd=project).code == 0
    paths = "".join(f"src/m{i:03d}.ts\n" for i in range(50))
    assert (
        run(
            "task", "start", "--id", "long", "--desc", "a long log", "--files", "-", cwd=project, stdin=paths
        ).code
        == 0
    )
    log = project / ".agent-state" / agentctl.files.log.LOG
    with open(log, "ab") as fh:  # 30,000 records over 2,345 paths: about 1.6 MB, past the index threshold
        fh.write(
            b"".join(
                codec.record("2026-01-01T00:00:00+00:00", "MODIFY", f"src/d{i % 5}/f{i % 2345}.ts")
                for i in range(30_000)
            )
        )
    assert log.stat().st_size > agentctl.files.log.INDEX_MIN


def test_resume_is_the_same_from_the_index_header_its_build_and_the_whole_log(tmp_path: Path) -> None:
    _long_task(tmp_path)
    index = tmp_path / ".agent-state" / agentctl.files.index.INDEX
    distinct = len(agentctl.files.log.touched(open_store(start=str(tmp_path))))
    built = run("resume", cwd=tmp_path).out  # builds the index
    assert index.exists() and f"FILES {distinct} touched" in built
    assert run("resume", cwd=tmp_path).out == built  # from the header
    before = index.stat().st_mtime_ns
    assert run("resume", cwd=tmp_path / "src" if (tmp_path / "src").exists() else tmp_path).out == built
    assert index.stat().st_mtime_ns == before  # a current index is only read
    with open(tmp_path / ".agent-state" / agentctl.files.log.LOG, "ab") as fh:  # two more lines: one new path
        fh.write(
            codec.record("2026-01-02T00:00:00+00:00", "CREATE", "brand/new.ts")
            + codec.record("2026-01-02T00:00:00+00:00", "MODIFY", "src/d0/f0.ts")
        )
    grown = run("resume", cwd=tmp_path).out
    assert f"FILES {distinct + 1} touched" in grown
    index.unlink()
    os.mkdir(index)  # the index cannot be written: the count reads the whole log
    try:
        assert run("resume", cwd=tmp_path).out == grown
    finally:
        shutil.rmtree(index)
    assert run("resume", cwd=tmp_path).out == grown  # rebuilt


def test_do_next_asks_to_record_failed_fixes_until_the_tried_line_shows_some(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    assert run("init", cwd=tmp_path).code == 0
    assert (
        run("task", "start", "--id", "t", "--desc", "d", "--files", "-", cwd=tmp_path, stdin="a.py\n").code
        == 0
    )
    assert run("verify", "add", "echo 'a.py:1: error: bad'; exit 1", cwd=tmp_path).code == 0
    assert run("verify", "start", cwd=tmp_path).code == 1
    hint = "Record each failed fix: `agentctl verify tried TEXT`."
    last = run("resume", cwd=tmp_path).lines[-1]
    assert last.startswith("DO NEXT: `agentctl files check a.py`") and last.endswith(hint)
    assert run("verify", "tried", "cast it", cwd=tmp_path).code == 0
    out = run("resume", cwd=tmp_path).out
    assert "TRIED (failed, do not repeat): 1) cast it" in out and hint not in out
    assert out.splitlines()[-1].endswith("`agentctl task done a.py`.")


def _expected_rule_lines(out: str, rules: list[tuple[str, str]], budget: int) -> list[str]:
    """The P1/P2 lines the plain rule keeps: every rule formatted, each kept while it fits."""

    lines = out.split("\n")
    before = [ln for ln in lines if not ln.startswith(("P1|", "P2|", "CUT to fit", "DO NEXT"))]
    final = lines[-1]
    cut = [ln for ln in lines if ln.startswith("CUT to fit")]
    used = sum(len(x) + 1 for x in before) + len(final) + 1
    # the optional groups before the rules (none here besides FILES/VERIFIED, all kept) are in `before`
    kept = []
    for pri, text in rules:
        line = f"{pri}|{codec.shown(text)}"
        if used + len(line) + 1 + 60 <= budget:
            kept.append(line)
            used += len(line) + 1
    assert bool(cut) == (len(kept) < len(rules))
    return kept


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(
        st.tuples(
            st.sampled_from(["P1", "P2"]),
            st.text(alphabet=st.sampled_from("ab |\\\x07é"), min_size=1, max_size=420),
        ),
        min_size=1,
        max_size=40,
    ),
    budget=st.integers(min_value=200, max_value=3000),
)
def test_the_rules_that_fit_are_those_formatting_every_rule_would_keep(
    tmp_path_factory: pytest.TempPathFactory, texts: list[tuple[str, str]], budget: int
) -> None:
    # resume formats a P1/P2 rule only when its shortest possible line could fit; what it keeps must be
    # exactly what formatting all of them (escaped, cut at 300) and keeping each that fits keeps.
    import agentctl.constraints.rules
    from agentctl.workflow import resume

    project = tmp_path_factory.mktemp("rules")
    assert run("init", cwd=project).code == 0
    store = open_store(start=str(project))
    body = "".join(f"{p}|{codec.encode(t)}\n" for p, t in texts)
    (project / ".agent-state" / agentctl.constraints.rules.STATUS).write_text(body, encoding="utf-8")
    rules = [(r.priority, r.text) for r in agentctl.constraints.rules.read(store)]
    out = resume.build(store, budget)
    if (
        out.count("\n")
        and "BUDGET too small" not in out
        and " left out: " not in out
        and not any(ln.startswith("CUT to fit") and "P1/P2" not in ln for ln in out.split("\n"))
    ):
        shown = [ln for ln in out.split("\n") if ln.startswith(("P1|", "P2|"))]
        assert shown == _expected_rule_lines(out, rules, budget)


def test_a_long_rule_cut_to_its_300_characters_is_shown_where_those_fit(tmp_path: Path) -> None:
    # A rule longer than 300 characters is printed cut to 300: room for that is room enough, though
    # the rule's whole text would not fit (the bound resume skips rules by must use the cut length).
    import agentctl.constraints.rules
    from agentctl.workflow import resume

    assert run("init", cwd=tmp_path).code == 0
    store = open_store(start=str(tmp_path))
    (tmp_path / ".agent-state" / agentctl.constraints.rules.STATUS).write_text(
        "P1|" + "a" * 400 + "\n", encoding="utf-8"
    )
    bare = resume.build(store, 3000)
    assert ("P1|" + "a" * 297 + "...") in bare.split("\n")
    base = sum(len(x) + 1 for x in bare.split("\n") if not x.startswith("P1|"))
    budget = base + 304 + 60  # exactly room for the cut line
    assert ("P1|" + "a" * 297 + "...") in resume.build(store, budget).split("\n")
    assert "CUT to fit: 1 P1/P2 rules" in resume.build(store, budget - 1)
