"""`make run`: the addresses it prints are the ones the server can be opened at."""

from __future__ import annotations

import sys

import pytest

from companion.ops import serve


@pytest.fixture
def started(monkeypatch, capsys):
    """Run ``serve.main`` with ``args`` up to the point it would start gunicorn; its output."""
    monkeypatch.setattr(serve, "lan_addresses", lambda: ["192.168.1.23"])
    monkeypatch.setattr(serve.os, "execv", lambda *_args: None)

    def run(*args):
        monkeypatch.setattr(sys, "argv", ["serve", *args])
        serve.main()
        return capsys.readouterr().out

    return run


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.1.1", "localhost", "::1"])
def test_loopback_host_prints_no_wifi_address(started, host):
    out = started("--host", host, "--port", "5001")
    assert "192.168.1.23" not in out and "On a phone" not in out
    assert "Phones cannot open it" in out


def test_wildcard_host_prints_the_wifi_address(started):
    out = started("--host", "0.0.0.0")
    assert "http://192.168.1.23:5000/" in out and "http://127.0.0.1:5000/" in out


def test_one_lan_address_prints_only_that_one(started):
    out = started("--host", "10.0.0.7")
    assert "http://10.0.0.7:5000/" in out and "192.168.1.23" not in out
