"""`agentctl doctor [--fix]`: check the whole state folder, and repair what is safe.

``check`` runs the checks of ``layout``, ``logs``, ``planted``, ``services`` and ``tasks``
(with ``kv`` and ``tasksalvage`` to salvage files), ``report`` collects what they found;
``ops`` is the command. Uses the state folder, the workflow, the services and the ground floor.
"""
