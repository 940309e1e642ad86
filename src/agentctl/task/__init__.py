"""The task service: the status file, its entry list, and the edits the agent makes on them.

``status`` (the status file and the hot edits of `task done`/`task update`), ``entries`` (the
``MARK|PATH`` list), ``edits``, ``claims``, ``corrections`` (`task add|reopen|skip`),
``listinput`` and ``listcheck`` (the list as given), ``ids``, ``pause`` (a runlevel switch);
``ops`` and ``listops`` are its commands. Uses the ground floor, ``files`` and ``constraints``.
"""
