# The quick start: `make play` and `make test`, on a fresh machine.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# mypyc compiles these in place (setup.py); any edit to them rebuilds on the next make.
COMPILED_SOURCES := $(wildcard src/nertz/engine/*.py src/nertz/bots/*.py) src/nertz/sim/table.py

.PHONY: play test test-pure lint lint-web bench master-tune bench-env bench-pounce install clean chromium services cluster screenshots

$(PY):
	python3 -m venv $(VENV)

# The build requirements (setuptools, the pinned mypy that brings mypyc) go into the venv
# and the build uses them there, so a rebuild after an edit does not set up a new build
# environment. NERTZ_PURE=1 installs without compiling (and a process run with it imports
# the sources).
$(STAMP): pyproject.toml setup.py $(COMPILED_SOURCES) | $(PY)
	$(PY) -m pip install -q --upgrade pip $$($(PY) -c "import tomllib; \
		print(*tomllib.load(open('pyproject.toml', 'rb'))['build-system']['requires'])")
	$(PY) -m pip install -q --no-build-isolation -e '.[test,env]'
	touch $(STAMP)

install: $(STAMP)

# A first-timer's table ("Relaxed" bots); `make play BOTS=even`, `sharp` or `fierce` for others.
play: $(STAMP)
	$(VENV)/bin/nertz serve --play $(if $(BOTS),--bots $(BOTS))

lint: $(STAMP) lint-web
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy --strict src/nertz/engine src/nertz/server src/nertz/bots src/nertz/sim \
		src/nertz/env src/nertz/client src/nertz/analysis src/nertz/rating
	$(VENV)/bin/lint-imports

# The JS client's format and lint (Biome, pinned in package.json; biome.jsonc), over all
# of web/ and tests/web. npm installs the tool from the lock when it is missing (a clean
# clone); the browser loads nothing from npm.
node_modules/.bin/biome: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

lint-web: node_modules/.bin/biome
	node_modules/.bin/biome ci src/nertz/web tests/web

# The browser tests use Debian's Chromium; install it when missing (as root, with apt),
# with a colour emoji font for the chat's reactions.
chromium:
	@if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		apt-get update -q && apt-get install -y -q chromium fonts-noto-color-emoji; fi

# The cluster's tests (tests/cluster/) start their own PostgreSQL, Redis and HAProxy
# from Debian's packages (tests/services.py); install them when missing, like Chromium.
services:
	@if { ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 \
		|| ! command -v redis-server >/dev/null || ! command -v haproxy >/dev/null; } \
		&& command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			postgresql redis-server haproxy; fi

# PostgreSQL, Redis, three nodes and HAProxy on free ports; prints the URL (docs/cluster.md).
cluster: $(STAMP) services
	$(PY) -m tests.cluster.local

# The client's table reducer against recorded matches (Node's own test runner, no npm);
# everything on the installed (compiled) build; then the engine's and the bots' tests
# again on their pure-Python sources.
test: lint chromium services
	node --test tests/web/
	$(PY) -m pytest -n 2 tests docs README.md
	NERTZ_PURE=1 $(PY) -m pytest -n 2 -q tests/engine tests/bots tests/test_compiled.py

test-pure: $(STAMP)
	NERTZ_PURE=1 $(PY) -m pytest -n 2 -q tests/engine tests/bots tests/test_compiled.py

# docs/screenshots/*.png for the README: a real server, Chromium, bots.
screenshots: $(STAMP) chromium
	$(PY) docs/screenshots/make_screenshots.py

bench: $(STAMP)
	$(PY) bench/engine.py --anchor
	$(PY) bench/engine.py --jokers
	$(PY) bench/simulate.py
	$(PY) bench/duplicate.py
	$(PY) bench/rating.py
	$(PY) bench/master.py
	$(PY) bench/load.py --tables 300 --seconds 30

# The master bot's tuning grid and how it wins (docs/strategy.md, section 6): a
# few minutes on two cores, on deals of their own; what it chose is in bots/levels.py.
master-tune: $(STAMP)
	$(PY) bench/master.py --tune
	$(PY) bench/master.py --why

# pounce.live's simulator beside ours (docs/performance.md): POUNCE=DIR, a checkout of
# github.com/alexrcoleman/pounce; what its benchmark imports goes to ~/.cache, not here.
bench-pounce: $(STAMP)
	$(PY) bench/pounce.py --pounce $(POUNCE)

# nertz.env against RLCard's Uno (docs/performance.md): RLCard, the extra `bench`, is
# installed for this run only, never for the tests.
bench-env: $(STAMP)
	$(PY) -m pip install -q $$($(PY) -c "import tomllib; \
		print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['bench'])")
	$(PY) bench/env.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build
	find src -name '*.so' -delete
