"""Aider: no hooks; a read-only protocol file and a lint command in ``.aider.conf.yml``.

Facts used, from Aider 0.86.2's own source (``aider/linter.py``, ``aider/main.py``,
``aider/coders/base_coder.py``):

* ``read:`` files are sent, read-only, with every request: the startup protocol goes into
  ``.aider.agentctl.md`` (a file agentctl owns; Aider's ``.gitignore`` entry ``.aider*``
  keeps it out of git) and ``read:`` names it.
* after the edits of a reply are applied (and auto-committed), when ``auto-lint`` is on
  (the default), Aider lints each edited file: ``CMD + " " + quote(path relative to its
  root)`` through the shell, in its root folder, stdout and stderr merged; exit 0 is
  silence, anything else is shown and sent to the model as lint errors to fix.
* ``lint-cmd`` entries are ``"LANG: CMD"`` (for one language, as grep-ast names it from
  the file name) or ``"CMD"`` (every language). One command for all languages replaces
  every per-language one, and any command replaces Aider's built-in linter for its
  languages; files of a language grep-ast does not know are never linted.

So ``agentctl install aider`` wraps each of the user's own ``lint-cmd`` entries as
``sh -c 'agentctl hook aider lint -- "$@"; CMD "$@"' agentctl-lint`` (the file name
follows): Aider's shell logs the file, then runs ``CMD FILE`` exactly as it would have, with
its output and exit code; agentctl runs nothing of the user's. With
no ``lint-cmd`` of the user's it adds ``agentctl hook aider lint --`` for every language
(which then stands in for Aider's built-in syntax check). What Aider cannot give: a
pre-edit deny (nothing runs before an edit) and a compaction signal (its history
summary runs in a background thread, marked by nothing). ``files scan`` (run by each lint
call, and by ``agentctl files scan``) logs from git whatever the lint command did not
see, and the protocol file is in every request, so after a summary the model still
reads the rule to run ``agentctl resume``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentctl.integrations.configchange import Change

CONFIG = ".aider.conf.yml"
PROTOCOL = ".aider.agentctl.md"
LINT = "agentctl hook aider lint --"
WRAP_NAME = "agentctl-lint"  # $0 of the wrapper shell, so the user's command gets the files as "$@"
NOTES = [
    "Aider runs the lint command after each edit it applies (auto-lint, on by default): that logs the edited "
    "files; "
    "it has no pre-edit hook, so a P0 deny-write rule reaches it only as text in the protocol, and no "
    "compaction "
    "signal, so run `agentctl files scan` after a session to log from git what the lint command did not see",
]


def _wrap(value: str) -> str:
    """A user's ``lint-cmd`` entry, wrapped: Aider's shell runs agentctl's logging step, then
    the user's command exactly as before (the file names follow as ``"$@"``; its exit status is
    the whole line's). agentctl itself runs nothing of the user's."""
    import re
    import shlex

    match = re.match(r"^([a-z]+):(.*)$", value, re.DOTALL)  # Aider's own test for "LANG: CMD"
    lang, command = (match.group(1), match.group(2).strip()) if match else (None, value.strip())
    script = LINT + ' "$@"; ' + command + ' "$@"'
    wrapped = f"sh -c {shlex.quote(script)} {WRAP_NAME}"
    return f"{lang}: {wrapped}" if lang else wrapped


def _read(project: str) -> tuple[bytes | None, str]:
    from agentctl.integrations.configchange import ConfigError

    path = os.path.join(project, CONFIG)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(4 << 20)
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        raise ConfigError(f"cannot read {CONFIG}: {exc.strerror}; check its permissions") from None
    try:
        return raw, raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{CONFIG} is not UTF-8 text; agentctl changed nothing") from None


def _config_change(project: str, install: bool) -> Change:
    from agentctl.integrations import yamlkeys
    from agentctl.integrations.configchange import Change

    raw, text = _read(project)
    if raw is None and not install:
        return Change(project, CONFIG, None, None, "not there", backup=False)
    base = yamlkeys.remove(text)  # install = our lines from scratch (the user may have changed theirs)
    if install:
        new = yamlkeys.edit(base, CONFIG, {"read": PROTOCOL}, {"lint-cmd": (_wrap, LINT)})
        summary = f"read: {PROTOCOL}; lint-cmd logs each edited file, the user's own lint commands chained"
    else:
        new, summary = base, "agentctl's read and lint-cmd entries removed"
    data: bytes | None = new.encode("utf-8")
    if not install and not new:
        data, summary = None, "removed (it held only agentctl's entries)"
    if data == raw:
        summary = "already up to date" if install else "no agentctl entries"
    return Change(project, CONFIG, raw, data, summary, backup=False)


def plan_install(project: str) -> list[Change]:
    from agentctl.integrations import agentsmd

    return [
        _config_change(project, True),
        agentsmd.plan_block(
            project, PROTOCOL, agentsmd.protocol(), "startup protocol for Aider (read: in every request)"
        ),
    ]


def plan_uninstall(project: str) -> list[Change]:
    from agentctl.integrations import agentsmd

    return [_config_change(project, False), agentsmd.plan_unblock(project, PROTOCOL)]


def notes(project: str) -> list[str]:
    out = list(NOTES)
    if auto_lint_off(project):
        out.insert(
            0,
            f"{CONFIG} sets auto-lint off: Aider will not run the lint command, so no edit is logged as it "
            "happens (agentctl left your setting alone); `agentctl files scan` logs them from git",
        )
    return out


def auto_lint_off(project: str) -> bool:
    """Does the project's ``.aider.conf.yml`` turn auto-lint off?"""
    from agentctl.integrations import yamlkeys, yamlparse

    try:
        _, text = _read(project)
        value = yamlparse.scalar(yamlkeys.remove(text), CONFIG, "auto-lint")
    except Exception:
        return False
    return value is not None and value.strip().lower() in ("false", "no", "off", "0")
