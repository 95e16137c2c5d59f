"""Many ``nertz serve`` nodes on one PostgreSQL and one Redis (docs/cluster.md).

``leases.py`` says which node owns a table (a Redis lease with a fencing token that
the store checks on every write); ``node.py`` runs a node's side of it: claiming,
renewing, giving up and taking over tables. Without ``--redis`` none of it runs.
"""
