"""placeholder"""
from __future__ import annotations

from typing import Any


def after_pass(ctx: Any) -> None:
    return None
