"""Judging models (campaigns, assignments, judgments): see the judging issue."""
