from django.apps import AppConfig


class OpsConfig(AppConfig):
    """Operations: health endpoint, API error shape for every failure, request size limit, the reaper."""

    name = "ops"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from ops import checks  # noqa: F401 - registers the deploy checks
