"""WSGI application of the development server (``manage.py runserver``, which ``make run`` starts).

Settings pick it only with ``QRELSMITH_DEV=1``. ``qrelsmith.wsgi`` refuses to load with the
public development key or DEBUG on, so that gunicorn never exposes them; the development server
reads ``WSGI_APPLICATION`` instead of that module, and would otherwise stop at start-up too.
"""
from django.core.wsgi import get_wsgi_application

application = get_wsgi_application()
