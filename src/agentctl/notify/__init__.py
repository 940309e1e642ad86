"""notify: alerts for the person supervising the agent (`agentctl notify`).

The person's commands (in the person's configuration, ``$XDG_CONFIG_HOME/agentctl/notify/``: never
in the project or its state folder, never synced, never taken from a pull) run in the background with
one JSON object on stdin when an event happens: ``config`` reads and writes the commands, ``fire``
is the one call the services and hooks make (one stat when nothing is configured; it queues the
event and starts at most one deliverer), ``deliver`` coalesces a burst and runs the commands in that
detached process, each bounded in time, a failed one retried once.
"""
