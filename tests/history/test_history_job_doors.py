"""A restore's job page is a door of the group it made (issue 40 item 5): it leads only the phone
that sent the file to the group, and it closes with the group's links — replaced or deleted."""

from __future__ import annotations

import re

from companion.db import get_session
from companion.play import groups, imports

from ..conftest import finished_import
from .test_history_import_jobs import backup, job_row, restore, wait_for


def _restored(app, client, known):
    """Phone A restores a backup (no link needed); its job ends; A follows its page to the
    group. Returns A, the job's page and the group's history address."""
    phone = app.test_client()
    answer = restore(phone, backup(client, known, 1))
    assert answer.status_code == 303
    page = answer.headers["Location"]
    token = page.rsplit("/", 1)[1]
    wait_for(lambda: job_row(app, token).state in imports.FINISHED)
    final = finished_import(phone, answer)
    assert final.status_code == 303, final.status_code
    return phone, page, final.headers["Location"]


def test_a_finished_restore_leads_only_its_sender_to_the_group(app, client, known):
    phone, page, history = _restored(app, client, known)
    group = re.fullmatch(r"/group/(\w+)/history/", history)[1]
    stranger = app.test_client()  # a second phone holding the job's address, no cookie
    answer = stranger.get(page)
    assert answer.status_code == 200 and 'data-import="done"' in answer.text
    assert group not in answer.text and "/group/" not in answer.text
    assert group not in stranger.get("/").text  # nor remembered on its home page
    again = phone.get(page)  # the phone that sent the file: still its group
    assert again.status_code == 303 and again.headers["Location"].endswith(history)


def test_replacing_the_groups_links_closes_its_restore_page(app, client, known):
    phone, page, history = _restored(app, client, known)
    group = re.fullmatch(r"/group/(\w+)/history/", history)[1]
    assert phone.post(f"/group/{group}/replace").status_code == 303
    for who in (app.test_client(), phone):
        for path in (page, f"{page}/progress"):
            answer = who.get(path)
            assert answer.status_code == 404, path
            assert 'data-closed="group"' in answer.text and 'data-why="replaced"' in answer.text
            assert group not in answer.text


def test_deleting_the_group_closes_its_restore_page(app, client, known):
    phone, page, history = _restored(app, client, known)
    group = re.fullmatch(r"/group/(\w+)/history/", history)[1]
    with app.app_context():
        name = groups.by_token(get_session(), group).name
    assert phone.post(f"/group/{group}/delete", data={"confirm": name}).status_code == 303
    answer = app.test_client().get(page)
    assert answer.status_code == 404 and 'data-why="deleted"' in answer.text
