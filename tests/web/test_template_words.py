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


def test_wtforms_messages_are_in_the_requests_language_read_once_per_process(app, monkeypatch):
    from babel import support
    from flask_wtf import FlaskForm
    from wtforms import IntegerField
    from wtforms.validators import InputRequired

    from companion.web import i18n

    class Form(FlaskForm):
        number = IntegerField(validators=[InputRequired()])

    loads: list[str] = []
    load = support.Translations.load

    def counted(dirname=None, locales=None, domain=None):
        loads.append(str(domain))
        return load(dirname, locales, domain)
    monkeypatch.setattr(support.Translations, "load", counted)
    i18n._wtforms_catalogue.cache_clear()
    said = {}
    for lang in ("fr", "en", "fr", "en", "fr"):
        with app.test_request_context("/", method="POST", data={"number": ""},
                                      headers={"Accept-Language": lang}):
            form = Form(meta={"csrf": False})
            assert not form.validate()
            said.setdefault(lang, set()).add(form.number.errors[0])
    assert said == {"fr": {"Ce champ est requis."}, "en": {"This field is required."}}
    assert loads.count("wtforms") == 2  # once per language, not once per request


def test_a_catalogues_words_are_kept_once_made_and_each_language_keeps_its_own(app):
    from companion.web import i18n

    for lang, said in (("fr", "Règles"), ("en", "Rules"), ("fr", "Règles")):
        with app.test_request_context("/", headers={"Accept-Language": lang}):
            assert render_template_string('{{ _("Rules") }}') == said
            translations, words = i18n._words()
            assert words["Rules"] == said and isinstance(words["Rules"], Markup)
            assert i18n._WORDS[translations] is words
            with force_locale("en" if lang == "fr" else "fr"):
                assert render_template_string('{{ _("Rules") }}') != said
            words["Rules"] = Markup("kept")  # (what is kept is what is said)
            assert render_template_string('{{ _("Rules") }}') == "kept"
            del words["Rules"]


def test_a_filled_message_is_kept_under_its_values_and_their_types(app):
    """``_()`` with fields: the sentence is kept (companion.web.i18n._filled) under the values
    and their types: a Markup value is not escaped where the same text as a str is, 1 is not
    True; and a value of another type is filled afresh each time."""
    from companion.web import i18n

    class Name(str):
        pass
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        for _twice in range(2):
            shown = render_template_string(
                '{{ _("<b>%(n)s</b>", n=a) }}|{{ _("<b>%(n)s</b>", n=b) }}|'
                '{{ _("%(n)s left", n=1) }}|{{ _("%(n)s left", n=True) }}|'
                '{{ _("%(n)s left", n=c) }}|{{ _("50%% done") }}',
                a="<i>", b=Markup("<i>"), c=Name("<i>"))
            assert shown == ("<b>&lt;i&gt;</b>|<b><i></b>|1 left|True left|&lt;i&gt; left|"
                             "50% done")
        kept = i18n._filled.cache_info().currsize
        render_template_string('{{ _("%(n)s left", n=c) }}', c=Name("x"))
        assert i18n._filled.cache_info().currsize == kept


def test_a_number_is_printed_with_the_minus_sign(app):
    with app.test_request_context("/"):
        shown = render_template_string(
            "{{ -3 | number }} {{ 0 | number }} {{ 12 | number }} {{ -2.5 | number }}")
    assert shown == "\u22123 0 12 \u22122.5"
