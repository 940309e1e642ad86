"""How a pre-edit hook decides a write, and refuses one (no import of hookrun: hookrun uses this).

A pre-edit hook (hookrun.PRE_EDIT) refuses a write to a path that a P0 ``deny-write:`` rule matches
by any name of the file (protect.judge), and any write into the state folder; it never fails open:
a write it cannot judge is refused with a reason naming ``agentctl doctor``. (After a tool ran,
a P0 violation found is told to the agent at once: hookact.told, hookact.tell.)
"""

from __future__ import annotations

from agentctl.integrations.hookio import Result, emit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from agentctl.ground.store import Store

DOCTOR_FIX = "run `agentctl doctor` to see and fix the problem, then retry"
PAYLOAD_FIX = ("retry the edit; if this keeps happening, the agent sends its hook input in a form this "
               "agentctl does not know: update agentctl")


def unjudged(why: str, fix: str = DOCTOR_FIX) -> str:
    return f"agentctl could not check this write against the project's P0 rules ({why[:200]}); the edit was not made: {fix}"


def refuse(agent: str, reason: str) -> Result:
    """A deny when the payload or the state could not be read: the agent's JSON, and exit 2 with the
    reason on stderr, which blocks in every agent whatever shape it expected (Cline reads only the
    JSON, on exit 0)."""
    if agent == "cline":
        return emit({"cancel": True, "errorMessage": reason + "; Cline stopped the task before the write"})
    if agent == "gemini":
        out = emit({"decision": "deny", "reason": reason})
    else:
        out = emit({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                            "permissionDecisionReason": reason}})
    return Result(out.stdout, 2, reason)


def deny_reason(store: Store, cwd: str, agent: str, raws: list[object],
                later: Callable[..., None]) -> str | None:
    """The reason to refuse writing any of ``raws``, or None; raises when it cannot judge.

    Decided before anything is written: the log line is handed to ``later`` (after the answer).
    """
    from agentctl.constraints import lastseen, protect
    from agentctl.constraints import rules as constraints
    from agentctl.ground.location import identity, in_state

    rules = None
    for raw in raws:
        if raw is None:
            continue
        if not isinstance(raw, str):
            raise ValueError(f"the path is JSON {type(raw).__name__}, not a string")
        raw.encode("utf-8")  # a lone surrogate cannot name a file we can judge: UnicodeEncodeError
        spelled, target = identity(store, raw, cwd)
        state = in_state(store, spelled, target)
        if state is not None:
            later(store.log_change, "hook", "deny", f"{agent} {state} (state folder)")
            return (f"{state} is agentctl's state folder; change state through agentctl "
                    "(`agentctl task|files|constraints ...`), not by editing its files; the edit was not made")
        if rules is None:
            rules = lastseen.enforced(store, persist=False)  # and the vanished P0 rules; decided, nothing written
        found = protect.judge(store, rules, spelled, target)
        if found is not None:
            rule, via = found
            shown = spelled or raw
            also = "" if via == shown else f" ({shown} is {via})"
            later(store.log_change, "hook", "deny", f"{agent} {via} by P0|{rule.text}")
            gone = "" if rule in constraints.read(store) else (
                " (the rule left the rules file without `agentctl constraints remove` and stays enforced until a "
                "person confirms its removal with `agentctl constraints confirm-removal`)")
            return f"P0 constraint `{rule.text}` (agentctl) forbids writing {via}{also}{gone}; the edit was not made"
    return None
