"""A user service's script in a state folder: shared by the service folder and script units."""

from __future__ import annotations

import os

from agentctl.ground.store import Store


def script(store: Store, name: str, action: str, body: str = "echo hi", mode: int = 0o755) -> str:
    """Write ``services/NAME/ACTION`` (a shell script) and make it executable (unless ``mode`` says no)."""
    folder = store.path(f"services/{name}")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, action)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, mode)
    return path
