"""`agentctl sync`: the syncable state as commits under ``refs/agentctl/<stream>``.

* ``doc``: the state as a join-semilattice (a state-based CRDT) and its merge (``join``), built of
  ``crdt``'s sets, logs and stamped values and of ``epoch``'s tasks.
* ``treeformat``: the path grammar and size limits that make a pulled ref data (parsed, never
  executed); ``treeencode`` / ``treedecode``: a document to tree files and back.
* ``plumbing``: git objects and refs through ``agentctl.ground.git`` (no index, no work tree).
* ``folder`` / ``local``: what the state folder shows, turned into changes of a document;
  ``renderplan`` / ``render``: a merged document planned, then written back into the folder.
* the commands ``sync push|pull|status|auto`` are ``commands.sync``.
"""
