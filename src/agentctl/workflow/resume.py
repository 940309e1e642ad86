"""`agentctl resume`: one bounded block with everything recovery needs.

Order of importance (what is cut last comes first): every P0 rule, the task and
NEXT, the failing check and the fixes already tried, the files touched, P1 and
P2 rules while room remains, and one line saying what to do next. Values are
printed in their escaped one-line form, so nothing stored can break the layout
or reach a terminal as a control sequence.
"""

from __future__ import annotations

import os

import agentctl.constraints.rules
import agentctl.verify.status
from agentctl.constraints import lastseen, violations
from agentctl.context import checkpoint
from agentctl.files import log
from agentctl.ground import codec
from agentctl.ground.store import Store
from agentctl.interfaces import report
from agentctl.plan import resumeline
from agentctl.session import compactions
from agentctl.task import status
from agentctl.userservices import runlevels
from agentctl.workflow import pathanswers, resumefit, resumesections, walls

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.files.gitchanges import Status

DEFAULT_BUDGET = 2000
BRIEF_BUDGET = 600
MIN_BUDGET = 200
ERROR_LINES = 6  # of the failing check's excerpt (verify keeps up to 12)
P0_CHARS = (
    4200  # a P0 rule is printed whole (a rule's text is at most 2000 characters, escaped at most twice that)
)


def _v(value: str, limit: int = 300) -> str:
    # Printable ASCII without `\` or `|` is its own escaped form: checked at C speed (500 rules
    # cost microseconds, not the per-character loop of codec.encode).
    plain = value.isascii() and value.isprintable() and "\\" not in value and "|" not in value
    text = value if plain else codec.encode(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _mtime(store: Store, rel: str) -> float:
    try:
        return os.stat(store.path(rel)).st_mtime
    except OSError:
        return 0.0


def build(
    store: Store,
    budget: int = DEFAULT_BUDGET,
    *,
    agent: str | None = None,
    brief: bool = False,
    tree: Status | None = None,
) -> str:
    """The recovery block. ``agent``: a helper's view (its own claims instead of NEXT);
    ``brief`` (or the ``sub`` runlevel): only P0 rules, the task line and NEXT or the claims.
    ``tree``: the `git status` the counts read, started by the caller (files.matchcounts.prestart)."""
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
    must += [f"P0|{_v(r.text, P0_CHARS)}" for r in p0]  # whole, never cut
    must += violations.lines(store)  # a P0 rule broken anyway: shown until restored or acknowledged
    # a rule line that cannot be taken as written: one line
    must += agentctl.constraints.rules.broken_line(store)
    # a P0 rule that left the file without a person: still enforced, said
    gone = lastseen.gone_rules(store, persist=False)
    must += lastseen.lines(store, persist=False)  # resume writes nothing (the writers record it)
    p0 = p0 + gone

    # each group is kept whole or dropped, in this order (the rules: each that fits)
    optional: list[list[str] | _Rules] = []
    fields = status.read_status(store)
    parked = ""  # a task outside the current runlevel: named, not shown
    if "task" not in active:
        if fields.get("STATE", "IDLE") != "IDLE":
            parked = f"{_v(fields.get('TASK_ID', ''), 64)} {fields.get('STATE')}"
            must.append(
                f"TASK {parked} {fields.get('DONE', '0')}/{fields.get('TOTAL', '0')} (not in runlevel "
                f"{level})"
            )
        fields = {"STATE": "IDLE"}
    proven: list[str] = []
    # progress proven from the tree (one git grep, no write)
    if fields.get("MATCH") and fields.get("STATE", "IDLE") != "IDLE":
        from agentctl.task import progress

        fields, found = progress.shown(store, fields, tree)
        proven = found.lines() if found is not None else []
    state = fields.get("STATE", "IDLE")
    nxt = fields.get("NEXT", "")
    blocked: tuple[str, str] | None = None
    if state != "IDLE":
        skipped = f" ({fields['SKIPPED']} SKIPPED)" if fields.get("SKIPPED", "0") != "0" else ""
        line = (
            f"TASK {_v(fields.get('TASK_ID', ''), 64)} {state} "
            f"{fields.get('DONE', '0')}/{fields.get('TOTAL', '0')}{skipped} "
            f"SEQ={fields.get('SEQ', '0')}: {_v(fields.get('DESC', ''), 200)}"
        )
        group = [line]
        mine: list[tuple[str, str, int]] = []
        if agent is not None:
            from agentctl.task.claims import claims

            mine = claims(store, fields, agent)
            group.append(_claims_line(agent, mine, 1200))
        elif nxt:
            blocked = pathanswers.next_blocked(store, p0, fields)
            group.append(
                f"NEXT={_v(nxt)}" + (f" (write-protected by P0 `{_v(blocked[0], 120)}`)" if blocked else "")
            )
        if fields.get("SKIPPED", "0") != "0":  # named, with their reasons: after a compaction none is edited
            from agentctl.task import entries

            group.append(entries.skipped_line(status.read_entries(store, fields), 400))
        if fields.get("NOTES"):
            group.append(f"NOTES={_v(fields['NOTES'], 300)}")
        must += group + [_v(x, 400) for x in proven]
        apart = []
        if any("ogether" in r[1][:12] for r in p0) or any("ogether" in raw[3:15] for raw in others):
            from agentctl.workflow import cochanges

            apart = cochanges.for_resume(store, p0, others)
        must += [_v(p.line(), 400) for p in apart if p.rule.priority == "P0"]  # refused at stop: as a P0 rule
        if any(p.rule.priority != "P0" for p in apart):
            optional.append([_v(p.line(), 400) for p in apart if p.rule.priority != "P0"])
    must += resumeline.lines(store, fields)  # the plan: one bounded line (a stat without a plan)
    vfields = agentctl.verify.status.read_status(store) if "verify" in active or "task" in active else {}
    if state != "IDLE" and vfields:
        from agentctl.verify import evidence

        vfields = evidence.as_this_task(store, vfields)[0]  # an earlier task's failure is not this task's
    vstate = vfields.get("STATE", "IDLE")
    remind = vstate == "FAILED"  # DO NEXT asks to record failed fixes until the TRIED line shows some
    if vstate == "FAILED":
        errs = vfields.get("ERRORS", "").split("\n") if vfields.get("ERRORS") else []
        how = vfields.get("REASON") or f"exit {vfields.get('EXIT_CODE', '?')}"
        nerr = vfields.get("ERROR_COUNT", "0")
        group = [
            f"VERIFY FAILED `{_v(vfields.get('COMMAND', ''), 120)}` {_v(how, 80)}"
            + (f", {nerr} error lines" if nerr not in ("", "0") else "")
            + (
                f", {vfields['ATTEMPTS']} failed runs in a row"
                if vfields.get("ATTEMPTS", "1") not in ("", "0", "1")
                else ""
            )
        ]
        group += [f"  {_v(e, 160)}" for e in errs[:ERROR_LINES]]
        # named only where it is (a clone has none)
        if vfields.get("LOG") and os.path.isfile(store.path(vfields["LOG"])):
            group.append(f"  full output: {_v(store.shown(vfields['LOG']), 200)}")
        if vfields.get("REPEAT"):
            group.append(
                f"REPEATED: this failure is identical to {_v(vfields['REPEAT'], 200)} (same error, same "
                f"files); do not try that again"
            )
        elif vfields.get("SAME_ERROR"):
            group.append(f"SAME ERROR as {_v(vfields['SAME_ERROR'], 200)}, though the files changed")
        tried = agentctl.verify.status.tried(vfields)
        if tried:
            remind = False
            group.append(
                "TRIED (failed, do not repeat): "
                + " ".join(f"{i}) {_v(t, 120)}" for i, t in enumerate(tried, 1))
            )
        must += group
    if vfields.get("INTERRUPTED"):
        must.append(
            f"VERIFY INTERRUPTED: {_v(vfields['INTERRUPTED'], 240)}; not a result: run `agentctl verify "
            f"start` again"
        )
    iface = report.resume_lines(store, max(budget // 3, 1200), tree)  # a stat when none is recorded
    must += [ln for ln in iface if resumefit.priority(ln) == 0]  # old uses left: never cut (one bounded fold)
    optional += [g for g in [[ln for ln in iface if resumefit.priority(ln) != 0]] if g]
    ev = None
    if state != "IDLE" and (vstate != "FAILED" or state == "DONE"):  # only where it is shown or used
        from agentctl.verify import evidence

        ev = evidence.check(store, vfields)
        if vstate != "FAILED":
            optional.append([_cap(ev.line(), 400)])
    elif vstate == "PASSED" or vfields.get("LAST_PASS"):
        optional.append(
            [f"VERIFY {'PASSED' if vstate == 'PASSED' else 'last passed'} {vfields.get('LAST_PASS', '')}"]
        )
    if state != "IDLE" and agent is None and fields.get("CLAIMS", "0") != "0":
        from agentctl.task.claims import claims

        held = claims(store, fields)
        if held:
            optional.append(
                [
                    _cap(
                        f"CLAIMED by helpers (not yours, NEXT skips them): {len(held)} entries: "
                        + ", ".join(f"{codec.encode(p)} ({codec.encode(a)})" for p, a, _ in held[:5]),
                        400,
                    )
                ]
            )
    if "files" in active:
        count, exact, last = log.recent(store, 3)  # the last paths: a bounded read of the log's end
        if not exact:
            from agentctl.files.count import touched_count

            count = touched_count(store)  # the count: exact however long the log (see filecount)
        if count:
            optional.append([f"FILES {count} touched, last: " + ", ".join(_v(p, 100) for p in last)])
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
        final = _agent_step(agent, mine, vstate)
    elif blocked is not None and state == "ACTIVE":
        final = pathanswers.blocked_step(nxt, blocked[0], blocked[1], _arg)
    else:
        final = resumeline.step(store, fields, _next_step(state, fields, remind, ev))
    used = sum(len(x) + 1 for x in must) + len(final) + 1
    if used + 80 > budget:  # even the essentials overflow: whole lines by priority (see resumefit)
        extra = [
            (4 + j, [f"{r[:3]}{_v(r[3:])}" for r in g.rules] if isinstance(g, _Rules) else g)
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
                line = f"{raw[:3]}{_v(raw[3:])}"
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


_SHELL_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-")


def _arg(path: str) -> str:
    """A path as a shell argument the agent can copy: bare when safe, else single-quoted;
    a path with control characters stays in its escaped form (never raw on a terminal)."""
    if path and all(c in _SHELL_SAFE for c in path):
        return path
    if path.isprintable():
        return "'" + path.replace("'", "'\"'\"'") + "'"
    return codec.encode(path)


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _claims_line(agent: str, mine: list[tuple[str, str, int]], limit: int) -> str:
    if not mine:
        return f"YOUR CLAIMS ({agent}): none; get an entry with `agentctl task claim --agent {agent}`"
    from agentctl.ground.store import now_iso

    return _cap(
        f"YOUR CLAIMS ({agent}): "
        + ", ".join(f"{codec.encode(p)} (until {now_iso(x)[11:19]})" for p, _, x in mine),
        limit,
    )


def _agent_step(agent: str, mine: list[tuple[str, str, int]], vstate: str) -> str:
    if not mine:
        return (
            f"DO NEXT: claim an entry with `agentctl task claim --agent {agent}` (exit 1: none left); "
            "work only on entries you claimed."
        )
    q = _arg(mine[0][0])
    return (
        f"DO NEXT: work on your claim {q} (`agentctl files check {q}` first), then `agentctl task done {q}` "
        f"(releases the claim); then claim the next with `agentctl task claim --agent {agent}`."
    )


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
    state = fields.get("STATE", "IDLE")
    body: list[str] = []
    if state == "IDLE":
        body.append("TASK none running (wait for instructions)")
    else:
        body.append(
            _cap(
                f"TASK {_v(fields.get('TASK_ID', ''), 64)} {state} "
                f"{fields.get('DONE', '0')}/{fields.get('TOTAL', '0')} "
                f"SEQ={fields.get('SEQ', '0')}: {_v(fields.get('DESC', ''), 120)}",
                220,
            )
        )
        if agent is not None:
            from agentctl.task.claims import claims

            body.append(_claims_line(agent, claims(store, fields, agent), 220))
        elif fields.get("NEXT"):
            q = _v(fields["NEXT"], 180)
            blocked = pathanswers.next_blocked(store, rules, fields)
            body.append(f"NEXT={q}" + (" (write-protected by a P0 rule: do not edit it)" if blocked else ""))
    tail = "Check `agentctl files check PATH` before editing; `agentctl task done PATH` after."
    room = budget - sum(len(x) + 1 for x in body)
    lines: list[str] = []
    cut = 0
    for r in rules:
        line = f"P0|{_v(r.text, 200)}"
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


def _next_step(state: str, fields: dict[str, str], remind: bool, ev: object = None) -> str:
    nxt = fields.get("NEXT", "")
    if state == "IDLE":
        return (
            "DO NEXT: no task is running; wait for instructions, then `agentctl task start --id ID "
            "--desc TEXT --files LIST`."
        )
    if state == "PAUSED":
        return (
            "DO NEXT: the task is PAUSED; continue it with `agentctl runlevel work` or `agentctl task "
            "update --state ACTIVE`."
        )
    if state == "DONE":
        verdict = getattr(ev, "verdict", "")
        if verdict in ("yes", "none"):
            return (
                "DO NEXT: every entry is done"
                + (" and verified" if verdict == "yes" else "")
                + "; run `agentctl task stop` to archive the task."
            )
        return (
            "DO NEXT: every entry is done; run `agentctl verify start` until it passes, then `agentctl "
            "task stop` to archive the task."
        )
    if not nxt:
        if fields.get("CLAIMS", "0") != "0":
            return (
                "DO NEXT: every entry left is claimed by a helper; wait for their `agentctl task done`, "
                "or mark one by name with `agentctl task done PATH`."
            )
        return "DO NEXT: continue the task; record progress with `agentctl task update --notes TEXT`."
    q = _arg(nxt)
    fix = " Record each failed fix: `agentctl verify tried TEXT`." if remind else ""
    return (
        f"DO NEXT: `agentctl files check {q}`; unless it exits 0 (already edited), edit it; then "
        f"`agentctl task done {q}`.{fix}"
    )


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
