"""The floor of a command that only reads: what any installed console script pays before its own code runs.

Run as ``VENV/bin/python bench/floor_read.py``: the interpreter's start-up (with the venv's site
packages) plus the modules pip's launcher imports (``re`` and ``sys``).
"""

import re  # noqa: F401
import sys  # noqa: F401
