# Two commands do everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# French translations: the .po is committed, the compiled .mo is built here (never committed).
# French: the shell and Rebel Princess share companion/translations/fr/; every other game keeps its
# own catalogue in companion/translations/<key>/fr/ (Flask-Babel merges them at run time).
PO := $(wildcard companion/translations/*/LC_MESSAGES/messages.po companion/translations/*/*/LC_MESSAGES/messages.po)
OWN_CATALOGUES := $(filter-out fr,$(notdir $(patsubst %/,%,$(wildcard companion/translations/*/))))
MO := $(PO:.po=.mo)
HOST ?= 0.0.0.0
PORT ?= 5000

.PHONY: run test install browser bench lint clean messages

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,serve]'
	touch $(STAMP)

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
	$(VENV)/bin/pybabel extract -F babel.cfg -k _l --no-location --sort-output -o companion/translations/$(GAME)/messages.pot $(wildcard companion/templates/$(GAME) companion/routes/$(GAME) companion/scoring/$(GAME))
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

instance/companion.sqlite: $(STAMP)
	$(VENV)/bin/flask --app companion init-db

run: $(STAMP) $(MO) instance/companion.sqlite
	@$(PY) -m companion.serve --host $(HOST) --port $(PORT)

test: $(STAMP) $(MO) browser
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'  # the engine bench's anchor (OpenSpiel); never for make test
	$(PY) -m bench.all

lint: $(STAMP)
	$(VENV)/bin/ruff check companion tests bench

clean:
	rm -rf $(VENV) build *.egg-info tests/artifacts
