"""API routes for collections, topics, documents, runs, qrels, pools and jobs."""
from django.urls import path

from collections_app import api

prefix = "collections/<slug:slug>/"
urlpatterns = [
    path("collections/", api.CollectionListCreate.as_view(), name="api-collections"),
    path(prefix, api.CollectionDetail.as_view(), name="api-collection"),
    path(prefix + "members/", api.MemberListCreate.as_view(), name="api-members"),
    path(prefix + "topics/", api.TopicList.as_view(), name="api-topics"),
    path(prefix + "documents/", api.DocumentList.as_view(), name="api-documents"),
    path(prefix + "documents/<path:docno>/", api.DocumentDetail.as_view(), name="api-document"),
    path(prefix + "runs/", api.RunList.as_view(), name="api-runs"),
    path(prefix + "runs/<path:tag>/", api.RunDetail.as_view(), name="api-run"),
    path(prefix + "qrels/", api.QrelsList.as_view(), name="api-qrels"),
    path(prefix + "pools/", api.PoolList.as_view(), name="api-pools"),
    path(prefix + "pools/<str:name>/", api.PoolDetail.as_view(), name="api-pool"),
    path(prefix + "pools/<str:name>/deepen/", api.PoolDeepen.as_view(), name="api-pool-deepen"),
    path(prefix + "pools/<str:name>/stats/", api.PoolStats.as_view(), name="api-pool-stats"),
    path(prefix + "pools/<str:name>/pairs/", api.PoolPairList.as_view(), name="api-pool-pairs"),
    path(prefix + "jobs/", api.JobList.as_view(), name="api-jobs"),
    path(prefix + "jobs/<int:pk>/", api.JobDetail.as_view(), name="api-job"),
]
