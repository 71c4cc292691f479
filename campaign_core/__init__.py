"""The campaign core: what relevance (``judging``) and preference (``preferences``) campaigns share.

Sits between ``collections_app`` and the two campaign kinds in the dependency order
(metrics ← collections_app ← campaign_core ← {judging, preferences} ← evaluation): it may
import ``collections_app`` and ``metrics``, never a campaign kind.
"""
