# Two commands do everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
# French translations: the .po is committed, the compiled .mo is built here (never committed).
# French: the shell and Rebel Princess share companion/translations/fr/; every other game keeps its
# own catalogue in companion/translations/<key>/fr/ (Flask-Babel merges them at run time).
PO := $(wildcard companion/translations/*/LC_MESSAGES/messages.po companion/translations/*/*/LC_MESSAGES/messages.po)
OWN_CATALOGUES := $(filter-out fr,$(notdir $(patsubst %/,%,$(wildcard companion/translations/*/))))
MO := $(PO:.po=.mo)
HOST ?= 0.0.0.0
# What `make test-postgres` runs against PostgreSQL: the tests of the shell, the web, the history
# and the operator's files (every query of the store, the links, the imports, the races, the
# migrations, two servers). Each game's pages and saves go through that same store: their tests run
# on SQLite in `make test` (on PostgreSQL too: `make test-postgres POSTGRES_TESTS=tests`).
POSTGRES_TESTS ?= tests/shell tests/web tests/history tests/ops tests/kanai_duel/test_kanai_duel_seats.py
POSTGRES_SKIP ?= --ignore=tests/browser --ignore=tests/rebel_princess/engine --ignore=tests/rebel_princess/scoring
PORT ?= 5000

.PHONY: run worker test screens test-postgres postgres proxy install browser bench bench-tables bench-groups bench-scaling bench-imports bench-polls bench-commands lint clean messages

# The serving install: what a server needs and nothing else (no test tools, no browser driver).
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[postgres,redis]'
	touch $(STAMP)

# The test tools (pytest, Playwright, ruff, mypy …), for `make test`, `make lint` and the benches.
$(TEST_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,postgres,redis]'
	touch $(TEST_STAMP)

install: $(STAMP) $(MO)

$(MO): %.mo: %.po $(STAMP)
	$(VENV)/bin/pybabel compile -i $< -o $@

# Re-extract the strings to translate after changing templates or Python messages, then
# translate the new entries in companion/translations/fr/LC_MESSAGES/messages.po.
# `make messages GAME=<key>` does the same for one game's own catalogue (its templates, routes and
# rules core); the first `make messages GAME=<key>` creates companion/translations/<key>/.
messages: $(STAMP)
ifdef GAME
	mkdir -p companion/translations/$(GAME)
	$(VENV)/bin/pybabel extract -F babel-game.cfg -k _l --no-location --sort-output -o companion/translations/$(GAME)/messages.pot $(wildcard companion/templates/$(GAME) companion/routes/$(GAME) companion/scoring/$(GAME))
	test -f companion/translations/$(GAME)/fr/LC_MESSAGES/messages.po || $(VENV)/bin/pybabel init -i companion/translations/$(GAME)/messages.pot -d companion/translations/$(GAME) -l fr
	$(VENV)/bin/pybabel update -i companion/translations/$(GAME)/messages.pot -d companion/translations/$(GAME) --no-fuzzy-matching --ignore-obsolete
else
	$(VENV)/bin/pybabel extract -F babel.cfg -k _l --no-location --sort-output --ignore-dirs=".* ._ $(OWN_CATALOGUES)" -o companion/translations/messages.pot .
	$(VENV)/bin/pybabel update -i companion/translations/messages.pot -d companion/translations --no-fuzzy-matching --ignore-obsolete
endif

# Headless Chromium from Debian's packages, for the browser tests (Playwright cannot download one here).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "Installing Chromium from Debian's packages (once per machine)..."; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }

# The database is created or upgraded to the newest migration once (and the games' summaries
# missing or out of date stored: a server's start writes nothing), before the server's workers
# start (two workers migrating one SQLite file at once would race).
run: $(STAMP) $(MO)
	@$(VENV)/bin/flask --app companion db upgrade
	@$(PY) -m companion.ops.serve --host $(HOST) --port $(PORT)

# Imports run as jobs: on a single server without Redis, in the server's own process (nothing to
# start); with several servers sharing a Redis (CACHE_REDIS_URL or a Redis RATELIMIT_STORAGE_URI),
# this worker takes them from an RQ queue on it (companion/ops/jobs.py).
worker: $(STAMP) $(MO)
	@$(VENV)/bin/flask --app companion worker

# The tests that need no browser run on every core (pytest-xdist: each test has its own SQLite
# file and app); the browser tests after them, two at a time (each its own server and browser
# context; more would only share the same two cores with more Chromium processes).
TEST_WORKERS ?= auto
BROWSER_WORKERS ?= 2
test: $(TEST_STAMP) $(MO) browser proxy
	$(PY) -m pytest -q -n $(TEST_WORKERS) --ignore=tests/browser
	$(PY) -m pytest -q -n $(BROWSER_WORKERS) tests/browser

# The browser tests again, keeping the screenshots they take in tests/artifacts/ to look at (both
# phone sizes, both languages, light and dark); `make test` does not take them.
screens: $(TEST_STAMP) $(MO) browser
	SCREENSHOTS=1 $(PY) -m pytest -q -n $(BROWSER_WORKERS) tests/browser

# The database tests again against a real PostgreSQL (Debian's package, started on loopback by
# scripts/postgres.sh), with a Redis beside it (scripts/redis.sh) for the two-server test: a
# PostgreSQL or a Redis that cannot start fails the run, it is never skipped.
postgres:
	@scripts/postgres.sh >/dev/null

# Debian's nginx and Caddy, for the proxy tests (tests/ops/test_proxy.py, tests/ops/test_caddy.py:
# the shipped site and Caddyfile in front of two app servers); installed once per machine, their
# services never started.
proxy:
	@scripts/nginx.sh >/dev/null
	@scripts/caddy.sh >/dev/null

# PG_DB names the database (several checkouts on one machine each use their own); on several
# cores each pytest-xdist worker makes and uses its own beside it (PG_DB_gw0, …; tests/conftest.py).
PG_DB ?= companion_test
test-postgres: $(TEST_STAMP) $(MO) proxy
	database=$$(scripts/postgres.sh $(PG_DB)) && redis=$$(scripts/redis.sh) && \
	TEST_DATABASE_URL=$$database TEST_REDIS_URL=$$redis \
	$(PY) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) $(POSTGRES_SKIP) $(POSTGRES_TESTS)

bench: $(TEST_STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'  # the engine bench's anchor (OpenSpiel); never for make test
	$(PY) -m bench.all

# Many tables at once (a scorer and five live viewers each, the four games in turn) on SQLite, on
# PostgreSQL, on two app servers sharing PostgreSQL, and the live polls alone: server CPU per
# table-second (gunicorn + PostgreSQL) against a hello answering the same requests, ~10 minutes.
# It prints the README's Markdown table. TABLES_ARGS passes options, e.g.
# `make bench-tables TABLES_ARGS="--tables 50 --games rebel-princess"`.
bench-tables: $(TEST_STAMP) $(MO)
	BENCH_DATABASE_URL=$$(scripts/postgres.sh companion_bench) $(PY) -m bench.tables $(TABLES_ARGS)

# One group's pages alone on a database, then among 1,000 groups (100,000 games), ~2 minutes.
bench-groups: $(TEST_STAMP) $(MO)
	$(PY) -m bench.groups

# The same group's pages as the server holds more groups, then as one group grows (1,000 to
# 10,000 games in the group itself). SCALING_ARGS passes options to both, e.g. "--repeat 5".
bench-scaling: $(TEST_STAMP) $(MO)
	$(PY) -m bench.scaling $(SCALING_ARGS)
	$(PY) -m bench.scaling --one-group $(SCALING_ARGS)

# A 4,000-game import on SQLite while other tables save (their slowest save), and a 12,000-game
# restore through gunicorn with its default 30 s timeout, ~10 minutes.
bench-imports: $(TEST_STAMP) $(MO)
	$(PY) -m bench.imports

# The live polls (/live, 304 and 200, and through Flask as before) against a plain hello, ~40 s.
bench-polls: $(TEST_STAMP) $(MO)
	$(PY) -m bench.polls $(POLLS_ARGS)

# `flask groups list` against the bare imports of Flask, SQLAlchemy and SQLModel (bench/RESULTS.md).
bench-commands: $(STAMP)
	$(PY) -m bench.commands

lint: $(TEST_STAMP)
	$(VENV)/bin/ruff check companion tests bench
	$(VENV)/bin/mypy  # the whole package, --strict (pyproject.toml [tool.mypy])

clean:
	rm -rf $(VENV) build *.egg-info tests/artifacts
