"""The verify service: the project's checks, their runs, and the evidence they leave.

``status`` (status, commands file, journal), ``run`` and ``result`` (a run and its record),
``excerpt`` (the lines that decide), ``signature``, ``repeat`` and ``tried`` (is this failure
seen before, which fixes were tried), ``evidence`` (is the current state covered by a pass);
its commands are ``commands.verify``. Uses the ground floor and ``files``.
"""
