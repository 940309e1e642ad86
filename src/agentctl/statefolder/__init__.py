"""The state folder as a whole: ``init`` (its layout), ``migrations`` (older formats), ``opening``
(open, check, migrate); the project-wide commands are ``commands.statefolder`` (`init`, `status`,
`resume`, `prompt`, `runlevel`) and ``commands.gc`` (`gc`). Uses the services and the ground floor.
"""
