"""Private PostgreSQL and Redis for the cluster's tests (``tests/services.py``).

Debian's packages bring them (``make test`` installs them when missing, as root with
apt); without them these tests skip with the reason, except under ``CI=true``, where a
missing binary fails. Each xdist worker starts its own instances, once a session.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from .. import services


def _missing(error: services.Missing) -> None:
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(str(error))
    pytest.skip(str(error))


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL of this session; each test takes a fresh database (``pg_url``)."""
    try:
        with services.postgres(fsync=False) as url:
            yield url
    except services.Missing as error:
        _missing(error)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    try:
        with services.redis() as url:
            yield url
    except services.Missing as error:
        _missing(error)


@pytest.fixture(scope="session")
def haproxy_bin() -> str:
    try:
        return services.binary("haproxy")
    except services.Missing as error:
        _missing(error)
        raise


@pytest.fixture
def pg_url(postgres_url: str) -> Iterator[str]:
    """A fresh, empty database of this session's PostgreSQL, dropped after the test."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = postgres_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield postgres_url.rsplit("/", 1)[0] + f"/{name}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.fixture
def redis_clean(redis_url: str) -> str:
    """This session's Redis, emptied for the test."""
    import redis

    with redis.Redis.from_url(redis_url) as client:
        client.flushall()
    return redis_url
