"""Your own services, the init.d way, and runlevels.

``folders`` (which folders are services), ``scripts`` (running a service's script),
``runlevels`` (named sets of services); the `agentctl SERVICE start|stop|status` command
is ``commands.userservices``. Uses the ground floor only.
"""
