"""Your own services, the init.d way, and runlevels.

``folders`` (which folders are services), ``scripts`` (running a service's script),
``runlevels`` (named sets of services); ``ops`` is the `agentctl SERVICE start|stop|status`
command. Uses the ground floor only.
"""
