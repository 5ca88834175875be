"""Live updates pushed by nginx (Nchan), as deployed: the shipped sites (deploy/nginx/companion.conf
with its subscriber location, deploy/nginx/companion-push.conf with its publisher) on TWO nginx
sharing one Redis, in front of two app servers told to publish to the first nginx. A phone's
stream held by the second nginx gets the game's new version when the scorer saves through the
first (so across nginx hosts, through Redis, without a poll); a replaced link tells the old
channel "closed" and ends it; the publisher refuses any address but the app's, and the subscriber
location never publishes; with the publisher down a save still succeeds (counted as a failed
publish). The page's fallback to polling (app.js) is checked in tests/browser/test_push_page.py.
"""

from __future__ import annotations

import http.client
import os
import queue
import re
import ssl
import subprocess
import threading
import time
from pathlib import Path

import pytest

from companion.play import push

from .test_proxy import (
    NCHAN,
    PUSH_SUBSCRIBER,
    ROOT,
    Phone,
    _free_port,
    app_servers,
    new_game,
    self_signed,
    site,
    start_nginx,
)

pytestmark = pytest.mark.skipif(
    not NCHAN.exists() and not os.environ.get("CI"),
    reason="needs Debian's libnginx-mod-nchan (scripts/nginx.sh installs it)")

SCORES = {**{f"score_{s}": v for s, v in enumerate(["3", "4", "4", "4"])}, "confirm": "y"}


class Stream:
    """An EventSource as a phone holds one: its messages, as they come, in ``messages``."""

    def __init__(self, port: int, cert: Path, path: str) -> None:
        context = ssl.create_default_context(cafile=str(cert))
        self.connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=30,
                                                      context=context)
        self.connection.request("GET", path, headers={"Accept": "text/event-stream"})
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.messages: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        """Each event's ``data:`` lines joined with line breaks, as EventSource gives them."""
        data: list[str] = []
        try:
            while line := self.response.fp.readline():
                text = line.decode().rstrip("\r\n")
                if text.startswith("data:"):
                    data.append(text[6:] if text.startswith("data: ") else text[5:])
                elif not text and data:
                    self.messages.put("\n".join(data))
                    data = []
        except OSError:
            pass
        self.messages.put(None)  # the stream ended

    def next(self, seconds: float = 10) -> str | None:
        """The next message (None: the stream ended); fails after ``seconds``."""
        try:
            return self.messages.get(timeout=seconds)
        except queue.Empty:
            pytest.fail(f"no message in {seconds} s")

    def close(self) -> None:
        self.connection.close()


@pytest.fixture(scope="module")
def push_stack(tmp_path_factory):
    folder = tmp_path_factory.mktemp("push")
    redis_port = _free_port()
    subprocess.run([str(ROOT / "scripts" / "redis.sh"), str(redis_port)], check=True,
                   capture_output=True, timeout=120)
    cert, key = self_signed(folder)
    https = [_free_port(), _free_port()]
    publishers = [_free_port(), _free_port()]
    proxies = []
    try:
        with app_servers(folder, {"LIVE_PUSH_PUBLISH_URL":
                                  f"http://127.0.0.1:{publishers[0]}/pub/"}) as (ports, logs):
            for number in (0, 1):
                own = folder / f"nginx{number}"
                own.mkdir()
                proxies.append(start_nginx(own, site(
                    https=https[number], http=_free_port(), upstreams=ports, cert=cert, key=key,
                    logs=own / "logs", publisher=publishers[number], redis=redis_port),
                    https[number]))
            yield {"https": https, "publishers": publishers, "cert": cert, "logs": logs,
                   "folder": folder}
    finally:
        for proxy in proxies:
            proxy.terminate()
            proxy.wait(timeout=30)
        subprocess.run(["redis-cli", "-p", str(redis_port), "shutdown", "nosave"],
                       capture_output=True, timeout=30)


def _push_url(phone: Phone, path: str) -> str:
    status, _, page = phone.request("GET", path)
    assert status == 200
    found = re.search(r'data-push-url="(/live-push/[0-9a-f]{32})"', page)
    assert found is not None, "the page names no stream"
    return found[1]


def _version(phone: Phone, path: str) -> str:
    _, _, page = phone.request("GET", path)
    found = re.search(r'data-live-version="([^"]+)"', page)
    assert found is not None
    return found[1]


def _save_and_hear(scorer: Phone, game: str, stream: Stream) -> tuple[str, str]:
    """The scorer saves round 1 by numbers; the stream's message of that save: the new version
    and what follows it (a viewer's part, or nothing). The stream may first give the newest
    message already there (the game's creation)."""
    token = game.rsplit("/", 1)[1]
    entry = f"/rebel-princess/g/{token}/round/1/numbers"
    status, _, body = scorer.submit(entry, entry, SCORES)
    assert status == 302, body[-300:]
    version = _version(scorer, game)
    for _ in range(3):
        told, _, part = (stream.next() or "").partition("\n")
        if told == version:
            return version, part
    pytest.fail("the save's message never came")


def test_a_save_reaches_a_stream_held_by_the_other_nginx_and_a_replaced_link_closes_it(
        push_stack):
    scorer = Phone(push_stack["https"][0], push_stack["cert"], "127.0.0.2")
    game = new_game(scorer)
    token = game.rsplit("/", 1)[1]
    channel = _push_url(scorer, game)
    assert token not in channel
    # The other phone listens through the second nginx (the app publishes to the first).
    stream = Stream(push_stack["https"][1], push_stack["cert"], channel)
    try:
        assert stream.status == 200
        assert _save_and_hear(scorer, game, stream)[1] == ""  # the scorer's channel: the version
        # A replaced link moves the channel: the old one is told and ends.
        share = f"/share/{token}"
        status, _, _ = scorer.submit(share, f"{share}/replace/viewer", {})
        assert status == 303
        assert stream.next() == "closed"
        assert stream.next() is None
    finally:
        stream.close()
    moved = _push_url(scorer, game)
    assert moved != channel


def test_a_phone_that_slept_gets_the_newest_version_as_its_stream_opens(push_stack):
    """A phone asleep (or changing network) during a save opens its stream again afterwards, on
    either nginx: the first message is that save's version (Nchan keeps each channel's newest
    message, through Redis for the other host), so the page catches up at once."""
    scorer = Phone(push_stack["https"][0], push_stack["cert"], "127.0.0.2")
    game = new_game(scorer)
    token = game.rsplit("/", 1)[1]
    channel = _push_url(scorer, game)
    entry = f"/rebel-princess/g/{token}/round/1/numbers"
    status, _, body = scorer.submit(entry, entry, SCORES)
    assert status == 302, body[-300:]
    version = _version(scorer, game)
    for port in push_stack["https"]:
        stream = Stream(port, push_stack["cert"], channel)
        try:
            assert stream.status == 200
            assert stream.next() == version
        finally:
            stream.close()


def test_a_viewers_stream_brings_its_page_part_in_its_language(push_stack):
    """A viewer's page in French listens on its own channel (through the other nginx): a save
    brings the version and the page's live part drawn in French, the new scores in it, so the
    phone needs no request to show the change; the English viewers' channel, with nobody on
    it, gets the version alone."""
    scorer = Phone(push_stack["https"][0], push_stack["cert"], "127.0.0.2")
    game = new_game(scorer)
    token = game.rsplit("/", 1)[1]
    status, _, share = scorer.request("GET", f"/share/{token}")
    assert status == 200
    viewers = set(re.findall(r"/rebel-princess/g/([0-9a-f]{32})", share)) - {token}
    assert len(viewers) == 1
    viewer = game.replace(token, viewers.pop())
    phone = Phone(push_stack["https"][1], push_stack["cert"], "127.0.0.3")
    status, _, page = phone.request("GET", viewer, headers={"Accept-Language": "fr"})
    assert status == 200 and 'data-live-part' in page
    found = re.search(r'data-push-url="(/live-push/[0-9a-f]{32})"', page)
    assert found is not None and found[1] != _push_url(scorer, game)
    stream = Stream(push_stack["https"][1], push_stack["cert"], found[1])
    try:
        assert stream.status == 200
        version, part = _save_and_hear(scorer, game, stream)
        assert "Manche" in part and 'data-round="2"' in part and token not in part
    finally:
        stream.close()
    status, _, page = phone.request("GET", viewer, headers={"Accept-Language": "en"})
    english = re.search(r'data-push-url="(/live-push/[0-9a-f]{32})"', page)
    assert status == 200 and english is not None and english[1] != found[1]
    stream = Stream(push_stack["https"][0], push_stack["cert"], english[1])
    try:
        assert stream.next() == version  # (its newest message: no one listened then)
    finally:
        stream.close()


def test_a_publishs_answer_says_how_many_streams_hold_the_channel_on_every_nginx(push_stack):
    """What the app takes from Nchan's answer to each publish (companion.play.push: the next
    change asks nobody first when someone listened): the streams the channel holds, those held
    by the other nginx (through Redis) counted too, as a ``GET`` counts them."""
    channel = "ab" * 16
    publisher = push.Publisher({"LIVE_PUSH_PUBLISH_URL":
                                f"http://127.0.0.1:{push_stack['publishers'][0]}/pub/",
                                "SECRET_KEY": "s"}, count=lambda **_: None)
    streams = [Stream(port, push_stack["cert"], f"/live-push/{channel}")
               for port in push_stack["https"]]
    try:
        assert [stream.status for stream in streams] == [200, 200]
        for _ in range(100):  # (the other nginx's stream reaches Redis a moment later)
            if push.listeners(publisher, channel) == 2:  # (the GET: both nginx's streams)
                break
            time.sleep(0.1)
        assert push.publish(publisher, channel, "1-1.000000")
        assert push._LISTENING[(publisher.url, channel)][0] == 2
        for stream in streams:
            assert stream.next() == "1-1.000000"
    finally:
        for stream in streams:
            stream.close()
        if push._CALLS.connection is not None:  # (this thread's kept connection)
            push._CALLS.connection.close()
            push._CALLS.connection = None


def test_each_save_in_a_row_brings_a_viewers_part(push_stack):
    """Saves one after the other, each on either app server: every message on the viewer's
    stream (held by the other nginx) brings its part, the ones whose server knew from its last
    publish that someone listens as well as the ones that asked."""
    scorer = Phone(push_stack["https"][0], push_stack["cert"], "127.0.0.2")
    game = new_game(scorer)
    token = game.rsplit("/", 1)[1]
    status, _, share = scorer.request("GET", f"/share/{token}")
    assert status == 200
    viewer = game.replace(token, (set(re.findall(r"/rebel-princess/g/([0-9a-f]{32})", share))
                                  - {token}).pop())
    phone = Phone(push_stack["https"][1], push_stack["cert"], "127.0.0.3")
    status, _, page = phone.request("GET", viewer, headers={"Accept-Language": "en"})
    found = re.search(r'data-push-url="(/live-push/[0-9a-f]{32})"', page)
    assert status == 200 and found is not None
    stream = Stream(push_stack["https"][1], push_stack["cert"], found[1])
    try:
        assert stream.status == 200
        for number in range(1, 5):
            entry = f"/rebel-princess/g/{token}/round/{number}/numbers"
            status, _, body = scorer.submit(entry, entry, SCORES)
            assert status == 302, body[-300:]
            version = _version(scorer, game)
            for _ in range(3):
                told, _, part = (stream.next() or "").partition("\n")
                if told == version:
                    break
            assert told == version and f'data-round="{number + 1}"' in part, number
    finally:
        stream.close()


def _without_redis(text: str, folder: Path) -> str:
    """The shipped sites as their header says to run them on one nginx: the two
    ``nchan_redis_pass`` lines and the Redis upstream deleted (the subscriber location's in a
    copy of its file, in ``folder``)."""
    def cut(text: str) -> str:
        return "".join(line for line in text.splitlines(keepends=True)
                       if "nchan_redis_pass" not in line)

    start = text.index("upstream companion_push_redis {")
    text = text[:start] + text[text.index("}", start) + 1:]
    subscriber = folder / PUSH_SUBSCRIBER.name
    subscriber.write_text(cut(PUSH_SUBSCRIBER.read_text(encoding="utf-8")), encoding="utf-8")
    assert f"include {PUSH_SUBSCRIBER};" in text
    return cut(text.replace(f"include {PUSH_SUBSCRIBER};", f"include {subscriber};"))


@pytest.fixture(scope="module")
def one_nginx(push_stack):
    """One nginx with Nchan and no Redis (its publisher and the phones' side)."""
    folder = push_stack["folder"] / "alone"
    folder.mkdir()
    https, publisher = _free_port(), _free_port()
    proxy = start_nginx(folder, _without_redis(site(
        https=https, http=_free_port(), upstreams=[_free_port()], cert=push_stack["cert"],
        key=push_stack["cert"].with_name("key.pem"), logs=folder / "logs",
        publisher=publisher), folder), https)
    try:
        yield {"https": https, "publisher": publisher}
    finally:
        proxy.terminate()
        proxy.wait(timeout=30)


@pytest.mark.parametrize("hosts", ["two nginx through Redis", "one nginx"])
def test_a_part_as_large_as_the_app_sends_reaches_a_stream_as_one_message(hosts, push_stack,
                                                                          one_nginx):
    """A viewer's part of the largest size the app publishes (push.PART_MAX_BYTES), indented
    and with blank lines as a drawn page is, comes to a stream as ONE message, word for word.
    (Without Redis, Nchan framed a body nginx had kept in a temporary file wrongly: its lines
    came without their ``data:``, the browser took the version alone as a message and the
    page reloaded; the publisher location keeps such bodies in memory.)"""
    channel = "1" * 32
    line = '    <td class="score">42</td>\n\n'
    body = "9-1.000000\n" + line * ((push.PART_MAX_BYTES - 40) // len(line)) + "</table>"
    assert push.PART_MAX_BYTES - 100 < len(body.encode()) <= push.PART_MAX_BYTES
    if hosts == "one nginx":
        listen, publish = one_nginx["https"], one_nginx["publisher"]
    else:
        listen, publish = push_stack["https"][1], push_stack["publishers"][0]
    stream = Stream(listen, push_stack["cert"], f"/live-push/{channel}")
    try:
        assert stream.status == 200
        connection = http.client.HTTPConnection("127.0.0.1", publish, timeout=10)
        connection.request("POST", f"/pub/{channel}", body=body.encode(),
                           headers={"Content-Type": "text/plain"})
        assert connection.getresponse().status in (201, 202)
        connection.close()
        assert stream.next() == body
    finally:
        stream.close()


def _post(port: int, path: str, source: str, https_cert: Path | None = None) -> int:
    if https_cert is not None:
        connection: http.client.HTTPConnection = http.client.HTTPSConnection(
            "127.0.0.1", port, timeout=10, source_address=(source, 0),
            context=ssl.create_default_context(cafile=str(https_cert)))
    else:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10,
                                                source_address=(source, 0))
    try:
        connection.request("POST", path, body=b"forged", headers={"Content-Type": "text/plain"})
        return connection.getresponse().status
    finally:
        connection.close()


def test_only_the_app_publishes(push_stack):
    channel = "0" * 32
    port = push_stack["publishers"][0]
    # Another address than the app's (127.0.0.2 stands for any other host): refused.
    assert _post(port, f"/pub/{channel}", "127.0.0.2") == 403
    # The app's own address: taken (a channel with no one listening still takes it).
    assert _post(port, f"/pub/{channel}", "127.0.0.1") in (201, 202)
    # The phones' side never publishes, from anywhere.
    status = _post(push_stack["https"][0], f"/live-push/{channel}", "127.0.0.1",
                   push_stack["cert"])
    assert status in (403, 405)
    # Nothing but a channel's name is published to.
    assert _post(port, "/pub/../live", "127.0.0.1") == 404


def test_no_token_in_nginx_logs(push_stack):
    for number in (0, 1):
        logs = push_stack["folder"] / f"nginx{number}" / "logs"
        text = "".join(p.read_text(errors="replace") for p in logs.glob("*.log"))
        assert "/g/" not in text and "/share/" not in text
