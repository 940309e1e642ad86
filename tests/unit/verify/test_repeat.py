"""repeat: the task's failing runs (SIG_n) and whether a failure repeats one of them."""

from __future__ import annotations

from agentctl.verify.repeat import Sig, match, sigs


def test_sig_values_round_trip_through_the_status_fields() -> None:
    kept = [Sig("3", "e" * 16, "f" * 16, "fix one / fix two"), Sig("-", "-", "f" * 16)]
    fields = {f"SIG_{i}": s.value() for i, s in enumerate(kept, 1)} | {"SIG_x": "junk", "SIG_9": "too short"}
    assert [s.value() for s in sigs(fields)] == [s.value() for s in kept]
    assert repr(kept[1]) == "Sig('- - " + "f" * 16 + "')"


def test_match_same_error_same_files_is_a_repeat() -> None:
    sig_list = [Sig("1", "E", "F", "added a check")]
    fields: dict[str, str] = {}
    match(fields, sig_list, "2", "E", "F")
    assert fields == {"REPEAT": 'run 1 after the fix "added a check"'} and len(sig_list) == 1


def test_match_same_error_other_files_is_the_same_error() -> None:
    sig_list = [Sig("1", "E", "F")]
    fields: dict[str, str] = {}
    match(fields, sig_list, "2", "E", "G")
    assert fields == {"SAME_ERROR": "run 1 (no fix recorded for it)"}
    assert [s.value() for s in sig_list] == ["1 E F", "2 E G"]


def test_match_fills_a_pending_fix_and_never_repeats_unknown_contents() -> None:
    sig_list = [Sig("-", "-", "F", "the fix")]
    fields: dict[str, str] = {}
    match(fields, sig_list, "4", "E", "F")
    assert fields == {} and [s.value() for s in sig_list] == ["4 E F the fix"]
    unknown = [Sig("1", "E", "-")]
    match(fields, unknown, "2", "E", "-")
    assert "REPEAT" not in fields and fields["SAME_ERROR"].startswith("run 1")
