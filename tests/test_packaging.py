"""Issue 26 points 1 and 5: the README's install line works on a fresh machine as written, and the
package metadata says what CI runs (the classifiers, the dependency groups, the set-up line)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VERSIONS = ("3.10", "3.11", "3.12", "3.13")
# What is not the source: never copied into the tree the install line runs in.
NOT_SOURCE = shutil.ignore_patterns(
    ".venv*",
    ".git",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
    "site",
    ".agent-state",
)


def _section(title: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {title}")
    end = text.find("\n## ", start + 1)
    return text[start:end]


def _sh_lines(section: str) -> list[str]:
    """The commands of a README section's ```sh blocks, comments cut."""
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    return [ln.split(" #")[0].strip() for block in blocks for ln in block.splitlines() if ln.strip()]


def test_the_readmes_install_line_works_in_a_fresh_environment(tmp_path: Path) -> None:
    """The first line of the README's Install section, run as written in a copy of this tree, with a pipx
    of its own (installed from the package registry when the machine has none): agentctl runs."""
    line = _sh_lines(_section("Install"))[0]
    assert line == "pipx install .", line  # what works before the name is published
    tree = tmp_path / "agentctl"
    shutil.copytree(ROOT, tree, ignore=NOT_SOURCE)
    pipx = _tool(tmp_path, "pipx")
    env = {
        **os.environ,
        "PIPX_HOME": str(tmp_path / "pipx"),
        "PIPX_BIN_DIR": str(tmp_path / "bin"),
        "PIPX_MAN_DIR": str(tmp_path / "man"),
        "PATH": f"{pipx.parent}{os.pathsep}{os.environ['PATH']}",
    }
    proc = subprocess.run(
        ["sh", "-c", line], cwd=tree, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    agentctl = tmp_path / "bin" / "agentctl"
    version = subprocess.run(
        [str(agentctl), "--version"], capture_output=True, text=True, timeout=60, check=True
    )
    assert version.stdout.startswith("agentctl ")
    project = tmp_path / "project"
    project.mkdir()
    init = subprocess.run(
        [str(agentctl), "init", "--no-pull"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert init.returncode == 0 and (project / ".agent-state" / ".gitignore").is_file(), init.stderr
    assert (tmp_path / "man" / "man1" / "agentctl.1").exists()  # pipx links the man page the wheel carries
    # and `man` finds it from the PATH alone (the share/man or man beside bin/), no MANPATH needed
    found = _man_finds(tmp_path / "bin")
    assert (
        found.endswith("/man1/agentctl.1")
        and Path(found).read_bytes() == (ROOT / "man" / "agentctl.1").read_bytes()
    )


def _man_finds(bin_dir: Path, manpath: str | None = None) -> str:
    """The page `man -w agentctl` finds with only ``bin_dir`` and the system's folders on the PATH ("":
    none)."""
    if shutil.which("man") is None:
        pytest.skip("man is not installed (.ci/run installs man-db)")
    env = {k: v for k, v in os.environ.items() if k != "MANPATH"}
    env["PATH"] = f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"
    if manpath is not None:
        env["MANPATH"] = manpath
    proc = subprocess.run(
        ["man", "-w", "agentctl"], capture_output=True, text=True, timeout=60, check=False, env=env
    )
    return proc.stdout.strip() if proc.returncode == 0 else ""


def _tool(tmp_path: Path, name: str) -> Path:
    """``name`` (pipx, uv) from the PATH, else installed from the package registry into a venv of its own."""
    found = shutil.which(name)
    if found is not None:
        return Path(found)
    tools = tmp_path / "tools"
    subprocess.run([sys.executable, "-m", "venv", str(tools)], check=True, timeout=300)
    proc = subprocess.run(
        [str(tools / "bin" / "pip"), "install", "-q", name],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if proc.returncode != 0:
        pytest.skip(f"{name} could not be installed from the package registry: {proc.stderr.strip()[-300:]}")
    return tools / "bin" / name


def test_after_uv_tool_install_the_readmes_manpath_line_and_help_man_show_the_page(tmp_path: Path) -> None:
    """Issue 35.3: `uv tool install .` leaves the man page in the tool's venv, where `man` does not look; the
    README's MANPATH line finds it, and `agentctl help --man` prints it."""
    section = _section("Install")
    line = 'export MANPATH="$(uv tool dir)/agentctl-state/share/man:"'
    assert line in section and "agentctl help --man | man -l -" in section
    uv = _tool(tmp_path, "uv")
    tree = tmp_path / "agentctl"
    shutil.copytree(ROOT, tree, ignore=NOT_SOURCE)
    env = {
        **os.environ,
        "UV_TOOL_DIR": str(tmp_path / "uvtools"),
        "UV_TOOL_BIN_DIR": str(tmp_path / "bin"),
        "UV_CACHE_DIR": str(tmp_path / "uvcache"),
    }
    proc = subprocess.run(
        [str(uv), "tool", "install", "."],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    page = tmp_path / "uvtools" / "agentctl-state" / "share" / "man" / "man1" / "agentctl.1"
    assert page.is_file()
    assert _man_finds(tmp_path / "bin") == ""  # what the README says: uv does not link it
    manpath = subprocess.run(
        ["sh", "-c", line.replace("uv tool dir", f"'{uv}' tool dir") + '; printf %s "$MANPATH"'],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert _man_finds(tmp_path / "bin", manpath) == str(page)
    shown = subprocess.run(
        [str(tmp_path / "bin" / "agentctl"), "help", "--man"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert shown == page.read_text(encoding="utf-8")


def test_the_readme_says_which_line_works_once_published() -> None:
    section = _section("Install")
    assert "uv tool install ." in section and "pip install ." in section  # from the source, now
    for line in (
        "pipx install agentctl-state",
        "uv tool install agentctl-state",
        "pip install agentctl-state",
    ):
        assert f"`{line}`" in section, line  # from PyPI, once published
    assert "not on\nPyPI yet" in section and "Once `agentctl-state` is published" in section


LINK = re.compile(r"\]\(([^)\s]+)\)")
URL_KEYS = {"Homepage", "Documentation", "Changelog", "Issues"}


def test_the_wheels_metadata_carries_the_readme_and_every_link_in_it_leads_somewhere(tmp_path: Path) -> None:
    """Issue 35.4: the long description PyPI shows is the README; its links must work there. Once the
    repository's address is named in [project.urls] (Homepage, Documentation, Changelog, Issues), every
    link is absolute at that address; until then (no address is named anywhere in the project) the README's
    links are relative, and each must name a file the tree and the sdist hold."""
    import email.parser
    import zipfile

    pytest.importorskip("build")
    tree = tmp_path / "agentctl"
    shutil.copytree(ROOT, tree, ignore=NOT_SOURCE)
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "dist"), str(tree)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if proc.returncode != 0 and "Could not find a version that satisfies" in proc.stdout + proc.stderr:
        pytest.skip("the build backend could not be installed from the package registry")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-2000:]
    wheel = next((tmp_path / "dist").glob("agentctl_state-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = email.parser.Parser().parsestr(zf.read(name).decode("utf-8"))
    assert meta["Name"] == "agentctl-state" and meta["Description-Content-Type"] == "text/markdown"
    body = str(meta.get_payload())
    assert body.strip() == (ROOT / "README.md").read_text(encoding="utf-8").strip()
    urls = dict(v.split(", ", 1) for v in meta.get_all("Project-URL") or [])
    links = LINK.findall(body)
    relative = [link for link in links if not re.match(r"[a-z]+:", link) and not link.startswith("#")]
    assert links and "docs/quickstart.md" in body
    if urls:
        assert set(urls) >= URL_KEYS, urls
        home = urls["Homepage"].rstrip("/")
        assert all(u.startswith(home) or key == "Documentation" for key, u in urls.items()), urls
        assert not relative, f"relative links left in the long description: {relative}"
        assert f"{home}/blob/main/docs/quickstart.md" in body
    else:
        manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
        for link in relative:
            path = link.split("#")[0]
            assert (ROOT / path).is_file(), link
            assert (
                path.split("/")[0] in ("CONTRIBUTING.md", "CHANGELOG.md")
                or f"graft {path.split('/')[0]}" in manifest
            ), link


def test_setup_is_two_commands_and_ci_installs_the_same_way() -> None:
    setup = _sh_lines(_section("Set-up (fresh machine)"))
    assert len(setup) == 2, setup
    assert " --upgrade pip " in setup[0] and "pip install -e . --group dev" in setup[0]
    assert setup[0].endswith("agentctl demo")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "--upgrade pip" in ci and ".venv/bin/pip install -q -e . --group dev\n" in ci
    assert ci.rstrip("\n").splitlines()[-1] == setup[1]


def test_metadata_names_every_python_ci_tries_and_the_dev_tools_are_a_group() -> None:
    tomllib = pytest.importorskip("tomllib")
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = meta["project"]
    named = {
        c.rsplit(" :: ", 1)[1]
        for c in project["classifiers"]
        if re.fullmatch(
            r"Programming Language :: Python "
            r":: 3\.\d+",
            c,
        )
    }
    assert named == set(VERSIONS)
    assert "Typing :: Typed" in project["classifiers"] and project["requires-python"] == ">=3.10"
    assert "versions=${*:-" + " ".join(VERSIONS) + "}" in (ROOT / ".ci" / "pythons").read_text(
        encoding="utf-8"
    )
    assert "dev" not in project.get("optional-dependencies", {})  # not a published extra
    groups = meta["dependency-groups"]
    assert {"include-group": "test"} in groups["dev"]
    assert any(d.startswith("pytest>=") for d in groups["test"]) and any(
        str(d).startswith("ruff") for d in groups["dev"]
    )
    assert meta["tool"]["setuptools"]["data-files"] == {"share/man/man1": ["man/agentctl.1"]}
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
    for part in ("graft tests", "graft docs", "mkdocs.yml", "graft man"):
        assert part in manifest, part
