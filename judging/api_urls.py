"""Judging API routes."""
urlpatterns: list = []
