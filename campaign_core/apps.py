from django.apps import AppConfig


class CampaignCoreConfig(AppConfig):
    name = "campaign_core"
    verbose_name = "Campaign core"
