"""The shared verify commands (``[verify]`` of ``agentctl.rules``, ground.sharedfile) run only once a
person trusts them as they read now.

The file comes with the code: a pull, a checkout or an agent's edit can change it, and a verify
command runs outside the agent's sandbox (the hooks and ``task stop`` start checks). So the commands
are run in a copy only while they are exactly what a person last trusted there (``agentctl verify
trust``: the agent's own call is put to the person by the shell guard, and no MCP tool offers it);
a change to any of them, or a new one, waits for the person again. What was trusted is recorded as the
SHA-256 of the commands, in the ledger (``<git common dir>/agentctl/<worktree>/trust-NAME``,
constraints.ledger), out of the working tree's reach; outside a git working tree in
``services/verify/trusted``.
"""

from __future__ import annotations

from agentctl.ground import sharedfile
from agentctl.ground.store import Store

TRUSTED = "services/verify/trusted"


def digest(commands: list[str]) -> str:
    import hashlib

    return hashlib.sha256("\n".join(commands).encode("utf-8", "surrogateescape")).hexdigest()


def _where(store: Store) -> str:
    from agentctl.constraints import ledger

    return ledger.path(store.root, "trust") or TRUSTED


def _recorded(store: Store) -> str:
    from agentctl.constraints import ledger

    file = _where(store)
    data = ledger.read(file) if file != TRUSTED else None
    if data is None:
        data = store.read(TRUSTED)  # no ledger, or one the agent's sandbox kept read-only when it was trusted
    return (data or b"").decode("ascii", "replace").strip()


def split(store: Store) -> tuple[list[str], list[str]]:
    """(the shared commands that may run here, those that wait for a person's trust): all of them in one
    list or the other, since a set is trusted whole."""
    cmds = sharedfile.verify_commands(store)
    if not cmds:
        return [], []
    return (cmds, []) if _recorded(store) == digest(cmds) else ([], cmds)


def trust(store: Store) -> list[str]:
    """Record the shared commands as they read now as trusted in this copy; the commands."""
    from agentctl.constraints import ledger
    from agentctl.ground.errors import UsageError

    cmds = sharedfile.verify_commands(store)
    if not cmds:
        raise UsageError(
            f"{sharedfile.FILE} holds no [verify] commands to trust; add one with "
            "`agentctl verify add --shared COMMAND`"
        )
    data = (digest(cmds) + "\n").encode("ascii")
    file = _where(store)
    if file == TRUSTED or not ledger.write(store, file, data):
        store.replace(TRUSTED, data)
    store.log_change("verify", "trust", f"{len(cmds)} shared command(s)")
    return cmds


def waiting_line(cmds: list[str]) -> str:
    """What a copy says while the shared checks wait: where to read them whole (never an excerpt, which
    could hide the part that matters)."""
    return (
        f"{len(cmds)} verify command{'s' if len(cmds) > 1 else ''} in {sharedfile.FILE} not run: not trusted "
        f"in this "
        f"copy (they came with the code, or the set changed since it was trusted); a person reads them whole "
        f"in "
        f"{sharedfile.FILE} ([verify]; `git log -p {sharedfile.FILE}` shows who changed them) and runs "
        f"`agentctl "
        "verify trust`"
    )
