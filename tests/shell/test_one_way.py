"""The house keeps one way of doing each thing (issue 32): a save's summary is made below the
routes, each core words its problems in ``problems.py``, the pages word a problem through
``Problem.text``, and the type checker reads the whole package with no module let off.

Read from the source (``ast`` and ``tomllib``), so a change that brings an old way back fails
here, with the place named.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from companion.scoring.rebel_princess.problems import CATALOGUE

ROOT = Path(__file__).resolve().parents[2]
COMPANION = ROOT / "companion"


def _defined(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


def test_no_summary_is_made_in_the_routes():
    """What a game came to is made by its glue (``companion/play/<key>.py``): nothing under
    ``routes/`` defines ``summary`` or ``summary_from``."""
    found = [f"{path.relative_to(ROOT)}: {name}"
             for path in sorted((COMPANION / "routes").rglob("*.py"))
             for name in _defined(path) & {"summary", "summary_from"}]
    assert found == []


def test_every_game_glue_offers_its_summary():
    """Each game of the registry is plugged in with its glue (``GameKind.glue()``, a
    ``GameGlue``) whose ``summary`` and ``summary_from`` are defined in its glue module,
    ``companion/play/<key>.py``."""
    from companion.factory import plug_in_games
    from companion.games import GameGlue, registry

    plug_in_games()
    kinds = registry()
    assert kinds
    for kind in kinds:
        glue = kind.glue()
        assert isinstance(glue, GameGlue), kind.key
        assert glue.read.__module__ == glue.from_replay.__module__ == f"companion.play.{kind.key}"
        path = COMPANION / "play" / f"{kind.key}.py"
        assert {"summary", "summary_from"} <= _defined(path), kind.key


def test_every_core_words_its_problems_in_problems_py():
    """A core with sentences (``messages.toml``) reads them through one ``CATALOGUE`` declared in
    its ``problems.py``, the one catalogue module name in every core."""
    cores = [path.parent for path in sorted((COMPANION / "scoring").glob("*/messages.toml"))]
    assert len(cores) >= 4
    for core in cores:
        problems = core / "problems.py"
        assert problems.is_file(), core.name
        tree = ast.parse(problems.read_text(encoding="utf-8"))
        declared = {target.id for node in tree.body if isinstance(node, ast.Assign)
                    for target in node.targets if isinstance(target, ast.Name)}
        assert "CATALOGUE" in declared, core.name


def test_no_module_is_let_off_the_type_checker():
    """``mypy --strict`` reads the whole package (``make lint``; with the toy fifth game of the
    test tree, where it plugs in): no ``ignore_errors`` anywhere in its configuration."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["strict"] is True and config["files"][0] == "companion"
    assert "ignore_errors" not in config
    assert [o["module"] for o in config.get("overrides", []) if "ignore_errors" in o] == []


def test_a_rebel_princess_problem_is_worded_for_the_table_by_problem_text():
    """The pages' one filter calls ``Problem.text``: for the table (names given) a Rebel Princess
    problem names the player and the card (never its code) and starts with a capital; the API's
    ``message`` (no names) keeps the code."""
    import companion.scoring.rebel_princess.engine  # noqa: F401  (it names the cards)

    problem = CATALOGUE.problem("missing-card", card="P3")
    names = ["Ana", "Ben", "Cy"]
    assert problem.text("en", names) == "The 3 of Princes has not been given to anyone yet."
    assert problem.text("fr", names) == "Personne n'a encore reçu le 3 de Princes."
    assert problem.message == "P3 has not been given to anyone yet."
    frog = CATALOGUE.problem("missing-card", card="A8")
    assert frog.text("fr", ["Ana"]) == "Personne n'a encore reçu la Grenouille."
    counted = CATALOGUE.problem("bad-prince-count", seat=1, expected=10)
    assert counted.text("en", names).startswith("Ben can have taken 0 to 10")
    ranged = CATALOGUE.problem("impossible-round-total", got=7, expected="-10 or 15")
    assert "-10 ou 15" in ranged.text("fr", ["Ana"])


def test_the_pages_word_every_problem_with_one_filter(app):
    """No template filter but ``problem_text`` words a problem: every ``*problem*`` filter the app
    registers is that one (the trick screen's own ``trick_problem`` is gone)."""
    from companion.web.i18n import problem_text

    worded = {name: f for name, f in app.jinja_env.filters.items() if "problem" in name}
    assert worded == {"problem_text": problem_text}
    for template in (COMPANION / "templates").rglob("*.html"):
        assert "trick_problem" not in template.read_text(encoding="utf-8"), template


def test_a_refused_tap_words_its_card_and_the_judges_reason_itself():
    """A refused tap on the trick screen (its own catalogue) names the card as the deck shows it
    and carries the judge's sentence as its reason, in the page's language: what the one filter
    shows, with no help from a template."""
    import companion.scoring.rebel_princess.engine  # noqa: F401  (it names the cards)
    from companion.play.rebel_princess_tricks import TrickRejected
    from companion.scoring.rebel_princess import RebelCard

    names = ["Ana", "Ben", "Cy"]
    played = TrickRejected("card-already-played", card=RebelCard.from_code("P3"), trick=2)
    assert played.problems[0].text("en", names) == (
        "The 3 of Princes was already played in trick 2. Nothing was stored.")
    assert played.problems[0].text("fr", names) == (
        "Le 3 de Princes a déjà été joué au pli 2. Rien n'a été enregistré.")
    frog = TrickRejected("card-not-in-deck", card=RebelCard.from_code("A8"))
    assert frog.problems[0].text("fr", names).startswith("Le 8 d'Animaux, la Grenouille ne fait")
    judge = CATALOGUE.problem("missing-card", card="P3")
    refused = TrickRejected("power-refused", problem=judge)
    assert refused.problems[0].text("en", names) == (
        "Not stored: The 3 of Princes has not been given to anyone yet.")
    both = TrickRejected("not-saved", problems=[judge, judge])
    assert both.problems[0].text("fr", names).count("Personne n'a encore reçu") == 2


def test_the_session_hooks_are_installed_in_one_place():
    """Every module that hooks the database session offers an ``install()`` that the app's
    factory calls when it builds the app; none hooks sessions on its own when imported."""
    installers = []
    for path in sorted((COMPANION / "play").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.FunctionDef) and node.name == "install" for node in tree.body):
            installers.append(path.stem)
        called_at_import = [node.lineno for node in tree.body if isinstance(node, ast.Expr)
                            and isinstance(node.value, ast.Call)
                            and getattr(node.value.func, "id", None) == "install"]
        assert not called_at_import, (path.name, called_at_import)
    assert set(installers) >= {"store", "people", "summaries"}, installers
    factory = (COMPANION / "factory.py").read_text(encoding="utf-8")
    for name in installers:
        assert f"    {name}.install()\n" in factory, name
