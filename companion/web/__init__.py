"""What the web edge shares: security headers and rate limits, languages and French, the colour
scheme, local times, the JSON API's shape, the live polls' fast path, the page store's files, the
log lines and the counts.

Imported by ``routes/``, ``forms/``, ``ops/`` and the factory; it imports ``play/`` and what
lies below, never ``routes/`` nor ``ops/``."""
