"""Loaded at start-up by an ``agentctl`` a crash test runs with ``tests/faults`` on ``PYTHONPATH``
(``support.faults.env``): installs the fault hook ``AGENTCTL_FAULT`` names. Never on a real run."""

import os
import sys

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/, for support.faults
from support.faults import install_from_env  # noqa: E402

install_from_env()
