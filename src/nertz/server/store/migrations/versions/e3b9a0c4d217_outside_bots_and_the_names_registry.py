"""outside bots and the names registry (a name held for good, of any kind)

Revision ID: e3b9a0c4d217
Revises: d5e8a1b07f42
Created: 2026-12-03 17:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "e3b9a0c4d217"
down_revision: str | Sequence[str] | None = "d5e8a1b07f42"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "names",
        sa.Column("key", sa.String(length=128), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_table(
        "bots",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("revoked", sa.Float(), nullable=True),
        sa.Column("owner_address", sa.String(length=64), nullable=False),
        sa.Column("owner_device", sa.String(length=64), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index(op.f("ix_bots_owner_address"), "bots", ["owner_address"], unique=False)
    op.add_column("seats", sa.Column("outside", sa.Boolean(), server_default="0", nullable=False))


def downgrade() -> None:
    op.drop_column("seats", "outside")
    op.drop_index(op.f("ix_bots_owner_address"), table_name="bots")
    op.drop_table("bots")
    op.drop_table("names")
