"""notify: alerts for the person supervising the agent (`agentctl notify`).

The person's commands (``.agent-state/notify/commands``, local like verify's commands: never
synced, never taken from a pull) run in the background with one JSON object on stdin when an
event happens: ``config`` reads and writes the commands, ``fire`` is the one call the services
and hooks make (one stat when nothing is configured), ``deliver`` runs the commands in a
detached process, each bounded in time.
"""
