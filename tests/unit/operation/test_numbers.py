"""ops.shape: a service's fields in a result's data."""

from __future__ import annotations

from agentctl.operation.numbers import fields


def test_counts_become_numbers_and_private_fields_go() -> None:
    got = fields(
        {
            "STATE": "ACTIVE",
            "TOTAL": "3",
            "DONE": "0",
            "SEQ": "12",
            "LIST": "list-1",
            "NEXT_PINNED": "0",
            "NOTES": "42",
            "RUN": "x",
        }
    )
    assert got == {"STATE": "ACTIVE", "TOTAL": 3, "DONE": 0, "SEQ": 12, "NOTES": "42", "RUN": "x"}
