"""The ground floor: what every room stands on, and knows no service.

The write protocol (``store``: temp file, fsync, rename, appends), locks, temp files and torn
tails, the plain-text formats (``codec``), finding the state folder and reading agent paths
(``location``, ``ancestors``), the one table of built-in services (``servicetable``), the
process runner (``proc``) and git (``git``), retention and quarantine. Imports nothing of
agentctl's outside this room.
"""
