"""The "this game" rulings view: only this table's Round cards, Princesses and rulings."""

from __future__ import annotations

from companion.rulings.rebel_princess import for_table


def test_table_lists_its_cards_powers_and_interactions(client):
    """Snow White with Three Times a Lady and Upside Down shows both rulings; nothing else."""
    data = {"edition": "deluxe", "length": "5", "names-0": "Ana", "names-1": "Ben",
            "names-2": "Cy", "first_leader": "0", "cards-0": "a", "cards-1": "d",
            "cards-2": "x", "cards-3": "b", "cards-4": "c", "princesses-0": "snow-white",
            "create": "1"}
    code = client.post("/rebel-princess/new", data=data).headers["Location"].rsplit("/", 1)[1]
    page = client.get(f"/rebel-princess/g/{code}/rules").text
    assert 'data-link="deluxe-d"' in page and 'data-link="deluxe-snow-white"' in page
    assert 'data-pair="deluxe-snow-white deluxe-d"' in page
    assert 'data-pair="deluxe-snow-white deluxe-x"' in page
    assert 'data-link="deluxe-z"' not in page


def test_a_ruling_about_a_card_not_in_play_is_left_out():
    """A ruling that names a Round card absent from the game does not concern the table."""
    table = for_table("deluxe", "abcde", ["snow-white", "mulan"])
    assert all(r is None or "deluxe-x" not in r.links for _, _, r in table.pairs)


def test_unknown_game_has_no_table_rules(client):
    assert client.get("/rebel-princess/g/nope/rules").status_code == 404
