"""Side-by-side panels and document-pair preference judging, and preference qrels."""
