"""The least any shell hook written in Python can cost: ``floor_read.py --bare`` plus the one `git status` it
waits for.

Run as ``VENV/bin/python bench/floor_git.py GIT_ARG...`` in the repository: the interpreter's
start-up with the venv's site packages and ``import os, sys`` (what a recent pip's console script pays: no
``re``), then
git started with ``posix_spawn`` with the arguments and environment agentctl's `files sync` uses
(the bench passes ``agentctl.files.gitchanges.STATUS``), its output read to the end, and its exit
awaited. The Bash hook against this is what agentctl itself adds: its imports, reading its
state, the parse of git's answer, the log's append, and the interpreter's exit with more modules.
"""

import os
import sys

env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_LITERAL_PATHSPECS="1")
out_r, out_w = os.pipe()
pid = os.posix_spawnp(
    "git",
    ["git", "-C", os.getcwd(), *sys.argv[1:]],
    env,
    file_actions=[(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0), (os.POSIX_SPAWN_DUP2, out_w, 1)],
)
os.close(out_w)
while os.read(out_r, 1 << 20):
    pass
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
