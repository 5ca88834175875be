"""A template's ``_()`` (companion.web.i18n): a message without fields is given as it is
translated, without going through ``%`` (most of a page's words) — which must change nothing:
``%%`` still gives ``%``, a translation is Markup where the template escapes, a locale forced
for a while is followed and the request's own is back after it."""

from __future__ import annotations

from flask import render_template_string
from flask_babel import force_locale
from markupsafe import Markup


def test_a_message_without_fields_is_given_as_percent_would_give_it(app):
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        assert render_template_string('{{ _("50%% done") }}') == "50% done"
        assert render_template_string('{{ _("<b>%(n)s</b>", n="<i>") }}') == (
            "<b>&lt;i&gt;</b>")
        assert render_template_string('{{ _("<b>bold</b>") }}') == "<b>bold</b>"
        shown = app.jinja_env.globals["_"]
        context = app.jinja_env.from_string("").new_context({})
        assert isinstance(shown(context, "Rules"), Markup)


def test_a_forced_locale_is_followed_and_the_requests_own_comes_back(app):
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        assert render_template_string('{{ _("Rules") }}') == "Rules"
        with force_locale("fr"):
            assert render_template_string('{{ _("Rules") }}') == "Règles"
        assert render_template_string('{{ _("Rules") }}') == "Rules"
    with app.test_request_context("/", headers={"Accept-Language": "fr"}):
        assert render_template_string('{{ _("Rules") }}') == "Règles"
