"""Django admin for model assessors: read what judges were configured with and what every call returned."""
from django.contrib import admin

from model_assessors import models


class PromptInline(admin.TabularInline):
    model = models.PromptTemplate
    extra = 0
    readonly_fields = ("version", "system", "user", "note", "created_at", "created_by")
    can_delete = False


@admin.register(models.ModelJudge)
class ModelJudgeAdmin(admin.ModelAdmin):
    list_display = ("name", "campaign", "model", "base_url", "prompting", "concurrency", "max_pairs", "max_tokens")
    readonly_fields = ("assessor",)
    inlines = [PromptInline]


@admin.register(models.ModelRun)
class ModelRunAdmin(admin.ModelAdmin):
    list_display = ("pk", "judge", "status", "done", "failed", "total", "created_at", "finished_at")
    list_filter = ("status",)


@admin.register(models.ModelCall)
class ModelCallAdmin(admin.ModelAdmin):
    """Calls are a record: nothing here may change them."""

    list_display = ("judge", "item", "status", "label", "attempts", "prompt_tokens", "completion_tokens", "cost",
                    "created_at")
    list_filter = ("status", "judge")

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False
