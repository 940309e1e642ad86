"""The command line, a front end: ``entry`` (the console script), ``main`` (argv -> keyword
arguments -> operation -> text or JSON), ``crash`` (the rare endings), ``helptexts`` and
``helpformat`` (help), ``reference`` (docs/reference.md from the registry).
"""
