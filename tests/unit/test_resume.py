"""`agentctl resume` on a long files log: the same bytes whichever way the count is made.

The count of touched paths comes from the index's header (plus lookups past it) once the index
exists; from the rows when the index is built; from the whole log when it cannot be written. The
output must not depend on which: it is compared byte for byte, and with ``files.touched``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from agentctl import codec, files, filesindex
from agentctl.location import open_store
from conftest import run


def _long_task(project: Path) -> None:
    (project / ".git").mkdir()
    assert run("init", cwd=project).code == 0
    paths = "".join(f"src/m{i:03d}.ts\n" for i in range(50))
    assert run("task", "start", "--id", "long", "--desc", "a long log", "--files", "-", cwd=project,
               stdin=paths).code == 0
    log = project / ".agent-state" / files.LOG
    with open(log, "ab") as fh:  # 30,000 records over 2,345 paths: about 1.6 MB, past the index threshold
        fh.write(b"".join(codec.record("2026-01-01T00:00:00+00:00", "MODIFY", f"src/d{i % 5}/f{i % 2345}.ts")
                          for i in range(30_000)))
    assert log.stat().st_size > files.INDEX_MIN


def test_resume_is_the_same_from_the_index_header_its_build_and_the_whole_log(tmp_path: Path) -> None:
    _long_task(tmp_path)
    index = tmp_path / ".agent-state" / filesindex.INDEX
    distinct = len(files.touched(open_store(start=str(tmp_path))))
    built = run("resume", cwd=tmp_path).out  # builds the index
    assert index.exists() and f"FILES {distinct} touched" in built
    assert run("resume", cwd=tmp_path).out == built  # from the header
    before = index.stat().st_mtime_ns
    assert run("resume", cwd=tmp_path / "src" if (tmp_path / "src").exists() else tmp_path).out == built
    assert index.stat().st_mtime_ns == before  # a current index is only read
    with open(tmp_path / ".agent-state" / files.LOG, "ab") as fh:  # two more lines: one new path
        fh.write(codec.record("2026-01-02T00:00:00+00:00", "CREATE", "brand/new.ts")
                 + codec.record("2026-01-02T00:00:00+00:00", "MODIFY", "src/d0/f0.ts"))
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
    assert run("task", "start", "--id", "t", "--desc", "d", "--files", "-", cwd=tmp_path, stdin="a.py\n").code == 0
    assert run("verify", "add", "echo 'a.py:1: error: bad'; exit 1", cwd=tmp_path).code == 0
    assert run("verify", "start", cwd=tmp_path).code == 1
    hint = "Record each failed fix: `agentctl verify tried TEXT`."
    last = run("resume", cwd=tmp_path).lines[-1]
    assert last.startswith("DO NEXT: `agentctl files check a.py`") and last.endswith(hint)
    assert run("verify", "tried", "cast it", cwd=tmp_path).code == 0
    out = run("resume", cwd=tmp_path).out
    assert "TRIED (failed, do not repeat): 1) cast it" in out and hint not in out
    assert out.splitlines()[-1].endswith("`agentctl task done a.py`.")
