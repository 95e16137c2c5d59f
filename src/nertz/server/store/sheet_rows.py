"""The score sheets' table in the database (``http/sheets.py`` is the sheet itself): a
sheet's body as JSON under its random id, with when it was made and last changed. A
database of its own metadata, beside the store's (``schema.py``): a server keeps both."""

from __future__ import annotations

from sqlalchemy import Column, Float, MetaData, String, Table, Text

__all__ = ["metadata", "sheets_t"]

metadata = MetaData()
sheets_t = Table(
    "sheets",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("body", Text, nullable=False),
    Column("created", Float, nullable=False),
    Column("updated", Float, nullable=False),
)
