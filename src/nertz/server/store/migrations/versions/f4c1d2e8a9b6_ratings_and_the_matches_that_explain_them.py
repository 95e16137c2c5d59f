"""ratings per mode and each change with the match that explains it (issue 26)

Revision ID: f4c1d2e8a9b6
Revises: f4c1d2a7b9e3
Created: 2026-12-03 20:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "f4c1d2e8a9b6"
down_revision: str | Sequence[str] | None = "f4c1d2a7b9e3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("last", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("key", "mode"),
    )
    op.create_table(
        "rating_changes",
        sa.Column("table_id", sa.String(length=40), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("finished", sa.Float(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "number", "key"),
    )
    op.create_index("ix_rating_changes_key", "rating_changes", ["key", "mode"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_rating_changes_key", table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_table("ratings")
