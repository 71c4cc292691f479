"""Lead pages for collections, uploads, jobs, pools and members."""
from django.urls import path

from collections_app import views, views_pool_pairs
from collections_app.simulation import views as simulation_views

prefix = "c/<slug:slug>/"
urlpatterns = [
    path("", views.home, name="home"),
    path("collections/new/", views.collection_create, name="collection-create"),
    path(prefix, views.collection_detail, name="collection-detail"),
    path(prefix + "blindness/", views.collection_blindness, name="collection-blindness"),
    path(prefix + "upload/<str:kind>/", views.upload, name="collection-upload"),
    path(prefix + "jobs/<int:pk>/", views.job_detail, name="job-detail"),
    path(prefix + "pools/new/", views.pool_build, name="pool-build"),
    path(prefix + "pools/from-pairs/", views_pool_pairs.pool_from_pairs_page, name="pool-from-pairs"),
    path(prefix + "pools/<str:name>/", views.pool_detail, name="pool-detail"),
    path(prefix + "pools/<str:name>/deepen/", views.pool_deepen, name="pool-deepen"),
    path(prefix + "pools/<str:name>/delete/", views.pool_delete, name="pool-delete"),
    path(prefix + "runs/<path:tag>/delete/", views.run_delete, name="run-delete"),
    path(prefix + "members/", views.members, name="collection-members"),
    path(prefix + "planner/", simulation_views.planner, name="planner"),
]
