"""django-filter filter sets for the API's list endpoints."""
from __future__ import annotations

import django_filters
from django.db.models import Q, QuerySet

from collections_app.models import Document, PoolPair, Run


class DocumentFilter(django_filters.FilterSet):
    docno = django_filters.CharFilter(field_name="docno", help_text="Exact docno.")
    qid = django_filters.CharFilter(method="filter_qid", help_text="Documents pooled for this topic.")
    search = django_filters.CharFilter(method="filter_search", help_text="Words in the title or text.")

    class Meta:
        model = Document
        fields = ["docno"]

    def filter_qid(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(pool_pairs__topic__qid=value).distinct()

    def filter_search(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(Q(title__icontains=value) | Q(text__icontains=value))


class RunFilter(django_filters.FilterSet):
    group = django_filters.CharFilter(field_name="group")

    class Meta:
        model = Run
        fields = ["group"]


class PoolPairFilter(django_filters.FilterSet):
    qid = django_filters.CharFilter(field_name="topic__qid")
    judgeable = django_filters.BooleanFilter(field_name="document", lookup_expr="isnull", exclude=True)

    class Meta:
        model = PoolPair
        fields = ["qid"]
