"""Each game's page is drawn once per version for every phone and every server process
(``page_store.cached_page`` on the shared page store): two app instances share one store (the Redis
of ``TEST_REDIS_URL`` when set, else files), the second serves the first's drawing without
drawing, byte for byte what a fresh draw gives apart from one browser's own parts (its CSRF
token, its forms' keys, its flashed messages); a save, a rename and a replaced link show on the
next load, and nothing of one browser is ever stored."""

from __future__ import annotations

import re
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from flask import template_rendered
from sqlmodel import select

from companion import create_app
from companion.db import get_session
from companion.extensions import page_store
from companion.models import Player
from companion.play import people as people
from companion.play import store
from companion.routes import page_store as drawings

from ..conftest import REDIS_URL, database_config, empty_tables

# --- the games ----------------------------------------------------------------------------------

def _token(location: str) -> str:
    return location.rstrip("/").rsplit("/", 1)[-1]


def _rp_make(client) -> str:
    data = {"edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
            **{f"names-{s}": n for s, n in enumerate(("Ana", "Ben", "Cléo", "Dan"))},
            **{f"cards-{i}": c for i, c in enumerate("abcde")}}
    response = client.post("/rebel-princess/new", data=data)
    assert response.status_code == 302, response.text[:500]
    return f"/rebel-princess/g/{_token(response.headers['Location'])}"


def _rp_save(client, path: str):
    scores = {f"score_{s}": v for s, v in enumerate(("0", "3", "8", "4"))}
    return client.post(f"{path}/round/1/numbers", data=scores)


def _version(client, path: str) -> str:
    return re.search(r'data-version="(\d+)"', client.get(path).text)[1]


def _pp_make(client) -> str:
    data = {f"names-{s}": n for s, n in enumerate(("Ana", "Ben", "Cléo", "Dan"))}
    response = client.post("/princesse-princesse/new", data={**data, "first": "0"})
    assert response.status_code == 303, response.text[:500]
    return f"/princesse-princesse/g/{_token(response.headers['Location'])}"


def _pp_save(client, path: str):
    return client.post(f"{path}/round", data={"version": _version(client, path), "key": "",
                                              "step": "2", "in": ["1"], "card-1": "5"})


def _rv_make(client) -> str:
    data = {f"names-{s}": n for s, n in enumerate(("Ana", "Ben", "Cléo"))}
    response = client.post("/reveillez/new", data={**data, "first": "0"})
    assert response.status_code == 303, response.text[:500]
    return f"/reveillez/g/{_token(response.headers['Location'])}"


def _rv_save(client, path: str):
    return client.post(f"{path}/act", data={"version": _version(client, path),
                                            "key": uuid.uuid4().hex, "do": "wake", "slot": "3",
                                            "value": "15"})


def _kd_make(client) -> str:
    response = client.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "referee", "wins": "4", "abilities": "all",
        "set_aside": "none"})
    assert response.status_code == 303, response.text[:500]
    return f"/kanai-duel/g/{_token(response.headers['Location'])}"


def _kd_save(client, path: str):
    return client.post(f"{path}/round", data={"first": "spy", "second": "general",
                                              "version": _version(client, path)})


@dataclass(frozen=True)
class Kind:
    """How the tests start a game of one kind, save once, and read that save on its page."""

    name: str
    make: Callable[..., str]  # the scorer's address of a new game
    save: Callable[..., object]
    before: str  # what the page shows before the save…
    after: str  # …and after it
    flash: str | None  # what the save flashes to the scorer, if anything
    board: bool = False  # whether the game has a board alone (/board) drawn as well


KINDS = [
    Kind("rebel-princess", _rp_make, _rp_save, 'data-totals="0,0,0,0"', 'data-totals="0,3,8,4"',
         "Round 1 saved."),
    Kind("princesse-princesse", _pp_make, _pp_save, 'data-seat="1" data-tokens="0"',
         'data-seat="1" data-tokens="1"', "Round 1 saved."),
    Kind("reveillez", _rv_make, _rv_save, 'data-seat="0" data-points="0"',
         'data-seat="0" data-points="15"', None),
    Kind("kanai-duel", _kd_make, _kd_save, 'data-score="0-0"', 'data-score="0-1"', None,
         board=True),
]


# --- two servers on one store, and a third that draws every page afresh ------------------------

def _config(tmp_path, store_config: dict) -> dict:
    return {"TESTING": True, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
            **database_config(tmp_path), **store_config}


@pytest.fixture
def shared(tmp_path):
    """The store two app instances share: the Redis of ``TEST_REDIS_URL``, else files."""
    if REDIS_URL:
        return {"CACHE_TYPE": "RedisCache", "CACHE_REDIS_URL": REDIS_URL,
                "CACHE_KEY_PREFIX": f"test-{uuid.uuid4().hex}:"}
    return {"CACHE_TYPE": "companion.web.page_files.PageFiles",
            "CACHE_DIR": str(tmp_path / "pages")}


@pytest.fixture
def servers(tmp_path, shared):
    """Two app instances (two servers, or two processes of one) on one database and one page
    store, and one that keeps no page (each draw is fresh)."""
    first = create_app(_config(tmp_path, shared))
    empty_tables(first)
    second = create_app(_config(tmp_path, shared))
    fresh = create_app(_config(tmp_path, {"CACHE_TYPE": "NullCache"}))
    yield first, second, fresh
    for app in (first, second, fresh):
        app.extensions["companion.engine"].dispose()


class Draws:
    """How many templates an app drew (Flask's ``template_rendered``; a page from the store
    draws none)."""

    def __init__(self, *apps) -> None:
        self.count = 0
        for app in apps:
            template_rendered.connect(self._drawn, app)

    def _drawn(self, *_args, **_kwargs) -> None:
        self.count += 1

    def __call__(self, client, path: str, **kwargs) -> tuple[str, int]:
        """The page at ``path`` and how many drawings it took."""
        before = self.count
        response = client.get(path, **kwargs)
        assert response.status_code == 200, response.text[:500]
        return response.text, self.count - before


def own_parts_out(html: str) -> str:
    """The page without the parts that belong to one request: its flashed messages, its CSRF
    token (in the htmx header and the forms) and its forms' idempotency keys (new for every
    page, as before)."""
    html = re.sub(r'<div class="flash" role="status">.*?</div>', "", html)
    html = re.sub(r'"X-CSRFToken": "[^"]*"', '"X-CSRFToken": ""', html)
    html = re.sub(r'(name="csrf_token"[^>]*value=")[^"]*"', r'\1"', html)
    return re.sub(r'(name="key"[^>]*value=")[^"]*"', r'\1"', html)


def keys_of(html: str) -> list[str]:
    return re.findall(r'name="key"[^>]*value="([^"]*)"', html)


def viewer_path(app, path: str) -> str:
    base, _, token = path.rpartition("/")
    with app.app_context():
        db = get_session()
        return f"{base}/{store.links_of(db, store.game_by_token(db, token))['viewer'].token}"


def stored(app) -> list[str]:
    """Every drawing the store was given by ``app`` since :func:`watch_store` (decompressed
    where the store is given them compressed)."""
    with app.app_context():
        packed = drawings.packs_drawings()  # (files: kept as drawn)
    return [(zlib.decompress(value[drawings.VERSION_BYTES:]) if packed  # (after its version)
             else value[drawings.VERSION_BYTES:]).decode()
            for value in app.config["_stored_drawings"] if isinstance(value, bytes)]


def watch_store(app, monkeypatch) -> None:
    backend = app.extensions["cache"][page_store]
    app.config["_stored_drawings"] = kept = []
    original = backend.set

    def set_and_note(key, value, *args, **kwargs):
        kept.append(value)
        return original(key, value, *args, **kwargs)

    monkeypatch.setattr(backend, "set", set_and_note)


# --- the tests ----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_a_drawing_serves_every_server_byte_for_byte_and_a_save_replaces_it(servers, kind):
    """The second server serves the first's drawing without drawing, equal to a fresh draw but
    for the CSRF token and the forms' keys (new ones each time); after a save every server and
    every link shows it, drawn once more."""
    first, second, fresh = servers
    draws = Draws(first, second, fresh)
    scorer, phone, other = first.test_client(), second.test_client(), fresh.test_client()
    path = kind.make(scorer)
    scorer.get(path)  # the creation's flash, read (the scorer's page is drawn)
    paths = [path, viewer_path(first, path)]
    if kind.board:
        paths += [p + "/board" for p in paths]
    for round_ in ("before", "after"):
        for address in paths:
            drawn, drawings = draws(scorer, address)
            already = round_ == "before" and address == path
            # (the viewer link's own page: drawn with the scorer's, one drawing for both)
            shared = address == paths[1]
            assert drawings == (0 if already or shared else 1), address  # once per version…
            served, drawings = draws(phone, address)
            assert drawings == 0, address  # …and served by the other server from that drawing
            new, drawings = draws(other, address)
            assert drawings >= 1  # (the app without a store draws every load)
            assert own_parts_out(served) == own_parts_out(new) == own_parts_out(drawn)
            assert served != drawn or not keys_of(served)  # another request: its own keys
            assert "\x00" not in served
            marker = kind.before if round_ == "before" else kind.after
            assert marker in served
        if round_ == "before":
            assert kind.save(scorer, path).status_code in (302, 303)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_each_form_of_a_served_page_gets_its_own_new_key(servers, kind):
    """A double tap is recognised by the form's key: a page served from a drawing gives each of
    its forms a key of its own, new for that request, as a fresh draw does."""
    first, second, _fresh = servers
    scorer = first.test_client()
    path = kind.make(scorer)
    assert kind.save(scorer, path).status_code in (302, 303)  # (undo forms from now on)
    scorer.get(path)
    one, two = (second.test_client().get(path).text for _ in range(2))
    assert keys_of(one) == [] or (set(keys_of(one)).isdisjoint(keys_of(two))
                                  and len(set(keys_of(one))) == len(keys_of(one)))
    assert kind.name == "rebel-princess" or keys_of(one)  # the other games' forms carry keys


@pytest.mark.parametrize("kind", [k for k in KINDS if k.flash], ids=lambda k: k.name)
def test_a_flash_is_put_in_for_its_browser_and_never_stored(servers, kind, monkeypatch):
    """The save's message reaches the scorer on the page drawn for every phone, put in without
    drawing it again; it is never stored, and no other browser sees it."""
    first, second, _fresh = servers
    watch_store(first, monkeypatch)
    watch_store(second, monkeypatch)
    draws = Draws(first, second)
    scorer = first.test_client()
    path = kind.make(scorer)
    scorer.get(path)
    assert kind.save(scorer, path).status_code in (302, 303)
    other_phone = second.test_client()  # the scorer link on another phone draws the new version
    page, drawings = draws(other_phone, path)
    assert drawings == 1 and kind.flash not in page
    page, drawings = draws(scorer, path)
    assert drawings == 0 and page.count(kind.flash) == 1  # from the drawing, with its flash
    assert kind.flash not in draws(scorer, path)[0]  # shown once
    assert stored(first) + stored(second)
    for drawing in stored(first) + stored(second):
        assert kind.flash not in drawing and 'class="flash"' not in drawing


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_a_rename_shows_on_the_next_load(servers, kind):
    """Renaming a person moves no game's version: the names are in the drawing's key."""
    first, second, _fresh = servers
    scorer = first.test_client()
    path = kind.make(scorer)
    viewer = viewer_path(first, path)
    assert "Ben" in second.test_client().get(viewer).text
    with first.app_context():
        db = get_session()
        game = store.game_by_token(db, path.rsplit("/", 1)[-1])
        version = drawings.version_of(game)
        ben = db.exec(select(Player).where(Player.game_id == game.id,
                                           Player.name == "Ben")).one()
        people.rename(session=db, group_id=game.group_id, person_id=ben.person_id,
                      name="Benoît")
        assert drawings.version_of(db.get(type(game), game.id)) == version
    page = second.test_client().get(viewer).text
    assert "Benoît" in page and ">Ben<" not in page


def test_a_duel_seat_page_only_reaches_its_own_browser(servers):
    """On two phones each seat's link shows that seat's hidden cards: its drawing is keyed by the
    link, and a browser that did not take the seat gets nothing from it, drawn or not."""
    first, second, _fresh = servers
    one, two = first.test_client(), second.test_client()
    response = one.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "phones", "wins": "4", "abilities": "all",
        "set_aside": "none"})
    seat1 = response.headers["Location"]
    join = re.search(r"/kanai-duel/g/\w+/join", one.get(seat1).text)[0]
    seat2 = two.post(join).headers["Location"]
    assert two.post(f"{seat2}/pick", data={
        "card": "spy", "version": _version(two, seat2),
        "round": re.search(r'data-stage="(\d+)"', two.get(seat2).text)[1]}).status_code == 303
    for address in (seat2, seat2 + "/board"):
        mine = two.get(address).text  # drawn, and kept: seat 2 sees its own pick…
        assert 'data-my-pick="spy"' in mine
        theirs = one.get(address.replace(seat2, seat1)).text  # …seat 1 only that it picked
        assert 'data-other-picked="1"' in theirs and "data-my-pick" not in theirs
        for intruder in (first.test_client(), second.test_client()):
            answer = intruder.get(address)
            assert answer.status_code == 403 and "data-my-pick" not in answer.text
        assert 'data-my-pick="spy"' in two.get(address).text


def test_a_replaced_viewer_link_shows_on_a_seat_page(servers):
    """Replacing a link moves no version: a duel seat's page, which shows the viewer link for
    the others at the table, shows the new one on its next load."""
    first, second, _fresh = servers
    one = first.test_client()
    seat1 = one.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "phones", "wins": "4", "abilities": "all",
        "set_aside": "none"}).headers["Location"]
    with first.app_context():
        db = get_session()
        game = store.game_by_token(db, seat1.rsplit("/", 1)[-1])
        old = store.links_of(db, game)["viewer"].token
    assert old in one.get(seat1).text
    with first.app_context():
        db = get_session()
        game = store.game_by_token(db, seat1.rsplit("/", 1)[-1])
        version = drawings.version_of(game)
        new = store.replace_link(db, game, "viewer").token
        assert drawings.version_of(store.game_by_token(db, seat1.rsplit("/", 1)[-1])) == version
    page = one.get(seat1).text
    assert new in page and old not in page


def test_the_store_is_bounded(tmp_path, monkeypatch):
    """At most ``CACHE_THRESHOLD`` drawings are kept, each at most ``PAGE_MAX_BYTES``
    compressed; a bigger page is drawn for its request and not kept."""
    app = create_app(_config(tmp_path, {"CACHE_TYPE": "SimpleCache", "CACHE_THRESHOLD": 5}))
    empty_tables(app)
    client = app.test_client()
    path = _rp_make(client)
    for n in range(30):
        assert client.get(f"{path}?n={n}").status_code == 200
    kept = app.extensions["cache"][page_store]._cache
    assert 0 < len(kept) <= 5 + 1
    monkeypatch.setattr(drawings, "PAGE_MAX_BYTES", 100)
    watch_store(app, monkeypatch)
    assert client.get(f"{path}?n=big").status_code == 200
    assert stored(app) == []
    app.extensions["companion.engine"].dispose()


def test_a_new_version_replaces_the_drawing_of_its_page(tmp_path):
    """The store keeps one drawing per page being looked at, not one per version: saves, each
    followed by a load of the viewer's page, leave one drawing of that page (the newest,
    served without drawing on the next load)."""
    app = create_app(_config(tmp_path, {"CACHE_TYPE": "SimpleCache"}))
    empty_tables(app)
    client = app.test_client()
    path = _pp_make(client)
    viewer = viewer_path(app, path)
    kept = app.extensions["cache"][page_store]._cache
    sizes = []
    for _ in range(3):  # (each save reads the scorer's page for its version: two pages)
        assert _pp_save(client, path).status_code == 303
        page = client.get(viewer).text
        sizes.append(len(kept))
    assert sizes == [2, 2, 2]
    drawn = []
    template_rendered.connect(lambda *_a, **_k: drawn.append(1), app)
    assert own_parts_out(client.get(viewer).text) == own_parts_out(page) and drawn == []
    app.extensions["companion.engine"].dispose()


def test_a_store_that_does_not_answer_costs_a_drawing_not_a_page(tmp_path):
    """Redis down (nothing listens on the port): every page is drawn, none fails."""
    app = create_app(_config(tmp_path, {"CACHE_TYPE": "RedisCache",
                                        "CACHE_REDIS_URL": "redis://127.0.0.1:9/0"}))
    empty_tables(app)
    client = app.test_client()
    path = _kd_make(client)
    assert client.get(path).status_code == 200 and client.get(path).status_code == 200
    app.extensions["companion.engine"].dispose()


def test_files_keep_drawings_as_drawn_and_redis_compressed(tmp_path, monkeypatch):
    """This machine's files are given each drawing as drawn (no zlib: its CPU for disk the
    page cache holds anyway), served as kept; a page over ``RAW_FACTOR`` times
    ``PAGE_MAX_BYTES`` is drawn for its request and not kept. The other stores (Redis, and
    the tests' own) are given them compressed."""
    files = {"CACHE_TYPE": "companion.web.page_files.PageFiles",
             "CACHE_DIR": str(tmp_path / "pages")}
    app = create_app(_config(tmp_path, files))
    empty_tables(app)
    with app.app_context():
        assert not drawings.packs_drawings()
    client = app.test_client()
    path = _pp_make(client)
    watch_store(app, monkeypatch)
    draws = Draws(app)
    page, drawn = draws(client, path)
    assert drawn == 1
    kept = app.config["_stored_drawings"]  # (the scorer's page and the viewer link's: one drawing)
    assert len(kept) == 2 and all(
        each[drawings.VERSION_BYTES:].decode().startswith("<!doctype") for each in kept)
    again, drawn = draws(client, path)
    assert drawn == 0 and own_parts_out(again) == own_parts_out(page)
    size = len(kept[0]) - drawings.VERSION_BYTES
    # (another address: the page holds it in its links, a few bytes more or less)
    monkeypatch.setattr(drawings, "PAGE_MAX_BYTES", (size - 200) // drawings.RAW_FACTOR)
    assert draws(client, f"{path}?n=big")[1] == 1 and len(kept) == 2
    monkeypatch.setattr(drawings, "PAGE_MAX_BYTES", (size + 200) // drawings.RAW_FACTOR)
    assert draws(client, f"{path}?n=kept")[1] == 1 and len(kept) == 3
    app.extensions["companion.engine"].dispose()
    packed = create_app(_config(tmp_path, {"CACHE_TYPE": "SimpleCache"}))
    with packed.app_context():
        assert drawings.packs_drawings()
    packed.extensions["companion.engine"].dispose()
