"""The interfaces service: the interface changes of the running task, waiting to be migrated.

``services/interfaces/status`` holds one ``NAME|OLD|NEW|MATCH|PATHS|TASK|ADDED`` record a line
(``codec.record``: every field escaped, so a split on ``|`` is always right; PATHS the globs
joined by a newline, escaped as ``\\n``; MATCH empty when OLD itself, as literal text, is what
an old use looks like). The file is empty while no interface is recorded, so a task without
interfaces pays one ``stat``. An *old use* is a line that matches: found for the whole tree by
one ``git grep`` per command (``search``), for one edited file by reading it (``edited``, the
hook path). ``records`` reads and writes the file, ``search`` finds the old uses, ``edited``
judges one file or one write's new text, ``report`` words the lines (``list``, ``check``,
``resume``, ``task stop``, the archive), ``lifecycle`` starts, stops and archives with the task;
its commands are ``commands.interfaces``.
"""
