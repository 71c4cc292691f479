"""The demo app: the synthetic demo collection and ``manage.py demo_setup`` (``make run`` calls it)."""
from django.apps import AppConfig


class DemoConfig(AppConfig):
    name = "demo"
    verbose_name = "Demo"
