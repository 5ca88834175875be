"""The release this code is: the ``version`` of ``pyproject.toml`` (``1.0.0``). Pure: no web
framework, nothing of the app.

Shown by ``flask --app companion version``, ``/readyz``, ``/metrics``
(``companion_build_info{version=…}``) and every page's footer; ``CHANGELOG.md`` says what each
release changed and how to upgrade to it.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import metadata
from pathlib import Path

_PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
_VERSION = re.compile(r'^version\s*=\s*"([^"]+)"', re.MULTILINE)


@cache
def version() -> str:
    """This code's release: read from ``pyproject.toml`` beside the package when it runs from
    its source tree (an editable install's metadata keeps the version it was installed with),
    else from the installed package's metadata."""
    try:
        found = _VERSION.search(_PYPROJECT.read_text(encoding="utf-8"))
    except OSError:
        found = None
    if found is not None:
        return found[1]
    try:
        return metadata.version("companion")
    except metadata.PackageNotFoundError:
        return "unknown"
