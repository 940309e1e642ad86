"""The verify service's lines in `agentctl resume`: the failing check with its excerpt, its repeats
and the fixes already tried; an interrupted run; the last pass. They read, never write."""

from __future__ import annotations

import os

from agentctl.ground import codec
from agentctl.ground.store import Store
from agentctl.verify import status

ERROR_LINES = 6  # of the failing check's excerpt (verify keeps up to 12)


def failed(store: Store, vfields: dict[str, str]) -> tuple[list[str], bool]:
    """The failing check's lines (none unless the result is FAILED), and whether DO NEXT should ask
    to record the failed fixes (no TRIED line shows one yet)."""
    if vfields.get("STATE", "IDLE") != "FAILED":
        return [], False
    v = codec.shown
    errs = vfields.get("ERRORS", "").split("\n") if vfields.get("ERRORS") else []
    how = vfields.get("REASON") or f"exit {vfields.get('EXIT_CODE', '?')}"
    nerr = vfields.get("ERROR_COUNT", "0")
    group = [
        f"VERIFY FAILED `{v(vfields.get('COMMAND', ''), 120)}` {v(how, 80)}"
        + (f", {nerr} error lines" if nerr not in ("", "0") else "")
        + (
            f", {vfields['ATTEMPTS']} failed runs in a row"
            if vfields.get("ATTEMPTS", "1") not in ("", "0", "1")
            else ""
        )
    ]
    group += [f"  {v(e, 160)}" for e in errs[:ERROR_LINES]]
    # named only where it is (a clone has none)
    if vfields.get("LOG") and os.path.isfile(store.path(vfields["LOG"])):
        group.append(f"  full output: {v(store.shown(vfields['LOG']), 200)}")
    if vfields.get("REPEAT"):
        group.append(
            f"REPEATED: this failure is identical to {v(vfields['REPEAT'], 200)} (same error, same "
            f"files); do not try that again"
        )
    elif vfields.get("SAME_ERROR"):
        group.append(f"SAME ERROR as {v(vfields['SAME_ERROR'], 200)}, though the files changed")
    tried = status.tried(vfields)
    if tried:
        group.append(
            "TRIED (failed, do not repeat): " + " ".join(f"{i}) {v(t, 120)}" for i, t in enumerate(tried, 1))
        )
    return group, not tried


def interrupted(vfields: dict[str, str]) -> list[str]:
    """A run that was cut off: not a result."""
    if not vfields.get("INTERRUPTED"):
        return []
    return [
        f"VERIFY INTERRUPTED: {codec.shown(vfields['INTERRUPTED'], 240)}; not a result: run `agentctl "
        f"verify start` again"
    ]


def last_pass(vfields: dict[str, str]) -> list[str]:
    """The last passing run, when no task's evidence line says more."""
    if vfields.get("STATE") == "PASSED":
        return [f"VERIFY PASSED {vfields.get('LAST_PASS', '')}"]
    if vfields.get("LAST_PASS"):
        return [f"VERIFY last passed {vfields['LAST_PASS']}"]
    return []
