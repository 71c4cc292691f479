"""Django admin for every collection model (read-mostly; imports go through services)."""
from django.contrib import admin

from collections_app import models


@admin.register(models.Collection)
class CollectionAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "relevant_threshold", "created_at")
    prepopulated_fields = {"slug": ("name",)}
    search_fields = ("name", "slug")


@admin.register(models.Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("collection", "user", "role", "created_at")
    list_filter = ("role", "collection")


@admin.register(models.Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ("qid", "title", "collection")
    list_filter = ("collection",)
    search_fields = ("qid", "title")


@admin.register(models.Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ("docno", "title", "collection")
    list_filter = ("collection",)
    search_fields = ("docno", "title")


@admin.register(models.Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("tag", "group", "collection", "num_topics", "num_lines", "uploaded_at")
    list_filter = ("collection", "group")
    search_fields = ("tag",)


@admin.register(models.RunRanking)
class RunRankingAdmin(admin.ModelAdmin):
    list_display = ("run", "topic", "length")
    readonly_fields = ("run", "topic", "length")
    exclude = ("docnos", "scores")


@admin.register(models.QrelsSet)
class QrelsSetAdmin(admin.ModelAdmin):
    list_display = ("name", "collection", "num_judgments", "imported_at")


@admin.register(models.QrelsEntry)
class QrelsEntryAdmin(admin.ModelAdmin):
    list_display = ("qrels_set", "topic", "docno", "grade")
    list_filter = ("qrels_set",)
    search_fields = ("docno",)


@admin.register(models.Pool)
class PoolAdmin(admin.ModelAdmin):
    list_display = ("name", "collection", "strategy", "frozen", "created_at")
    list_filter = ("strategy", "frozen")


@admin.register(models.PoolPair)
class PoolPairAdmin(admin.ModelAdmin):
    list_display = ("pool", "topic", "docno", "judging_order", "best_rank")
    list_filter = ("pool",)
    search_fields = ("docno",)


@admin.register(models.Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ("id", "collection", "kind", "status", "created_at")
    list_filter = ("kind", "status")
