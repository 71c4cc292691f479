"""API routes for collections, topics, documents, runs and pools."""
urlpatterns: list = []
