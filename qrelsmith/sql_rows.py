"""Model instances from hand-written SQL: column lists and row decoding, the way the ORM does both.

Why: on a hot path (the judging round's next → submit) building and compiling ORM queries
costs more CPU than the database spends running them. A statement written once as SQL only
binds parameters; this module keeps what the ORM would otherwise give for free — the select
list of a model's concrete fields, the backend's and the fields' converters (datetimes from
SQLite text, JSON from PostgreSQL text) and instances built with ``Model.from_db``, so the
objects behave exactly like ones the ORM read (not deferred, ``_state`` set, caches settable).

A ``Layout`` is built once per model, table alias and database vendor and reused.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, cast

from django.db import connection
from django.db.models import Model


class Layout:
    """The select list of one model's concrete fields under a table alias, and how to decode them."""

    def __init__(self, model: type[Model], alias: str) -> None:
        fields = model._meta.concrete_fields
        self.model = model
        self.width = len(fields)
        self.attnames = [field.attname for field in fields]
        self.pk_index = self.attnames.index(model._meta.pk.attname)
        quote = connection.ops.quote_name
        self.select = ", ".join(f"{alias}.{quote(field.column)}" for field in fields)
        self._converters = []
        for index, field in enumerate(fields):
            column = field.get_col(alias)
            found = connection.ops.get_db_converters(column) + cast(Any, field).get_db_converters(connection)
            if found:
                self._converters.append((index, column, found))

    def instance(self, row: Sequence[Any], start: int = 0) -> Any:
        """Return the model instance of ``row[start:start + width]``; None when its key is NULL (an outer join's miss)."""
        values = list(row[start:start + self.width])
        if values[self.pk_index] is None:
            return None
        for index, column, converters in self._converters:
            value = values[index]
            for converter in converters:
                value = converter(value, column, connection)
            values[index] = value
        return self.model.from_db(connection.alias, self.attnames, values)


@cache
def _layout(model: type[Model], alias: str, vendor: str) -> Layout:
    return Layout(model, alias)


def layout(model: type[Model], alias: str) -> Layout:
    """Return the (cached) layout of ``model`` under ``alias`` for the current database's vendor."""
    return _layout(model, alias, connection.vendor)


def datetime_param(value):
    """Return a datetime as the database driver wants it bound (SQLite: Django's text form; PostgreSQL: as is)."""
    return connection.ops.adapt_datetimefield_value(value)


def cursor():
    """Return a cursor for these fixed statements: on PostgreSQL one that binds on the server and prepares.

    Django's PostgreSQL cursors bind parameters on the client, so the server parses and plans
    every statement afresh — for the judging gate's four-table join, planning took four times as
    long as running it. The statements here are fixed texts run again and again, which is what
    prepared statements are for: with ``DB_PREPARED_STATEMENTS`` on (the default), the settings
    give the connection a ``prepare_threshold``, so psycopg prepares a statement of a
    server-binding cursor once it has run twice on a connection (Django's own client-binding
    cursors never prepare). The cursor is made the way Django makes its own
    (``BaseDatabaseWrapper._cursor``): the connection's health check first (a kept-open
    connection that died is replaced, not failed on), database errors become Django's. While
    Django logs queries (DEBUG, ``CaptureQueriesContext``), Django's own
    cursor runs them instead: psycopg keeps no text of a prepared statement's execution, and a
    log of the SQL sent is worth more there than the planning saved.
    """
    if connection.vendor != "postgresql" or connection.queries_logged:
        return connection.cursor()
    import psycopg

    connection.close_if_health_check_failed()
    connection.ensure_connection()
    with connection.wrap_database_errors:
        return connection._prepare_cursor(psycopg.Cursor(connection.connection))


def fetch_one(sql: str, params: dict | Sequence) -> tuple | None:
    """Run a statement and return its first row (or None)."""
    with cursor() as cursor_:
        cursor_.execute(sql, params)
        return cursor_.fetchone()


def execute(sql: str, params: dict | Sequence) -> int:
    """Run a statement and return the number of rows it touched."""
    with cursor() as cursor_:
        cursor_.execute(sql, params)
        return cursor_.rowcount
