"""retention: the policy read from `.agent-state/config` (defaults, sizes, counts, refusals)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctl.ground import retention
from agentctl.ground.errors import StateError
from agentctl.ground.store import Store
from agentctl.statefolder import init


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "p" / ".git").mkdir(parents=True)
    return init.init(str(tmp_path / "p"))[0]


def config(store: Store, text: str) -> None:
    with open(store.path(retention.CONFIG), "w", encoding="utf-8") as fh:
        fh.write(text)


def test_no_config_is_the_defaults(store: Store) -> None:
    assert retention.policy(store) == retention.DEFAULTS
    assert retention.policy(store) is not retention.DEFAULTS  # a copy: the caller may not change the defaults


def test_sizes_with_units_counts_and_other_prefixes(store: Store) -> None:
    config(
        store,
        "\ufeff# mine\nretention.verify_log_max = 2M\nretention.journals_total=512kib\n"
        "retention.task_logs_total=1G\nretention.quarantine_total=70000\nretention.backups_keep=0\n"
        "web.port=9\n\n",
    )
    got = retention.policy(store)
    assert got == dict(
        retention.DEFAULTS,
        verify_log_max=2 << 20,
        journals_total=512 << 10,
        task_logs_total=1 << 30,
        quarantine_total=70000,
        backups_keep=0,
    )


@pytest.mark.parametrize(
    "line,words",
    [
        ("retention.verify_log_max", "line 2: 'retention.verify_log_max' is not key=value"),
        (
            "retention.colour=red",
            "line 2: unknown setting retention.colour; known: retention.verify_log_max, ",
        ),
        ("retention.backups_keep=2K", "retention.backups_keep='2K' is not a whole number"),
        ("retention.journals_total=lots", "is not a size (bytes, or a number with K, M or G, e.g. 1M)"),
        ("retention.verify_log_max=10K", "retention.verify_log_max must be at least 64K"),
    ],
)
def test_a_wrong_line_is_refused_with_its_number(store: Store, line: str, words: str) -> None:
    config(store, f"# first\n{line}\n")
    with pytest.raises(StateError) as err:
        retention.policy(store)
    assert words in err.value.message and err.value.message.startswith(".agent-state/config")


def test_mib() -> None:
    assert retention.mib(1 << 20) == "1.0 MiB" and retention.mib(3 << 19) == "1.5 MiB"
    assert retention.mib(5000) == "4 KiB" and retention.mib(0) == "0 KiB"
