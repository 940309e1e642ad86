"""The plan: tasks with dependencies, a ready queue, and the task each copy runs from it (docs/plan.md)."""
