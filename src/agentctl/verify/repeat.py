"""Is a failing verify run a repeat? The task's failing runs, kept as ``SIG_n`` in the verify status.

Each is a :class:`Sig`: the run, its error signature, the signature of the files it ran on (see
signature) and the fixes recorded for that state (see tried). A failure with the same error on the
same file contents is a REPEAT (that attempt already failed); the same error on other contents is
SAME_ERROR. A fix recorded before its run waits as a pending Sig that the run then fills in.
"""

from __future__ import annotations


class Sig:
    """One failing run's signature, stored as ``SIG_n=RUN ERRSIG FILESIG TEXT``.

    RUN is the run number (``-`` for a fix recorded before its run), ERRSIG the hash
    of the failing command and its normalised error lines (``-`` until a run fills
    it), FILESIG the hash of the touched files' contents (``-`` when no file was
    logged, so contents are unknown), TEXT the fix recorded for that state.
    """

    __slots__ = ("run", "err", "files", "text")

    def __init__(self, run: str, err: str, files: str, text: str = "") -> None:
        self.run = run
        self.err = err
        self.files = files
        self.text = text

    def __repr__(self) -> str:
        return f"Sig({self.value()!r})"

    def value(self) -> str:
        return f"{self.run} {self.err} {self.files} {self.text}".rstrip(" ")


def sigs(fields: dict[str, str]) -> list[Sig]:
    nums = sorted(int(k[4:]) for k in fields if k.startswith("SIG_") and k[4:].isdigit())
    out = []
    for n in nums:
        parts = fields[f"SIG_{n}"].split(" ", 3)
        if len(parts) >= 3:
            out.append(Sig(parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else ""))
    return out


def _describe(sig: Sig) -> str:
    return f"run {sig.run}" + (f' after the fix "{sig.text}"' if sig.text else " (no fix recorded for it)")


def match(fields: dict[str, str], sig_list: list[Sig], run_no: str, err_sig: str, files_sig: str) -> None:
    """Compare a failing run with the task's earlier ones; update ``sig_list`` and REPEAT/SAME_ERROR."""
    known = files_sig != "-"
    exact = next((s for s in reversed(sig_list) if known and s.err == err_sig and s.files == files_sig), None)
    if exact is not None:
        fields["REPEAT"] = _describe(exact)
        return
    same = next((s for s in reversed(sig_list) if s.err == err_sig), None)
    if same is not None:
        fields["SAME_ERROR"] = _describe(same)
    pending = next((s for s in reversed(sig_list) if known and s.err == "-" and s.files == files_sig), None)
    if pending is not None:  # a fix recorded before this run: the run is its result
        pending.run, pending.err = run_no, err_sig
    else:
        sig_list.append(Sig(run_no, err_sig, files_sig))
