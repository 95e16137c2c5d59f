"""the daily deal's tries and the server's kept secrets

Revision ID: f4c1d2a7b9e3
Revises: a7c41e9d3b25
Created: 2026-12-03 20:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "f4c1d2a7b9e3"
down_revision: str | Sequence[str] | None = "a7c41e9d3b25"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "daily_attempts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("day", sa.String(length=10), nullable=False),
        sa.Column("table_id", sa.String(length=40), nullable=False),
        sa.Column("counted", sa.Boolean(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("device", sa.String(length=64), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("account", sa.String(length=64), nullable=True),
        sa.Column("started", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("table_id"),
    )
    op.create_index(
        "ix_daily_attempts_day_address", "daily_attempts", ["day", "address"], unique=False
    )
    op.create_index(
        "ix_daily_attempts_day_device", "daily_attempts", ["day", "device"], unique=False
    )
    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("value", sa.String(length=128), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("server_secrets")
    op.drop_index("ix_daily_attempts_day_device", table_name="daily_attempts")
    op.drop_index("ix_daily_attempts_day_address", table_name="daily_attempts")
    op.drop_table("daily_attempts")
