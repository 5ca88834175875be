"""The ceiling for the HTTP bench: a plain Flask "hello" served with the same gunicorn settings."""

from __future__ import annotations

from flask import Flask

app = Flask(__name__)


@app.get("/")
def hello() -> str:
    return "hello"
