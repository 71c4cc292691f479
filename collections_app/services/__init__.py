"""Write operations on collections: each public function is one transaction per user action."""
