"""The fixes already tried for a failing check (``TRIED_n`` in the verify status), and when two say the same.

A tried fix is tied to the state of the touched files: to the failing run with the same file
contents (normally the run just made), else it waits, as a pending signature, for the run that
tests those contents (see signature). The status keeps the last ``verify.MAX_TRIED``; older ones
go to ``logs/verify-tried.log``. A pass clears the list.
"""

from __future__ import annotations

from agentctl.ground import codec
from agentctl.ground.store import Store, now_iso
from agentctl.verify import status
from agentctl.verify.repeat import Sig, sigs
from agentctl.verify.signature import files_signature

# Two tried-fix texts say the same when, after case folding and dropping punctuation,
# they are equal, or their sets of words (filler words dropped) overlap with a Jaccard
# index of at least SIMILAR (shared words / all words).
SIMILAR = 0.75
_FILLER = frozenset("a an the and or of to in on for with by it its this that again also".split())


def _words(text: str) -> list[str]:
    import re

    return re.findall(r"\w+", text.casefold())


def similar(a: str, b: str) -> bool:
    wa, wb = _words(a), _words(b)
    if wa == wb:
        return True
    ta = {w for w in wa if w not in _FILLER}
    tb = {w for w in wb if w not in _FILLER}
    if not ta or not tb:
        return False
    return len(ta & tb) / len(ta | tb) >= SIMILAR


def add_tried(store: Store, text: str) -> tuple[int, dict[str, str]]:
    result = record_tried(store, text)
    return result.number, result.fields


class TriedResult:
    __slots__ = ("number", "fields", "similar", "similar_ref")

    def __init__(self, number: int, fields: dict[str, str], similar: str = "", similar_ref: str = "") -> None:
        self.number = number  # the new TRIED_n
        self.fields = fields
        self.similar = similar  # the earlier attempt this one says the same as
        self.similar_ref = similar_ref  # where it was recorded: TRIED_n, or the run it was recorded for


def record_tried(store: Store, text: str) -> TriedResult:
    """Record a fix that did not work; say so when it repeats an earlier attempt (see the module
    docstring)."""
    codec.check_text(text, "the tried fix", limit=1000)
    text = text.strip()
    files_sig = files_signature(store)
    with store.lock(status.LOCK):
        fields = status.read_status(store)
        prev = status.tried(fields)
        sig_list = sigs(fields)
        similar_text, ref = "", ""
        for i, earlier in enumerate(prev, 1):
            if similar(text, earlier):
                similar_text, ref = earlier, f"TRIED_{i}"
                break
        else:
            for sig in sig_list:
                hit = next((part for part in sig.text.split(" / ") if part and similar(text, part)), "")
                if hit:
                    similar_text, ref = hit, f"the fix recorded for run {sig.run}"
                    break
        items = prev + [text]
        if len(items) > status.MAX_TRIED:
            store.append("logs/verify-tried.log", codec.record(now_iso(), items[0]))
        if files_sig != "-":
            target = next((s for s in reversed(sig_list) if s.files == files_sig), None)
        else:  # contents unknown: the latest failing run is the best guess
            target = next((s for s in reversed(sig_list) if s.run != "-"), None)
        if target is None:
            sig_list.append(Sig("-", "-", files_sig, text))
        elif not target.text:
            target.text = text
        elif not any(similar(text, part) for part in target.text.split(" / ")):
            target.text = (target.text + " / " + text)[:1000]
        status.write(store, fields, items, sig_list)
        status.journal(
            store, "TRIED", target.run if target else "-", target.err if target else "-", files_sig, text
        )
    store.log_change("verify", "tried", text[:200])
    if similar_text:
        from agentctl.notify import fire

        fire.event(
            store, "repeat", detail=f"fix tried again: {text!r} says the same as {ref} ({similar_text!r})"
        )
    return TriedResult(min(len(items), status.MAX_TRIED), status.read_status(store), similar_text, ref)
