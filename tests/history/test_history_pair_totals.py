"""Head to head from kept pair totals (issue 36, item 4): ``pairtotal`` holds each pair of
people's counts per game kind, kept in the transaction of every save. Whatever happens to the
games — a game finishing, a finished game reopened (undo) and finished again, two people
merged, an import, a rebuild, the group deleted — every pair's record is what
:func:`stats.head_to_head` gives over the finished games afresh (the way the page counted before),
and the page runs as many queries for a big group as for a small one.
"""

from __future__ import annotations

from itertools import permutations

from sqlmodel import select

from companion.db import get_session
from companion.history import stats
from companion.models import PairTotal, Person
from companion.play import export, group_totals, groups, rebel_princess, store, summaries

from .conftest import by_numbers, rv_game
from .test_history_page_cost import copy_games, queries


def _data(record: tuple[stats.Versus, list[stats.Versus]]) -> list[tuple]:
    overall, per = record
    return [(v.kind, v.games, v.wins, v.ahead, v.level) for v in [overall, *per]]


def kept_and_afresh(app, group_id: int) -> tuple[dict, dict]:
    """Every ordered pair of the group's people: their record from the pair totals, and from
    their finished games added up afresh."""
    with app.app_context():
        session = get_session()
        people = [p.id for p in session.exec(select(Person).where(Person.group_id == group_id))]
        kinds = [kind.key for kind in summaries.kinds_with_history()]
        played = summaries.played(session, group_id=group_id)
        kept, afresh = {}, {}
        for first, second in permutations(people, 2):
            kept[(first, second)] = _data(summaries.versus(
                session, group_id=group_id, first=first, second=second))
            afresh[(first, second)] = _data(stats.head_to_head(played, first, second, kinds))
    return kept, afresh


def test_pair_totals_of_the_known_games_are_every_game_added_up(app, known):
    """Ben won both Rebel Princess games against Ana, who sat with him in both."""
    kept, afresh = kept_and_afresh(app, known.group_id)
    assert kept == afresh
    ben, ana = known.person["Ben"], known.person["Ana"]
    assert kept[(ben, ana)][1] == ("rebel_princess", 2, (2, 0), (2, 0), 0)
    assert kept[(ana, ben)][1] == ("rebel_princess", 2, (0, 2), (0, 2), 0)


def test_undo_and_finishing_again_move_the_pair_totals(app, known):
    ben, ana = known.person["Ben"], known.person["Ana"]
    with app.app_context():
        session = get_session()
        rebel_princess.undo_last(session=session, game=store.get_game(session, known.codes["rp2"]))
    kept, afresh = kept_and_afresh(app, known.group_id)
    assert kept == afresh
    assert kept[(ben, ana)][1] == ("rebel_princess", 1, (1, 0), (1, 0), 0)
    with app.app_context():
        session = get_session()
        game = store.get_game(session, known.codes["rp2"])
        rebel_princess.save_round(session=session, game=game, number=3,
                                  played=by_numbers(9, 0, 0, 0), mode="numbers", base_id=None)
    kept, afresh = kept_and_afresh(app, known.group_id)
    assert kept == afresh
    assert kept[(ben, ana)][1][1] == 2


def test_a_merge_moves_one_persons_pairs_to_the_other(app, client, known):
    """Evee's Réveillez game with Ana becomes Eve's: Eve–Ana counts it, no pair names Evee."""
    with app.app_context():
        session = get_session()
        rv_game(session, ["Evee", "Ana"], [20, 10, 20, 5, 15], group_id=known.group_id)
        rv_game(session, ["Ana", "Evee"], [20, 10, 20, 5, 15], group_id=known.group_id)
        evee = session.exec(select(Person).where(Person.key == "evee")).one().id
    eve, ana = known.person["Eve"], known.person["Ana"]
    before, _ = kept_and_afresh(app, known.group_id)
    response = client.post(f"{known.base}/players/merge", data={"source": evee, "target": eve})
    assert response.status_code == 303
    kept, afresh = kept_and_afresh(app, known.group_id)
    assert kept == afresh
    moved = [line for line in before[(evee, ana)] if line[0] == "reveillez"]
    assert moved and moved[0][1] == 2
    assert [line for line in kept[(eve, ana)] if line[0] == "reveillez"][0][1] >= 2
    with app.app_context():
        rows = get_session().exec(select(PairTotal).where(
            (PairTotal.low == evee) | (PairTotal.high == evee))).all()
    assert rows == []


def test_an_import_and_a_rebuild_make_the_same_pairs(app, known):
    with app.app_context():
        session = get_session()
        games = [store.get_game(session, code) for code in known.codes.values()]
        document = export.dumps(export.export(session, games)).encode()
        made = export.import_file(session=session, raw=document, group_id=None,
                                  new_group_name="Imported")
    kept, afresh = kept_and_afresh(app, made.group_id)
    assert kept == afresh and any(line[1] for lines in kept.values() for line in lines)
    before, _ = kept_and_afresh(app, known.group_id)
    with app.app_context():
        session = get_session()
        group_totals.rebuild(session.connection(), [known.group_id])
        session.commit()
    assert kept_and_afresh(app, known.group_id)[0] == before


def test_a_deleted_group_leaves_no_pair(app, known):
    with app.app_context():
        session = get_session()
        assert session.exec(select(PairTotal).where(
            PairTotal.group_id == known.group_id)).all()
        assert groups.delete_group(session=session, group_id=known.group_id)
        assert session.exec(select(PairTotal).where(
            PairTotal.group_id == known.group_id)).all() == []


def test_the_versus_page_shows_the_kept_record_and_runs_the_same_queries_for_8_times(
        app, client, known):
    ben, ana = known.person["Ben"], known.person["Ana"]
    path = f"{known.base}/versus?a={ben}&b={ana}"
    page = client.get(path)
    assert page.status_code == 200
    assert 'data-kind="rebel_princess" data-games="2" data-wins="2,0"' in page.text
    few = queries(app, client, path)
    copy_games(app, known.group_id, 7)
    with app.app_context():
        session = get_session()
        group_totals.rebuild(session.connection(), [known.group_id])
        session.commit()
    assert queries(app, client, path) == few
    assert 'data-kind="rebel_princess" data-games="16" data-wins="16,0"' in client.get(path).text


def test_the_summaries_command_makes_the_totals_again(app, known):
    """A game a 1.0.0 server finished during a rolling upgrade left no pair totals (that release
    did not keep them): `flask summaries --totals` makes every group's again."""
    before, afresh = kept_and_afresh(app, known.group_id)
    with app.app_context():
        session = get_session()
        for pair in session.exec(select(PairTotal)):
            session.delete(pair)
        session.commit()
    emptied, _ = kept_and_afresh(app, known.group_id)
    assert emptied != afresh  # (what the old server left)
    answer = app.test_cli_runner().invoke(args=["summaries", "--totals"])
    assert answer.exit_code == 0, answer.output
    assert "Totals made again:" in answer.output
    assert kept_and_afresh(app, known.group_id) == (before, afresh)
