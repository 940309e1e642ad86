"""What the commands and resume say about protected paths: the answers of `constraints check` and
`constraints ack`, and a NEXT that a P0 rule write-protects (resume never tells the agent to edit it)."""

from __future__ import annotations

import agentctl.constraints.rules
from agentctl.constraints import protect, violations
from agentctl.constraints.rules import Rule
from agentctl.ground import codec
from agentctl.ground.errors import UsageError
from agentctl.ground.location import other_reading, real_rel
from agentctl.ground.store import Store
from agentctl.task import status
from agentctl.task.agentpaths import resolve_arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def next_blocked(store: Store, rules: list[Rule], fields: dict[str, str]) -> tuple[str, str] | None:
    """(rule text, the first entry to do instead or "") when NEXT is a path a P0 deny-write rule
    forbids: resume then never tells the agent to edit it. None when NEXT may be edited."""
    nxt = fields.get("NEXT", "")
    p0 = [r for r in rules if r.priority == "P0"]
    if not nxt or not p0:
        return None
    fold = protect.case_insensitive(store)
    rule = agentctl.constraints.rules.match(p0, nxt, fold)
    if rule is None:
        return None
    instead = ""
    try:
        from agentctl.task.entries import claim_of

        for e in status.read_entries(store, fields):
            if (
                not e.done
                and e.path != nxt
                and claim_of(e) is None
                and agentctl.constraints.rules.match(p0, e.path, fold) is None
            ):
                instead = e.path
                break
    except Exception:  # the list is judged by doctor; this is advice only
        instead = ""
    return rule.text, instead


def blocked_step(nxt: str, rule: str, instead: str, arg: object) -> str:
    """resume's DO NEXT when NEXT is write-protected (``arg`` quotes a path for the shell)."""
    q = arg(nxt) if callable(arg) else nxt
    head = (
        f"DO NEXT: NEXT {q} is write-protected by P0 `{rule}`: do not edit it; ask the user whether to "
        f"lift the rule or drop the entry"
    )
    if instead:
        i = arg(instead) if callable(arg) else instead
        return (
            head + f"; meanwhile work on {i} (`agentctl files check {i}`, edit it, `agentctl task done {i}`)."
        )
    return head + "."


def next_note(store: Store, fields: dict[str, str]) -> list[str]:
    """A ``NOTE=`` line for command output when NEXT is write-protected (else none)."""
    import agentctl.constraints.policy

    blocked = next_blocked(store, agentctl.constraints.policy.of(store).rules, fields)
    if blocked is None:
        return []
    instead = f"; the next entry you may edit is {codec.encode(blocked[1])}" if blocked[1] else ""
    return [f"NOTE=NEXT is write-protected by P0 `{blocked[0]}`: do not edit it{instead}"]


def start_warnings(store: Store, paths: list[str]) -> list[str]:
    """What `task start` says about entries a P0 rule protects."""
    import agentctl.constraints.policy

    protected = agentctl.constraints.policy.denied_entries(store, paths)
    if not protected:
        return []
    return [
        f"{len(protected)} of {len(paths)} entries are write-protected by a P0 rule (first: "
        f"{protected[0][0]} by "
        f"`{protected[0][1]}`): they cannot be edited; resume's DO NEXT skips them"
    ]


def check_answer(store: Store, raw: str, warn: Callable[[str], None]) -> tuple[list[str], dict[str, object]]:
    """`constraints check PATH`: (lines, data); data["allowed"] decides the exit code."""
    path, real = resolve_arg(store, raw, warn)
    import agentctl.constraints.policy

    # the one P0 policy: a rule that vanished without a person's confirmation too
    policy = agentctl.constraints.policy.of(store)
    rules = policy.rules
    for line in agentctl.constraints.rules.problem_lines(store, policy.broken):
        warn(line)
    hit = policy.judge(path, real)
    co = _together_lines(rules, path)
    if hit is None:
        other = other_reading(store, raw, path)
        found = protect.judge(store, rules, other, real_rel(store, other)) if other is not None else None
        if found is not None:  # a new file: say so when the other reading of the spelling is denied
            warn(
                f"{path} is allowed, but {other} (the project-root reading of {raw!r}) is denied by "
                f"{found[0].line()}"
            )
        return [f"{path}: allowed"] + co[0], {"path": path, "allowed": True, "together": co[1]}
    via = "" if hit[1] == path else f" (as {hit[1]})"
    return (
        [f"{path}: denied by {hit[0].line()}{via}"] + co[0],
        {"path": path, "allowed": False, "rule": hit[0].line(), "together": co[1]},
    )


def _together_lines(rules: list[Rule], path: str) -> tuple[list[str], list[dict[str, str]]]:
    """The together rules a change of ``path`` triggers: (lines, data)."""
    if not any("ogether" in r[1][:12] for r in rules):
        return [], []
    from agentctl.constraints import together

    hits = together.triggered_by(rules, path)
    return (
        [f"{path}: triggers {r.line()}: change {right} in the same task" for r, right in hits],
        [{"rule": r.line(), "with": right} for r, right in hits],
    )


def ack_answer(store: Store, raw: str, warn: Callable[[str], None]) -> tuple[list[str], dict[str, object]]:
    """`constraints ack PATH` (by either name of the file): (lines, data); data["acked"] decides the exit
    code."""
    open_now = violations.open_ones(store)
    path, real = resolve_arg(store, raw, warn)
    path = path if path in open_now else real
    acked = violations.ack(store, path)
    if acked and violations.acked_as_it_is(store, path):  # the acknowledged write: its fingerprint now
        from agentctl.constraints import fingerprints

        fingerprints.refresh(store, path)
    if not acked:
        shown = ", ".join(open_now) or "none"
        return [f"{path}: no open P0 violation (open: {shown[:300]})"], {
            "path": path,
            "acked": False,
            "open": list(open_now),
        }
    return [f"{path}: violation acknowledged; recorded in logs/agent.log"], {"path": path, "acked": True}


def mark_done(store: Store, raws: list[str], warn: Callable[[str], None]) -> status.UpdateResult:
    """`task done PATH...`: each path by the one path rule; an entry named through a symlink is found
    under its real path."""
    both = [resolve_arg(store, raw, warn) for raw in raws]
    paths = [rel for rel, _ in both]
    try:
        return status.mark_done(store, paths)
    except UsageError:
        real = [target for _, target in both]
        if real == paths:
            raise
        return status.mark_done(store, real)
