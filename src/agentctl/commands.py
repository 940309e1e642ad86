"""Command handlers: each parses nothing itself, calls the library core, and prints.

Service modules are imported inside the handlers so each command loads only what
it uses.
"""

from __future__ import annotations

import os
import sys

from agentctl.commands_task import _public, _seq_text, _warn_untouched  # also registers task start/add/...
from agentctl.errors import EXIT_NO, EXIT_OK, UsageError
from agentctl.location import resolve_arg
from agentctl.registry import Ctx, command

TYPE_CHECKING = False  # no `typing` at run time on the hot path
if TYPE_CHECKING:
    from typing import Any


# -- init / status / resume / prompt -------------------------------------------------------

@command(("init",), "init [--no-pull]", "create .agent-state/ here (an existing one above keeps its state)",
         {"--no-pull": "flag"})
def cmd_init(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl.layout import init
    from agentctl.location import find_state_dir, git_root

    found = find_state_dir(explicit=ctx.state_dir)
    project = os.path.dirname(found) if found else os.getcwd()
    store, created = init(project)
    what = f"created {', '.join(created)}" if created else "already initialised; existing state kept"
    lines = [f"{store.root}: {what}", "next: `agentctl constraints add P0 TEXT`, then `agentctl task start`"]
    root = git_root(project)
    if created and root is not None and not opts.get("--no-pull"):
        from agentctl.refsync.commands import pull_on_init

        pulled = pull_on_init(store)  # a fresh clone of a project whose state travels in git refs
        if pulled:
            lines.insert(1, pulled)
    if created and root is not None and root != project:
        ctx.warn(f"this is a subfolder of the git repository {root}: commands run outside {project} will not "
                 "find this state (fine for one project of a monorepo; else run `agentctl init` at the root)")
    ctx.emit(lines, {"ok": True, "state_dir": store.root, "created": created})
    return EXIT_OK


@command(("status",), "status [SERVICE]", "every service and its state (or one service's status)", max_pos=1)
def cmd_status(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    if pos:
        return _service_status(ctx, pos[0])
    from agentctl import constraints, custom, files, runlevels, task, verify

    store = ctx.store()
    level = runlevels.current(store)
    active = runlevels.services_of(store, level)
    t = task.read_status(store)
    v = verify.read_status(store)
    rules = constraints.read(store)
    touched = files.touched(store)
    rows: list[dict[str, Any]] = [
        {"service": "task", "state": t.get("STATE", "IDLE"),
         "detail": f"{t.get('TASK_ID', '')} {t.get('DONE', '0')}/{t.get('TOTAL', '0')} NEXT={t.get('NEXT', '')}" if t.get("STATE") != "IDLE" else ""},
        {"service": "files", "state": "RUNNING" if "files" in active else "STOPPED", "detail": f"{len(touched)} files touched"},
        {"service": "constraints", "state": "RUNNING",
         "detail": " ".join(f"{p}:{sum(1 for r in rules if r.priority == p)}" for p in ("P0", "P1", "P2"))},
        {"service": "verify", "state": v.get("STATE", "IDLE"),
         "detail": f"last run {v.get('LAST_RUN', 'never')}" + (f", attempts {v.get('ATTEMPTS')}" if v.get("STATE") == "FAILED" else "")},
    ]
    for name in custom.discover(store):
        rows.append({"service": name, "state": "IN-RUNLEVEL" if name in active else "STOPPED", "detail": "user service"})
    for row in rows:
        row["in_runlevel"] = row["service"] in active
    lines = [f"runlevel {level}: {' '.join(active)}"]
    lines += [f"{r['service']:<12} {r['state']:<8} {r['detail']}".rstrip() for r in rows]
    ctx.emit(lines, {"runlevel": level, "services": rows})
    return EXIT_OK


def _service_status(ctx: Ctx, name: str) -> int:
    from agentctl.registry import COMMANDS

    if (name, "status") in COMMANDS:
        return COMMANDS[(name, "status")].handler(ctx, {}, [])
    return cmd_custom(ctx, {}, [name, "status"])


@command(("resume",), "resume [--max-chars N] [--agent NAME] [--brief]",
         "one bounded block with everything needed to continue after a compaction",
         {"--max-chars": "int", "--agent": "value", "--brief": "flag"})
def cmd_resume(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import resume

    budget = opts.get("--max-chars", resume.DEFAULT_BUDGET)
    text = resume.build(ctx.store(), budget, agent=opts.get("--agent"), brief=bool(opts.get("--brief")))
    ctx.emit([text], {"resume": text, "chars": len(text), "budget": budget, "brief": bool(opts.get("--brief"))})
    return EXIT_OK


@command(("prompt",), "prompt", "the startup protocol, to paste into a system prompt or AGENTS.md")
def cmd_prompt(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl.resume import PROMPT

    ctx.emit([PROMPT.rstrip("\n")], {"prompt": PROMPT})
    return EXIT_OK


@command(("runlevel",), "runlevel [NAME]", "show the runlevel, or switch to NAME (stops/starts services)", max_pos=1)
def cmd_runlevel(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import runlevels

    store = ctx.store()
    if not pos:
        level = runlevels.current(store)
        table = runlevels.table(store)
        lines = [f"RUNLEVEL={level}"] + [f"{'*' if k == level else ' '} {k}={' '.join(v)}" for k, v in table.items()]
        ctx.emit(lines, {"runlevel": level, "levels": table})
        return EXIT_OK
    result = runlevels.switch(store, pos[0], ctx.say)
    ctx.emit([f"RUNLEVEL={result.new} (was {result.old})"], {"runlevel": result.new, "previous": result.old, "steps": result.steps})
    return EXIT_OK


# -- task -------------------------------------------------------------------------------------

@command(("task", "update"), "task update [--done N] [--next PATH] [--notes TEXT] [--state ACTIVE|PAUSED] [--seq N]",
         "record progress; with --seq N it applies only when SEQ is N (a replay is a no-op)",
         {"--done": "int1", "--next": "value", "--notes": "value", "--state": "value", "--seq": "int"})
def cmd_task_update(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import task

    store = ctx.store()
    nxt = resolve_arg(store, opts["--next"], ctx.warn)[0] if "--next" in opts else None
    result = task.update(store, done=opts.get("--done"), next_path=nxt, notes=opts.get("--notes"),
                         state=opts.get("--state"), seq=opts.get("--seq"))
    ctx.emit(_seq_text(result.applied, result.fields, result.message, store),
             {"applied": result.applied, "seq": int(result.fields.get("SEQ", "0")), "message": result.message,
              "marked": result.changed, "task": _public(result.fields)})
    return EXIT_OK


@command(("task", "done"), "task done PATH...", "mark list entries done (already done: no change)", min_pos=1, max_pos=None)
def cmd_task_done(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import answers

    store = ctx.store()
    result = answers.mark_done(store, pos, ctx.warn)
    _warn_untouched(ctx, store, result.changed)
    ctx.emit(_seq_text(result.applied, result.fields, result.message, store),
             {"applied": result.applied, "seq": int(result.fields.get("SEQ", "0")), "message": result.message,
              "marked": result.changed, "task": _public(result.fields)})
    return EXIT_OK


@command(("task", "stop"), "task stop [--force]", "archive the task to logs/ and go back to IDLE", {"--force": "flag"})
def cmd_task_stop(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import task

    result = task.stop(ctx.store(), force=bool(opts.get("--force")))
    lines = []
    if result.warning:
        ctx.warn(result.warning)
    if result.forced:
        broke = "a P0 rule was broken" if result.fields.get("VIOLATIONS_OPEN_AT_STOP") else "not verified"
        ctx.warn(f"stopped with --force although {broke}; recorded as FORCED=1 in {result.archive}")
    lines.append(f"task {result.task_id} archived to {result.archive}; STATE=IDLE")
    lines.append(result.evidence)
    ctx.emit(lines, {"ok": True, "task_id": result.task_id, "archive": result.archive, "warning": result.warning,
                     "forced": result.forced, "evidence": result.evidence})
    return EXIT_OK


@command(("task", "claim"), "task claim --agent NAME [--lease SECONDS]",
         "give NAME the first entry neither done nor claimed under a live lease (default lease 1800 s)",
         {"--agent": "value", "--lease": "int1"})
def cmd_task_claim(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import task
    from agentctl.codec import encode
    from agentctl.store import now_iso

    if "--agent" not in opts:
        raise UsageError("usage: agentctl task claim --agent NAME [--lease SECONDS]")
    store = ctx.store()
    if store.exists("sync/config"):  # a worktree that joined a stream claims through its shared ref (docs/sync.md)
        from agentctl.refsync.claims import through_ref

        r = through_ref(store, lambda: task.claim(store, opts["--agent"], opts.get("--lease", task.DEFAULT_LEASE)))
    else:
        r = task.claim(store, opts["--agent"], opts.get("--lease", task.DEFAULT_LEASE))
    lines = [f"CLAIMED={encode(r.path)}", f"AGENT={r.agent}", f"EXPIRES={now_iso(r.expires)}", f"SEQ={r.fields.get('SEQ', '')}",
             f"DO: work on {encode(r.path)}, then `agentctl task done {encode(r.path)}` (releases the claim)"]
    ctx.emit(lines, {"ok": True, "claimed": r.path, "agent": r.agent, "expires": r.expires, "expires_iso": now_iso(r.expires),
                     "seq": int(r.fields.get("SEQ", "0"))})
    return EXIT_OK


@command(("task", "status"), "task status [--agent NAME]",
         "the task's KEY=VALUE status, whether it is verified, and the live claims (NAME's only with --agent)",
         {"--agent": "value"})
def cmd_task_status(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import task

    store = ctx.store()
    fields = task.read_status(store)
    lines = task.status_lines(fields)
    data: dict[str, Any] = {"task": _public(fields)}
    if fields.get("STATE", "IDLE") != "IDLE":
        from agentctl import evidence

        ev = evidence.check(store)
        lines.append(ev.line())
        data["evidence"] = (ev.as_dict() if ctx.json else {})
        agent = opts.get("--agent")
        if agent is not None:
            task.valid_agent(agent)
        held = task.claims(store, fields, agent)
        lines.append(f"CLAIMS={len(held)}" + (f" (held by {agent})" if agent is not None else ""))
        lines += task.claims_lines(held)
        data["claims"] = [{"path": p, "agent": a, "expires": x} for p, a, x in held]
    ctx.emit(lines, data)
    return EXIT_OK


# -- files ------------------------------------------------------------------------------------

@command(("files", "log"), "files log CREATE|MODIFY|DELETE PATH", "record that PATH was changed", min_pos=2, max_pos=2)
def cmd_files_log(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import files

    op = pos[0].upper()
    if op not in files.OPS:
        raise UsageError(f"operation {pos[0][:20]!r} is not one of {', '.join(files.OPS)}")
    store = ctx.store()
    line = files.log(store, op, resolve_arg(store, pos[1], ctx.warn)[1])  # one identity: the real path
    ctx.emit([line], {"ok": True, "entry": line})
    return EXIT_OK


@command(("files", "check"), "files check PATH", "exit 0 and print its entries if PATH was touched in this task, else exit 1",
         min_pos=1, max_pos=1)
def cmd_files_check(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import codec, files

    store = ctx.store()
    path, real = resolve_arg(store, pos[0], ctx.warn)
    found = files.check(store, real) + (files.check(store, path) if real != path else [])
    lines = ["|".join(codec.encode(x) for x in e) for e in found] or [f"{codec.encode(path)}: not touched in this task"]
    ctx.emit(lines, {"path": path, "touched": bool(found), "entries": [list(e) for e in found]})
    return EXIT_OK if found else EXIT_NO


@command(("files", "list"), "files list", "each touched path once, with its last operation")
def cmd_files_list(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import codec, files

    touched = files.touched(ctx.store())
    ctx.emit([f"{op}|{codec.encode(p)}" for p, op, _ in touched],
             {"files": [{"path": p, "op": op, "count": n} for p, op, n in touched]})
    return EXIT_OK


@command(("files", "status"), "files status", "the raw files log of this task")
def cmd_files_status(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import codec, files

    found = files.entries(ctx.store())
    ctx.emit(["|".join(codec.encode(x) for x in e) for e in found], {"entries": [list(e) for e in found]})
    return EXIT_OK


@command(("files", "start"), "files start", "clear the log (archiving what it held) and write SESSION_START")
def cmd_files_start(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import files, task

    store = ctx.store()
    archived = files.start(store, task.read_status(store).get("TASK_ID", ""))
    ctx.emit([f"files log started{f'; previous log archived to {archived}' if archived else ''}"],
             {"ok": True, "archived": archived})
    return EXIT_OK


@command(("files", "stop"), "files stop", "archive the files log to logs/")
def cmd_files_stop(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    import time

    from agentctl import files
    rel = files.archive(ctx.store(), f"files-{time.strftime('%Y%m%dT%H%M%S')}")
    from agentctl.filecount import keep_empty

    keep_empty(ctx.store())
    ctx.emit([f"files log archived to {rel}" if rel else "files log was empty; nothing archived"], {"ok": True, "archive": rel})
    return EXIT_OK


@command(("files", "sync"), "files sync", "log what git shows changed since `task start` that the log does not hold yet")
def cmd_files_sync(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import gitsync, violations

    store = ctx.store()
    result = gitsync.sync(store)
    if result.violations:
        ctx.warn(violations.tell(store, result.violations))
    ctx.emit([f"{op}|{path}" for op, path in result.logged] + [result.message],
             {"ok": True, "git": result.git, "logged": [{"op": op, "path": p} for op, p in result.logged],
              "message": result.message})
    return EXIT_OK


# -- constraints ---------------------------------------------------------------------------

def _rules_lines(rules: list[Any]) -> list[str]:
    return [f"{i}. {r.line()}" for i, r in enumerate(rules, 1)]


@command(("constraints", "add"), "constraints add P0|P1|P2 TEXT", "add a hard rule (P0 never to be broken)",
         min_pos=2, max_pos=None)
def cmd_constraints_add(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import constraints

    added, rules = constraints.add(ctx.store(), pos[0], " ".join(pos[1:]))
    if constraints.warning(pos[0], " ".join(pos[1:])):
        ctx.warn(constraints.warning(pos[0], " ".join(pos[1:])))
    ctx.emit([("added" if added else "already present, nothing changed")] + _rules_lines(rules),
             {"added": added, "constraints": [{"priority": r.priority, "text": r.text} for r in rules]})
    return EXIT_OK


@command(("constraints", "remove"), "constraints remove TEXT|NUMBER", "remove a rule by its text, P0|text, or number",
         min_pos=1, max_pos=None)
def cmd_constraints_remove(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import constraints

    rule = constraints.remove(ctx.store(), " ".join(pos))
    ctx.emit([f"removed {rule.line()}"], {"removed": {"priority": rule.priority, "text": rule.text}})
    return EXIT_OK


@command(("constraints", "list"), "constraints list", "the rules by priority, numbered")
def cmd_constraints_list(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import constraints

    rules = constraints.ordered(ctx.store())
    ctx.emit(_rules_lines(rules), {"constraints": [{"priority": r.priority, "text": r.text} for r in rules]})
    return EXIT_OK




@command(("constraints", "status"), "constraints status", "same as constraints list")
def cmd_constraints_status(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    return cmd_constraints_list(ctx, opts, pos)


@command(("constraints", "update"), "constraints update --add 'P0|TEXT' | --remove TEXT",
         "the seed's form: `agentctl update constraints --add \"P0|text\"`", {"--add": "multi", "--remove": "multi"})
def cmd_constraints_update(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import constraints

    if not opts.get("--add") and not opts.get("--remove"):
        raise UsageError("give --add 'P0|TEXT' or --remove TEXT")
    store = ctx.store()
    specs = [constraints.parse_spec(s) for s in opts.get("--add", [])]
    lines = []
    for pri, text in specs:
        added, _ = constraints.add(store, pri, text)
        if constraints.warning(pri, text):
            ctx.warn(constraints.warning(pri, text))
        lines.append(f"{'added' if added else 'already present'} {pri}|{text}")
    for what in opts.get("--remove", []):
        rule = constraints.remove(store, what)
        lines.append(f"removed {rule.line()}")
    rules = constraints.read(store)
    ctx.emit(lines + _rules_lines(rules), {"ok": True, "constraints": [{"priority": r.priority, "text": r.text} for r in rules]})
    return EXIT_OK


@command(("constraints", "check"), "constraints check PATH", "exit 1 and print the rule if a P0 deny-write rule forbids writing PATH",
         min_pos=1, max_pos=1)
def cmd_constraints_check(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import answers

    lines, data = answers.check_answer(ctx.store(), pos[0], ctx.warn)
    ctx.emit(lines, data)
    return EXIT_OK if data["allowed"] else EXIT_NO


@command(("constraints", "ack"), "constraints ack PATH",
         "acknowledge a P0 violation (a denied path written anyway) the user allowed: resume stops showing it",
         min_pos=1, max_pos=1)
def cmd_constraints_ack(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import answers

    lines, data = answers.ack_answer(ctx.store(), pos[0], ctx.warn)
    ctx.emit(lines, data)
    return EXIT_OK if data["acked"] else EXIT_NO


@command(("constraints", "start"), "constraints start", "constraints always run; prints them")
def cmd_constraints_start(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    return cmd_constraints_list(ctx, opts, pos)


@command(("constraints", "stop"), "constraints stop", "refused: constraints outlive every task")
def cmd_constraints_stop(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    raise UsageError("constraints outlive every task and are never stopped; remove a rule with `agentctl constraints remove`")


# -- verify ------------------------------------------------------------------------------------

@command(("verify", "start"), "verify start [--timeout S]", "run services/verify/commands in order; record the result",
         {"--timeout": "float"})
def cmd_verify_start(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import gitsync, verify

    stream = sys.stderr if ctx.json else sys.stdout
    live = stream.isatty()  # a terminal sees each check start; an agent's pipe gets whole lines

    def starting(text: str) -> None:
        stream.write(text)
        stream.flush()

    def progress(text: str) -> None:
        if live:
            stream.write("\r")
        ctx.say(text)
        stream.flush()

    try:
        result = gitsync.verify_run(ctx.store(), timeout=opts.get("--timeout", 600.0), progress=progress,
                                    starting=starting if live else None)  # what the checks write is not an agent edit
    except (KeyboardInterrupt, SystemExit):
        ctx.warn("verify interrupted: the check was ended and the run recorded as INTERRUPTED "
                 "(not a failure); the previous result stands. Run `agentctl verify start` again")
        raise
    if result.state == "NONE":
        ctx.emit([result.message], {"state": "NONE", "message": result.message})
        return EXIT_OK
    from agentctl import evidence

    if result.repeat:
        ctx.warn(f"REPEATED failure: identical to {result.repeat} (same error from the same file contents); try something else")
    ev = evidence.check(ctx.store(), result.fields)
    lines = [result.message] + verify.status_lines(result.fields) + [ev.line()]
    ctx.emit(lines, {"state": result.state, "message": result.message, "verify": result.fields,
                     "repeat": result.repeat, "same_error": result.same_error, "superseded_by": result.superseded or None,
                     "evidence": (ev.as_dict() if ctx.json else {})})
    if result.state == "PASSED":
        from agentctl import autostop

        autostop.after_pass(ctx)
    return EXIT_OK if result.state == "PASSED" else EXIT_NO


@command(("verify", "run"), "verify run [--timeout S]", "same as verify start", {"--timeout": "float"})
def cmd_verify_run(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    return cmd_verify_start(ctx, opts, pos)


@command(("verify", "stop"), "verify stop", "clear the result after a pass (a failure is kept, exit 1)")
def cmd_verify_stop(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import verify

    fields = verify.stop(ctx.store())
    ctx.emit(["verify cleared"] + verify.status_lines(fields), {"ok": True, "verify": fields})
    return EXIT_OK


@command(("verify", "status"), "verify status", "the last result, errors and tried fixes")
def cmd_verify_status(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import verify

    store = ctx.store()
    fields = verify.read_status(store)
    from agentctl import evidence

    lines = verify.status_lines(fields)
    if not verify.commands(store):
        lines.append(f"NOTE=no verify commands configured; add them to {store.shown(verify.COMMANDS)}")
    ev = evidence.check(store, fields)
    lines.append(ev.line())
    ctx.emit(lines, {"verify": fields, "commands": verify.commands(store), "evidence": (ev.as_dict() if ctx.json else {})})
    return EXIT_OK


@command(("verify", "tried"), "verify tried TEXT", "record a fix that did not work, so it is not tried again",
         min_pos=1, max_pos=None)
def cmd_verify_tried(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import verify

    r = verify.record_tried(ctx.store(), " ".join(pos))
    if r.similar:
        from agentctl.codec import encode

        ctx.warn(f'this says the same as an earlier attempt ({r.similar_ref}: "{encode(r.similar)[:200]}"), '
                 "which already failed; recorded anyway - try something different")
    ctx.emit([f"recorded TRIED_{r.number}"], {"ok": True, "tried": verify.tried(r.fields), "similar_to": r.similar or None,
                                              "similar_ref": r.similar_ref or None})
    return EXIT_OK


@command(("verify", "add"), "verify add COMMAND", "append a check to services/verify/commands", min_pos=1, max_pos=None)
def cmd_verify_add(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import verify

    store = ctx.store()
    verify.configure(store, " ".join(pos))
    ctx.emit([f"{store.shown(verify.COMMANDS)}:"] + verify.commands(store), {"commands": verify.commands(store)})
    return EXIT_OK


# -- user services ---------------------------------------------------------------------------

@command(("@custom",), "SERVICE start|stop|status [--timeout S]", "run a user service's script", {"--timeout": "float"},
         min_pos=2, max_pos=2)
def cmd_custom(ctx: Ctx, opts: dict[str, Any], pos: list[str]) -> int:
    from agentctl import custom

    name, action = pos
    if action not in custom.ACTIONS:
        raise UsageError(f"user services take start, stop or status, not {action[:20]!r}")
    result = custom.run(ctx.store(), name, action, opts.get("--timeout"))
    out = result.output.rstrip("\n")
    lines = ([out] if out else []) + [f"{name} {action}: {'timed out, process group ended' if result.timed_out else f'exit {result.code}'}"]
    ctx.emit(lines, {"service": name, "action": action, "exit": result.code, "timed_out": result.timed_out, "output": result.output})
    return EXIT_OK if result.code == 0 else EXIT_NO



