"""`agentctl --version`, `-V` and `agentctl version`: one answer, as a line or as the JSON envelope
(docs/json.md)."""

from __future__ import annotations

import sys

from agentctl import DISTRIBUTION, __version__
from agentctl.ground.errors import EXIT_OK


def print_version(as_json: bool) -> int:
    if as_json:
        import json

        from agentctl.operation.contract import Result, envelope

        doc = envelope("--version", Result(data={"version": __version__, "distribution": DISTRIBUTION}))
        sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(f"agentctl {__version__}\n")
    return EXIT_OK


__all__ = ["print_version"]
