"""The backup procedure of docs/deployment.md restores: pg_dump → pg_restore into a fresh database
keeps a frozen qrels version byte for byte (its SHA-256 checksum still matches its content)."""
from __future__ import annotations

import hashlib
import shutil
import subprocess

import psycopg
import pytest
from django.db import connection

from judging.models import Item
from judging.services.campaigns import campaign_create
from judging.services.judgments import judgment_submit
from judging.services.qrels import qrels_freeze
from tests.judging.conftest import build_pool, expert

pytestmark = pytest.mark.django_db(transaction=True)


def _conninfo(name: str) -> dict:
    db = connection.settings_dict
    info = {"host": db["HOST"] or "127.0.0.1", "port": str(db["PORT"] or 5432), "user": db["USER"], "dbname": name}
    if db.get("PASSWORD"):
        info["password"] = db["PASSWORD"]
    return info


def test_a_dump_restored_into_a_fresh_database_keeps_a_frozen_qrels_version(collection, lead, alice, bob, tmp_path):
    if connection.vendor != "postgresql" or not shutil.which("pg_dump") or not shutil.which("pg_restore"):
        pytest.skip("needs PostgreSQL and its pg_dump/pg_restore")
    pool = build_pool(collection)
    campaign = campaign_create(collection=collection, pool=pool, name="c", created_by=lead, assessors=[alice, bob])
    judge = expert(campaign, alice)
    for item in Item.objects.filter(campaign=campaign).order_by("position")[:7]:
        judgment_submit(assessor=judge, item=item, grade=item.position % 4, client_token=f"t{item.pk}")
    version = qrels_freeze(campaign=campaign, rule="majority", description="before the backup", user=lead)
    assert version.checksum == hashlib.sha256(version.content.encode()).hexdigest()

    source = _conninfo(connection.settings_dict["NAME"])
    target = f"{source['dbname']}_restore"
    env = {"PGPASSWORD": source.get("password", "")}
    dump = tmp_path / "qrelsmith.dump"
    base = ["-h", source["host"], "-p", source["port"], "-U", source["user"]]
    subprocess.run(["pg_dump", *base, "--format=custom", "--no-owner", "-f", str(dump), source["dbname"]],
                   check=True, env=env, capture_output=True)
    with psycopg.connect(**{**source, "dbname": "postgres"}, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{target}"')
        admin.execute(f'CREATE DATABASE "{target}"')
    try:
        subprocess.run(["pg_restore", *base, "--no-owner", "--exit-on-error", "-d", target, str(dump)],
                       check=True, env=env, capture_output=True)
        with psycopg.connect(**{**source, "dbname": target}) as restored:
            content, checksum, number = restored.execute(
                "SELECT content, checksum, number FROM judging_qrelsversion WHERE id = %s", [version.pk]).fetchone()
            (judgments,) = restored.execute("SELECT count(*) FROM judging_judgment").fetchone()
        assert (content, checksum, number) == (version.content, version.checksum, version.number)
        assert hashlib.sha256(content.encode()).hexdigest() == checksum
        assert judgments == 7
    finally:
        with psycopg.connect(**{**source, "dbname": "postgres"}, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{target}" WITH (FORCE)')
