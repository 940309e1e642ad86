"""The history of archived tasks: ``index`` (``logs/index``), ``show`` (one task, and search);
its commands are ``commands.history``. Uses the ground floor and ``files``.
"""
