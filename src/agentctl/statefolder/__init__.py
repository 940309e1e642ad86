"""The state folder as a whole: ``init`` (its layout), ``migrations`` (older formats), and the
project-wide commands (``ops``: `init`, `status`, `resume`, `prompt`, `runlevel`; ``gcops``:
`gc`). Uses the services, the workflow and the ground floor.
"""
