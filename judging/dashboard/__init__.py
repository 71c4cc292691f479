"""The lead's dashboard: progress, throughput, cost, assessors and agreement of a campaign.

``choices`` names the selectable agreement statistics, ``compute`` holds pure numpy
computations over plain arrays (tested without a database), ``selectors`` loads a
campaign's items and judgments in a fixed number of queries and calls ``compute``.
"""
