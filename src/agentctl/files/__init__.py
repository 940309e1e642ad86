"""The files service: the append-only log of every path the agent touched in this task.

``log`` (the log and its hot append), ``index`` and ``lastops`` (caches of it), ``count``,
``gitchanges`` (one `git status` against a commit), ``watched`` (entries git does not show),
``ignore`` (what `files scan` never logs); its commands are ``commands.files``. Uses the ground floor and
``constraints``.
"""
