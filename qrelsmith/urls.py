"""Top-level URL map: pages, the API (with its OpenAPI schema and docs) and the admin."""
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from qrelsmith.login import ThrottledLoginView

urlpatterns = [
    path("", include("ops.urls")),
    path("admin/", admin.site.urls),
    # Pages link the icon themselves; this answers browsers (and the admin) that ask for the old path.
    path("favicon.ico", lambda request: HttpResponsePermanentRedirect(static("qrelsmith/favicon.svg"))),
    path("accounts/login/", ThrottledLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/", include("collections_app.api_urls")),
    path("api/", include("judging.api_urls")),
    path("api/", include("evaluation.api_urls")),
    path("api/", include("preferences.api_urls")),
    path("api/", include("model_assessors.api_urls")),
    path("", include("hub.urls")),
    path("", include("judging.urls")),
    path("", include("judging.urls_adaptive")),
    path("", include("evaluation.urls")),
    path("", include("preferences.urls")),
    path("", include("model_assessors.urls")),
    path("", include("collections_app.urls")),
]
