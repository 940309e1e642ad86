"""The verify service's state: its status file, its commands file and its journal.

``services/verify/commands`` holds one shell command a line (``#`` comments): the
one place agentctl runs a shell, and only what the developer wrote there (see verifyrun).
``services/verify/status`` holds the last result, the fixes already tried (``TRIED_n``, see
tried) and the signatures of the task's failing runs (``SIG_n``, see repeat); every change
is made under ``LOCK``. ``services/verify/journal`` records every run and tried fix of the task.
"""

from __future__ import annotations

import os

from agentctl.ground import codec, lockorder
from agentctl.ground.errors import CheckFailed, StateError, UsageError
from agentctl.ground.store import Store, now_iso
from agentctl.verify import schema

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.verify.repeat import Sig

STATUS = "services/verify/status"
COMMANDS = "services/verify/commands"
LOCK = lockorder.VERIFY
KEYS = (
    "STATE",
    "RUN",
    "LAST_RUN",
    "COMMAND",
    "EXIT_CODE",
    "ERROR_COUNT",
    "ERRORS",
    "ATTEMPTS",
    "LOG",
    "LAST_PASS",
    "LAST_PASS_POS",
    "LAST_PASS_LOG",
    "LAST_PASS_CHECKS",
    "RUN_LOG",
    "RUN_POS",
    "REPEAT",
    "SAME_ERROR",
    "REASON",
    "RESULT_RUN",
    "INTERRUPTED",
    "UPDATED",
)
STATES = schema.STATES  # declared in verify/schema.py, with the journal record
MAX_TRIED = 20
MAX_SIGS = 20  # error signatures kept in the status file; the journal keeps every one
JOURNAL = "services/verify/journal"  # TIME|EVENT|RUN|ERRSIG|FILESIG|TEXT, archived at task stop


def read_status(store: Store) -> dict[str, str]:
    data = store.read(STATUS)
    if data is None:
        return {"STATE": "IDLE"}
    fields = codec.parse_status(data, store.shown(STATUS), None)
    for key in fields:
        prefix, _, num = key.rpartition("_")
        if key not in KEYS and not (prefix in ("TRIED", "SIG") and num.isdigit()):
            raise StateError(f"{store.shown(STATUS)} has unknown key {key}; run `agentctl doctor`")
    if fields.get("STATE", "IDLE") not in STATES:
        raise StateError(
            f"{store.shown(STATUS)}: STATE={fields.get('STATE', '')[:20]!r} is unknown; run `agentctl doctor`"
        )
    for key in ("RUN", "ATTEMPTS", "LAST_PASS_POS"):
        codec.status_int(fields, key, store.shown(STATUS))
    return fields


def tried(fields: dict[str, str]) -> list[str]:
    nums = sorted(int(k[6:]) for k in fields if k.startswith("TRIED_") and k[6:].isdigit())
    return [fields[f"TRIED_{n}"] for n in nums]


def write(
    store: Store, fields: dict[str, str], tried_list: list[str], sig_list: list[Sig] | None = None
) -> None:
    """Replace the status file: the known keys of ``fields``, then TRIED_n and SIG_n; the caller holds
    LOCK."""
    from agentctl.verify.repeat import sigs  # loaded by what writes the status, never by resume

    out = {k: fields[k] for k in KEYS if k in fields and k != "UPDATED"}
    out["UPDATED"] = now_iso()
    for i, text in enumerate(tried_list[-MAX_TRIED:], 1):
        out[f"TRIED_{i}"] = text
    for i, sig in enumerate((sigs(fields) if sig_list is None else sig_list)[-MAX_SIGS:], 1):
        out[f"SIG_{i}"] = sig.value()
    store.replace(STATUS, codec.format_status(out))


def journal(store: Store, event: str, run: str, err: str, files_sig: str, text: str) -> None:
    """Append to the task's verify journal (a record of verify/schema.py's JOURNAL); the caller holds the
    verify lock."""
    if event not in schema.EVENTS:
        raise ValueError(f"verify journal event {event!r} is not declared in verify/schema.py")
    store.append(
        JOURNAL, codec.record(now_iso(), event, run, err, files_sig, text[: schema.MAX_TEXT]), sync=False
    )


def commands(store: Store) -> list[str]:
    """The checks to run: this copy's, then the shared file's (verify.trust) while a person trusts them."""
    return local_commands(store) + [c for c in shared_commands(store)[0] if c]


def local_commands(store: Store) -> list[str]:
    data = store.read(COMMANDS) or b""
    out = []
    for line in data.decode("utf-8", "replace").split("\n"):
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


def shared_commands(store: Store) -> tuple[list[str], list[str]]:
    """(the shared verify commands that run here, those waiting for a person's `verify trust`)."""
    from agentctl.verify import trust

    return trust.split(store)


def stop(store: Store) -> dict[str, str]:
    """Clear after a pass (keeping LAST_PASS); refuse after a failure."""
    with store.lock(LOCK):
        fields = read_status(store)
        state = fields.get("STATE", "IDLE")
        if state == "FAILED":
            raise CheckFailed(
                f"verify FAILED (`{fields.get('COMMAND', '')}` exited {fields.get('EXIT_CODE', '?')}); "
                "status kept so the failure is not forgotten; fix it and run `agentctl verify start`"
            )
        new = {"STATE": "IDLE", "RUN": fields.get("RUN", "0")}
        for key in ("LAST_PASS", "LAST_PASS_POS", "LAST_PASS_LOG", "LAST_PASS_CHECKS"):
            if key in fields:
                new[key] = fields[key]
        from agentctl.verify.repeat import sigs

        write(store, new, [], sigs(fields))
    store.log_change("verify", "stop", state)
    return new


def archive_task(store: Store, stem: str) -> str | None:
    """At task stop: move the verify journal to logs/STEM.journal; clear the task's signatures."""
    with store.lock(LOCK):
        fields = read_status(store)
        rel = None
        if store.exists(JOURNAL):
            rel = f"logs/{stem}.journal"
            n = 2
            while store.exists(rel):
                rel = f"logs/{stem}.{n}.journal"
                n += 1
            try:
                os.rename(store.path(JOURNAL), store.path(rel))
            except OSError as exc:
                raise StateError(
                    f"cannot archive {store.shown(JOURNAL)}: {exc.strerror}; run `agentctl doctor`"
                ) from None
        from agentctl.verify.repeat import sigs

        if sigs(fields) or "REPEAT" in fields or "SAME_ERROR" in fields:
            fields.pop("REPEAT", None)
            fields.pop("SAME_ERROR", None)
            write(store, fields, tried(fields), [])
    return rel


def configure(store: Store, command: str, shared: bool = False) -> bool:
    """Append a command to services/verify/commands, or with ``shared`` to the project's shared file
    (used by `verify add`); False when the shared file holds it already."""
    codec.check_text(command, "the verify command", limit=2000)
    if "\n" in command or "\r" in command:
        raise UsageError("a verify command is one line; add several commands one by one")
    command = command.strip()
    if not command or command.startswith("#") or (command.startswith("[") and command.endswith("]")):
        raise UsageError(
            f"{command[:60]!r} is not a command (empty, a comment or a section header); give the shell "
            "command to run, for example `agentctl verify add pytest -q`"
        )
    if shared:
        from agentctl.ground import sharedfile

        with store.lock(LOCK):
            added = sharedfile.add_line(store, "verify", command)
        if added:
            store.log_change("verify", "add", command[:200] + " (shared)")
        return added
    with store.lock(LOCK):
        data = store.read(COMMANDS) or b""
        if data and not data.endswith(b"\n"):
            data += b"\n"
        store.replace(COMMANDS, data + command.encode("utf-8", "surrogateescape") + b"\n")
    store.log_change("verify", "add", command[:200])
    return True


def status_lines(fields: dict[str, str]) -> list[str]:
    return [f"{k}={codec.encode(v)}" for k, v in fields.items() if k != "LAST_PASS_CHECKS"]
