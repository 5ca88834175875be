"""What the operator runs: the commands (``flask groups …``, backup and restore), the schema
check a server makes at start, the import jobs' worker, the audit of a running server and
``make run``'s server.

Imported by the factory, ``companion/__init__`` (the operator's app) and ``routes/`` (the
address a phone opens, the schema's readiness); it imports ``web/``, ``play/`` and what lies
below, never ``routes/``."""
