"""Reliability suite fixtures: figures collected for the terminal summary (and the README)."""

from __future__ import annotations

import pytest

from .helpers import FIGURES


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if FIGURES:
        terminalreporter.section("reliability figures")
        for line in FIGURES:
            terminalreporter.write_line(line)
