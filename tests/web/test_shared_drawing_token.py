"""A page drawn to be shared (routes/page_store.shared_drawing: the scorer's page a save draws
for the viewers' part) is drawn with no browser's CSRF token, only its mark: each page gets its
own put in its place (the save's answer, the scorer's next load), and none is signed in the
drawing just to be marked out again."""

from __future__ import annotations

from flask import g
from itsdangerous import URLSafeTimedSerializer

from .test_push import publisher  # noqa: F401  (a fixture)
from .test_push_drawing import _new
from .test_push_shared import _Everyone
from .test_save_answers_page import ASK, CSRF, _form


def test_a_shared_drawing_signs_no_token_of_its_own(app, monkeypatch, publisher):  # noqa: F811
    signed: list[bool] = []  # (for each CSRF token signed: whether a shared drawing signed it)
    dumps = URLSafeTimedSerializer.dumps

    def counted(self, obj, salt=None):
        if self.salt == b"wtf-csrf-token":
            signed.append(g.get("shared_drawing") is not None or bool(g.get("link_mark")))
        return dumps(self, obj, salt)
    monkeypatch.setattr(URLSafeTimedSerializer, "dumps", counted)
    publisher.listening = _Everyone()
    client = app.test_client()
    path = _new(client, "princesse-princesse")
    app.config["WTF_CSRF_ENABLED"] = True
    token = CSRF.search(client.get(path).text)[1]  # type: ignore[index]
    for n in range(2):
        signed.clear()
        url, form = _form(client, path, "princesse-princesse", n)
        answer = client.post(url, data={**form, "csrf_token": token}, headers=ASK)
        assert answer.status_code == 200 and "\x00" not in answer.text
        assert signed and not any(signed)
        token = CSRF.search(answer.text)[1]  # type: ignore[index]
        loaded = client.get(path).text  # (from the page store: the drawing kept)
        assert CSRF.search(loaded)[1] and "\x00" not in loaded  # type: ignore[index]
