"""The serving install brings only what serving needs, and French is never silently absent:
a catalogue missing or older than its ``.po`` is compiled when a server starts."""

from __future__ import annotations

import os
import re
import shutil
import tomllib
from pathlib import Path

from babel.support import Translations

from companion import create_app
from companion.web.catalogues import compile_missing, is_stale

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
TEST_TOOLS = {"pytest", "pytest-xdist", "playwright", "pytest-playwright", "hypothesis",
              "schemathesis", "ruff", "mypy", "axe-playwright-python"}


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[ ;]", r, maxsplit=1)[0].lower() for r in requirements}


def test_the_serving_install_has_no_test_tool_and_can_serve():
    serving = _names(PROJECT["dependencies"]) | _names(
        PROJECT["optional-dependencies"]["postgres"] + PROJECT["optional-dependencies"]["redis"])
    assert not serving & TEST_TOOLS
    assert {"gunicorn", "prometheus-client", "flask"} <= serving
    assert TEST_TOOLS - {"axe-playwright-python"} <= _names(
        PROJECT["optional-dependencies"]["test"])


def test_make_install_and_make_run_install_no_test_extra():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    serving = re.search(r"^\$\(STAMP\): pyproject.toml\n((?:\t.*\n)+)", makefile, re.M)[1]
    installs = [line for line in serving.splitlines() if "pip install" in line]
    assert installs and not any("test" in line.partition("pip install")[2] for line in installs)
    assert re.search(r"^run: \$\(STAMP\) ", makefile, re.M)  # not the test tools
    assert re.search(r"^test: \$\(TEST_STAMP\) ", makefile, re.M)


def test_a_missing_or_stale_catalogue_is_compiled(tmp_path):
    folder = tmp_path / "translations"
    shutil.copytree(ROOT / "companion" / "translations" / "fr", folder / "fr",
                    ignore=shutil.ignore_patterns("*.mo"))
    po = folder / "fr" / "LC_MESSAGES" / "messages.po"
    assert is_stale(po)
    assert compile_missing([folder]) == [po.with_suffix(".mo")]
    french = Translations.load(str(folder), ["fr"])
    assert french.gettext("Something went wrong") == "Quelque chose s'est mal passé"
    assert compile_missing([folder]) == []  # fresh: left alone
    os.utime(po.with_suffix(".mo"), (0, 0))  # older than its .po
    assert compile_missing([folder]) == [po.with_suffix(".mo")]


def test_a_server_starts_with_every_catalogue_compiled(tmp_path):
    create_app({"TESTING": True, "SECRET_KEY": "t", "DATABASE": str(tmp_path / "t.sqlite")}
               ).extensions["companion.engine"].dispose()
    catalogues = list((ROOT / "companion" / "translations").glob("**/LC_MESSAGES/*.po"))
    assert len(catalogues) >= 4 and not [po for po in catalogues if is_stale(po)]
