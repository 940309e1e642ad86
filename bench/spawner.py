"""Runs the benchmark's children from a small process, so their peak-RSS figures are their own.

On Linux a child's ``ru_maxrss`` starts at the high-water mark of the process that forked it
(``exec`` keeps it), so children forked from the bench itself would all report the bench's
memory. This helper, started as ``python -S -I spawner.py`` (about 8 MiB, below any
interpreter with its site packages), spawns each child, waits for it with ``wait4`` and
reports its wall time, peak RSS and exit code.

Protocol: one request a line on stdin, fields separated by NUL: CWD, STDIN_FILE (empty for
/dev/null), ARGV...; one answer a line on stdout: SECONDS MAXRSS_KIB EXIT_CODE.
"""

import os
import sys
import time


def main() -> None:
    env = dict(os.environ)
    null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
    out = sys.stdout
    for line in sys.stdin.buffer:
        cwd, stdin_path, *argv = line.rstrip(b"\n").split(b"\0")
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, stdin_path or os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, null, 1),
            (os.POSIX_SPAWN_DUP2, null, 2),
        ]
        os.chdir(cwd)
        t0 = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
        _, status, usage = os.wait4(pid, 0)
        took = time.perf_counter() - t0
        out.write(f"{took!r} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}\n")
        out.flush()


if __name__ == "__main__":
    main()
