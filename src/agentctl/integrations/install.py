"""What ``agentctl install|uninstall TARGET`` changes.

Every file change is planned first (parsing and merging each file); only when all
of them can be made is anything written, so a refusal (invalid JSON, damaged
markers) leaves every file as it was.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from agentctl.ground.errors import UsageError
from agentctl.integrations import agentsmd, configchange, hookmerge, jsonmerge
from agentctl.integrations.configchange import Change
from agentctl.integrations.hookconfig import claude_installed, hooks_change, restored

TARGETS = ("claude", "codex", "gemini", "cursor", "opencode", "cline", "qwen", "aider", "agents-md", "mcp")
MCP_CLIENTS = {"claude": ".mcp.json", "cursor": ".cursor/mcp.json"}
MCP_NAME = "agentctl"
MCP_SPEC: dict[str, Any] = {"command": "agentctl", "args": ["mcp"]}


@dataclass
class Plan:
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def instruction_file(project: str, name: str | None) -> str:
    """The project-relative file for ``agents-md`` (``--file NAME``; default AGENTS.md)."""
    if name is None:
        return "AGENTS.md"
    if not name.strip() or "\x00" in name:
        raise UsageError("--file needs a file name, e.g. GEMINI.md or .cursor/rules/agentctl.mdc")
    full = os.path.normpath(os.path.join(project, name))
    if os.path.commonpath([full, project]) != project or full == project:
        raise UsageError(f"--file {name!r} is outside the project {project}; give a path inside it")
    rel = os.path.relpath(full, project).replace(os.sep, "/")
    if rel.split("/", 1)[0] == ".agent-state":
        raise UsageError(f"--file {name!r} is inside .agent-state/; give an instruction file the agent reads")
    if rel.endswith(".json"):
        raise UsageError(f"--file {name!r} is a JSON file; the block goes into a Markdown instruction file")
    return rel


def plan_install(
    project: str,
    target: str,
    *,
    local: bool = False,
    file: str | None = None,
    client: str | None = None,
    agentctl: str = "agentctl",
    statusline: bool = False,
    user: bool = False,
    sandbox: bool = False,
) -> Plan:
    """``agentctl``: how the hooks and the MCP config call agentctl (its name, or a full path)."""
    _check_options(target, local, file, client)
    _check_statusline(target, statusline)
    _check_wall_options(target, local, user, sandbox)
    plan = Plan()
    if target == "claude":
        from agentctl.integrations import claude

        rel = claude.LOCAL_CONFIG if local else claude.CONFIG
        plan.changes.append(_claude_change(project, rel, agentctl, user, sandbox, plan.notes))
        if statusline:
            _statusline(plan, True, agentctl)
        if agentsmd.has_block(project, "AGENTS.md"):
            imp = agentsmd.plan_claude_import(project)
            if imp is not None:
                plan.changes.append(imp)
        if local:
            plan.notes.append(
                f"{rel} is for you alone: add it to .gitignore (Claude Code does so only for files it "
                f"creates)"
            )
        plan.notes.append("Claude Code runs the hooks in trusted folders; `/hooks` in Claude Code lists them")
        if not agentsmd.has_block(project, "AGENTS.md"):
            plan.notes.append(
                "for the startup protocol in CLAUDE.md too (re-read after every compaction): "
                "`agentctl install agents-md`"
            )
    elif target == "codex":
        from agentctl.integrations import codex

        plan.changes.append(hooks_change(project, codex.CONFIG, "codex", True, agentctl))
        plan.notes.append(
            "Codex loads .codex/ only in a trusted project (trust it when Codex asks, or "
            '`[projects."<path>"] trust_level = "trusted"` in ~/.codex/config.toml), then skips hooks '
            "it has not reviewed: open `/hooks` in Codex once and trust the agentctl hooks; Codex releases "
            "before hooks were on by default need `[features] codex_hooks = true`"
        )
        if not agentsmd.has_block(project, "AGENTS.md"):
            plan.notes.append(
                "Codex reads AGENTS.md: `agentctl install agents-md` adds the startup protocol there"
            )
    elif target == "gemini":
        from agentctl.integrations import gemini

        plan.changes.append(hooks_change(project, gemini.CONFIG, "gemini", True, agentctl))
        plan.notes.append(
            "Gemini CLI runs project hooks only in a trusted folder (trust it when asked; "
            "`--skip-trust` or GEMINI_CLI_TRUST_WORKSPACE=true for scripts) and warns about new hooks once"
        )
        if not agentsmd.has_block(project, "GEMINI.md"):
            plan.notes.append(
                "Gemini reads GEMINI.md: `agentctl install agents-md --file GEMINI.md` adds the startup "
                "protocol"
            )
    elif target == "qwen":
        from agentctl.integrations import qwen

        plan.changes.append(hooks_change(project, qwen.CONFIG, "qwen", True, agentctl))
        plan.notes.append(
            "Qwen Code runs project hooks without a trust step; `/hooks` in Qwen Code lists them"
        )
        if not agentsmd.has_block(project, "QWEN.md"):
            plan.notes.append(
                "Qwen Code reads QWEN.md: `agentctl install agents-md --file QWEN.md` adds the startup "
                "protocol"
            )
    elif target == "aider":
        from agentctl.integrations import aider

        plan.changes.extend(aider.plan_install(project))
        plan.notes.extend(aider.notes(project))
    elif target == "cursor":
        from agentctl.integrations import cursor

        plan.changes.append(hooks_change(project, cursor.CONFIG, "cursor", True, agentctl))
        plan.changes.append(
            agentsmd.plan_block(project, cursor.RULE, agentsmd.protocol(), "always-applied rule")
        )
        plan.notes.append("restart Cursor (or reload the window) so it reads .cursor/hooks.json")
    elif target == "opencode":
        from agentctl.integrations import opencode

        plan.changes.append(opencode.plan_plugin(project, True))
        plan.notes.append(
            "OpenCode loads .opencode/plugin/ at start; `agentctl` must be on the PATH it runs with"
        )
        if not agentsmd.has_block(project, "AGENTS.md"):
            plan.notes.append(
                "OpenCode reads AGENTS.md: `agentctl install agents-md` adds the startup protocol there"
            )
    elif target == "cline":
        from agentctl.integrations import cline

        plan.changes.extend(cline.plan_hooks(project, True))
        plan.notes.append(
            "Cline cannot skip one tool call from a hook: a write a P0 deny-write rule forbids stops the task"
        )
        if not agentsmd.has_block(project, "AGENTS.md"):
            plan.notes.append(
                "Cline reads AGENTS.md: `agentctl install agents-md` adds the startup protocol there"
            )
    elif target == "agents-md":
        rel = instruction_file(project, file)
        plan.changes.append(agentsmd.plan_block(project, rel, agentsmd.protocol()))
        if rel == "AGENTS.md" and (
            os.path.lexists(os.path.join(project, "CLAUDE.md")) or claude_installed(project)
        ):
            imp = agentsmd.plan_claude_import(project)
            if imp is not None:
                plan.changes.append(imp)
    elif target == "mcp":
        assert client is not None
        rel = MCP_CLIENTS[client]
        plan.changes.append(
            jsonmerge.plan(
                project,
                rel,
                lambda d: jsonmerge.merge_server(d, MCP_NAME, {**MCP_SPEC, "command": agentctl}, rel),
            )
        )
        plan.notes.append(
            "Claude Code asks you once to approve project MCP servers"
            if client == "claude"
            else "enable the server in Cursor settings > MCP"
        )
    return plan


def plan_uninstall(
    project: str,
    target: str,
    *,
    local: bool = False,
    file: str | None = None,
    client: str | None = None,
    statusline: bool = False,
    user: bool = False,
    sandbox: bool = False,
) -> Plan:
    _check_options(target, local, file, client)
    _check_statusline(target, statusline)
    _check_wall_options(target, local, user, sandbox)
    plan = Plan()
    if target == "claude":
        from agentctl.integrations import claude

        plan.changes.append(_claude_removal(project, claude.LOCAL_CONFIG if local else claude.CONFIG, user))
        _statusline(plan, False)  # uninstall removes agentctl's statusLine with or without the flag
    elif target == "aider":
        from agentctl.integrations import aider

        plan.changes.extend(aider.plan_uninstall(project))
    elif target in ("codex", "gemini", "qwen"):
        import importlib

        module = importlib.import_module(f"agentctl.integrations.{target}")
        plan.changes.append(hooks_change(project, module.CONFIG, target, False))
    elif target == "cursor":
        from agentctl.integrations import cursor

        plan.changes.append(hooks_change(project, cursor.CONFIG, "cursor", False))
        plan.changes.append(agentsmd.plan_unblock(project, cursor.RULE))
    elif target == "opencode":
        from agentctl.integrations import opencode

        plan.changes.append(opencode.plan_plugin(project, False))
    elif target == "cline":
        from agentctl.integrations import cline

        plan.changes.extend(cline.plan_hooks(project, False))
    elif target == "agents-md":
        rel = instruction_file(project, file)
        plan.changes.append(agentsmd.plan_unblock(project, rel))
        if rel == "AGENTS.md" and agentsmd.block_body(project, "CLAUDE.md") == agentsmd.IMPORT_LINE:
            plan.changes.append(agentsmd.plan_unblock(project, "CLAUDE.md"))
    elif target == "mcp":
        assert client is not None
        rel = MCP_CLIENTS[client]
        plan.changes.append(
            restored(
                jsonmerge.plan(
                    project,
                    rel,
                    lambda d: jsonmerge.unmerge_server(d, MCP_NAME, rel),
                    empty_ok=hookmerge.only_scaffolding,
                )
            )
        )
    return plan


def _claude_change(
    project: str, rel: str, agentctl: str, user: bool, sandbox: bool, notes: list[str]
) -> Change:
    """The hooks and the agent's own wall (integrations.claudewall) in one settings file: the project's,
    or with ``user`` the person's own ``~/.claude/settings.json``."""
    from agentctl.integrations import claudewall

    where = claudewall.home() if user else project
    change = hooks_change(where, claudewall.USER_CONFIG if user else rel, "claude", True, agentctl)
    if user:
        notes.append(
            "the hooks are in your own ~/.claude/settings.json: they run in every project you open, and "
            "nothing in this project's tree (`git clean -fdx`) takes them away"
        )
    return claudewall.install(project, change, user=user, sandbox=sandbox, notes=notes)


def _claude_removal(project: str, rel: str, user: bool) -> Change:
    from agentctl.integrations import claudewall

    where = claudewall.home() if user else project
    return claudewall.uninstall(
        project, hooks_change(where, claudewall.USER_CONFIG if user else rel, "claude", False)
    )


def _check_wall_options(target: str, local: bool, user: bool, sandbox: bool) -> None:
    if (user or sandbox) and target != "claude":
        raise UsageError(
            "--user and --sandbox apply to `claude` only, e.g. `agentctl install claude --sandbox`"
        )
    if user and local:
        raise UsageError("--user and --local name two different settings files: give one")


def _check_statusline(target: str, statusline: bool) -> None:
    if statusline and target != "claude":
        raise UsageError("--statusline applies to `claude` only (Claude Code's statusLine setting)")


def _statusline(plan: Plan, install: bool, agentctl: str = "agentctl") -> None:
    """The statusLine on top of the hooks' change to the same settings file (see statuslinecfg)."""
    from agentctl.integrations import statuslinecfg

    plan.changes[-1], note = statuslinecfg.chain(plan.changes[-1], install, agentctl)
    if note:
        plan.notes.append(note)


def _check_options(target: str, local: bool, file: str | None, client: str | None) -> None:
    if target not in TARGETS:
        from agentctl.ground.nearest import hint

        raise UsageError(
            f"unknown target {target[:30]!r}{hint(target, TARGETS)} (targets: {', '.join(TARGETS)})"
        )
    if local and target != "claude":
        raise UsageError("--local applies to `claude` only (.claude/settings.local.json)")
    if file is not None and target != "agents-md":
        raise UsageError(
            "--file applies to `agents-md` only, e.g. `agentctl install agents-md --file GEMINI.md`"
        )
    if target == "mcp":
        if client not in MCP_CLIENTS:
            got = f", not {client!r}" if client is not None else ""
            raise UsageError(
                f"`mcp` needs --client {'|'.join(MCP_CLIENTS)}{got}, e.g. `agentctl install mcp --client "
                f"claude`"
            )
    elif client is not None:
        raise UsageError("--client applies to `mcp` only, e.g. `agentctl install mcp --client cursor`")


def apply(plan: Plan, uninstall: bool = False) -> list[dict[str, Any]]:
    """Write every planned change; one result per file. An uninstall leaves no ``NAME.agentctl.bak``
    beside a file (the install's copy of the user's bytes, now restored, goes with it)."""
    results = []
    for change in plan.changes:
        backup = configchange.apply(change, beside=not uninstall)
        if uninstall:
            configchange.forget_beside(change)
        if not change.changed:
            action = "unchanged"
        elif change.new is None:
            action = "removed"
        elif change.old is None:
            action = "created"
        else:
            action = "updated"
        results.append({"file": change.rel, "action": action, "summary": change.summary, "backup": backup})
    return results
