"""``agentctl hook aider lint [--] FILE…``: Aider's lint command logs each file it is given (see aider).

It runs after each edit Aider applies, once per edited file: a git sync, then each file
version logged once, whatever the number of lint calls that see it; it always exits 0.
"""

from __future__ import annotations

import os
import sys


def _edit_key(store_project: str, rel: str) -> str | None:
    """This version of the file (its path and mtime in ns): one edit, however many lint calls see it."""
    try:
        return f"aider:{rel}:{os.stat(os.path.join(store_project, rel)).st_mtime_ns}"
    except OSError:
        return None


def _log(files: list[str]) -> None:
    """Log each edited file once per edit; never raises.

    A git sync comes first: it gives the right CREATE or MODIFY and also logs what else
    changed (Aider's own .gitignore line, the other files of the same reply, whose lint
    calls follow). Each file version logged is remembered (``hooks/seen``), so the later
    lint call for a file the sync already logged adds nothing.
    """
    from agentctl.integrations import hookact, hookio, hookrun
    from agentctl.workflow import gitscan

    store = None
    try:
        store = hookio.payload_store({"cwd": os.getcwd()})
        if store is None:
            return
        h = hookrun.Hook("aider", "lint", {"cwd": os.getcwd()}, store)
        todo = [rel for rel in (h.rel(name) for name in files) if rel is not None]
        synced = {path for _, path in gitscan.sync(store, timeout=hookact.HOOK_GIT_TIMEOUT).logged}
        for rel in synced:
            h.seen(_edit_key(store.project, rel))
        for rel in todo:
            if rel in synced or h.seen(_edit_key(store.project, rel)):
                continue  # logged by this sync, or by an earlier lint call's sync for this same edit
            h.log_writes([(rel, None)], None)
    except BaseException as exc:  # the lint command must still run: note the failure, go on
        hookio.note(store, "aider", "lint", f"internal error {type(exc).__name__}: {str(exc)[:200]}")


def run_hook(args: list[str]) -> int:
    """``agentctl hook aider lint [--] FILE…``: log the files; always exit 0 (never fails an edit)."""
    if not args or args[0] != "lint":
        sys.stderr.write("agentctl hook aider: usage: agentctl hook aider lint -- FILE...\n")
        return 0
    _log([f for f in args[1:] if f != "--"])
    return 0
