"""Concrete models of the campaign core (abstract bases live in their own modules)."""
