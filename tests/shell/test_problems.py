"""The shared problem type: codes with sentences from a game's catalogue, in both languages."""

from companion.scoring.problems import Catalogue, EntryError, Problem

CATALOGUE = Catalogue("companion.scoring.rebel_princess")


def test_problem_message_comes_from_the_catalogue_in_each_language():
    """A problem's sentence is looked up by code; the French table gives the French sentence."""
    problem = CATALOGUE.problem("unknown-card", card="X9")
    assert problem.as_dict() == {"code": "unknown-card", "card": "X9",
                                 "message": problem.text("en")}
    assert "X9" in problem.text("en") and "X9" in problem.text("fr")
    assert problem.text("en") != problem.text("fr")


def test_unknown_code_gives_a_generic_sentence_naming_the_code():
    """A code missing from the catalogue still reads as a sentence, never a crash."""
    assert "no-such-code" in CATALOGUE.problem("no-such-code").message
    assert "no-such-code" in Problem("no-such-code").text("fr")


def test_entry_error_carries_every_problem():
    """An EntryError lists every problem found, not only the first."""
    error = EntryError([Problem("a"), Problem("b", seat=1)])
    assert error.codes == ["a", "b"]
    assert isinstance(error, ValueError)


def test_the_field_and_trick_of_a_problem_fill_in_its_sentence():
    """A problem located in a request field or a trick may name them in its sentence."""
    class Fake(Catalogue):
        @property
        def _tables(self):
            return {"en": {"x": "{field} in trick {trick}"}, "fr": {}}

    problem = Fake("companion.scoring").problem("x", field="held", trick=2)
    assert problem.text("en") == "held in trick 2"
    assert problem.as_dict()["field"] == "held" and problem.as_dict()["trick"] == 2
