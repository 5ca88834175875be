"""One drawing per change: the scorer's write draws the scorer's page once, keeps it in the page
store for the scorer's next request, and takes the viewers' part from that same drawing
(``routes/live._shared_part``).

Nobody where they don't belong: the part a viewer is sent is, byte for byte (each browser's CSRF
token and form keys blanked), what a viewer loading the page gets — for every game whose viewers
watch the game's own page, in English and French, in progress and finished (« Play again » is the
scorer's only), after a correction, an undo, a replaced link — and a part that would hold the
scorer's token, or any other link's, is never published: it is drawn through the viewer link.
The scorer's page the write kept is what the scorer's request would have drawn."""

from __future__ import annotations

import re

import pytest
from prometheus_client import REGISTRY

from companion.db import get_session
from companion.extensions import page_store as store_backend
from companion.models import Game
from companion.play import princesse_princesse, reveillez, store
from companion.routes import live, page_store
from companion.scoring.princesse_princesse import RoundReveal
from companion.scoring.reveillez import PrincessCard, Wake

from .test_push import KEYS, SCORES, _part, _viewer, publisher  # noqa: F401  (a fixture)
from .test_push_drawing import _channel, _new, _pushed, _same_as_loaded

SHARED_KINDS = ["rebel-princess", "princesse-princesse", "reveillez", "kanai-duel"]
DUEL_ROUNDS = [("wizard", "general"), ("minister", "minister"), ("assassin", "clown")]


class _Everyone:
    """Every channel has a listener (the channels a replaced link moves to included)."""

    def __contains__(self, name: object) -> bool:
        return True


def _parts(how: str) -> float:
    return REGISTRY.get_sample_value("companion_push_parts_total", {"how": how}) or 0.0


def _save(client, path: str, kind: str, n: int) -> None:
    """The scorer's ``n``-th save (0 first) of a game of ``kind`` at ``path``."""
    if kind == "rebel-princess":
        url, form = f"{path}/round/{n + 1}/numbers", SCORES
    elif kind == "princesse-princesse":
        url, form = f"{path}/round", {"version": str(n), "step": "2", "in": [str(n % 3)]}
    elif kind == "kanai-duel":  # (a referee's round: both cards from the scorer's phone)
        first, second = DUEL_ROUNDS[n]
        url, form = f"{path}/round", {"version": str(n), "first": first, "second": second}
    else:
        found = re.search(r'data-version="(\d+)"', client.get(path).text)
        assert found is not None
        url, form = f"{path}/act", {"version": found[1], "key": f"wake-{n:04d}", "do": "wake",
                                    "slot": str(n), "value": str([5, 10, 15, 5, 10][n])}
    answer = client.post(url, data=form)
    assert answer.status_code in (302, 303), answer.text[:2000]


FLASHES = re.compile(r'<div class="flash" role="status">.*?</div>|"X-CSRFToken": "[^"]*"')


def _blank(page: str) -> str:
    """A page without what is each request's own: its form keys, CSRF token, flashed messages
    (the save's, shown by the first of two requests)."""
    return FLASHES.sub("", KEYS.sub(lambda m: (m[1] or m[2]) + '"' + (m[3] or ""), page))


def _scorer_page_kept(app, client, path: str, lang: str, monkeypatch) -> None:
    """The scorer's next request finds its page drawn (a page-store hit), and that page is the
    one a fresh drawing gives."""
    hits: list[bool] = []
    real = page_store.metrics.count_page_store
    monkeypatch.setattr(page_store.metrics, "count_page_store",
                        lambda *, hit: (hits.append(hit), real(hit=hit)))
    kept = client.get(path, headers={"Accept-Language": lang}).text
    assert hits == [True]
    store_backend.clear()
    fresh = client.get(path, headers={"Accept-Language": lang}).text
    assert hits == [True, False]
    assert _blank(kept) == _blank(fresh)
    monkeypatch.setattr(page_store.metrics, "count_page_store", real)


@pytest.mark.parametrize("kind", SHARED_KINDS)
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_save_shares_one_drawing_between_the_scorer_and_the_viewers(
        app, client, publisher, monkeypatch, kind, lang):  # noqa: F811
    client.set_cookie("lang", lang)  # the scorer's phone in this language
    phones = app.test_client()  # the viewers' phones, in the language they ask for
    path = _new(client, kind)
    token = path.rsplit("/", 1)[1]
    viewer = _viewer(client, path)
    names = {each: _channel(phones, viewer, each) for each in ("en", "fr")}
    publisher.listening = set(names.values())
    for n in range(3):
        publisher.seen.clear()
        shared, drawn = _parts("shared"), _parts("drawn")
        _save(client, path, kind, n)
        # The scorer's language from its drawing, the other one drawn through the viewer link.
        assert (_parts("shared") - shared, _parts("drawn") - drawn) == (1, 1)
        for each, name in names.items():
            part = _pushed(publisher, name)
            assert token not in part
            _same_as_loaded(phones, viewer, part, each)
        _scorer_page_kept(app, client, path, lang, monkeypatch)


def test_a_correction_and_an_undo_share_the_drawing_and_push_what_a_viewer_loads(
        app, client, publisher, monkeypatch):  # noqa: F811
    path = _new(client, "rebel-princess")
    viewer = _viewer(client, path)
    name = _channel(client, viewer)
    publisher.listening = {name}
    _save(client, path, "rebel-princess", 0)
    form = client.get(f"{path}/round/1/numbers").text
    base = re.search(r'name="base"[^>]*value="(\d+)"|value="(\d+)"[^>]*name="base"', form)
    assert base is not None
    shared = _parts("shared")
    corrected = {**SCORES, "score_0": "2", "score_1": "5", "base": base[1] or base[2]}
    assert client.post(f"{path}/round/1/numbers", data=corrected).status_code == 302
    assert _parts("shared") == shared + 1
    part = _pushed(publisher, name)
    assert ">5<" in part.replace(" ", "")
    _same_as_loaded(client, viewer, part)
    _scorer_page_kept(app, client, path, "en", monkeypatch)
    version = re.search(r'name="version" value="(\d+)"', client.get(path).text)
    assert version is not None
    publisher.seen.clear()
    assert client.post(f"{path}/undo", data={"version": version[1]}).status_code == 302
    assert _parts("shared") == shared + 2
    part = _pushed(publisher, name)
    assert ">5<" not in part.replace(" ", "")
    _same_as_loaded(client, viewer, part)
    _scorer_page_kept(app, client, path, "en", monkeypatch)


def _finished(app, kind: str) -> str:
    """A finished game of ``kind``, stored through its own glue: its scorer's page's path."""
    with app.app_context():
        session = get_session()
        names = ["Ana", "Ben", "Cy", "Di", "Eve"]
        if kind == "princesse-princesse":  # (tests/history/conftest.py's "pp")
            game = princesse_princesse.create_game(session=session, names=names, first=0)
            for reveal in (RoundReveal.of([None] * 5, still_in={0}, spies={0}),
                           RoundReveal.of([None, 8, 5, None, None], princesses={1, 2}),
                           RoundReveal.of([5, None, None, 5, None])):
                view = princesse_princesse.view_game(session, game)
                princesse_princesse.save_round(session=session, view=view,
                                               based_on=view.version, key=None, reveal=reveal)
        else:  # (its "rv")
            game = reveillez.create_game(session=session, names=names[:2], first=0,
                                         variant=False, show_values=False)
            for index, value in enumerate([20, 10, 20, 5, 15]):
                reveillez.record(session=session, game=game,
                                 action=Wake(index, PrincessCard(value)), based_on=index,
                                 key=f"wake-{index}")
        token = store.links_of(session, game)["scorer"].token
    return f"/{kind}/g/{token}"


@pytest.mark.parametrize("kind", ["rebel-princess", "princesse-princesse", "reveillez"])
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_finished_game_shares_its_drawing_without_the_scorers_play_again_after_a_replaced_link(
        app, client, publisher, monkeypatch, kind, lang):  # noqa: F811
    client.set_cookie("lang", lang)
    phones = app.test_client()
    if kind == "rebel-princess":
        path = _new(client, kind)
        publisher.listening = _Everyone()
        for n in range(5):  # the last round's save finishes it: shared too
            publisher.seen.clear()
            shared = _parts("shared")
            _save(client, path, kind, n)
            assert _parts("shared") == shared + 1
    else:
        path = _finished(app, kind)
    token = path.rsplit("/", 1)[1]
    page = client.get(path).text
    assert 'data-action="again"' in page, "not finished"
    old = _viewer(client, path)
    if kind == "rebel-princess":  # the last save's part: what the viewer loads, no « again »
        part = _pushed(publisher, _channel(phones, old, lang))
        assert 'data-action="again"' not in part and token not in part
        _same_as_loaded(phones, old, part, lang)
    # A replaced viewer link: a write of the scorer's; the new channels are listened to.
    publisher.listening = _Everyone()
    publisher.seen.clear()
    shared = _parts("shared")
    assert client.post(f"/share/{token}/replace/viewer").status_code == 303
    assert _parts("shared") == shared + 1
    viewer = _viewer(client, path)
    assert viewer != old
    part = _pushed(publisher, _channel(phones, viewer, lang))
    assert 'data-action="again"' not in part and 'data-action="new-game"' in part
    assert token not in part and old.rsplit("/", 1)[1] not in part
    assert viewer.rsplit("/", 1)[1] in part
    _same_as_loaded(phones, viewer, part, lang)
    _scorer_page_kept(app, client, path, lang, monkeypatch)


def test_a_part_that_would_hold_the_scorers_token_is_never_published(
        app, client, publisher, monkeypatch):  # noqa: F811
    """The mutation check: a derivation that left the scorer's token in (here: the mark put back
    as the scorer's token) is refused, counted, and the part drawn through the viewer link."""
    path = _new(client, "reveillez")
    token = path.rsplit("/", 1)[1]
    viewer = _viewer(client, path)
    name = _channel(client, viewer)
    publisher.listening = {name}
    real = page_store.viewers_part
    monkeypatch.setattr(page_store, "viewers_part",
                        lambda drawing, _viewer_token: real(drawing, token))
    refused, shared, drawn = _parts("refused"), _parts("shared"), _parts("drawn")
    _save(client, path, "reveillez", 0)
    assert (_parts("refused") - refused, _parts("shared") - shared,
            _parts("drawn") - drawn) == (1, 0, 1)
    part = _pushed(publisher, name)
    assert token not in part
    _same_as_loaded(client, viewer, part)


def test_the_scorers_bits_are_marked_and_dropped_from_the_viewers_part(
        app, client, publisher):  # noqa: F811
    """A scorer's bit left unmarked (here: the share links' filter made a no-op) reaches the
    part, and the part then differs from what a viewer loads: the byte-for-byte checks above
    are what catch it; and the share page's link holds the scorer's token: refused."""
    path = _new(client, "rebel-princess")
    viewer = _viewer(client, path)
    name = _channel(client, viewer)
    publisher.listening = {name}
    app.jinja_env.filters["for_scorer"] = lambda text: text
    try:
        refused = _parts("refused")
        _save(client, path, "rebel-princess", 0)
        assert _parts("refused") == refused + 1
    finally:
        app.jinja_env.filters["for_scorer"] = live._for_scorer
    _same_as_loaded(client, viewer, _pushed(publisher, name))


def test_a_viewers_write_nor_a_language_other_than_the_scorers_shares_nothing(
        app, client, publisher):  # noqa: F811
    phones = app.test_client()
    path = _new(client, "princesse-princesse")
    viewer = _viewer(client, path)
    names = {each: _channel(phones, viewer, each) for each in ("en", "fr")}
    publisher.listening = {names["fr"]}  # only French viewers; the scorer's phone in English
    shared, drawn = _parts("shared"), _parts("drawn")
    _save(client, path, "princesse-princesse", 0)
    assert (_parts("shared") - shared, _parts("drawn") - drawn) == (0, 1)
    _same_as_loaded(phones, viewer, _pushed(publisher, names["fr"]), "fr")
    # A viewer link never writes (403): nothing drawn, nothing shared.
    answer = client.post(f"{viewer}/round", data={"version": "1", "step": "2", "in": ["1"]})
    assert answer.status_code == 403
    assert (_parts("shared") - shared, _parts("drawn") - drawn) == (0, 1)
    # An htmx write answers a partial (the scorer's page is not asked next): drawn as before.
    publisher.listening = set(names.values())
    answer = client.post(f"{path}/round", data={"version": "1", "step": "2", "in": ["1"]},
                         headers={"HX-Request": "true"})
    assert answer.status_code in (200, 302, 303)
    assert (_parts("shared") - shared, _parts("drawn") - drawn) == (0, 3)


def test_a_page_that_linked_this_browsers_own_games_is_not_shared(
        app, client, publisher):  # noqa: F811
    """Such a page is this browser's own (page_store.cached_page keeps it for nobody): its part
    would carry that browser's links to the viewers. Here the scorer's page is made to say so."""
    from flask import g

    phones = app.test_client()
    path = _new(client, "rebel-princess")
    viewer = _viewer(client, path)
    name = _channel(phones, viewer)
    publisher.listening = {name}

    def own(text):
        g.urls_of_this_browser = True
        return live._for_scorer(text)
    app.jinja_env.filters["for_scorer"] = own
    try:
        shared, drawn, refused = _parts("shared"), _parts("drawn"), _parts("refused")
        _save(client, path, "rebel-princess", 0)
        assert (_parts("shared") - shared, _parts("drawn") - drawn,
                _parts("refused") - refused) == (0, 1, 0)
    finally:
        app.jinja_env.filters["for_scorer"] = live._for_scorer
    _same_as_loaded(phones, viewer, _pushed(publisher, name))


def test_a_two_phone_duel_shares_only_the_scorer_links_writes_never_a_seats(
        app, publisher, monkeypatch):  # noqa: F811
    """On two phones each seat's page shows its own hand and secret pick: a seat's write (its
    pick) draws the viewers' part through the viewer link, never from the seat's page. The
    scorer link holds no seat: its write (here: the viewer link replaced) shares its drawing,
    which is, byte for byte, what a viewer loads, and holds neither seat's token nor a pick."""
    from tests.kanai_duel.test_kanai_duel_web import join, join_path, new_game, version_of

    first, second, phones = app.test_client(), app.test_client(), app.test_client()
    seat1 = new_game(first, mode="phones")
    seat2 = join(second, join_path(first, seat1))
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, seat1.rsplit("/", 1)[1])
        assert isinstance(game, Game)
        links = store.links_of(session, game)
        scorer, seats = links["scorer"].token, [links["seat1"].token, links["seat2"].token]
    publisher.listening = _Everyone()
    shared, drawn = _parts("shared"), _parts("drawn")
    answer = second.post(seat2 + "/pick", data={"card": "assassin", "round": 1,
                                                 "version": version_of(second, seat2)})
    assert answer.status_code == 303
    assert (_parts("shared") - shared, _parts("drawn") - drawn) == (0, 2)
    path = f"/kanai-duel/g/{scorer}"
    viewer = _viewer(phones, path)
    part = _pushed(publisher, _channel(phones, viewer))
    assert "assassin" not in part.lower()
    _same_as_loaded(phones, viewer, part)
    publisher.seen.clear()
    assert first.post(f"/share/{scorer}/replace/viewer").status_code == 303
    assert _parts("shared") - shared == 1
    viewer = _viewer(phones, path)
    part = _pushed(publisher, _channel(phones, viewer))
    assert viewer.rsplit("/", 1)[1] in part
    assert not any(token in part for token in [scorer, *seats])
    assert "assassin" not in part.lower()
    _same_as_loaded(phones, viewer, part)
    _scorer_page_kept(app, first, path, "en", monkeypatch)


def test_the_mark_is_the_apps_own_and_never_left_in_a_page(app, client):
    with app.test_request_context():
        mark = page_store.link_mark()
        assert re.fullmatch(r"[0-9a-f]{32}", mark)
        app.config["SECRET_KEY"] = "another"
        assert page_store.link_mark() != mark


def test_with_csrf_on_the_scorers_token_never_reaches_the_viewers(app, client,
                                                                  publisher):  # noqa: F811
    """As served (CSRF on): the page drawn with the scorer's session has that session's CSRF
    token in its forms; the part the viewers get has none (each page puts its own in: app.js),
    and is otherwise what a viewer loads."""
    phones = app.test_client()
    path = _new(client, "rebel-princess")
    viewer = _viewer(client, path)
    name = _channel(phones, viewer)
    publisher.listening = {name}
    app.config["WTF_CSRF_ENABLED"] = True
    page = client.get(path).text
    found = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page)
    assert found is not None
    shared = _parts("shared")
    answer = client.post(f"{path}/round/1/numbers", data={**SCORES, "csrf_token": found[1]})
    assert answer.status_code == 302
    assert _parts("shared") == shared + 1
    part = _pushed(publisher, name)
    values = re.findall(r'name="csrf_token" type="hidden" value="([^"]*)"', part)
    assert values and set(values) == {""}
    assert found[1] not in part
    _same_as_loaded(phones, viewer, part)
    # The scorer's page kept for its request carries that request's own token.
    again = client.get(path).text
    mine = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', again)
    assert mine is not None and "\x00" not in again


def test_a_drawing_to_be_shared_never_looks_in_the_page_store_first(
        app, client, publisher, monkeypatch):  # noqa: F811
    """The write before it moved the game's version: what the store holds for the scorer's page is
    an older drawing, so the save draws without reading it — and keeps the new one, which the
    scorer's next request then finds (one read, a hit)."""
    path = _new(client, "princesse-princesse")
    viewer = _viewer(client, path)
    publisher.listening = {_channel(client, viewer)}
    client.get(path)  # the scorer's page of the version before the save, kept
    backend = store_backend.cache
    reads: list[str] = []
    real_get = backend.get
    monkeypatch.setattr(backend, "get", lambda key: (reads.append(key), real_get(key))[1])
    shared = _parts("shared")
    _save(client, path, "princesse-princesse", 0)
    assert _parts("shared") == shared + 1
    assert reads == []
    _scorer_page_kept(app, client, path, "en", monkeypatch)  # (a hit: the save kept it)
