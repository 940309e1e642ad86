"""What several test folders share: helpers and fixtures, one module a concern.

A test file imports its helpers from here (or its own folder's harness, or ``conftest``), never from
another test file: ``tests/test_architecture.py`` keeps it so.
"""
