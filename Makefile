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

# --- make prod: the production shape on one machine (docs/deployment.md) --------------------------
# migrate, collectstatic, gunicorn (WEB_WORKERS) on PostgreSQL, two RQ task workers on Redis and the
# reaper, all from environment variables; Ctrl-C or SIGTERM stops every process. SECRET_KEY must be
# set; a TLS proxy in front terminates HTTPS (hence SECURE_SSL_REDIRECT=0 here by default).
WEB_WORKERS ?= 4
TASK_WORKERS ?= 2
.PHONY: prod
prod: export DEBUG ?= 0
prod: export DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/qrelsmith
prod: export DB_CONN_MAX_AGE ?= 60
prod: export TASKS_BACKEND ?= rq
prod: export REDIS_URL ?= redis://127.0.0.1:6379/0
prod: export CACHE_URL ?= redis://127.0.0.1:6379/1
prod: export STATIC_ROOT ?= $(CURDIR)/staticfiles
prod: export SECURE_SSL_REDIRECT ?= 0
prod: export ALLOWED_HOSTS ?= $(HOST),localhost
prod: $(VENV)/.installed-run
	@test -n "$$SECRET_KEY" || { echo "make prod: set SECRET_KEY (e.g. export SECRET_KEY=\$$(openssl rand -base64 48))"; exit 1; }
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput -v0
	@echo "Serving on http://$(HOST):$(PORT)/ with $(WEB_WORKERS) web workers, $(TASK_WORKERS) task workers and the reaper"
	@trap 'kill $$(jobs -p) 2>/dev/null; wait' EXIT INT TERM; \
	for i in $$(seq $(TASK_WORKERS)); do \
	  $(PY) manage.py rqworker default --job-class django_tasks_rq.Job --with-scheduler & \
	done; \
	$(PY) manage.py reap --loop 30 & \
	$(VENV)/bin/gunicorn qrelsmith.wsgi --preload --workers $(WEB_WORKERS) --bind $(HOST):$(PORT) --timeout 60 \
	  --graceful-timeout 30 --max-requests 5000 --max-requests-jitter 500 --access-logfile - & \
	wait
