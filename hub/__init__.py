"""The "My judging" hub: one page listing every campaign a user judges in, of either kind.

It sits above both campaign kinds in the dependency order (it reads ``judging`` and
``preferences``; neither imports it), so a third kind joins the hub without the first two
knowing about each other.
"""
