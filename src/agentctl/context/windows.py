"""The window a fill is measured against, and the person's settings for the feature.

Where the window comes from, first that applies: the exact figure Claude Code's statusline gave
(``agentctl statusline`` records it per session: :mod:`agentctl.context.statusline`), the figure
the agent's own records carry (Codex's ``model_context_window``), a person's override in
``.agent-state/config``, else this table by the model the records name (the longest prefix wins).

Settings in ``.agent-state/config`` (``key=value`` lines; other prefixes belong to other settings):

    context.warn=off                      no transcript read, no warning, no checkpoint at a threshold
    context.warn_at=35,20                 the thresholds of context LEFT, in percent (the last one
    checkpoints)
    context.window=200000                 the window for every model
    context.window.claude-opus-4-6=1000000  the window for models whose name starts so
"""

from __future__ import annotations

from agentctl.ground.store import Store

CONFIG = "config"
PREFIX = "context."
DEFAULT_THRESHOLDS = (35, 20)
# Model name prefix -> context window in tokens, as documented by each vendor (checked 2026-12).
TABLE: dict[str, int] = {
    # Claude: the model table bundled in Claude Code 2.1.332 (`context: {window: ...}`); a 1M window
    # taken by the [1m] suffix or the beta is what the statusline reports.
    "claude-": 200_000,
    "claude-opus-4-7": 1_000_000,
    "claude-opus-4-8": 1_000_000,
    "claude-opus-5": 1_000_000,
    "claude-sonnet-5": 1_000_000,
    "claude-haiku-5": 1_000_000,
    "claude-fable-5": 1_000_000,
    "gpt-5": 272_000,  # Codex writes model_context_window itself; this is the fallback
    "gpt-4.1": 1_047_576,
    "o3": 200_000,
    "o4-mini": 200_000,
    "gemini-2.5-": 1_048_576,
    "gemini-3": 1_048_576,
    "qwen3-coder": 262_144,
}


# Gemini CLI compresses its history at this share of the model's window (0.61.0:
# DEFAULT_COMPRESSION_TOKEN_THRESHOLD, `model.compressionThreshold`): context left is counted
# against that point, or the thresholds would come after its compression. A person's
# `context.window...` for a Gemini model is taken as that point itself.
GEMINI_COMPRESSES_AT = 0.5


class Settings:
    __slots__ = ("on", "thresholds", "window", "windows")

    def __init__(self) -> None:
        self.on = True
        self.thresholds: tuple[int, ...] = DEFAULT_THRESHOLDS
        self.window: int | None = None
        self.windows: dict[str, int] = {}


def settings(store: Store) -> Settings:
    """The feature's settings; a line it cannot read is ignored (the hook path never fails on it:
    ``agentctl context`` names it)."""
    out = Settings()
    try:
        data = store.read(CONFIG, cap=1 << 20)
    except Exception:
        return out
    if not data or PREFIX.encode() not in data:
        return out
    for key, value in _lines(data):
        if key == "warn":
            out.on = value.lower() not in ("off", "0", "no", "false")
        elif key == "warn_at":
            got = _thresholds(value)
            if got:
                out.thresholds = got
        elif key == "window":
            if value.isdigit() and int(value) > 0:
                out.window = int(value)
        elif key.startswith("window.") and value.isdigit() and int(value) > 0:
            out.windows[key[7:]] = int(value)
    return out


def problems(store: Store) -> list[str]:
    """The ``context.`` lines of the config that are not understood (for a person's command)."""
    data = store.read(CONFIG, cap=1 << 20) or b""
    bad = []
    for key, value in _lines(data):
        if key == "warn" and value.lower() in ("on", "off", "1", "0", "yes", "no", "true", "false"):
            continue
        if key == "warn_at" and _thresholds(value):
            continue
        if (key == "window" or key.startswith("window.")) and value.isdigit() and int(value) > 0:
            continue
        bad.append(f"{PREFIX}{key}={value[:40]}")
    return bad


def _lines(data: bytes) -> list[tuple[str, str]]:
    out = []
    for raw in data.decode("utf-8", "replace").lstrip("\ufeff").split("\n"):
        line = raw.strip()
        if line.startswith(PREFIX):
            key, _, value = line[len(PREFIX) :].partition("=")
            out.append((key.strip(), value.strip()))
    return out


def _thresholds(value: str) -> tuple[int, ...]:
    parts = [p.strip().rstrip("%") for p in value.split(",") if p.strip()]
    if not parts or not all(p.isdigit() and 0 < int(p) < 100 for p in parts):
        return ()
    return tuple(sorted({int(p) for p in parts}, reverse=True))


def window_for(model: str, s: Settings) -> int | None:
    """The window of ``model``: the person's override, else the table's longest matching prefix."""
    best = ""
    for prefix in s.windows:
        if model.startswith(prefix) and len(prefix) > len(best):
            best = prefix
    if best:
        return s.windows[best]
    if s.window is not None:
        return s.window
    for prefix in sorted(TABLE, key=len, reverse=True):
        if model.startswith(prefix):
            return TABLE[prefix]
    return None


def overridden(model: str, s: Settings) -> bool:
    """Whether the person set the window of ``model`` in the config."""
    return s.window is not None or any(model.startswith(p) for p in s.windows)


def window_of(agent: str, model: str, s: Settings) -> int | None:
    """The window a fill of ``agent`` on ``model`` is measured against, when its records name none."""
    window = window_for(model, s)
    if window and agent == "gemini" and not overridden(model, s):
        window = int(window * GEMINI_COMPRESSES_AT)
    return window
