"""The history of archived tasks: ``index`` (``logs/index``), ``show`` (one task, and search);
``ops`` is its commands. Uses the ground floor and ``files``.
"""
