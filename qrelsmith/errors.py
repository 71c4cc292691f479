"""Error types the project package knows without importing any app.

``api_errors.exception_handler`` turns a :class:`ProblemsError` into the API's error shape with
its list of problems; an app's own refusal (``collections_app``'s ``ImportFailed``) subclasses
it, so the project package needs no import from the apps (it sits below them all).
"""
from __future__ import annotations


class ProblemsError(Exception):
    """A refusal that lists what was wrong: a code, the first problems (each one line of text) and their total.

    Subclasses set ``code`` (a short machine-readable word), ``problems`` (objects whose ``str``
    is one line, e.g. ``file:line: message``) and ``total`` (how many problems there were in
    all, which may exceed the ones listed).
    """

    code: str = "invalid"
    problems: list
    total: int
