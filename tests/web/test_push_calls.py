"""companion.play.push's calls to the publisher location (HTTP/1.1 written and read on a kept
socket): one kept-alive connection per thread, the connection made again once when the proxy had
closed it, a new one when the proxy says ``Connection: close``, and anything else (a malformed
answer, no answer in time) a failed publish, never a failed save. A scripted server here answers
with the exact bytes given; the real nginx with Nchan is tests/ops/test_push.py's."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from companion.play import push

OK = (b"HTTP/1.1 202 Accepted\r\nContent-Type: text/json\r\nContent-Length: 14\r\n\r\n"
      b'{"messages":1}')
SUBSCRIBERS = (b"HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/json\r\n"
               b"Content-Length: 86\r\nConnection: keep-alive\r\n\r\n"
               b'{"messages": 1, "requested": -1, "subscribers": 5, "last_message_id": '
               b'"1795977752:0" }')
CLOSE = b"<close>"  # the server closes the connection instead of answering the next request


class Scripted:
    """Answers each request with the next of ``answers`` (bytes sent as given, in ``pieces``
    writes), records each connection's requests (head and body)."""

    def __init__(self, answers: list[bytes], pieces: int = 1) -> None:
        self.answers = list(answers)
        self.pieces = pieces
        self.connections: list[list[bytes]] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(connection,), daemon=True).start()

    def _one(self, connection: socket.socket) -> None:
        seen: list[bytes] = []
        self.connections.append(seen)
        data = b""
        with connection:
            while True:
                while b"\r\n\r\n" not in data:
                    more = connection.recv(65536)
                    if not more:
                        return
                    data += more
                head, _, data = data.partition(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                while len(data) < length:
                    data += connection.recv(65536)
                seen.append(head + b"\r\n\r\n" + data[:length])
                data = data[length:]
                answer = self.answers.pop(0) if self.answers else OK
                if answer == CLOSE:
                    return
                size = -(-len(answer) // self.pieces)
                for start in range(0, len(answer), size):
                    connection.sendall(answer[start:start + size])
                    time.sleep(0.01)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/pub/"

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def fresh() -> Iterator[None]:
    """This thread's kept connection closed before and after (each test its own server)."""
    if push._CALLS.connection is not None:
        push._CALLS.connection.close()
    push._CALLS.connection = None
    yield
    if push._CALLS.connection is not None:
        push._CALLS.connection.close()
    push._CALLS.connection = None


def test_a_call_writes_one_request_and_reads_its_answer_on_one_kept_connection(fresh):
    server = Scripted([SUBSCRIBERS, OK])
    try:
        assert push._call(server.base, "GET", "ab" * 16) == (200, SUBSCRIBERS.split(b"\r\n\r\n")[1])
        assert push._call(server.base, "POST", "ab" * 16, "1-2.5\nPärt") == (
            202, b'{"messages":1}')
        assert len(server.connections) == 1
        get, post = server.connections[0]
        assert get.startswith(b"GET /pub/" + b"ab" * 16 + b" HTTP/1.1\r\n")
        assert f"Host: 127.0.0.1:{server.port}\r\n".encode() in get
        assert b"Accept: text/json\r\n" in get
        body = "1-2.5\nPärt".encode()
        assert post.startswith(b"POST /pub/" + b"ab" * 16 + b" HTTP/1.1\r\n")
        assert f"Content-Length: {len(body)}\r\n".encode() in post
        assert post.endswith(b"\r\n\r\n" + body)
    finally:
        server.close()


def test_an_answer_that_comes_in_pieces_is_read_whole(fresh):
    server = Scripted([SUBSCRIBERS, SUBSCRIBERS], pieces=7)
    try:
        for _ in range(2):
            status, body = push._call(server.base, "GET", "cd" * 16)
            assert (status, body) == (200, SUBSCRIBERS.split(b"\r\n\r\n")[1])
        assert len(server.connections) == 1
    finally:
        server.close()


def test_the_listeners_are_read_from_the_answer(fresh):
    server = Scripted([SUBSCRIBERS])
    publisher = push.Publisher({"LIVE_PUSH_PUBLISH_URL": server.base, "SECRET_KEY": "s"},
                               count=lambda **_: None)
    try:
        assert push.listeners(publisher, "ef" * 16) == 5
    finally:
        server.close()


def test_a_connection_the_proxy_closes_is_not_used_again(fresh):
    """nginx says ``Connection: close`` on the last answer a kept connection gets
    (``keepalive_requests``): the next call opens a new one."""
    closing = OK.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1)
    server = Scripted([closing, OK])
    try:
        assert push._call(server.base, "POST", "ab" * 16, "1")[0] == 202
        assert push._call(server.base, "POST", "ab" * 16, "2")[0] == 202
        assert [len(seen) for seen in server.connections] == [1, 1]
    finally:
        server.close()


def test_a_kept_connection_the_proxy_dropped_is_made_again_once(fresh):
    server = Scripted([OK, CLOSE, OK])
    try:
        assert push._call(server.base, "POST", "ab" * 16, "1")[0] == 202
        assert push._call(server.base, "POST", "ab" * 16, "2")[0] == 202
        assert [len(seen) for seen in server.connections] == [2, 1]
        assert server.connections[1][0].endswith(b"\r\n\r\n2")
    finally:
        server.close()


def test_a_malformed_answer_fails_the_publish_and_drops_the_connection(fresh):
    server = Scripted([b"NOT HTTP\r\n\r\n"])
    counted: list[bool] = []
    publisher = push.Publisher({"LIVE_PUSH_PUBLISH_URL": server.base, "SECRET_KEY": "s"},
                               count=lambda *, ok: counted.append(ok))
    try:
        assert push.publish(publisher, "ab" * 16, "1") is False
        assert counted == [False]
        assert push._CALLS.connection is None
        assert push.publish(publisher, "ab" * 16, "2") is True  # a new connection next
        assert len(server.connections) == 2
    finally:
        server.close()


def test_a_proxy_that_does_not_answer_is_given_up_after_the_timeout(fresh, monkeypatch):
    monkeypatch.setattr(push, "TIMEOUT", 0.2)
    silent = socket.create_server(("127.0.0.1", 0))  # accepts (the backlog), never answers
    counted: list[bool] = []
    publisher = push.Publisher(
        {"LIVE_PUSH_PUBLISH_URL": f"http://127.0.0.1:{silent.getsockname()[1]}/pub/",
         "SECRET_KEY": "s"}, count=lambda *, ok: counted.append(ok))
    try:
        start = time.monotonic()
        assert push.publish(publisher, "ab" * 16, "1") is False
        assert time.monotonic() - start < 2
        assert counted == [False]
    finally:
        silent.close()


def _channel_info(streams: int, status: bytes = b"202 Accepted") -> bytes:
    """Nchan's answer to a publish or a channel's ``GET``: its channel info."""
    body = b'{"messages": 1, "requested": 0, "subscribers": %d, "last_message_id": "1:0"}' % (
        streams)
    return (b"HTTP/1.1 " + status + b"\r\nContent-Type: text/json\r\nContent-Length: "
            + str(len(body)).encode() + b"\r\n\r\n" + body)


def _methods(server: Scripted) -> list[str]:
    return [request.split(b" ", 1)[0].decode() for seen in server.connections
            for request in seen]


def test_a_publishs_answer_says_who_listens_so_the_next_change_asks_nothing_first(fresh):
    """A change publishes to the game's channel and to each language's viewers' channel, asking
    first whether anyone listens there (a ``GET``) unless a publish's answer said someone did
    within ``LISTENERS_KEPT``: three calls a change where both languages listen, not five; the
    part drawn for each."""
    server = Scripted([_channel_info(2), _channel_info(1, b"200 OK"), _channel_info(1),
                       _channel_info(3, b"200 OK"), _channel_info(3)])
    drawn: list[str] = []
    counted: list[bool] = []
    publisher = push.Publisher({"LIVE_PUSH_PUBLISH_URL": server.base, "SECRET_KEY": "s"},
                               count=lambda *, ok: counted.append(ok),
                               draw=lambda game, lang: drawn.append(lang) or "<p>part</p>",
                               languages=("en", "fr"))
    try:
        push._publish_version(publisher, 7, [1, 2], "7-1.000000")  # (nothing known yet)
        assert _methods(server) == ["POST", "GET", "POST", "GET", "POST"]
        assert drawn == ["en", "fr"]
        server.answers = [_channel_info(2), _channel_info(1), _channel_info(3)]
        push._publish_version(publisher, 7, [1, 2], "7-2.000000")
        assert _methods(server)[5:] == ["POST", "POST", "POST"]
        assert drawn == ["en", "fr", "en", "fr"]
        assert counted == [True] * 6  # every publish counted, as before
        assert all(b"\n<p>part</p>" in request for seen in server.connections
                   for request in seen if b"/pub/" in request and request.startswith(b"POST")
                   and not request.endswith((b"7-1.000000", b"7-2.000000")))
    finally:
        server.close()


def test_a_channel_nobody_listened_to_is_asked_again_before_each_change(fresh):
    """A phone may begin to listen on a channel nobody held: asked before each change, and its
    part drawn as soon as it does."""
    server = Scripted([_channel_info(0), _channel_info(0, b"200 OK"), _channel_info(0),
                       _channel_info(0), _channel_info(1, b"200 OK"), _channel_info(1)])
    drawn: list[str] = []
    publisher = push.Publisher({"LIVE_PUSH_PUBLISH_URL": server.base, "SECRET_KEY": "s"},
                               count=lambda **_: None,
                               draw=lambda game, lang: drawn.append(lang) or "<p>part</p>",
                               languages=("en",))
    try:
        push._publish_version(publisher, 8, [1, 2], "8-1.000000")
        push._publish_version(publisher, 8, [1, 2], "8-2.000000")
        assert _methods(server) == ["POST", "GET", "POST"] * 2
        assert drawn == ["en"]  # (the second change: someone listened by then)
    finally:
        server.close()


def test_who_listens_is_asked_again_once_the_answer_is_old(fresh, monkeypatch):
    server = Scripted([_channel_info(0), _channel_info(1, b"200 OK"), _channel_info(1),
                       _channel_info(0), _channel_info(1, b"200 OK"), _channel_info(1)])
    publisher = push.Publisher({"LIVE_PUSH_PUBLISH_URL": server.base, "SECRET_KEY": "s"},
                               count=lambda **_: None, draw=lambda game, lang: "<p>part</p>",
                               languages=("en",))
    try:
        push._publish_version(publisher, 9, [1, 2], "9-1.000000")
        monkeypatch.setattr(push, "LISTENERS_KEPT", 0.0)
        push._publish_version(publisher, 9, [1, 2], "9-2.000000")
        assert _methods(server) == ["POST", "GET", "POST"] * 2
    finally:
        server.close()


def test_an_answer_that_does_not_say_who_listens_is_asked_again(fresh):
    """A publish answered without the channel's info (another proxy): who listens is asked
    before each change, as before."""
    server = Scripted([OK, _channel_info(1, b"200 OK"), OK, OK, _channel_info(1, b"200 OK"), OK])
    publisher = push.Publisher({"LIVE_PUSH_PUBLISH_URL": server.base, "SECRET_KEY": "s"},
                               count=lambda **_: None, draw=lambda game, lang: "<p>part</p>",
                               languages=("en",))
    try:
        for version in ("10-1.000000", "10-2.000000"):
            push._publish_version(publisher, 10, [1, 2], version)
        assert _methods(server) == ["POST", "GET", "POST"] * 2
    finally:
        server.close()


def test_an_answer_in_chunks_is_read_whole(fresh):
    """Another proxy may answer ``Transfer-Encoding: chunked``: its body is read whole and the
    connection kept."""
    chunked = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"10\r\n" + SUBSCRIBERS.split(b"\r\n\r\n")[1][:16] + b"\r\n"
               + b"%x;x=y\r\n" % (len(SUBSCRIBERS.split(b"\r\n\r\n")[1]) - 16)
               + SUBSCRIBERS.split(b"\r\n\r\n")[1][16:] + b"\r\n0\r\n\r\n")
    server = Scripted([chunked, SUBSCRIBERS], pieces=5)
    try:
        for _ in range(2):
            assert push._call(server.base, "GET", "ab" * 16) == (
                200, SUBSCRIBERS.split(b"\r\n\r\n")[1])
        assert len(server.connections) == 1
    finally:
        server.close()


def test_an_answer_with_no_length_ends_with_its_connection(fresh):
    listener = socket.create_server(("127.0.0.1", 0))

    def answer_and_close() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/json\r\n\r\n"
                               b'{"subscribers": 2}')

    threading.Thread(target=answer_and_close, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{listener.getsockname()[1]}/pub/"
        assert push._call(base, "GET", "ab" * 16) == (200, b'{"subscribers": 2}')
        assert push._CALLS.connection is None
    finally:
        listener.close()


@pytest.mark.parametrize("answer", [
    b"HTTP/1.1 200 OK\r\nContent-Length: 99999999\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffff\r\nabc",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nabc",
    b"HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n",
    b"HTTP/1.1 2x0 OK\r\n\r\n",
    b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 101 + b"\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\nshort" + CLOSE,
])
def test_an_answer_out_of_bounds_fails_the_publish_and_drops_the_connection(fresh, answer):
    server = Scripted([answer.replace(CLOSE, b"")] + ([CLOSE] if answer.endswith(CLOSE) else []))
    publisher = push.Publisher({"LIVE_PUSH_PUBLISH_URL": server.base, "SECRET_KEY": "s"},
                               count=lambda **_: None)
    try:
        assert push.publish(publisher, "ab" * 16, "1") is False
        assert push._CALLS.connection is None
    finally:
        server.close()
