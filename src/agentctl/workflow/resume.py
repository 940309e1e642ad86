"""`agentctl resume`: one bounded block with everything recovery needs.

Order of importance (what is cut last comes first): every P0 rule, the task and
NEXT, the failing check and the fixes already tried, the files touched, P1 and
P2 rules while room remains, and one line saying what to do next. Values are
printed in their escaped one-line form, so nothing stored can break the layout
or reach a terminal as a control sequence.
"""

from __future__ import annotations

import os

import agentctl.constraints.resumelines
import agentctl.constraints.rules
import agentctl.files.resumelines
import agentctl.plan.resumelines
import agentctl.task.resumelines
import agentctl.verify.resumelines
import agentctl.verify.status
from agentctl.constraints import lastseen
from agentctl.context import checkpoint
from agentctl.ground import codec
from agentctl.ground.store import Store
from agentctl.interfaces import report
from agentctl.session import compactions
from agentctl.task import status
from agentctl.userservices import runlevels
from agentctl.workflow import pathanswers, resumefit, resumesections, walls

DEFAULT_BUDGET = 2000
BRIEF_BUDGET = 600
MIN_BUDGET = 200


def _mtime(store: Store, rel: str) -> float:
    try:
        return os.stat(store.path(rel)).st_mtime
    except OSError:
        return 0.0


def build(
    store: Store, budget: int = DEFAULT_BUDGET, *, agent: str | None = None, brief: bool = False
) -> str:
    """The recovery block. ``agent``: a helper's view (its own claims instead of NEXT);
    ``brief`` (or the ``sub`` runlevel): only P0 rules, the task line and NEXT or the claims."""
    if budget < MIN_BUDGET:
        from agentctl.ground.errors import UsageError

        raise UsageError(f"--max-chars must be at least {MIN_BUDGET}")
    if agent is not None:
        from agentctl.task.claims import (
            valid_agent,  # imported where claims are read: the hot path reads none
        )

        valid_agent(agent)
    level = runlevels.current(store)
    if brief or level == "sub":
        return build_brief(store, agent, min(budget, BRIEF_BUDGET))
    active = set(runlevels.services_of(store, level))
    p0, others = agentctl.constraints.rules.read_split(store)  # the others as `P1|text` strings, raw
    sess = compactions.read(store)
    head = f"agentctl state (runlevel {level}"
    if sess.get("COMPACTIONS"):
        n = sess["COMPACTIONS"]
        head += f", {n} compaction{'' if n == '1' else 's'}, last {sess.get('LAST_COMPACTION', '?')}"
    head += ")"

    must: list[str] = [head]
    # before the compaction: what was in flight, what the state cost
    must += checkpoint.resume_section(store, sess)
    # which walls stand (issue 31), protected files against their fingerprints
    must += walls.resume_lines(store)
    rule_lines, p0 = agentctl.constraints.resumelines.p0_lines(store, p0)  # P0 rules whole, never cut
    must += rule_lines

    # each group is kept whole or dropped, in this order (the rules: each that fits)
    optional: list[list[str] | _Rules] = []
    fields = status.read_status(store)
    parked = ""  # a task outside the current runlevel: named, not shown
    if "task" not in active:
        parked = agentctl.task.resumelines.parked(fields)
        if parked:
            must.append(agentctl.task.resumelines.parked_line(fields, level))
        fields = {"STATE": "IDLE"}
    tree: list[str] = []
    # progress proven from the tree (one git grep, no write)
    if fields.get("MATCH") and fields.get("STATE", "IDLE") != "IDLE":
        from agentctl.task import progress

        fields, found = progress.shown(store, fields)
        tree = found.lines() if found is not None else []
    state = fields.get("STATE", "IDLE")
    nxt = fields.get("NEXT", "")
    blocked: tuple[str, str] | None = None
    if state != "IDLE":
        group = [agentctl.task.resumelines.task_line(fields)]
        mine: list[tuple[str, str, int]] = []
        if agent is not None:
            from agentctl.task.claims import claims

            mine = claims(store, fields, agent)
            group.append(agentctl.task.resumelines.claims_line(agent, mine, 1200))
        elif nxt:
            blocked = pathanswers.next_blocked(store, p0, fields)
            group.append(
                f"NEXT={codec.shown(nxt)}"
                + (f" (write-protected by P0 `{codec.shown(blocked[0], 120)}`)" if blocked else "")
            )
        group += agentctl.task.resumelines.details(store, fields)
        must += group + [codec.shown(x, 400) for x in tree]
        apart = []
        if any("ogether" in r[1][:12] for r in p0) or any("ogether" in raw[3:15] for raw in others):
            from agentctl.workflow import cochanges

            apart = cochanges.for_resume(store, p0, others)
        must += [
            codec.shown(p.line(), 400) for p in apart if p.rule.priority == "P0"
        ]  # refused at stop: as a P0 rule
        if any(p.rule.priority != "P0" for p in apart):
            optional.append([codec.shown(p.line(), 400) for p in apart if p.rule.priority != "P0"])
    must += agentctl.plan.resumelines.lines(
        store, fields
    )  # the plan: one bounded line (a stat without a plan)
    vfields = agentctl.verify.status.read_status(store) if "verify" in active or "task" in active else {}
    if state != "IDLE" and vfields:
        from agentctl.verify import evidence

        vfields = evidence.as_this_task(store, vfields)[0]  # an earlier task's failure is not this task's
    vstate = vfields.get("STATE", "IDLE")
    failed, remind = agentctl.verify.resumelines.failed(store, vfields)
    must += failed  # the failing check, its excerpt, its repeats and the fixes already tried
    must += agentctl.verify.resumelines.interrupted(vfields)
    iface = report.resume_lines(store, max(budget // 3, 1200))  # a stat when none is recorded
    must += [ln for ln in iface if resumefit.priority(ln) == 0]  # old uses left: never cut (one bounded fold)
    optional += [g for g in [[ln for ln in iface if resumefit.priority(ln) != 0]] if g]
    ev = None
    if state != "IDLE" and (vstate != "FAILED" or state == "DONE"):  # only where it is shown or used
        from agentctl.verify import evidence

        ev = evidence.check(store, vfields)
        if vstate != "FAILED":
            optional.append([codec.cap(ev.line(), 400)])
    elif agentctl.verify.resumelines.last_pass(vfields):
        optional.append(agentctl.verify.resumelines.last_pass(vfields))
    if state != "IDLE" and agent is None:
        optional += [g for g in [agentctl.task.resumelines.claimed(store, fields)] if g]
    if "files" in active:
        optional += [g for g in [agentctl.files.resumelines.touched(store)] if g]
    if others:
        optional.append(_Rules(others))
    stale = _stale(store, sess, active)
    if stale:
        optional.append([f"STALE (written before the last compaction, re-check): {', '.join(stale)}"])

    # the services' own sections
    pinned = resumesections.add(store, budget, level, fields, agent, must, optional)
    if parked:
        final = (
            f"DO NEXT: task {parked} is outside runlevel {level}; continue it with `agentctl runlevel work`."
        )
    elif agent is not None and state == "ACTIVE":
        final = agentctl.task.resumelines.agent_step(agent, mine)
    elif blocked is not None and state == "ACTIVE":
        final = pathanswers.blocked_step(nxt, blocked[0], blocked[1], codec.shell_arg)
    elif state == "DONE" and (held := agentctl.constraints.resumelines.stop_held(store)):
        final = held  # task stop refuses while a P0 violation is open: the way out first
    else:
        final = agentctl.plan.resumelines.step(
            store,
            fields,
            agentctl.task.resumelines.next_step(
                fields, remind, ev.verdict if ev else "", ev.remedy() if ev else ""
            ),
        )
    used = sum(len(x) + 1 for x in must) + len(final) + 1
    if used + 80 > budget:  # even the essentials overflow: whole lines by priority (see resumefit)
        extra = [
            (4 + j, [f"{r[:3]}{codec.shown(r[3:])}" for r in g.rules] if isinstance(g, _Rules) else g)
            for j, g in enumerate(optional)
        ]
        flat = [(p, [ln]) for p, grp in extra for ln in grp]
        full = used + sum(len(ln) + 1 for _, grp in flat for ln in grp)
        return resumefit.fit(must, flat, final, budget, full, pinned)
    out = list(must)
    dropped: list[str] = []
    for grp in optional:
        if isinstance(grp, _Rules):  # the P1/P2 rules: each one that fits, formatted only then
            kept = 0
            for raw in grp.rules:  # `P1|text`, the text raw
                room = budget - used - 60  # a line fits when its length and newline are within it
                # A rule's line is never under `P1|` and min(len(text), 300) characters (escaping only
                # lengthens, _v cuts at 300): one that cannot fit is not formatted to see, and once
                # not even `P1|` fits, nothing after it can.
                if room < 4:
                    break
                if room < 304 and len(raw) + 1 > room:  # len(raw) - 3: the text's length
                    continue
                line = f"{raw[:3]}{codec.shown(raw[3:])}"
                if len(line) + 1 <= room:
                    out.append(line)
                    used += len(line) + 1
                    kept += 1
            if kept < len(grp.rules):
                dropped.append(f"{len(grp.rules) - kept} P1/P2 rules (`agentctl constraints list`)")
            continue
        cost = sum(len(x) + 1 for x in grp)
        if used + cost + 60 <= budget:
            out += grp
            used += cost
        else:
            dropped.append(_kind(grp))
    if dropped:
        out.append("CUT to fit: " + "; ".join(dropped))
    out.append(final)
    text = "\n".join(out)
    if len(text) > budget:
        note = (
            "\n[CUT at the budget; `agentctl status` and `agentctl constraints list` show everything]\n"
            + final
        )
        text = text[: max(0, budget - len(note))] + note
        text = text[-budget:] if len(text) > budget else text
    return text


class _Rules:
    """resume's group of P1/P2 rules (``P1|text``, raw): of 500, the 20 that fit are formatted."""

    __slots__ = ("rules",)

    def __init__(self, rules: list[str]) -> None:
        self.rules = rules


def _kind(group: list[str] | _Rules) -> str:
    """The word a CUT line names a group by: its first line's first word (``p1`` for the rules)."""
    if isinstance(group, _Rules):
        return group.rules[0][:2].lower()
    return group[0].split(" ", 1)[0].split("|", 1)[0].lower()


def _stale(store: Store, sess: dict[str, str], active: set[str]) -> list[str]:
    last = compactions.last_compaction_ts(sess)
    if last is None:
        return []
    out = []
    checks = [
        ("task", status.STATUS, "task notes/progress"),
        ("verify", agentctl.verify.status.STATUS, "verify result"),
    ]
    for svc, rel, label in checks:
        if svc in active or svc == "verify":
            m = _mtime(store, rel)
            if m and m < last:
                out.append(label)
    return out


def build_brief(store: Store, agent: str | None = None, budget: int = BRIEF_BUDGET) -> str:
    """At most ``budget`` (600) characters for a helper: the P0 rules, the task line, and NEXT
    (or, with ``agent``, that agent's own claims). P0 rules that do not fit are counted on a
    CUT line. Used by `resume --brief`, by the `sub` runlevel and by SubagentStart hooks."""
    if agent is not None:
        from agentctl.task.claims import valid_agent

        valid_agent(agent)
    budget = min(budget, BRIEF_BUDGET)
    # the vanished P0 rules still hold
    rules = agentctl.constraints.rules.read_split(store)[0] + lastseen.gone_rules(store, persist=False)
    fields = status.read_status(store)
    if fields.get("MATCH") and fields.get("STATE", "IDLE") != "IDLE":  # as the full block counts it
        from agentctl.task import progress

        fields = progress.shown(store, fields)[0]
    state = fields.get("STATE", "IDLE")
    body: list[str] = []
    if state == "IDLE":
        body.append("TASK none running (wait for instructions)")
    else:
        body.append(agentctl.task.resumelines.brief_line(fields))
        if agent is not None:
            from agentctl.task.claims import claims

            body.append(agentctl.task.resumelines.claims_line(agent, claims(store, fields, agent), 220))
        elif fields.get("NEXT"):
            q = codec.shown(fields["NEXT"], 180)
            blocked = pathanswers.next_blocked(store, rules, fields)
            body.append(f"NEXT={q}" + (" (write-protected by a P0 rule: do not edit it)" if blocked else ""))
    tail = "Check `agentctl files check PATH` before editing; `agentctl task done PATH` after."
    room = budget - sum(len(x) + 1 for x in body)
    lines: list[str] = []
    cut = 0
    for r in rules:
        line = f"P0|{codec.shown(r.text, 200)}"
        if len(line) + 1 + 60 <= room:
            lines.append(line)
            room -= len(line) + 1
        else:
            cut += 1
    if cut:
        lines.append(f"CUT {cut} more P0 rules: `agentctl constraints list`")
        room -= len(lines[-1]) + 1
    out = lines + body
    if state != "IDLE" and len(tail) + 1 <= room:
        out.append(tail)
    return "\n".join(out)[:budget]


PROMPT = """\
## Working state (agentctl)
This project keeps the coding agent's working state in `.agent-state/`, outside the conversation.
- At the start of every session, after /clear, and whenever the conversation was compacted or summarised:
  run `agentctl resume` first and continue from the task and NEXT it prints. Never rely on memory of
  earlier turns.
- Never break a P0 rule it lists. Before editing a file, `agentctl files check PATH` says whether this
  task already changed it.
- After finishing a listed file: `agentctl task done PATH` (or `agentctl task update --done 1 --seq N`,
  using the SEQ shown).
- When you change an interface's signature (a function, a route, a type others call): record it at once with
  `agentctl interfaces add NAME --old 'OLD FORM' --new 'NEW FORM'`; then migrate every old use it lists.
- When a fix fails verification: `agentctl verify tried "what you tried"`; never repeat a fix listed
  under TRIED.
- Run the checks with `agentctl verify start`; when every entry is done and verify passed:
  `agentctl task stop`.
- When the project has a plan (`agentctl plan list`): start its next ready task with `agentctl plan next`
  (`--agent NAME` when several agents share it); `task stop` marks it done in the plan.
- Do not edit files in `.agent-state/` by hand; use `agentctl`.
"""
