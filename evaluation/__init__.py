"""Scoring runs inside the app: leaderboards, significance, ranking stability and pool bias."""
