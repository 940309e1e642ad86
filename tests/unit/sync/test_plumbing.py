"""agentctl.sync.plumbing: objects written by plumbing only, the same ids git computes, refs by
compare-and-swap."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agentctl.sync import plumbing
from agentctl.sync.plumbing import Repo
from agentctl.sync.treeformat import Refused
from support.sync import GIT_ENV, git

REF = "refs/agentctl/test"
FILES = {
    "a.txt": b"one\n",
    "dir/b.txt": b"two\n",
    "dir/deep/c": b"",
    "dir.txt": b"sorted after dir/ by git\n",
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    for key, value in GIT_ENV.items():  # commit-tree needs an identity
        monkeypatch.setenv(key, value)
    top = tmp_path / "work"
    top.mkdir()
    git(top, "init", "-q")
    (top / "sub").mkdir()
    found = plumbing.open_repo(str(top / "sub"))
    assert found is not None
    return found


def test_open_repo_names_the_top_and_the_common_folder(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert repo.top == str(tmp_path / "work")
    assert repo.common == str(tmp_path / "work" / ".git")
    assert repr(repo) == f"Repo({str(tmp_path / 'work')!r})"
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert plumbing.open_repo(str(outside)) is None


def test_write_tree_gives_gits_own_ids_and_writes_only_what_is_missing(repo: Repo, tmp_path: Path) -> None:
    tree, written = repo.write_tree(FILES)
    assert written == len(FILES) + 3  # four blobs and the trees: root, dir, dir/deep
    listing = git(tmp_path / "work", "ls-tree", "-r", tree)
    assert sorted(line.split("\t")[1] for line in listing.splitlines()) == sorted(FILES)
    for path, data in FILES.items():
        sha = git(tmp_path / "work", "rev-parse", f"{tree}:{path}").strip()
        assert (
            subprocess.run(
                ["git", "cat-file", "blob", sha], cwd=tmp_path / "work", capture_output=True, check=True
            ).stdout
            == data
        )
    assert repo.write_tree(FILES) == (tree, 0)  # everything is there: nothing written
    _, one_more = repo.write_tree({**FILES, "a.txt": b"changed\n"})
    assert one_more == 2  # the changed blob and the root tree
    assert repo.missing([]) == set() and repo.missing([plumbing.ZERO]) == {plumbing.ZERO}
    # the temp folder went
    assert not any(name.startswith("agentctl-sync-") for name in os.listdir(repo.common))


def test_commit_read_back_and_refs_by_compare_and_swap(repo: Repo) -> None:
    tree, _ = repo.write_tree(FILES)
    first = repo.commit(tree, [], "state 1")
    assert repo.read_files(first) == FILES
    assert repo.rev(REF) is None
    assert repo.cas(REF, first, None) and repo.rev(REF) == first
    assert not repo.cas(REF, first, None)  # it exists now
    tree2, _ = repo.write_tree({"a.txt": b"two\n"})
    second = repo.commit(tree2, [first, first], "state 2")  # a parent named twice is one parent
    assert repo.counts(second, first) == (1, 0) and repo.counts(first, second) == (0, 1)
    assert repo.is_ancestor(first, second) and not repo.is_ancestor(second, first)
    assert not repo.cas(REF, second, plumbing.ZERO[:-1] + "1")  # not where the caller thought
    assert repo.cas(REF, second, first) and repo.rev(REF) == second
    repo.set_ref(REF, first)
    assert repo.rev(REF) == first


def test_reading_refuses_what_agentctl_never_writes(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    (work / "run.sh").write_text("echo hi\n")
    (work / "run.sh").chmod(0o755)
    git(work, "add", "run.sh")
    git(work, "commit", "-q", "-m", "exec")
    with pytest.raises(Refused, match="is not a plain file"):
        repo.read_files(repo.rev("HEAD") or "")
    tree, _ = repo.write_tree({"big": b"x" * 100})
    big = repo.commit(tree, [], "big")
    monkeypatch.setenv("AGENTCTL_SYNC_MAX_FILE", "99")
    with pytest.raises(Refused, match="over the 99-byte limit per file"):
        repo.read_files(big)
    monkeypatch.setenv("AGENTCTL_SYNC_MAX_FILE", "100")
    assert repo.read_files(big) == {"big": b"x" * 100}


def test_push_and_fetch_say_ok_absent_rejected_or_offline(repo: Repo, tmp_path: Path) -> None:
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(Path(repo.top), "remote", "add", "origin", str(bare))
    assert repo.remotes() == ["origin"]
    assert repo.fetch("origin", REF, "refs/agentctl-mirror/test", 30) == "absent"
    tree, _ = repo.write_tree({"a": b"1"})
    first = repo.commit(tree, [], "1")
    repo.set_ref(REF, first)
    assert repo.push("origin", REF, 30) == "ok"
    assert repo.fetch("origin", REF, "refs/agentctl-mirror/test", 30) == "ok"
    assert repo.rev("refs/agentctl-mirror/test") == first
    other = repo.commit(repo.write_tree({"b": b"2"})[0], [], "unrelated")
    repo.set_ref(REF, other)
    assert repo.push("origin", REF, 30) == "rejected"  # not a fast-forward
    assert repo.push(str(tmp_path / "no-such-remote"), REF, 30) == "offline"
    assert repo.fetch(str(tmp_path / "no-such-remote"), REF, "refs/agentctl-mirror/x", 30) == "offline"
