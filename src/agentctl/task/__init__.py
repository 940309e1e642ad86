"""The task service: the status file, its entry list, and the edits the agent makes on them.

``status`` (the status file and the hot edits of `task done`/`task update`), ``entries`` (the
``MARK|PATH`` list), ``edits``, ``claims``, ``corrections`` (`task add|reopen|skip`),
``listinput`` and ``listcheck`` (the list as given), ``ids``, ``pause`` (a runlevel switch);
``agentpaths`` (a command's path argument, read by the one rule); its commands are
``commands.task`` and ``commands.tasklist``. Uses the ground floor, ``files``, ``constraints`` and ``notify``.
"""
