# qrelsmith: `make run` serves the demo, `make test` runs the whole suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=

.PHONY: run test lint check bench clean-db

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(VENV)/.installed-run: requirements.txt | $(VENV)/bin/python
	$(PIP) install -q -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt | $(VENV)/bin/python
	$(PIP) install -q -r requirements-dev.txt
	touch $(VENV)/.installed-run $@

# Local development is explicit: DEBUG on and the public development key (never served by gunicorn).
run: export QRELSMITH_DEV ?= 1
run: $(VENV)/.installed-run
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo_setup
	@echo "Serving on http://$(HOST):$(PORT)/ (task worker running alongside; Ctrl-C stops both)"
	@trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	$(PY) manage.py db_worker >/dev/null 2>&1 & worker=$$!; \
	$(PY) manage.py runserver $(HOST):$(PORT)

test: $(VENV)/.installed-dev
	$(PY) -m pytest $(PYTEST_ARGS)

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .

check: export QRELSMITH_DEV ?= 1
check: $(VENV)/.installed-dev
	$(PY) manage.py makemigrations --check --dry-run
	$(VENV)/bin/ruff check .

bench: $(VENV)/.installed-dev
	$(PIP) install -q -r requirements-bench.txt
	$(PY) benchmarks/bench_metrics.py
	$(PY) benchmarks/bench_pooling.py

clean-db:
	rm -f db.sqlite3 db.sqlite3-wal db.sqlite3-shm
