"""`agentctl mcp`, a front end: ``server`` (stdio), ``sdkserver`` (built on the SDK, imported only
when serving), ``tools`` (the tools as plain functions over the operations), ``schema``.
"""
