"""The tests build an app for almost every test; a server builds one per process. What building
an app compiles again each time — werkzeug's URL builders and Jinja's templates — the tests compile
once per process (``compile_once``, called by tests/conftest.py). Nothing here changes what an app
does: the same code comes out of each compilation.
"""

from __future__ import annotations

from flask import Flask
from jinja2 import BytecodeCache, Environment
from jinja2.bccache import Bucket


def _keep_url_builders() -> None:
    """Most tests build an app of their own, and four fifths of building one is werkzeug writing
    and compiling the Python code that builds each route's URL (the same ~100 rules each time).
    A server builds its app once; the tests keep each rule's compiled builder for the process
    (it depends only on the rule's text, its defaults and the kind of builder asked for)."""
    from werkzeug.routing.rules import Rule

    compile_builder = Rule._compile_builder
    kept: dict[tuple[object, ...], object] = {}

    def kept_builder(self: Rule, append_unknown: bool = True):  # type: ignore[no-untyped-def]
        defaults = tuple(sorted((name, repr(value), type(self._converters.get(name)).__name__)
                                for name, value in (self.defaults or {}).items()))
        key = (self.rule, self.host, self.subdomain, tuple(self._trace), defaults, append_unknown)
        if key not in kept:
            kept[key] = compile_builder(self, append_unknown)
        return kept[key]

    Rule._compile_builder = kept_builder  # type: ignore[method-assign]



class _KeptTemplates(BytecodeCache):
    """Each test's app compiles the templates its pages use again (its own Jinja environment):
    over half the CPU of a test that draws pages. The tests share the compiled code of each
    template in the process, keyed by its name and the environment's settings and checked
    against its source (a template changed on disk is compiled again), as Jinja's own file cache
    does for a server that restarts."""

    def __init__(self) -> None:
        self.kept: dict[str, bytes] = {}

    def get_bucket(self, environment: Environment, name: str, filename: str | None,
                   source: str) -> Bucket:
        settings = (sorted(environment.extensions), environment.trim_blocks,
                    environment.lstrip_blocks, environment.keep_trailing_newline,
                    environment.optimized, getattr(environment, "newstyle_gettext", None),
                    getattr(environment.autoescape, "__qualname__", environment.autoescape),
                    environment.is_async)
        bucket = Bucket(environment, f"{self.get_cache_key(name, filename)}:{settings!r}",
                        self.get_source_checksum(source))
        self.load_bytecode(bucket)
        return bucket

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self.kept.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.kept[bucket.key] = bucket.bytecode_to_string()


def compile_once() -> None:
    """Keep each route's URL builder and each template's compiled code for the process."""
    _keep_url_builders()
    Flask.jinja_options = {**Flask.jinja_options, "bytecode_cache": _KeptTemplates()}
