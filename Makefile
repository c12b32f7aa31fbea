# k-mood: `make run` serves the app and runs the worker; `make test` runs the whole suite.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Compiled bytecode is kept inside the venv (git-ignored, gone with `make clean`), never beside
# the sources, and kept even where the environment says PYTHONDONTWRITEBYTECODE: otherwise each
# of the ~250 processes the suite starts compiles every module it imports again (0.66 CPU-s for
# a server or worker to start instead of 0.38).
export PYTHONPYCACHEPREFIX := $(CURDIR)/$(VENV)/pycache
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test test-fast fuzz lint bench soak migrate clean test-tools audit i18n

$(STAMP): requirements.txt requirements-dev.txt requirements-nats.txt requirements-replica.txt requirements-sso.txt
	$(PYTHON) -c 'import sys; sys.exit("k-mood needs Python 3.11+") if sys.version_info < (3, 11) else None'
	test -x $(PY) || $(PYTHON) -m venv --without-pip $(VENV)
	@# This Python's own pip installs into the venv when it can (`pip --python`, pip 22.3+), and
	@# nothing is compiled ahead (Python compiles what it imports, into the cache above): 20 s
	@# instead of 35 on a fresh clone. Otherwise the venv gets a pip of its own.
	@if $(PYTHON) -m pip --python $(PY) --version >/dev/null 2>&1; then \
	  pip="$(PYTHON) -m pip --python $(PY)"; \
	else \
	  $(PY) -m pip --version >/dev/null 2>&1 || $(PY) -m ensurepip --upgrade >/dev/null; \
	  pip="$(PY) -m pip"; \
	fi; \
	echo "installing requirements-dev.txt into $(VENV) ($$pip)"; \
	$$pip install --quiet --no-compile --disable-pip-version-check -r requirements-dev.txt
	touch $(STAMP)

# Server and worker together. Ctrl-C stops both, leaving no orphan; when
# either one exits by itself (a port already taken, a database refused) the other is stopped
# too and make fails with that exit code.
run: $(STAMP)
	$(PY) kmood.py migrate
	@$(PY) kmood_worker.py & worker=$$!; \
	$(PY) kmood.py serve & server=$$!; \
	stopping=0; trap 'stopping=1; kill -TERM $$server $$worker 2>/dev/null' INT TERM; \
	wait -n $$server $$worker; status=$$?; \
	kill -TERM $$server $$worker 2>/dev/null; wait $$server $$worker 2>/dev/null; \
	if [ $$stopping = 1 ]; then exit 0; fi; \
	echo "make run: a process exited with status $$status; stopped the other" >&2; \
	exit $$(( status == 0 ? 1 : status ))

migrate: $(STAMP)
	$(PY) kmood.py migrate

# The browser tests drive Debian's chromium and chromium-driver (with an emoji font, so
# activity icons are measured and shown as a phone shows them) and read the report's PDF with
# pdftotext (poppler-utils), and the relay tests a real nats-server; install whichever is
# missing (one apt-get run).
OIDC_TOOL := tools/oidc
test-tools:
	@missing=""; \
	[ -x /usr/bin/chromium ] || missing="$$missing chromium"; \
	[ -x /usr/bin/chromedriver ] || missing="$$missing chromium-driver"; \
	[ -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ] || missing="$$missing fonts-noto-color-emoji"; \
	command -v nats-server >/dev/null || [ -x /usr/sbin/nats-server ] || missing="$$missing nats-server"; \
	command -v pdftotext >/dev/null || missing="$$missing poppler-utils"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing$$missing for the tests"; \
	    apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
	  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then \
	    sudo apt-get update -qq && sudo apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "make: the tests need$$missing (apt-get install -y --no-install-recommends$$missing); they will fail without them" >&2; \
	  fi; \
	fi
	@# The single sign-on tests run a real OpenID provider (oidc-provider, pinned in tools/oidc)
	@# with node: installed here when npm is present (a few seconds); without node they skip.
	@if command -v npm >/dev/null && { [ ! -f $(OIDC_TOOL)/node_modules/.package-lock.json ] || \
	    [ $(OIDC_TOOL)/package-lock.json -nt $(OIDC_TOOL)/node_modules/.package-lock.json ]; }; then \
	  echo "installing the test OpenID provider into $(OIDC_TOOL) (npm ci)"; \
	  (cd $(OIDC_TOOL) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error); \
	fi

# The whole suite on every core, and one process more: a test file runs whole on one worker
# (--dist loadfile), so a module's server, browser, OpenID provider or NATS server is started
# once. The processes wait much of the time (for servers, providers, browsers and their
# timers: 2 cores were 62% busy with 2 processes), and a third fills those waits: pytest took
# 442 s with 3 against 472 s with 2 on the same clone (with fewer waiting tests, in an earlier
# mix, 3 had been a little slower). Whole files to each process, in the order
# tests/conftest.py sorts them (longest first): --no-loadscope-reorder keeps xdist from
# putting the files with most tests first instead.
TEST_PROCESSES ?= $(shell $(PYTHON) -c 'import os; print(len(os.sched_getaffinity(0)) + 1)')
test: $(STAMP) test-tools
	$(PY) -m pytest -q -n $(TEST_PROCESSES) --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

# The API fuzz run deep, with fresh random cases each time (`make test` runs a fixed set of 8
# per operation): FUZZ_EXAMPLES per operation, default 300.
FUZZ_EXAMPLES ?= 300
fuzz: $(STAMP)
	KMOOD_TEST_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) KMOOD_TEST_FUZZ_RANDOM=1 \
		$(PY) -m pytest -q -p no:xdist -p no:cacheprovider -o addopts= \
		tests/fuzz/api_fuzz.py tests/fuzz/test_hostile_strings.py $(PYTEST_ARGS)

# The quick loop while working: everything not marked slow (no processes, browsers or NATS).
test-fast: $(STAMP)
	$(PY) -m pytest -q -n auto -m "not slow" $(PYTEST_ARGS)

# Languages (SPEC §13): extract every marked string of the Python sources and the templates
# (babel.cfg) into locale/messages.pot, then bring each locale/<lang>/LC_MESSAGES/messages.po up
# to it (new strings empty, never guessed: tests/unit/test_i18n.py fails until they are
# translated). Catalogues are compiled in memory when the server starts; no .mo is kept.
BABEL := $(PY) -m babel.messages.frontend
I18N_KEYWORDS := --no-default-keywords -k _ -k N_ -k _html -k n_:1,2 -k Phrase

i18n: $(STAMP)
	$(BABEL) extract -F babel.cfg $(I18N_KEYWORDS) --sort-by-file --project k-mood \
		--msgid-bugs-address https://github.com/k-mood/k-mood/issues \
		--copyright-holder "k-mood contributors" -o locale/messages.pot .
	$(BABEL) update -i locale/messages.pot -d locale -D messages --no-fuzzy-matching --ignore-obsolete

lint: $(STAMP)
	$(VENV)/bin/ruff check .

bench: $(STAMP) test-tools
	$(PY) -m pip install --quiet --disable-pip-version-check -r bench/requirements.txt
	$(PY) bench/run.py

# k-mood under load, faults and time (issue #27): server, 2 workers and 20 clients for SOAK_S
# seconds (default 600; SOAK_S=3600 for an hour) with kill -9s, a full disk and an upstream
# outage, then the checks and one table. Not part of `make test`. The full disk needs root (a
# loop-mounted ext4 file, else a tmpfs); without it that fault is skipped and says why.
soak: $(STAMP)
	$(PY) bench/soak.py

# Lighthouse on the main pages as a phone and a desktop (issue #23): accessibility 100, best
# practices 100, performance >= 95. Audit tooling only: npm packages pinned in tools/audit,
# never served and not part of `make test`; reports go to artifacts/audit/.
AUDIT := tools/audit

$(AUDIT)/node_modules/.package-lock.json: $(AUDIT)/package.json $(AUDIT)/package-lock.json
	@command -v npm >/dev/null || { echo "make audit needs node 18.16+ and npm:" \
	  "apt-get install -y --no-install-recommends nodejs npm" >&2; exit 1; }
	cd $(AUDIT) && npm ci --ignore-scripts --no-audit --no-fund

audit: $(STAMP) test-tools $(AUDIT)/node_modules/.package-lock.json
	@command -v node >/dev/null || { echo "make audit needs node 18.16+:" \
	  "apt-get install -y --no-install-recommends nodejs npm" >&2; exit 1; }
	$(PY) $(AUDIT)/run.py $(AUDIT_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
