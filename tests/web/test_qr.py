"""The QR code of a link is drawn once and kept: no page draws it (the pad shows an image from
its own address), the image is drawn on the first phone's request, kept by every phone for a year
(``immutable``) and revalidated without drawing; the address draws only what a page of this
server made (its seal)."""

from __future__ import annotations

import re
from html import unescape

import pytest
import qrcode

from companion.routes import qr

from ..conftest import reveillez_link


@pytest.fixture
def scorer(app):
    return reveillez_link(app, "scorer")


@pytest.fixture
def draws(monkeypatch):
    """How many QR codes are drawn (the process's cache emptied first)."""
    monkeypatch.setattr(qr, "_QR_CACHE", type(qr._QR_CACHE)())
    made: list[str] = []
    real = qrcode.make

    def counted(text, **kwargs):
        made.append(text)
        return real(text, **kwargs)

    monkeypatch.setattr(qr.qrcode, "make", counted)
    return made


def qr_sources(html: str) -> list[str]:
    return [unescape(src) for src in re.findall(r'<div class="qr"><img src="([^"]+)"', html)]


def test_a_page_with_qr_codes_draws_none(client, scorer, draws):
    page = client.get(f"/share/{scorer}").text
    sources = qr_sources(page)
    assert len(sources) == 3  # viewer, scorer, group
    assert "<svg" not in page.split('<div class="qr">')[1].split("</div>")[0]
    assert draws == []


def test_the_image_is_drawn_once_and_kept_for_a_year(app, client, scorer, draws):
    source = qr_sources(client.get(f"/share/{scorer}").text)[0]
    first = client.get(source)
    assert first.status_code == 200 and first.mimetype == "image/svg+xml"
    assert first.data.startswith(b"<svg") and b"<path" in first.data
    cache = first.headers["Cache-Control"]
    assert "immutable" in cache and f"max-age={365 * 24 * 3600}" in cache
    assert "Set-Cookie" not in first.headers
    other_phone = app.test_client()
    assert other_phone.get(source).data == first.data
    again = other_phone.get(source, headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304
    assert len(draws) == 1


def test_the_image_is_the_qr_code_of_the_address_shown(client, scorer, draws):
    page = client.get(f"/share/{scorer}").text
    viewer_address = re.search(r'data-address="viewer">([^<]+)<', page).group(1)
    client.get(qr_sources(page)[0])
    assert draws == [unescape(viewer_address)]


def test_only_addresses_made_here_are_drawn(client, scorer, draws):
    source = qr_sources(client.get(f"/share/{scorer}").text)[0]
    forged = re.sub(r"text=[^&]+", "text=http://evil.example/", source)
    assert client.get(forged).status_code == 404
    assert client.get("/qr.svg?text=x&seal=0").status_code == 404
    assert client.get("/qr.svg").status_code == 404
    assert draws == []
