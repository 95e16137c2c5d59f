"""Alembic's scripts for databases other than SQLite (``migrate.py``)."""
