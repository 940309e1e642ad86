"""The one way every front end calls the core: ``contract`` (``Ctx``, ``Result``, the JSON
envelope), ``registry`` (the one table of commands: words, operation, options, arguments) and
``numbers`` (how a service's fields appear in a result's data). On the operations floor; the commands use it.
"""
