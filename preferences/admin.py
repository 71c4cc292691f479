"""Read-mostly admin for preference campaigns (judgments are changed only through the services)."""
from django.contrib import admin

from preferences.models import PrefAssessor, PrefCampaign, PrefItem, PrefJudgment


@admin.register(PrefCampaign)
class PrefCampaignAdmin(admin.ModelAdmin):
    list_display = ("name", "collection", "kind", "status", "created_at")
    list_filter = ("kind", "status")


@admin.register(PrefAssessor)
class PrefAssessorAdmin(admin.ModelAdmin):
    list_display = ("campaign", "kind", "user", "platform", "worker_id", "blocked", "completed_at")
    list_filter = ("kind", "blocked")


@admin.register(PrefItem)
class PrefItemAdmin(admin.ModelAdmin):
    list_display = ("campaign", "position", "topic", "left_is_a", "is_gold", "judgment_count")


@admin.register(PrefJudgment)
class PrefJudgmentAdmin(admin.ModelAdmin):
    list_display = ("item", "assessor", "choice", "outcome", "strength", "revision_count")
    readonly_fields = ("item", "assessor", "choice", "outcome", "client_token")
