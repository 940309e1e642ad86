"""The agent's own wall: Claude Code's permission rules and sandbox, kept in step with the P0 rules.

``agentctl install claude`` writes, into the settings file the person chose (the project's
``.claude/settings.json``, ``.claude/settings.local.json``, or with ``--user`` their own
``~/.claude/settings.json``), a ``permissions.deny`` rule ``Edit(PATTERN)`` for every P0 deny-write
glob and for agentctl's own files (the rules file, the local P0 records, the alert commands, the
ledger, the agent settings files), and ``sandbox.filesystem.denyWrite`` entries for the same, as exact
paths. Facts checked with Claude Code 2.1.332 on Linux (bubblewrap): ``Edit(...)`` rules cover every
file tool (``Write(...)`` rules are ignored, with a warning) and are merged into what sandboxed
commands may write; a pattern ``/x`` is relative to the project; sandbox paths are ``./x`` (the
project) or ``//x`` (absolute), ``/x`` being relative to the settings file; the Linux sandbox
ignores glob patterns (only exact paths and whole folders are made read-only), so a glob's
existing files are listed one by one (:func:`wanted`), refreshed when the rules change.
``--sandbox`` adds ``sandbox.enabled: true`` and ``allowUnsandboxedCommands: false``.

What agentctl added is recorded in the ledger (``walls-NAME``, constraints.ledger): each entry, and the
settings file's signature as written. So uninstall takes out exactly those entries, and "in step"
(:func:`status`) is decided without parsing JSON: the recorded entries are the ones wanted now and
the file is as agentctl left it. ``constraints add|remove|confirm-removal`` call :func:`refresh`.
"""

from __future__ import annotations

import os

from agentctl.ground import codec
from agentctl.workflow.wallmerge import Wall

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.ground.store import Store

LOCAL = "services/constraints/walls"
MAX_FILES = 400  # a glob's existing files listed in denyWrite; more are left to the hooks (said)
SANDBOX_KEYS = ("enabled", "allowUnsandboxedCommands")


def _where(store: Store) -> str:
    from agentctl.constraints import ledger

    return ledger.path(store.root, "walls") or LOCAL


def load(store: Store) -> list[Wall]:
    from agentctl.constraints import ledger

    file = _where(store)
    data = store.read(LOCAL) if file == LOCAL else ledger.read(file)
    walls: list[Wall] = []
    for line in (data or b"").decode("utf-8", "surrogateescape").split("\n"):
        kind = line.partition("|")[0]
        if kind == "WALL":
            f = codec.split_record(line, 5)
            if f is not None:
                walls.append(Wall(f[1], f[2], f[3] == "on"))
                walls[-1].sig = f[4]
        elif walls and kind in ("DENY", "PATH", "SET", "KEPT"):
            f = codec.split_record(line, 2)
            if f is not None:
                w = walls[-1]
                {"DENY": w.deny, "PATH": w.paths, "SET": w.set_keys, "KEPT": w.kept}[kind].append(f[1])
    return walls


def save(store: Store, walls: list[Wall]) -> None:
    from agentctl.constraints import ledger

    data = b""
    for w in walls:
        data += codec.record("WALL", w.agent, w.file, "on" if w.sandbox else "off", w.sig)
        data += b"".join(codec.record("DENY", d) for d in w.deny) + b"".join(
            codec.record("PATH", p) for p in w.paths
        )
        data += b"".join(codec.record("SET", k) for k in w.set_keys) + b"".join(
            codec.record("KEPT", k) for k in w.kept
        )
    file = _where(store)
    if not data:  # no wall left: no record (an uninstall leaves the ledger as before the install)
        for f in {file, store.path(LOCAL)}:
            try:
                os.unlink(f)
            except OSError:
                pass
        if file != LOCAL:  # and the ledger's folders, when nothing else is in them
            for folder in (os.path.dirname(file), os.path.dirname(os.path.dirname(file))):
                try:
                    os.rmdir(folder)
                except OSError:
                    break
        return
    if file != LOCAL and ledger.write(store, file, data):
        return
    store.replace(LOCAL, data)


def file_sig(path: str) -> str:
    """The settings file's content as a SHA-256 ("-" when it cannot be read): one small read."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(16 << 20)
    except OSError:
        return "-"
    return data_sig(data)


def data_sig(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


# -- what the wall holds ------------------------------------------------------------------------


def _perm_patterns(glob: str, prefix: str) -> list[str]:
    """An agentctl deny glob (as .gitignore reads it) as Claude Code permission patterns under ``prefix``
    (``/``: the project, in its settings; ``//ABS/`` from the person's own settings)."""
    anchored = glob.startswith("/") or "/" in glob.rstrip("/")
    body = glob.lstrip("/")
    folder_only = body.endswith("/")
    body = body.rstrip("/")
    base = prefix + ("" if anchored else "**/") + body
    if folder_only:
        return [base + "/**"]
    if body.endswith("/**") or body == "**":
        return [base]
    return [base, base + "/**"]  # a name may be a folder: everything under it too


def _globs(store: Store) -> list[str]:
    import agentctl.constraints.denytext
    from agentctl.constraints import lastseen

    out: list[str] = []
    for r in lastseen.enforced(store, persist=False):
        g = agentctl.constraints.denytext.deny_pattern(r.text) if r.priority == "P0" else None
        if g and g not in out:
            out.append(g)
    return out


def own_files(store: Store) -> list[str]:
    """agentctl's own files an agent must not write (absolute paths; a folder ends with /)."""
    from agentctl.constraints import ledger

    state = store.root
    out = [
        os.path.join(state, "services", "constraints", "status"),
        os.path.join(state, "services", "constraints", "p0-seen"),
        os.path.join(state, "services", "constraints", "prints"),
        os.path.join(state, "services", "constraints", "walls"),
        os.path.join(state, "notify") + "/",
    ]
    found = ledger.place(state)
    if found is not None:
        out.append(os.path.dirname(found[0]) + "/")  # every worktree's ledger
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    out.append(os.path.join(xdg, "agentctl") + "/")
    for rel in (".claude/settings.json", ".claude/settings.local.json"):
        out.append(os.path.join(store.project, rel))
    return out


def wanted(store: Store, user: bool = False, also: tuple[str, ...] = ()) -> tuple[list[str], list[str], int]:
    """(the ``permissions.deny`` entries, the ``sandbox.filesystem.denyWrite`` entries, how many of the
    globs' files were left out of denyWrite past MAX_FILES) for the project's P0 rules now; ``also``: own
    files listed whether or not they exist yet (the settings file an install is writing)."""
    import agentctl.constraints.rules
    from agentctl.constraints import fingerprints, ledger

    project = store.project
    prefix = "//" + project.lstrip("/") + "/" if user else "/"
    deny: list[str] = []
    paths: list[str] = []
    globs = _globs(store)
    for g in globs:
        deny += [f"Edit({p})" for p in _perm_patterns(g, prefix)]

    def where(full: str) -> str:
        rel = os.path.relpath(full, project)
        if not user and not rel.startswith(".."):
            return "./" + rel.replace(os.sep, "/")
        return "//" + full.lstrip("/")

    def perm(full: str) -> str:
        rel = os.path.relpath(full.rstrip("/"), project)
        tail = "/**" if full.endswith("/") else ""
        if not rel.startswith(".."):
            return f"Edit({prefix}{rel.replace(os.sep, '/')}{tail})"
        home = os.path.expanduser("~")
        if full.startswith(home + "/"):
            return f"Edit(~/{os.path.relpath(full.rstrip('/'), home)}{tail})"
        return f"Edit(//{full.strip('/')}{tail})"

    for full in own_files(store):
        deny.append(perm(full))
    # exact paths for the sandbox: a glob's literal folder (`db/**`), its existing files otherwise
    rules = [agentctl.constraints.rules.Rule("P0", "deny-write: " + g) for g in globs]
    left = 0
    exact: list[str] = []
    for g in globs:
        body = g.strip("/")
        lit = body[:-3] if body.endswith("/**") else body
        if ("/" in g.rstrip("/") or g.startswith("/")) and not any(c in lit for c in "*?[\\"):
            if os.path.lexists(os.path.join(project, lit)):
                exact.append(os.path.join(project, lit))
    files = sorted(fingerprints.walk(store, rules))
    covered = tuple(e.rstrip("/") + "/" for e in exact)
    files = [f for f in files if not os.path.join(project, f).startswith(covered)]
    if len(files) > MAX_FILES:
        left = len(files) - MAX_FILES
        files = files[:MAX_FILES]
    exact += [os.path.join(project, f) for f in files]
    ledger.ensure(store.root)  # the ledger's folder is there for the sandbox to keep read-only
    local = {os.path.join(store.root, "services", "constraints", n) for n in ("p0-seen", "prints", "walls")}
    for full in own_files(store):  # (the records kept locally outside git come and go: Edit rules only)
        if full not in local and (os.path.lexists(full.rstrip("/")) or full in also):
            exact.append(full.rstrip("/"))
    for full in also:  # the person's own settings file (``--user``), which the project's list does not name
        if full not in exact:
            exact.append(full)
            deny.append(perm(full))
    for full in exact:
        p = where(full)
        if p not in paths:
            paths.append(p)
    return _unique(deny), paths, left


def _unique(items: list[str]) -> list[str]:
    out: list[str] = []
    for i in items:
        if i not in out:
            out.append(i)
    return out


def find(store: Store, file: str) -> Wall | None:
    return next((w for w in load(store) if w.file == file), None)


def record(store: Store, wall: Wall | None, remove: bool = False) -> None:
    """Keep (or with ``remove`` forget) ``wall`` in the ledger, with its file's signature now."""
    if wall is None:
        return
    walls = [w for w in load(store) if w.file != wall.file]
    if not remove:
        wall.sig = file_sig(wall.file)
        walls.append(wall)
    save(store, walls)


def record_planned(store: Store, wall: Wall, data: bytes) -> None:
    """Keep ``wall`` in the ledger as the install about to write ``data`` into its file leaves it."""
    walls = [w for w in load(store) if w.file != wall.file]
    wall.sig = data_sig(data)
    save(store, walls + [wall])


# -- keeping in step ------------------------------------------------------------------------------


def refresh(store: Store) -> list[str]:
    """After the rules changed: every recorded wall rewritten with the entries wanted now; what was done.
    A settings file that is no longer strict JSON is left as it is (said; `agentctl doctor` shows it)."""
    import json

    from agentctl.workflow import wallmerge

    out = []
    for wall in load(store):
        user = not os.path.realpath(wall.file).startswith(os.path.realpath(store.project) + os.sep)
        deny, paths, _ = wanted(store, user, (wall.file,))
        if in_step(wall, deny, paths) and wall.sig == file_sig(wall.file):
            continue
        try:
            with open(wall.file, "rb") as fh:
                doc = json.loads(fh.read(16 << 20).decode("utf-8-sig") or "{}")
            if not isinstance(doc, dict):
                raise ValueError("not an object")
            wallmerge.merge(doc, wall, deny, paths, wall.sandbox)
            _write(wall.file, (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
        except (OSError, ValueError) as exc:
            out.append(
                f"{wall.file}: the agent's wall could not be brought in step ({str(exc)[:100]}); "
                "`agentctl install claude` again after fixing it"
            )
            continue
        record(store, wall)
        from agentctl.files import baseline

        baseline.own_write(store, [wall.file])  # the person's rule, agentctl's write: not the task's edit
        out.append(
            f"{wall.file}: the agent's wall is in step with the P0 rules ({len(deny)} deny rules, "
            f"{len(paths)} sandbox paths)"
        )
    return out


def _write(path: str, data: bytes) -> None:
    real = os.path.realpath(path)
    tmp = f"{real}.{os.getpid()}.agentctl.tmp"
    try:
        mode = os.stat(real).st_mode & 0o777
    except OSError:
        mode = 0o644
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, real)


def in_step(wall: Wall, deny: list[str], paths: list[str]) -> bool:
    """Does ``wall`` hold exactly the entries wanted (a wanted entry the person had already counts)?"""
    return (
        set(deny) <= set(wall.deny) | set(wall.kept)
        and set(wall.deny) <= set(deny)
        and set(paths) <= set(wall.paths) | set(wall.kept)
        and set(wall.paths) <= set(paths)
    )


def status(store: Store) -> tuple[str, list[str]]:
    """(one line saying which walls stand, the problems in it) -- cheap: no JSON is parsed.

    In step: each recorded wall holds the entries wanted now and its file is as agentctl left it."""
    from agentctl.constraints import lastseen, ledger

    walls = load(store)
    problems: list[str] = []
    parts: list[str] = []
    for w in walls:
        user = not w.file.startswith(store.project + os.sep)
        where = "~/.claude/settings.json" if user else os.path.relpath(w.file, store.project)
        if w.sig != file_sig(w.file):
            step = "changed since agentctl wrote it"
            problems.append(
                f"{where} changed since agentctl wrote the wall into it: `agentctl install claude"
                f"{' --user' if user else ''}` again"
            )
        else:
            deny, paths, _ = wanted(store, user, (w.file,))
            step = "rules in step" if in_step(w, deny, paths) else "rules NOT in step"
            if step != "rules in step":
                problems.append(
                    f"{where}: the permission rules are not in step with the P0 rules: "
                    f"`agentctl install claude{' --user' if user else ''}` again"
                )
        parts.append(f"{w.agent} {where}: sandbox {'on' if w.sandbox else 'off'}, {step}")
    if not walls:
        parts.append("hooks only (no agent sandbox)")
    parts.append("ledger " + ("ok" if ledger.place(store.root) else "none (no git)"))
    for line in lastseen.folder_line(store):
        problems.append(line)
    return "WALLS: " + "; ".join(parts), problems


def resume_lines(store: Store) -> list[str]:
    """The walls line for resume's head, the state folder's own notices, and the protected files compared
    with their fingerprints (a write git was told not to see is judged, so its VIOLATION line follows)."""
    import agentctl.task.status
    from agentctl.constraints import fingerprints, violations

    try:
        changed = fingerprints.changed(store, fingerprints.task_key(agentctl.task.status.read_status(store)))
        if changed:
            violations.note(store, [], changed)
    except Exception:
        pass
    line, problems = status(store)
    return [line] + [p for p in problems if p.startswith("STATE FOLDER")]
