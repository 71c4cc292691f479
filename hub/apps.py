"""The "My judging" hub above both campaign kinds."""
from django.apps import AppConfig


class HubConfig(AppConfig):
    name = "hub"
    verbose_name = "My judging"
