"""The store on PostgreSQL: the same records and the same promise as on SQLite, and a
schema that Alembic's revisions build exactly as ``schema.py`` declares it."""

from __future__ import annotations

import threading

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect

from nertz.server.store.migrate import alembic_config, target_metadata, upgrade
from nertz.server.store.store import Store

from ..server.test_store import kill_9_then_restart, records_round_trip


def test_records_written_and_read_back_rebuild_the_same_table(pg_url: str) -> None:
    records_round_trip(pg_url)


def test_kill_9_mid_hand_then_restart_resumes_with_every_acknowledged_play(pg_url: str) -> None:
    kill_9_then_restart(pg_url)


def test_the_migrated_database_is_exactly_what_schema_py_declares(pg_url: str) -> None:
    """A change to the tables without a revision fails here: make one with
    ``tests/data/make_migration.py`` (docs/server.md, "PostgreSQL")."""
    Store(pg_url).close()  # a new server migrates its database to the newest revision
    engine = create_engine(pg_url)
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": True}
        )
        differences = compare_metadata(context, target_metadata())  # type: ignore[arg-type]
        assert differences == [], f"schema.py and the revisions differ: {differences}"
        assert "alembic_version" in inspect(conn).get_table_names()
    engine.dispose()


def test_the_revisions_are_one_line() -> None:
    """Two branches that each added a revision on the same parent leave two heads, and
    no server could start on PostgreSQL: rebase, delete yours, make it again."""
    scripts = ScriptDirectory.from_config(alembic_config())
    assert len(scripts.get_heads()) == 1, f"several newest revisions: {scripts.get_heads()}"


def test_nodes_starting_at_once_migrate_once(pg_url: str) -> None:
    engine = create_engine(pg_url)
    errors: list[BaseException] = []

    def start() -> None:
        try:
            upgrade(engine)
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=start) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    with engine.connect() as conn:
        assert len(conn.exec_driver_sql("SELECT version_num FROM alembic_version").all()) == 1
    engine.dispose()
