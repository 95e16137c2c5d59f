"""Migrations of a database other than SQLite (PostgreSQL): Alembic, run at startup.

``schema.py`` and ``sheet_rows.py`` say what the database holds today; the
revisions in ``migrations/versions/`` say how a database gets there from any earlier
revision. A change to the schema therefore needs a revision beside it:
``python tests/data/make_migration.py "what changed"`` starts a private PostgreSQL,
upgrades it to the newest revision and writes the difference to ``schema.py`` as a new
revision, to read over and commit (docs/server.md, "PostgreSQL").
``tests/cluster/test_postgres.py`` fails while the two disagree.

Several nodes may start at once on one database: each upgrade holds a PostgreSQL
advisory lock, so one migrates and the others find it done.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, MetaData

from nertz.server.store.schema import metadata
from nertz.server.store.sheet_rows import metadata as sheets_metadata

__all__ = ["MIGRATIONS", "alembic_config", "target_metadata", "upgrade"]

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_LOCK = 0x6E65_727A  # "nerz": the advisory lock that serialises upgrades


def target_metadata() -> list[MetaData]:
    """Every table this server keeps: the store's (``schema.py``) and the score sheets'
    (``sheet_rows.py``)."""
    return [metadata, sheets_metadata]


def alembic_config(connection: Connection | None = None, url: str | None = None) -> Config:
    """Alembic's settings without an ini file: the scripts here, and either an open
    connection (the server) or a URL (the revision maker)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["connection"] = connection
    return config


def upgrade(engine: Engine) -> None:
    """Bring the database to the newest revision (creating every table on a new one)."""
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_LOCK})")
        command.upgrade(alembic_config(conn), "head")
