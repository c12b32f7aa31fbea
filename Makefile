# k-mood: `make run` serves the app and runs the worker; `make test` runs the whole suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint bench migrate clean

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -c 'import sys; sys.exit("k-mood needs Python 3.11+") if sys.version_info < (3, 11) else None'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $(STAMP)

# Server and worker together; Ctrl-C (or SIGTERM to make) stops both, leaving no orphan.
run: $(STAMP)
	$(PY) kmood.py migrate
	@trap 'kill -TERM $$server $$worker 2>/dev/null; wait $$server $$worker' INT TERM EXIT; \
	$(PY) kmood_worker.py & worker=$$!; \
	$(PY) kmood.py serve & server=$$!; \
	wait $$server $$worker

migrate: $(STAMP)
	$(PY) kmood.py migrate

test: $(STAMP)
	$(PY) -m pytest -q $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

bench: $(STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check -r bench/requirements.txt
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
