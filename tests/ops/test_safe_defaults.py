"""Safe defaults: no development key or DEBUG unless asked for, and the WSGI entry point refuses both."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from qrelsmith.env import DEV_SECRET_KEY
from qrelsmith.startup import MANIFEST_STORAGE, serving_problems

ROOT = Path(__file__).resolve().parents[2]


def fake(tmp_path, **overrides):
    values = dict(SECRET_KEY="s" * 50, DEBUG=False, STATIC_ROOT=tmp_path,
                  STORAGES={"staticfiles": {"BACKEND": MANIFEST_STORAGE}})
    values.update(overrides)
    return SimpleNamespace(**values)


def test_production_settings_with_collected_static_may_serve(tmp_path, monkeypatch):
    monkeypatch.delenv("QRELSMITH_ALLOW_INSECURE", raising=False)
    (tmp_path / "staticfiles.json").write_text("{}")
    assert serving_problems(fake(tmp_path)) == []


def test_the_dev_key_debug_and_missing_static_are_each_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("QRELSMITH_ALLOW_INSECURE", raising=False)
    problems = serving_problems(fake(tmp_path, SECRET_KEY=DEV_SECRET_KEY, DEBUG=True))
    assert len(problems) == 3
    assert "development key" in problems[0] and "DEBUG is on" in problems[1] and "collectstatic" in problems[2]
    monkeypatch.setenv("QRELSMITH_ALLOW_INSECURE", "1")
    assert len(serving_problems(fake(tmp_path, SECRET_KEY=DEV_SECRET_KEY, DEBUG=True))) == 1  # static still counts


def run_python(code: str, **env) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("QRELSMITH_DEV", "DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE", "QRELSMITH_ALLOW_INSECURE",
                          "DJANGO_ALLOW_ASYNC_UNSAFE")}  # the browser tests set the last one for their own process
    clean.update(env)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean, capture_output=True, text=True,
                          timeout=120)


def test_without_any_environment_the_settings_refuse_to_load():
    result = run_python("import django, os; os.environ['DJANGO_SETTINGS_MODULE']='qrelsmith.settings'; django.setup()")
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr and "QRELSMITH_DEV=1" in result.stderr


def test_dev_mode_is_explicit_and_debug_is_off_otherwise():
    code = ("import os; os.environ['DJANGO_SETTINGS_MODULE']='qrelsmith.settings'; import django; django.setup(); "
            "from django.conf import settings; print(settings.DEBUG, settings.CONN_HEALTH_CHECKS "
            "if hasattr(settings, 'CONN_HEALTH_CHECKS') else settings.DATABASES['default']['CONN_HEALTH_CHECKS'])")
    assert run_python(code, QRELSMITH_DEV="1").stdout.split() == ["True", "True"]
    assert run_python(code, SECRET_KEY="x" * 50).stdout.split() == ["False", "True"]


@pytest.mark.parametrize("env, expected", [
    ({"QRELSMITH_DEV": "1"}, "development key"),
    ({"SECRET_KEY": "x" * 50, "DEBUG": "1"}, "DEBUG is on"),
    ({"SECRET_KEY": "x" * 50, "DEBUG": "0", "STATIC_ROOT": "/nonexistent/i18-static"}, "static files are not collected"),
])
def test_the_wsgi_entry_point_refuses_to_load(env, expected):
    result = run_python("import qrelsmith.wsgi", **env)
    assert result.returncode != 0
    assert "qrelsmith refuses to serve" in result.stderr and expected in result.stderr


def test_the_wsgi_entry_point_loads_when_allowed():
    result = run_python("import qrelsmith.wsgi; print('loaded')", QRELSMITH_DEV="1", QRELSMITH_ALLOW_INSECURE="1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "loaded"


def test_check_deploy_is_clean_with_production_settings(tmp_path):
    (tmp_path / "staticfiles.json").write_text('{"paths": {}, "version": "1.1", "hash": ""}')
    result = run_python(
        "import sys; sys.argv=['manage.py','check','--deploy','--fail-level','WARNING']; "
        "import manage; manage.main()",
        SECRET_KEY="k" * 60 + "Zq9!", DEBUG="0", ALLOWED_HOSTS="qrels.example.org", STATIC_ROOT=str(tmp_path),
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "no issues" in result.stdout


def test_the_development_server_serves_in_development_mode(tmp_path):
    """``make run`` starts runserver with QRELSMITH_DEV=1: it must serve, though gunicorn's entry point refuses.

    (It once loaded ``qrelsmith.wsgi`` too, which stopped it at start-up with "refuses to serve".)
    """
    import socket
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    clean = {k: v for k, v in os.environ.items()
             if k not in ("DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE", "QRELSMITH_ALLOW_INSECURE",
                          "DJANGO_ALLOW_ASYNC_UNSAFE")}
    clean.update(QRELSMITH_DEV="1", DATABASE_URL=f"sqlite:///{tmp_path / 'dev.sqlite3'}")
    server = subprocess.Popen([sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
                              cwd=ROOT, env=clean, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        status, deadline = None, time.monotonic() + 60
        while status is None and time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=5) as response:
                    status = response.status
            except OSError:
                time.sleep(0.3)
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0]
    assert status == 200, output
