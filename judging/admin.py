"""Django admin for judging models. Judgments are read-only here: changes go through services."""
from django.contrib import admin

from judging import models


@admin.register(models.Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ("name", "collection", "pool", "split", "overlap", "status", "created_at")
    list_filter = ("status", "split", "overlap")


@admin.register(models.Assessor)
class AssessorAdmin(admin.ModelAdmin):
    list_display = ("__str__", "campaign", "kind", "platform", "blocked", "joined_at")
    list_filter = ("kind", "platform", "blocked")


@admin.register(models.Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ("campaign", "position", "pair", "required_judgments", "judgment_count", "is_gold")
    list_filter = ("campaign", "is_gold")


@admin.register(models.Lease)
class LeaseAdmin(admin.ModelAdmin):
    list_display = ("item", "assessor", "expires_at")


class JudgmentRevisionInline(admin.TabularInline):
    model = models.JudgmentRevision
    extra = 0
    can_delete = False
    readonly_fields = ("changed_by", "changed_at", "old_grade", "new_grade", "old_skipped", "new_skipped")
    exclude = ("client_token",)


@admin.register(models.Judgment)
class JudgmentAdmin(admin.ModelAdmin):
    list_display = ("item", "assessor", "grade", "skipped", "active_seconds", "revision_count", "created_at")
    list_filter = ("skipped",)
    inlines = [JudgmentRevisionInline]

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(models.Adjudication)
class AdjudicationAdmin(admin.ModelAdmin):
    list_display = ("item", "grade", "decided_by", "decided_at")


@admin.register(models.QrelsVersion)
class QrelsVersionAdmin(admin.ModelAdmin):
    list_display = ("collection", "number", "rule", "num_judgments", "created_at", "checksum")

    def has_change_permission(self, request, obj=None):
        return False
