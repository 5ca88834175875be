"""QR codes of the addresses a page shows (a game's links, a group's), for the other phones.

A page holds an image from ``/qr.svg`` (:func:`qr_svg`), never the drawing: the phone fetches
it when it is shown and keeps it a year. The address carries a seal made with the app's secret,
so the server draws no one else's text; each drawing is kept per process, compressed
(qrcode's SVG factory needs no Pillow)."""

from __future__ import annotations

import hashlib
import hmac
import zlib
from collections import OrderedDict

import qrcode
import qrcode.image.svg
from flask import (
    Blueprint,
    abort,
    current_app,
    request,
    url_for,
)
from markupsafe import Markup
from werkzeug.wrappers import Response

bp = Blueprint("qr", __name__)

_QR_CACHE: OrderedDict[str, bytes] = OrderedDict()
_QR_CACHE_SIZE = 1024
"""QR codes kept per process, zlib-compressed (about 3.5 kB each instead of 12 kB), at most
about 4 MB: drawing one costs about 9 ms of CPU."""

QR_MAX_AGE = 365 * 24 * 3600


def _qr_drawing(text: str) -> bytes:
    """The SVG QR code of ``text`` (qrcode's SVG factory needs no Pillow), zlib-compressed; the
    newest ``_QR_CACHE_SIZE`` are kept."""
    packed = _QR_CACHE.get(text)
    if packed is not None:
        _QR_CACHE.move_to_end(text)
        return packed
    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage, box_size=8)
    svg = image.to_string(encoding="unicode")
    packed = _QR_CACHE[text] = zlib.compress(svg[svg.index("<svg"):].encode(), 1)
    while len(_QR_CACHE) > _QR_CACHE_SIZE:
        _QR_CACHE.popitem(last=False)
    return packed


def _qr_seal(text: str) -> str:
    """What proves a QR address was made here (so ``/qr.svg`` draws no one else's text), and
    the drawing's ETag: the same text always gives the same image."""
    key = str(current_app.config["SECRET_KEY"]).encode()
    return hmac.new(key, b"qr\0" + text.encode(), hashlib.sha256).hexdigest()[:32]


def qr_svg(text: str) -> str:
    """The QR code of ``text`` as an image from its own address (:func:`qr`), for a template's
    ``{{ … | safe }}``. A page never draws it: the phone fetches it once, when it is shown, and
    keeps it for a year (the address names the text, so the image never changes)."""
    url = url_for("qr.qr", text=text, seal=_qr_seal(text))
    # No alt text: the address is written out beside every code, for whoever cannot scan it.
    return Markup('<img src="{}" alt="" width="180" height="180" loading="lazy">').format(url)


@bp.get("/qr.svg")
def qr() -> Response:
    """The QR code of an address a page of this server showed: drawn once per process, kept by
    the phone (``immutable``, a year) and revalidated without drawing (its ETag is its seal)."""
    text, seal = request.args.get("text", ""), request.args.get("seal", "")
    # The seal is compared as bytes of its one shape (32 hex digits): anything else, non-ASCII
    # included (``compare_digest`` raises on a non-ASCII str), is an address this server never made.
    if (not text or len(text) > 2048 or len(seal) != 32
            or not hmac.compare_digest(seal.encode(), _qr_seal(text).encode())):
        abort(404)
    response = current_app.response_class(mimetype="image/svg+xml")
    response.set_etag(seal)
    response.headers["Cache-Control"] = f"private, max-age={QR_MAX_AGE}, immutable"
    response.make_conditional(request)  # (in place: it answers the response itself)
    if response.status_code == 200:
        response.set_data(zlib.decompress(_qr_drawing(text)))
    return response
