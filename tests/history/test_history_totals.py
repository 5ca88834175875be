"""A group's totals (issue 31, item 4): statistics and the players' pages read one row per
line shown (``total``), kept in the transaction of every save. Whatever happens to the games —
a game finishing, a finished game reopened and finished again, two people merged, an import —
the totals are what adding up every finished game afresh gives (:func:`stats.by_kind` over
:func:`summaries.played`, the way statistics were counted before), and the pages that read them
run as many queries for a big group as for a small one.
"""

from __future__ import annotations

from sqlmodel import select

from companion.db import get_session
from companion.history import stats
from companion.models import Person, Total
from companion.play import export, group_totals, rebel_princess, store, summaries

from .conftest import by_numbers, rv_game
from .test_history_page_cost import copy_games, queries


def _as_data(per_kind: list[stats.KindStats]) -> list[tuple]:
    return [(s.kind, s.games,
             sorted((line.person, line.games, line.wins, line.score_sum, line.best,
                     line.best_count, [(f.key, f.total, f.count) for f in line.fact_list()])
                    for line in s.lines),
             [(f.key, f.total, f.count) for f in s.fact_list()]) for s in per_kind]


def kept_and_afresh(app, group_id: int) -> tuple[list[tuple], list[tuple]]:
    """The group's statistics from its totals, and from every finished game added up afresh."""
    with app.app_context():
        session = get_session()
        kept, games = summaries.statistics(session, group_id=group_id)
        kinds = [kind.key for kind in summaries.kinds_with_history()]
        played = summaries.played(session, group_id=group_id)
        afresh = stats.by_kind(played, kinds)
        assert games == sum(1 for game in played if game.summary.finished)
    return _as_data(kept), _as_data(afresh)


def line_of(app, group_id: int, person: int, kind: str) -> stats.Line | None:
    with app.app_context():
        found = summaries.lines_of(get_session(), group_id=group_id, person=person)
    return next((line for line in found if line.kind == kind), None)


def test_totals_of_the_known_games_are_every_game_added_up(app, known):
    """Ben won both Rebel Princess games (totals 0 and -5, lowest wins: best -5); Ana lost
    both (12 and 4)."""
    kept, afresh = kept_and_afresh(app, known.group_id)
    assert kept == afresh and kept
    ben = line_of(app, known.group_id, known.person["Ben"], "rebel_princess")
    assert (ben.games, ben.wins, ben.score_sum, ben.best, ben.best_count) == (2, 2, -5, -5, 1)
    ana = line_of(app, known.group_id, known.person["Ana"], "rebel_princess")
    assert (ana.games, ana.wins, ana.score_sum, ana.best) == (2, 0, 16, 4)


def test_a_finished_game_reopened_and_finished_again_moves_the_totals(app, known):
    """Undoing the last round of rp2 takes it out of the statistics (Ben's best falls back to
    his 0 of rp1, read again from his other games); finishing it with another last round
    counts it with its new scores."""
    with app.app_context():
        session = get_session()
        game = store.get_game(session, known.codes["rp2"])
        rebel_princess.undo_last(session=session, game=game)
    kept, afresh = kept_and_afresh(app, known.group_id)
    assert kept == afresh
    ben = line_of(app, known.group_id, known.person["Ben"], "rebel_princess")
    assert (ben.games, ben.wins, ben.best, ben.best_count) == (1, 1, 0, 1)
    with app.app_context():
        session = get_session()
        game = store.get_game(session, known.codes["rp2"])
        rebel_princess.save_round(session=session, game=game, number=3,
                                  played=by_numbers(9, 0, 0, 0), mode="numbers", base_id=None)
    kept, afresh = kept_and_afresh(app, known.group_id)
    assert kept == afresh
    ben = line_of(app, known.group_id, known.person["Ben"], "rebel_princess")
    assert (ben.games, ben.score_sum, ben.best) == (2, 0 + (-10 + 3 + 9), 0)


def test_a_merge_adds_one_persons_lines_to_the_others(app, client, known):
    """Evee's finished Réveillez game becomes Eve's: her line counts it, Evee has none."""
    with app.app_context():
        session = get_session()
        rv_game(session, ["Evee", "Ana"], [20, 10, 20, 5, 15], group_id=known.group_id)
        evee = session.exec(select(Person).where(Person.key == "evee")).one().id
    assert line_of(app, known.group_id, evee, "reveillez").games == 1
    response = client.post(f"{known.base}/players/merge",
                           data={"source": evee, "target": known.person["Eve"]})
    assert response.status_code == 303
    kept, afresh = kept_and_afresh(app, known.group_id)
    assert kept == afresh
    assert line_of(app, known.group_id, known.person["Eve"], "reveillez").wins == 1
    with app.app_context():
        assert get_session().exec(select(Total).where(Total.person_id == evee)).all() == []


def test_an_import_counts_the_imported_games(app, known):
    """The known games imported again into a new group: that group's totals are its games'."""
    with app.app_context():
        session = get_session()
        games = [store.get_game(session, code) for code in known.codes.values()]
        document = export.dumps(export.export(session, games)).encode()
        made = export.import_file(session=session, raw=document, group_id=None,
                                    new_group_name="Imported")
    kept, afresh = kept_and_afresh(app, made.group_id)
    assert kept == afresh and kept


def test_rebuild_gives_what_the_saves_kept(app, known):
    kept, _ = kept_and_afresh(app, known.group_id)
    with app.app_context():
        session = get_session()
        group_totals.rebuild(session.connection(), [known.group_id])
        session.commit()
    assert kept_and_afresh(app, known.group_id)[0] == kept


def test_statistics_and_players_run_the_same_queries_for_8_times_the_games(app, client, known):
    """Statistics, players and a player's page read the totals: as many queries with 56 games
    as with 7, and the figures they show follow the games (copied games are counted once the
    group's totals are made again, as an import does)."""
    pages = [f"{known.base}/stats", f"{known.base}/players/",
             f"{known.base}/players/{known.person['Ana']}", f"/group/{known.token}/"]
    few = {path: queries(app, client, path) for path in pages}
    copy_games(app, known.group_id, 7)
    with app.app_context():
        session = get_session()
        group_totals.rebuild(session.connection(), [known.group_id])
        session.commit()
    assert {path: queries(app, client, path) for path in pages} == few
    kept, afresh = kept_and_afresh(app, known.group_id)
    assert kept == afresh and kept[0][1] == 8 * 2  # Rebel Princess: 2 finished games, 8 times


def test_people_come_most_recent_first_as_their_games_say(app, client, known):
    """Each person's last game, read from the totals and the games in progress, is the newest
    change of any game they sat in (finished or not), also after a finished game changes."""
    from sqlalchemy import func

    from companion.history.summary import utc
    from companion.models import Game, Player
    from companion.play import people

    def both():
        with app.app_context():
            session = get_session()
            shown = {p.id: p.last_played for p in people.people(session, known.group_id)}
            afresh = dict(session.exec(
                select(Player.person_id, func.max(Game.updated_at))
                .join(Game, Game.id == Player.game_id)
                .where(Game.group_id == known.group_id).group_by(Player.person_id)).all())
        return shown, {p: utc(when) for p, when in afresh.items()}

    shown, afresh = both()
    assert shown == afresh and len(shown) == 5
    with app.app_context():
        session = get_session()
        game = store.get_game(session, known.codes["rp1"])
        rebel_princess.undo_last(session=session, game=game)
        rebel_princess.save_round(session=session, game=game, number=3,
                                  played=by_numbers(1, 2, 3, 4), mode="numbers", base_id=None)
    shown, afresh = both()
    assert shown == afresh
    assert max(shown, key=lambda p: shown[p]) in {known.person[n] for n in ("Ana", "Ben", "Cy",
                                                                            "Di")}
