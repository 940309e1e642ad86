"""`agentctl init` and finding the state folder: layout, discovery from below, `--state-dir`, the
environment."""

from __future__ import annotations

from pathlib import Path

from conftest import run, snapshot


def test_init_creates_layout_and_keeps_state(project: Path) -> None:
    st = project / ".agent-state"
    for rel in (
        "services/task/status",
        "services/files/status",
        "services/constraints/status",
        "services/verify/status",
        "services/verify/commands",
        "runlevels",
        "VERSION",
    ):
        assert (st / rel).is_file(), rel
    assert (st / "logs").is_dir()
    run("constraints", "add", "P0", "never touch migrations", cwd=project)
    before = snapshot(st)
    r = run("init", cwd=project)
    assert r.code == 0 and "existing state kept" in r.out
    assert snapshot(st) == before


def test_no_state_folder_names_init(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    for args in (("status",), ("resume",), ("task", "status"), ("files", "log", "MODIFY", "a.py")):
        r = run(*args, cwd=tmp_path)
        assert r.code == 3
        assert len(r.err.strip().splitlines()) == 1 and "agentctl init" in r.err


def test_discovery_walks_up_but_not_past_git_root(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    (outer / "repo" / "deep" / "er").mkdir(parents=True)
    assert run("init", cwd=outer).code == 0  # a state folder above the repository
    (outer / "repo" / ".git").mkdir()
    assert run("status", cwd=outer / "repo" / "deep" / "er").code == 3  # stops at the repo root
    assert run("init", cwd=outer / "repo").code == 0
    r = run("status", cwd=outer / "repo" / "deep" / "er")
    assert r.code == 0 and "runlevel work" in r.out


def test_state_dir_option_and_env_override(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    sd = str(project / ".agent-state")
    assert run("--state-dir", sd, "constraints", "add", "P1", "x", cwd=elsewhere).code == 0
    r = run("constraints", "list", cwd=elsewhere, env={"AGENTCTL_STATE_DIR": sd})
    assert r.code == 0 and "P1|x" in r.out


def test_init_in_a_subfolder_of_a_repository_says_so(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "app" / "deep").mkdir(parents=True)
    (repo / ".git").mkdir()
    r = run("init", cwd=repo / "app")  # one project of a monorepo
    assert (
        r.code == 0
        and (repo / "app" / ".agent-state").is_dir()
        and "subfolder of the git repository" in r.err
    )
    assert run("status", cwd=repo / "app" / "deep").code == 0
    assert run("status", cwd=repo).code == 3
    assert "subfolder" not in run("init", cwd=repo / "app").err  # re-running is quiet


def test_state_dir_pointing_at_the_project_says_which_folder(project: Path, tmp_path: Path) -> None:
    r = run("--state-dir", str(project), "status", cwd=tmp_path)
    assert r.code == 3 and f"point --state-dir at {project / '.agent-state'}" in r.err


def _git(cwd: Path, *args: str) -> str:
    import subprocess

    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(cwd),
        "PATH": __import__("os").environ["PATH"],
    }
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env, check=True)
    return proc.stdout


def test_the_state_folder_ignores_itself_in_git(tmp_path: Path) -> None:
    """Issue 26 point 4: `git status` is clean after init, with no manual exclude line."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.py").write_text("x\n")
    _git(repo, "add", "a.py")
    _git(repo, "commit", "-q", "-m", "init")
    assert run("init", "--no-pull", cwd=repo).code == 0
    assert (repo / ".agent-state" / ".gitignore").read_bytes().endswith(b"\n*\n")
    run("constraints", "add", "P0", "x", cwd=repo)
    assert _git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def test_doctor_recreates_a_missing_gitignore_and_accepts_ones_own(project: Path) -> None:
    ignore = project / ".agent-state" / ".gitignore"
    ignore.unlink()
    r = run("doctor", cwd=project)
    assert r.code == 1 and ".gitignore" in r.out + r.err, r.out + r.err
    assert run("doctor", "--fix", cwd=project).code == 0 and ignore.read_bytes().endswith(b"*\n")
    ignore.write_text("*\n!notes.txt\n")  # the user's own: kept as it is
    assert run("doctor", cwd=project).code == 0
    assert run("init", cwd=project).code == 0 and ignore.read_text() == "*\n!notes.txt\n"
    ignore.unlink()
    assert run("init", cwd=project).code == 0 and ignore.exists()  # init recreates it too
