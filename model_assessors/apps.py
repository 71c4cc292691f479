from django.apps import AppConfig


class ModelAssessorsConfig(AppConfig):
    name = "model_assessors"
    verbose_name = "Model assessors"
