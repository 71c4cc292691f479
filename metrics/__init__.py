"""qrelsmith.metrics: trec_eval-exact evaluation of IR runs (no Django)."""
