# Two commands do everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
HOST ?= 0.0.0.0
PORT ?= 5000

.PHONY: run test install browser bench lint clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,serve]'
	touch $(STAMP)

install: $(STAMP)

# Headless Chromium from Debian's packages, for the browser tests (Playwright cannot download one here).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "Installing Chromium from Debian's packages (once per machine)..."; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }

instance/companion.sqlite: $(STAMP)
	$(VENV)/bin/flask --app companion init-db

run: $(STAMP) instance/companion.sqlite
	@$(PY) -m companion.serve --host $(HOST) --port $(PORT)

test: $(STAMP) browser
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) -m bench.all

lint: $(STAMP)
	$(VENV)/bin/ruff check companion tests bench

clean:
	rm -rf $(VENV) build *.egg-info tests/artifacts
