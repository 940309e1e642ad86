"""The operations: one typed function per command (``registry`` maps each command to one).

Each takes ``(ctx, *, keyword arguments)`` and returns an ``operation.Result``; none prints or
reads standard input itself. Modules are grouped by service; each imports the core modules it
uses inside its functions, so a command loads only what it needs.
"""
