# The quick start: `make play` and `make test`, on a fresh machine.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: play test lint bench install clean chromium screenshots

$(PY):
	python3 -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

play: $(STAMP)
	$(VENV)/bin/nertz serve --play

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy --strict src/nertz/engine src/nertz/server

# The browser tests use Debian's Chromium; install it when missing (as root, with apt).
chromium:
	@if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		apt-get update -q && apt-get install -y -q chromium; fi

# The client's table reducer against recorded matches: Node's own test runner, no npm.
test: lint chromium
	node --test tests/web/
	$(PY) -m pytest -n 2 tests docs README.md

# docs/screenshots/*.png for the README: a real server, Chromium, bots.
screenshots: $(STAMP) chromium
	$(PY) docs/screenshots/make_screenshots.py

bench: $(STAMP)
	$(PY) bench/engine.py
	$(PY) bench/engine.py --jokers
	$(PY) bench/simulate.py
	$(PY) bench/load.py --tables 300 --seconds 30

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
