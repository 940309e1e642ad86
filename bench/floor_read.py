"""The floor of a command that only reads: what a pip-generated console script pays before its code runs.

Run as ``VENV/bin/python bench/floor_read.py``: the interpreter's start-up (with the venv's site
packages) plus the modules pip's launcher imports (``re`` and ``sys``). With ``--bare``: the
interpreter's start-up alone, which is all agentctl's own launcher (``scripts/agentctl``) adds to it.
"""

import sys

if sys.argv[1:] != ["--bare"]:  # --bare: the interpreter alone, what agentctl's own launcher pays
    import re  # noqa: F401
