"""The context window: how full the agent's context is (read from the agent's own records), the
warnings before a compaction, the checkpoint of what is in flight at the edge, the statusline, and
what the state cost the new window after a compaction (issue 33)."""
