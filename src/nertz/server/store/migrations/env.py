"""Alembic's environment: the server's connection (``migrate.upgrade``) or, for
``tests/data/make_migration.py``, a URL."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from nertz.server.store.migrate import target_metadata

config = context.config


def _run(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=target_metadata(),
        compare_type=True,
        compare_server_default=True,
    )
    with context.begin_transaction():
        context.run_migrations()


given = config.attributes.get("connection")
if given is not None:
    _run(given)
else:
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.begin() as conn:
        _run(conn)
    engine.dispose()
