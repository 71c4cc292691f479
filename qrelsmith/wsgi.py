"""WSGI entry point (gunicorn qrelsmith.wsgi)."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "qrelsmith.settings")
application = get_wsgi_application()
