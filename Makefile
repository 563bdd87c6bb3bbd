# Two commands on a fresh machine with Python 3.11+ and make:
#   make serve   runs the course at http://localhost:5006
#   make test    runs every test, real-browser tests included
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 5006
AXE_VERSION := 4.14.1
AXE := .cache/axe/node_modules/axe-core/axe.min.js
LIGHTHOUSE_VERSION := 12.2.3
LIGHTHOUSE := .cache/lighthouse/node_modules/.bin/lighthouse

.PHONY: serve serve-cluster test test-fast test-smoke test-py313 lint bench browser lighthouse system-packages clean

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/activate
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

serve: $(VENV)/.installed
	$(BIN)/python -m app --port $(PORT)

# nginx on 8080 in front of app processes on 5007 and 5008, in the foreground; Ctrl-C stops them all.
# Options: $(BIN)/python deploy/cluster.py --help
serve-cluster: $(VENV)/.installed
	$(BIN)/python deploy/cluster.py

# Chromium, nginx and npm from Debian's packages when apt-get can be used (root or passwordless
# sudo); otherwise one line naming the command to run. See tools/system-packages.
system-packages:
	@tools/system-packages

# Playwright drives /usr/bin/chromium when present (Debian's chromium package, which
# system-packages installs); elsewhere it downloads its own Chromium once.
browser: $(VENV)/.installed-test system-packages
	@if [ -x /usr/bin/chromium ]; then echo "Using /usr/bin/chromium"; \
	else $(BIN)/python -m playwright install chromium; fi

# axe-core for the accessibility tests, from the npm registry (npm comes with Node.js;
# system-packages installs Debian's npm where it is missing).
$(AXE): | system-packages
	@command -v npm >/dev/null || { echo "make test needs npm to install axe-core (Debian: apt-get install npm)"; exit 1; }
	npm install --silent --no-audit --no-fund --no-save --prefix .cache/axe axe-core@$(AXE_VERSION)

# Lighthouse for bench/web_vitals.py, the exact version its figures were taken with, into .cache/
# (never globally); the bench runs this rule when the file is missing.
$(LIGHTHOUSE): | system-packages
	@command -v npm >/dev/null || { echo "bench/web_vitals.py needs npm to install Lighthouse (Debian: apt-get install npm)"; exit 1; }
	npm install --silent --no-audit --no-fund --save-exact --prefix .cache/lighthouse lighthouse@$(LIGHTHOUSE_VERSION)

lighthouse: $(LIGHTHOUSE)

test: system-packages $(VENV)/.installed-test browser $(AXE)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

# The quick loop while editing: ruff and the headless tests but the slowest (marked slow), with no
# Chromium, nginx or PostgreSQL needed by what it runs; the README gives its time and what it leaves out.
test-fast: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -m "not browser and not slow" -q

# A minute's check that the course works at all (tests marked smoke): the app starts and serves every
# page, a lesson renders, a lab steps headless, and Play in Chromium. Only their modules are collected
# (collecting the whole suite alone takes about a minute).
SMOKE_MODULES := tests/site/test_urls.py tests/web/test_shell.py tests/labs/test_queue_view.py tests/browser/test_queue_browser.py
test-smoke: $(VENV)/.installed-test
	$(BIN)/python -m pytest -m smoke -q $(SMOKE_MODULES)

# The headless suite again on Python 3.13 where this machine has it (pyproject allows 3.11 to 3.13);
# a line saying so where it has none, and a failure instead with REQUIRE_PY313=1 (as .ci/run sets: CI's
# machine image has pyenv's 3.13). Its own virtual environment, .venv-py313.
PY313 ?= $(firstword $(wildcard $(HOME)/.pyenv/versions/3.13*/bin/python3.13 /root/.pyenv/versions/3.13*/bin/python3.13) $(shell command -v python3.13 2>/dev/null))
REQUIRE_PY313 ?=
test-py313:
	@if [ -z "$(PY313)" ] || ! "$(PY313)" -c 'import sys; assert sys.version_info[:2] == (3, 13)' 2>/dev/null; then \
	  if [ -n "$(REQUIRE_PY313)" ]; then echo "test-py313: no working python3.13 on this machine (REQUIRE_PY313 is set)"; exit 1; fi; \
	  echo "test-py313: no working python3.13 on this machine; skipped"; exit 0; fi; \
	echo "test-py313: $(PY313)"; \
	[ -x .venv-py313/bin/python ] || $(PY313) -m venv .venv-py313; \
	.venv-py313/bin/python -m pip install --quiet --upgrade pip && \
	.venv-py313/bin/python -m pip install --quiet -e '.[test]' && \
	.venv-py313/bin/python -m pytest -m "not browser" -q -p no:cacheprovider

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .

bench: $(VENV)/.installed-test browser
	$(BIN)/python -m bench.play_cpu

clean:
	rm -rf $(VENV) .venv-py313 .pytest_cache .ruff_cache .hypothesis test-artifacts .cache
