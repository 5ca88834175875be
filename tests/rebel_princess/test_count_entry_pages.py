"""Round entry by counts: offered first where counts decide, saved as counts, refused when the
counts do not add up (nothing stored), and told apart in the history."""

from __future__ import annotations

import re

from companion.models import RoundRecord

from .conftest import attr, count, totals


def counts_data(princes, frog, **extra):
    data = {f"princes_{seat}": str(n) for seat, n in enumerate(princes)}
    data["frog"] = str(frog)
    data.update({key: str(value) for key, value in extra.items()})
    return data


def test_pad_defaults_to_counts_where_they_decide(client, make_game):
    html = client.get(f"/rebel-princess/g/{make_game()}").text
    entries = [action for action in attr(html, "data-action") if action.startswith("enter")]
    assert entries[:2] == ["enter-counts", "enter-cards"]


def test_pad_defaults_to_cards_where_identities_score(client, make_game):
    html = client.get(f"/rebel-princess/g/{make_game(cards='zabcd')}").text
    assert "enter-counts" not in html and "enter-cards" in html


def test_counts_page_has_a_picker_per_player(client, make_game):
    html = client.get(f"/rebel-princess/g/{make_game(players=6)}/round/1/counts").text
    assert attr(html, "data-count-seat") == [str(s) for s in range(6)]
    assert re.findall(r'name="princes_0" value="(\d+)"', html) == [str(n) for n in range(13)]


def test_counts_refused_where_identities_score(client, make_game):
    code = make_game(cards="dabce")
    response = client.get(f"/rebel-princess/g/{code}/round/1/counts")
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/rebel-princess/g/{code}/round/1/cards")


def test_count_entry_saved(client, app, make_game):
    code = make_game()
    response = client.post("/rebel-princess"
                           f"/g/{code}/round/1/counts", data=counts_data([4, 3, 2, 1], 2))
    assert response.status_code == 302
    assert totals(client, code) == [4, 3, 7, 1]
    with app.app_context():
        from sqlmodel import select

        from companion.db import get_session
        record = get_session().exec(select(RoundRecord)).one()
        assert (record.mode, record.counts, record.taken) == ("counts", "4,3,2,1/2", None)


def test_count_entry_refused_when_counts_do_not_add_up(client, app, make_game):
    code = make_game()
    response = client.post("/rebel-princess"
                           f"/g/{code}/round/1/counts", data=counts_data([4, 3, 2, 2], 2))
    assert response.status_code == 422
    assert set(attr(response.text, "data-problem")) == {"princes-total"}
    assert count(app) == 0


def test_count_entry_says_what_is_missing(client, app, make_game):
    code = make_game()
    data = counts_data([4, 3, 2, 1], 0)
    del data["princes_1"], data["frog"]
    response = client.post(f"/rebel-princess/g/{code}/round/1/counts", data=data)
    assert response.status_code == 422
    assert 'data-problem="missing-prince-count"' in response.text
    assert 'data-card="A8"' in response.text
    assert count(app) == 0


def test_rebel_of_the_ball_by_counts(client, make_game):
    code = make_game()
    client.post(f"/rebel-princess/g/{code}/round/1/counts", data=counts_data([0, 10, 0, 0], 1))
    assert totals(client, code) == [0, -10, 0, 0]


def test_history_says_entered_by_counts(client, make_game):
    code = make_game()
    client.post(f"/rebel-princess/g/{code}/round/1/counts", data=counts_data([4, 3, 2, 1], 2))
    html = client.get(f"/rebel-princess/g/{code}/history").text
    assert attr(html, "data-way") == ["counts"]


def test_counts_edit_link_and_prefill(client, make_game):
    code = make_game()
    client.post(f"/rebel-princess/g/{code}/round/1/counts", data=counts_data([4, 3, 2, 1], 2))
    assert f"/rebel-princess/g/{code}/round/1/counts" in client.get("/rebel-princess"
                                                                    f"/g/{code}").text
    html = client.get(f"/rebel-princess/g/{code}/round/1/counts").text
    assert re.findall(r'name="princes_0" value="(\d+)" checked', html) == ["4"]


def test_counts_preview_running_score(client, make_game):
    code = make_game()
    html = client.post("/rebel-princess"
                       f"/g/{code}/round/1/counts/preview", data=counts_data([4, 3, 2, 1], 2),
                       headers={"HX-Request": "true"}).text
    assert attr(html, 'data-missing') == ["0"]
    assert attr(html, "data-mini-seat") == ["0", "1", "2", "3"]


def test_arranged_marriage_by_counts_asks_who_won_no_trick(client, make_game):
    code = make_game(cards="eabcd")
    html = client.get(f"/rebel-princess/g/{code}/round/1/counts").text
    assert re.findall(r'name="(no_trick_\d)"', html) == [f"no_trick_{s}" for s in range(4)]
    client.post("/rebel-princess"
                f"/g/{code}/round/1/counts", data=counts_data([6, 4, 0, 0], 0, no_trick_3="y"))
    assert totals(client, code) == [11, 4, 0, 5]


def test_classic_by_counts_asks_who_won_the_last_trick(client, make_game):
    code = make_game(edition="classic")
    response = client.post("/rebel-princess"
                           f"/g/{code}/round/1/counts", data=counts_data([4, 3, 2, 1], 2))
    assert response.status_code == 422
    response = client.post(f"/rebel-princess/g/{code}/round/1/counts",
                           data=counts_data([4, 3, 2, 1], 2, last_trick=1))
    assert response.status_code == 302


def test_cards_page_offers_counts_one_tap_away_where_they_decide(client, make_game):
    assert "switch-counts" in client.get(f"/rebel-princess/g/{make_game()}/round/1/cards").text
    assert "switch-counts" not in client.get("/rebel-princess"
                                             f"/g/{make_game(cards='zabcd')}/round/1/cards").text
