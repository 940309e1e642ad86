"""context.windows: the model's window from the table or the person's override; the settings."""

from __future__ import annotations

from agentctl.context import windows
from agentctl.ground.store import Store


def test_the_table_names_the_window_by_the_longest_prefix() -> None:
    s = windows.Settings()
    assert windows.window_for("claude-sonnet-4-5-20250929", s) == 200_000
    assert windows.window_for("claude-opus-5-5", s) == 1_000_000  # Claude Code 2.1.332's default model
    assert windows.window_for("gemini-2.5-flash", s) == 1_048_576
    assert windows.window_for("some-local-model", s) is None


def test_the_config_overrides_the_table_and_the_thresholds(store: Store) -> None:
    open(store.path("config"), "w").write(
        "retention.backups_keep=2\ncontext.warn_at=40, 25,10%\ncontext.window=100000\n"
        "context.window.claude-opus=1000000\ncontext.warn_at_typo=3\n"
    )
    s = windows.settings(store)
    assert s.on and s.thresholds == (40, 25, 10)
    assert windows.window_for("claude-opus-4-6", s) == 1_000_000
    assert windows.window_for("claude-sonnet-4-5", s) == 100_000
    assert windows.problems(store) == ["context.warn_at_typo=3"]


def test_off_and_unreadable_thresholds(store: Store) -> None:
    open(store.path("config"), "w").write("context.warn=off\ncontext.warn_at=120\n")
    s = windows.settings(store)
    assert not s.on and s.thresholds == windows.DEFAULT_THRESHOLDS
    assert windows.problems(store) == ["context.warn_at=120"]


def test_gemini_is_measured_against_the_point_where_it_compresses() -> None:
    s = windows.Settings()
    assert windows.window_of("gemini", "gemini-2.5-flash", s) == 524_288
    assert windows.window_of("claude", "claude-sonnet-4-5", s) == 200_000
    s.windows["gemini-2.5"] = 300_000
    assert windows.window_of("gemini", "gemini-2.5-flash", s) == 300_000
