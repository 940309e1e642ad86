"""Work that spans the services: the only modules above them but the state folder's.

``taskflow`` (task start and stop), ``autostop``, ``gitscan`` (`files scan`: what git shows
changed, logged, judged against the rules, kept apart from verify runs), ``resume`` (the one
bounded block recovery reads), ``pathanswers`` (what commands say about protected paths).
Uses the services and the ground floor.
"""
