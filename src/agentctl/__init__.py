"""agentctl: compaction-proof working state for AI coding agents.

The library core lives in the service modules (``task``, ``files``,
``constraints``, ``verify``, ``runlevels``, ``resume``); the CLI, the hooks and
the MCP server are thin layers over them.
"""

from __future__ import annotations

__version__ = "0.2.0.dev0"

# The name to install by: `agentctl` on PyPI is an unrelated project.
DISTRIBUTION = "agentctl-state"
