"""Services shared by both campaign kinds: lease claiming, the gold check and blocks, the audit log.

Each function works on either kind's models: it is handed the kind's assessor (whose
``leases`` and ``judgments`` relations name the kind's lease, judgment and item models) and,
where the kinds differ, the kind's own rule (which items are open, what a correct gold answer is).
"""
