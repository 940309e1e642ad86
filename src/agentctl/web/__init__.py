"""`agentctl web`, a front end: ``page`` (the command), ``server`` (HTTP), ``data`` (one dict
from the library's own operations), ``files``, ``history``, ``logs`` and ``times`` (its
readers), ``static/`` (the page).
"""
