"""Git objects and refs for the sync, by plumbing only: no index, no work tree, no HEAD, no config.

Blobs are hashed here, with the repository's own object format (``rev-parse --show-object-format``:
SHA-1 or SHA-256), and only the missing ones are written (``hash-object -w --stdin-paths``
over files in a private temp folder of the git directory); trees likewise (``mktree --batch``),
so a sync after a few edits writes a few objects. Refs move by ``update-ref NEW OLD``, git's
compare-and-swap. Remotes are named on the command line with explicit refspecs.
"""

from __future__ import annotations

import hashlib
import os
import shutil

import agentctl.ground.git
from agentctl.sync.treeformat import Refused, max_commit, max_file

ZERO = "0" * 40  # a SHA-1 repository's null id (cas() writes the one of the repository's format)


class Repo:
    __slots__ = ("top", "common", "algo", "_cache")

    def __init__(self, top: str, common: str, algo: str = "sha1") -> None:
        self.top = top
        self.common = common
        self.algo = algo if algo in ("sha1", "sha256") else "sha1"  # the repository's object format
        self._cache: dict[str, bytes] = {}

    def __repr__(self) -> str:
        return f"Repo({self.top!r})"

    def git(self, args: list[str], **kw: object) -> agentctl.ground.git.Result:
        return agentctl.ground.git.run(self.top, args, **kw)  # type: ignore[arg-type]

    # -- refs ------------------------------------------------------------------------------------
    def rev(self, ref: str) -> str | None:
        """The commit ``ref`` names, None if there is no such object; Refused if it names anything but a
        commit
        (a blob, a tree, a tag: agentctl writes none of those to a ref)."""
        if "\n" in ref or not ref:
            return None
        res = self.git(["cat-file", "--batch-check"], data=f"{ref}\n".encode(), check=False)
        parts = res.text.split()
        if res.code != 0 or len(parts) != 3:
            return None
        if parts[1] != "commit":
            raise Refused(
                f"{ref} names a {parts[1][:10]}, not a commit: refused; the local state is unchanged"
            )
        return parts[0]

    def cas(self, ref: str, new: str, old: str | None) -> bool:
        """Move ``ref`` to ``new`` only if it is still at ``old`` (None: only if it does not exist)."""
        res = self.git(["update-ref", "-m", "agentctl sync", ref, new, old or "0" * len(new)], check=False)
        return res.code == 0

    def set_ref(self, ref: str, new: str) -> None:
        self.git(["update-ref", "-m", "agentctl sync", ref, new])

    def counts(self, a: str, b: str) -> tuple[int, int]:
        """(commits only in a, commits only in b)."""
        left, _, right = (
            self.git(["rev-list", "--left-right", "--count", f"{a}...{b}"]).text.strip().partition("\t")
        )
        return int(left or 0), int(right or 0)

    def is_ancestor(self, a: str, b: str) -> bool:
        return self.git(["merge-base", "--is-ancestor", a, b], check=False).code == 0

    # -- reading a commit (validated) ------------------------------------------------------------------
    def read_files(self, commit: str) -> dict[str, bytes]:
        """Every file of ``commit``'s tree; Refused for a link, an executable, a submodule, a size over
        the limits."""
        raw = self.git(["cat-file", "commit", commit]).out
        if len(raw) > 1 << 20 or not raw.startswith(b"tree "):
            raise Refused(f"commit {commit[:12]} is malformed")
        listing = self.git(["ls-tree", "-r", "-l", "-z", "--full-tree", commit]).out
        entries: list[tuple[str, str]] = []
        total = 0
        for item in listing.split(b"\0"):
            if not item:
                continue
            meta, _, path_b = item.partition(b"\t")
            parts = meta.split()
            path = path_b.decode("utf-8", "replace")
            if len(parts) != 4 or parts[0] != b"100644" or parts[1] != b"blob":
                raise Refused(
                    f"{path[:80]!r} is not a plain file (mode "
                    f"{parts[0].decode('ascii', 'replace') if parts else '?'})"
                )
            size = int(parts[3]) if parts[3].isdigit() else -1
            if size < 0 or size > max_file():
                raise Refused(f"{path[:80]!r} is {size} bytes, over the {max_file()}-byte limit per file")
            total += size
            if total > max_commit():
                raise Refused(f"the commit holds over {max_commit()} bytes, the limit per commit")
            entries.append((path, parts[2].decode("ascii")))
        if len({p for p, _ in entries}) != len(entries):
            seen: set[str] = set()
            twice = next(p for p, _ in entries if p in seen or seen.add(p))  # type: ignore[func-returns-value]
            raise Refused(f"{twice[:80]!r} has two entries in one tree (git fsck: duplicateEntries)")
        blobs = self.cat([sha for _, sha in entries])
        return {path: blobs[sha] for path, sha in entries}

    def cat(self, shas: list[str]) -> dict[str, bytes]:
        want = [s for s in dict.fromkeys(shas) if s not in self._cache]
        if want:
            out = self.git(["cat-file", "--batch"], data=("\n".join(want) + "\n").encode(), timeout=300).out
            pos = 0
            for sha in want:
                nl = out.index(b"\n", pos)
                head = out[pos:nl].split()
                if len(head) != 3 or head[1] != b"blob":
                    raise Refused(f"object {sha[:12]} is not a blob")
                size = int(head[2])
                self._cache[sha] = out[nl + 1 : nl + 1 + size]
                pos = nl + 1 + size + 1
        return {s: self._cache[s] for s in shas}

    # -- writing ---------------------------------------------------------------------------------------
    def missing(self, shas: list[str]) -> set[str]:
        if not shas:
            return set()
        res = self.git(
            ["cat-file", "--batch-check=%(objectname)"], data=("\n".join(shas) + "\n").encode(), timeout=300
        )
        return {ln.split()[0] for ln in res.text.splitlines() if ln.endswith(" missing")}

    def write_tree(self, files: dict[str, bytes]) -> tuple[str, int]:
        """Write the tree holding ``files``; returns (tree id, objects written)."""
        blob_ids = {p: _obj_id(b"blob", d, self.algo) for p, d in files.items()}
        trees: dict[str, list[tuple[str, str, str]]] = {"": []}  # folder -> [(mode, name, id)]
        for path in sorted(files):
            folder, _, name = path.rpartition("/")
            _ensure(trees, folder)
            trees[folder].append(("100644", name, blob_ids[path]))
        tree_ids: dict[str, str] = {}
        tree_data: dict[str, bytes] = {}
        for folder in sorted(trees, key=lambda f: -f.count("/") if f else 1):  # deepest first, root last
            if folder:
                parent, _, name = folder.rpartition("/")
            entries = trees[folder]
            data = b"".join(
                f"{m} {n}".encode() + b"\0" + bytes.fromhex(i)
                for m, n, i in sorted(entries, key=lambda e: e[1] + ("/" if e[0] == "40000" else ""))
            )
            tree_ids[folder] = _obj_id(b"tree", data, self.algo)
            tree_data[folder] = data
            if folder:
                trees[parent].append(("40000", name, tree_ids[folder]))
        need = self.missing(sorted(set(blob_ids.values()) | set(tree_ids.values())))
        new_blobs = {blob_ids[p]: files[p] for p in files if blob_ids[p] in need}
        if new_blobs:
            self._write_blobs(new_blobs)
        order = [f for f in sorted(trees, key=lambda f: -f.count("/") if f else 1) if tree_ids[f] in need]
        if order:
            batch = "\n".join(_mktree_text(trees[f]) for f in order) + "\n"
            got = self.git(
                ["mktree", "--batch"], data=batch.encode("utf-8", "surrogateescape"), timeout=300
            ).text.split()
            if got != [tree_ids[f] for f in order]:
                raise agentctl.ground.git.GitError(
                    "git mktree computed other tree ids than agentctl; report this"
                )
        return tree_ids[""], len(new_blobs) + len(order)

    def _write_blobs(self, blobs: dict[str, bytes]) -> None:
        tmp = os.path.join(self.common, f"agentctl-sync-{os.getpid()}-{os.urandom(4).hex()}")
        os.mkdir(tmp, 0o700)
        try:
            names = []
            for i, (sha, data) in enumerate(blobs.items()):
                name = os.path.join(tmp, str(i))
                with open(name, "wb") as fh:
                    fh.write(data)
                names.append((sha, name))
            got = self.git(
                ["hash-object", "-w", "--no-filters", "--stdin-paths"],
                data=("\n".join(n for _, n in names) + "\n").encode(),
                timeout=300,
            ).text.split()
            if got != [s for s, _ in names]:
                raise agentctl.ground.git.GitError(
                    "git hash-object computed other blob ids than agentctl; report this"
                )
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def commit(self, tree: str, parents: list[str], message: str) -> str:
        args = ["commit-tree", tree]
        for p in dict.fromkeys(parents):
            args += ["-p", p]
        return self.git(args + ["-m", message]).text.strip()

    # -- remotes ---------------------------------------------------------------------------------------
    def remotes(self) -> list[str]:
        return self.git(["remote"]).text.split()

    def fetch(self, remote: str, ref: str, mirror: str, timeout: float) -> str:
        """Fetch the remote's ``ref`` into ``mirror``: 'ok', 'absent' (the remote has none) or 'offline'."""
        res = self.git(
            ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote, f"+{ref}:{mirror}"],
            check=False,
            timeout=timeout,
        )
        if res.code == 0:
            return "ok"
        err = res.err.decode("utf-8", "replace").lower()
        return "absent" if "couldn't find remote ref" in err else "offline"

    def streams(self, remote: str, timeout: float) -> list[str] | None:
        """The streams ``remote`` holds (names under refs/agentctl/), None if it did not answer."""
        res = self.git(["ls-remote", "--refs", remote, "refs/agentctl/*"], check=False, timeout=timeout)
        if res.code != 0:
            return None
        return sorted(
            ln.split("\t", 1)[1].removeprefix("refs/agentctl/") for ln in res.text.splitlines() if "\t" in ln
        )

    def push(self, remote: str, ref: str, timeout: float) -> str:
        """Push ``ref`` (fast-forward only): 'ok', 'rejected' or 'offline'."""
        res = self.git(
            ["push", "--quiet", "--porcelain", "--no-verify", remote, f"{ref}:{ref}"],
            check=False,
            timeout=timeout,
        )
        if res.code == 0:
            return "ok"
        text = (res.out + res.err).decode("utf-8", "replace")
        raced = (
            "[rejected]",
            "non-fast-forward",
            "fetch first",
            "[remote rejected]",
            "cannot lock ref",
            "failed to update ref",
            "stale info",
        )
        return "rejected" if any(r in text for r in raced) else "offline"


def _obj_id(kind: bytes, data: bytes, algo: str = "sha1") -> str:
    """The id git gives an object of this kind and content in a repository of format ``algo``."""
    return hashlib.new(algo, kind + b" %d\0" % len(data) + data).hexdigest()


def _ensure(trees: dict[str, list[tuple[str, str, str]]], folder: str) -> None:
    while folder and folder not in trees:
        trees[folder] = []
        folder = folder.rpartition("/")[0]


def _mktree_text(entries: list[tuple[str, str, str]]) -> str:
    return "".join(
        f"{'040000' if m == '40000' else m} {'tree' if m == '40000' else 'blob'} {i}\t{n}\n"
        for m, n, i in entries
    )


def open_repo(start: str) -> Repo | None:
    """The repository holding ``start`` (top folder and common git dir), or None outside one."""
    res = agentctl.ground.git.run(
        start,
        [
            "rev-parse",
            "--path-format=absolute",
            "--show-toplevel",
            "--git-common-dir",
            "--show-object-format",
        ],
        check=False,
    )
    if res.code != 0:
        return None
    top, common, algo = (res.text.strip().split("\n") + ["", ""])[:3]
    return Repo(top, common, algo or "sha1")
