"""WSGI entry point (gunicorn qrelsmith.wsgi).

Loading it checks that the server is safe to expose (qrelsmith.startup): it stops with the
reason instead of serving with the development key, DEBUG on, or without collected static files.
"""
import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

from qrelsmith.startup import check_or_exit

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "qrelsmith.settings")
application = get_wsgi_application()
check_or_exit(settings)
