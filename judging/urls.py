"""Judging pages (assessors, crowd workers, leads' campaign pages)."""
urlpatterns: list = []
