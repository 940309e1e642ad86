"""Agent integrations: lifecycle hooks, instruction files and MCP registration.

* ``hookrun`` -- the one hook runner behind ``agentctl hook AGENT EVENT``: reads the
  payload, finds the project, never fails the agent (exit 0, nothing on stdout,
  the failure logged to ``logs/agent.log``); exit 2 only for a deliberate deny.
* ``claude``, ``codex``, ``gemini``, ``cursor``, ``qwen`` -- payload -> action per event, and
  the hook entries each installer writes.
* ``jsonmerge`` / ``hookmerge`` / ``configchange`` -- read a user's JSON config, merge/unmerge our
  hook entries and MCP server in it, and write the change (atomic, with a backup).
* ``agentsmd`` -- the managed startup-protocol block in AGENTS.md and friends.
* ``agentctl.workflow.gitscan`` (a core module, also used by ``task start``) -- ``agentctl files scan``.
* ``install`` -- what ``agentctl install|uninstall TARGET`` runs; the commands (and ``agentctl hook``)
  are ``commands.hook``. On the operations floor, below the commands that call it.

Only ``hookrun`` and the agent modules are on the hot path; they import what one
event needs and nothing else.
"""

from __future__ import annotations

HOOK_PREFIX = "agentctl hook"
AGENTS = ("claude", "codex", "gemini", "cursor", "opencode", "cline", "qwen")
