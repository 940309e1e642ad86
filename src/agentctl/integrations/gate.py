"""How a pre-edit hook decides a write, and refuses one (no import of hookrun: hookrun uses this).

A pre-edit hook (hookrun.PRE_EDIT) refuses a write to a path that a P0 ``deny-write:`` rule matches
by any name of the file (protect.judge), and any write into the state folder; it never fails open:
a write it cannot judge is refused with a reason naming ``agentctl doctor`` (or, when it is the
payload that does not say which file is written, a path that is no string, a ``tool_input`` that
is no object, a write with no input at all: :class:`PayloadError`, the payload's fix). (After a tool ran,
a P0 violation found is told to the agent at once: hookact.told, hookact.tell.)
"""

from __future__ import annotations

from agentctl.integrations.hookio import Result, emit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from agentctl.ground.store import Store

DOCTOR_FIX = "run `agentctl doctor` to see and fix the problem, then retry"
PAYLOAD_FIX = (
    "retry the edit; if this keeps happening, the agent sends its hook input in a form this "
    "agentctl does not know: update agentctl"
)


class PayloadError(ValueError):
    """The agent's payload does not say, in a shape agentctl can read, which file a write changes:
    refused (never allowed unjudged), with PAYLOAD_FIX."""


def tool_input(value: object, what: str = "tool_input") -> dict[str, Any]:
    """A write tool's input as an object: itself, or the object a JSON string holds; else PayloadError."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        from agentctl.integrations.hookio import loads

        try:
            decoded = loads(value.encode("utf-8", "surrogatepass"))
        except (ValueError, RecursionError):
            raise PayloadError(f"{what} is a string that is not JSON") from None
        if isinstance(decoded, dict):
            return decoded
        raise PayloadError(f"{what} is a JSON string holding {_kind(decoded)}, not an object")
    if value is None:
        raise PayloadError(f"the write's payload has no {what}")
    raise PayloadError(f"{what} is JSON {_kind(value)}, not an object")


def _kind(value: object) -> str:
    return {
        "list": "an array",
        "dict": "an object",
        "str": "a string",
        "int": "a number",
        "float": "a number",
        "bool": "a boolean",
        "NoneType": "null",
    }.get(type(value).__name__, type(value).__name__)


def unjudged(why: str, fix: str = DOCTOR_FIX) -> str:
    return (
        f"agentctl could not check this write against the project's P0 rules ({why[:200]}); the edit was "
        f"not made: {fix}"
    )


def refuse(agent: str, reason: str) -> Result:
    """A deny when the payload or the state could not be read: the agent's JSON, and exit 2 with the
    reason on stderr, which blocks in every agent whatever shape it expected (Cline reads only the
    JSON, on exit 0)."""
    if agent == "cline":
        return emit({"cancel": True, "errorMessage": reason + "; Cline stopped the task before the write"})
    if agent == "gemini":
        out = emit({"decision": "deny", "reason": reason})
    else:
        out = emit(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                }
            }
        )
    return Result(out.stdout, 2, reason)


def deny_reason(
    store: Store,
    cwd: str,
    agent: str,
    raws: list[object],
    later: Callable[..., None],
    notes: list[str] | None = None,
    outer: bool = True,
) -> str | None:
    """The reason to refuse writing any of ``raws``, or None; raises when it cannot judge.

    Decided before anything is written: the log line is handed to ``later`` (after the answer).
    A line of the rules file that cannot be taken as written changes nothing for the paths it
    cannot mean; a path it may mean is refused (see docs/guarantees.md), and either way a short
    note about it goes to ``notes``, for the hook's answer.

    With ``outer`` (the hook's own call) each path is then judged by every other state folder that
    governs it (ground.governing: from the path's folder up to the repository root), whichever
    folder the payload's cwd chose: a nested state folder never hides an ancestor's rules.
    """
    import agentctl.constraints.policy
    import agentctl.constraints.rules
    from agentctl.ground.location import identity, in_state

    policy = None
    if not raws:
        raise PayloadError("the write's payload names no file")
    for raw in raws:
        if raw is None:
            raise PayloadError("the write's payload names no file path")
        if not isinstance(raw, str):
            raise PayloadError(f"the path is JSON {_kind(raw)}, not a string")
        if not raw.strip():
            raise PayloadError("the path is empty")
        raw.encode("utf-8")  # a lone surrogate cannot name a file we can judge: UnicodeEncodeError
        spelled, target = identity(store, raw, cwd)
        state = in_state(store, spelled, target)
        if state is not None:
            later(store.log_change, "hook", "deny", f"{agent} {state} (state folder)")
            return (
                f"{state} is agentctl's state folder; change state through agentctl "
                "(`agentctl task|files|constraints ...`), not by editing its files; the edit was not made"
            )
        if policy is None:  # the one P0 policy, the vanished rules in it: decided, nothing written
            policy = agentctl.constraints.policy.of(store, persist=False)
            if policy.broken and notes is not None:
                notes.append(agentctl.constraints.rules.short_note(store, policy.broken))
        found = policy.judge(spelled, target)
        if found is not None:
            rule, via = found
            shown = spelled or raw
            also = "" if via == shown else f" ({shown} is {via})"
            if isinstance(rule, agentctl.constraints.rules.Broken):
                later(store.log_change, "hook", "deny", f"{agent} {via} by broken rules line {rule.lineno}")
                meant = " or ".join(f"`deny-write: {w}`" for w in rule.wide[:3])
                return (
                    f"line {rule.lineno} of the rules file, `{rule.text[:120]}`, {rule.why[:160]}; read as "
                    f"the P0 "
                    f"{meant} it may mean, it forbids writing {via}{also} until a person mends "
                    "it (fix the line, or `agentctl doctor --fix` moves it aside); the edit was not made"
                )
            later(store.log_change, "hook", "deny", f"{agent} {via} by P0|{rule.text}")
            gone = (
                ""
                if not policy.vanished(rule)
                else (
                    " (the rule left the rules file without `agentctl constraints remove` and stays enforced "
                    "until a "
                    "person confirms its removal with `agentctl constraints confirm-removal`)"
                )
            )
            return (
                f"P0 constraint `{rule.text}` (agentctl) forbids writing {via}{also}{gone}; the edit was "
                f"not made"
            )
    return _governing_reason(store, cwd, agent, raws, later, notes) if outer else None


def _governing_reason(
    store: Store,
    cwd: str,
    agent: str,
    raws: list[object],
    later: Callable[..., None],
    notes: list[str] | None,
) -> str | None:
    """The reason another state folder governing one of ``raws`` refuses it (ground.governing), or None."""
    import os

    import agentctl.ground.store
    from agentctl.ground.governing import governing

    here = os.path.realpath(store.root)
    for raw in raws:
        assert isinstance(raw, str)
        full = os.path.join(cwd or store.project, os.path.expanduser(raw))
        roots = dict.fromkeys(governing(full) + governing(os.path.realpath(full)))
        for root in roots:
            if os.path.realpath(root) == here:
                continue
            other = agentctl.ground.store.Store(root)
            other.lock_deadline = store.lock_deadline
            why = deny_reason(other, cwd, agent, [os.path.abspath(full)], later, notes, outer=False)
            if why is not None:
                return f"{why} (the rules of {root}, which governs this path)"
    return None
