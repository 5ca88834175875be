"""The French catalogues compiled when a server starts, if they are missing or older than their
``.po`` (a ``pip install .`` from a fresh clone ships the ``.po`` files only; ``make install``
compiles them too). Never silently absent: a catalogue that cannot be compiled stops the start
with a message naming it."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

log = logging.getLogger("companion.catalogues")


def is_stale(po: Path) -> bool:
    """The compiled ``.mo`` beside ``po`` is missing or older than it."""
    mo = po.with_suffix(".mo")
    return not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime


def compile_catalogue(po: Path) -> Path:
    """Compile ``po`` to the ``.mo`` beside it, in one step (a file of its own, then renamed, so
    a second worker starting at the same moment never reads half a catalogue)."""
    mo = po.with_suffix(".mo")
    draft = mo.with_name(f".{mo.name}.{os.getpid()}")
    with po.open("rb") as source:
        catalogue = read_po(source)
    with draft.open("wb") as target:
        write_mo(target, catalogue)
    os.replace(draft, mo)
    return mo


def compile_missing(folders: list[Path]) -> list[Path]:
    """Compile every ``.po`` under ``folders`` whose ``.mo`` is missing or stale; the ``.mo``
    files written. Raises RuntimeError naming a catalogue that cannot be compiled."""
    written = []
    for folder in folders:
        for po in sorted(folder.glob("**/LC_MESSAGES/*.po")):
            if not is_stale(po):
                continue
            try:
                written.append(compile_catalogue(po))
            except OSError as error:
                raise RuntimeError(
                    f"the French catalogue {po} is not compiled and cannot be ({error}): "
                    "run `make install`, or `pybabel compile -d` on it, as its owner") from error
            log.warning("compiled the catalogue %s (it was missing or older than its .po)", po)
    return written
