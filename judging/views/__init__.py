"""Judging pages: the expert and crowd judging workspace and the leads' campaign pages."""
