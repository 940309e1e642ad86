"""`agentctl doctor [--fix]`: check the whole state folder, and repair what is safe.

``check`` runs the checks of ``layout``, ``logs``, ``planted``, ``services`` and ``tasks``
(with ``kv`` and ``tasksalvage`` to salvage files), ``report`` collects what they found;
the command is ``commands.doctor``. Uses the state folder, the services and the ground floor.
"""
