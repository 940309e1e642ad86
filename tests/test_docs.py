"""Docs that cannot drift: the reference is generated, the site builds strictly, install lines are right."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentctl import DISTRIBUTION
from agentctl.cli import helpformat, reference

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def test_reference_is_current() -> None:
    on_disk = (DOCS / "reference.md").read_text(encoding="utf-8")
    assert on_disk == reference.render(), (
        "docs/reference.md is stale: run `python -m agentctl.cli.reference > docs/reference.md`"
    )


def test_reference_names_every_command_and_option() -> None:
    text = (DOCS / "reference.md").read_text(encoding="utf-8")
    for key, cmd in helpformat.visible():
        assert f"agentctl {helpformat.name_of(key)}\n" in text, key
        for opt in cmd.options:
            assert re.search(rf"^  {re.escape(opt)}\b", text, re.M), (key, opt)


def test_readme_is_short_and_links_only_to_what_exists() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode()) <= 8 * 1024
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def test_ci_runs_the_readmes_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", readme, re.S)
    tests = [ln for block in blocks for ln in block.splitlines() if "-m pytest" in ln]
    assert len(tests) == 1, tests
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip("\n").splitlines()
    assert ci[-1] == tests[0], "the last line of .ci/run must be the README's test command"
    assert "pytest-xdist" in (ROOT / "pyproject.toml").read_text(encoding="utf-8") or " -n " not in tests[0]


def test_every_install_line_names_the_distribution() -> None:
    texts = {
        p: p.read_text(encoding="utf-8")
        for p in [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *DOCS.rglob("*.md")]
    }
    texts.update({p: p.read_text(encoding="utf-8") for p in (ROOT / "src").rglob("*.py")})
    wrong = re.compile(r"(pipx install|uv tool install|pip install)(?: --[a-z-]+)* '?agentctl(?![-\w])")
    for path, text in texts.items():
        assert not wrong.search(text), f"{path}: an install line names `agentctl`, not {DISTRIBUTION}"


def test_project_files() -> None:
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in changelog and "Keep a Changelog" in changelog
    assert "pytest" in (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def test_mkdocs_builds_strictly(tmp_path: Path) -> None:
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent))
    if mkdocs is None:
        pytest.skip("mkdocs is not installed (pip install -e . --group dev)")
    proc = subprocess.run(
        [mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "site" / "reference" / "index.html").exists()
