"""Persistence: the database's tables (``schema.py``, ``sheet_rows.py``), the store
that writes a table's records (``store.py``), rows read back (``stored_rows.py``,
``chat_rows.py``) and migrations (``migrate.py``, ``migrations/``)."""
