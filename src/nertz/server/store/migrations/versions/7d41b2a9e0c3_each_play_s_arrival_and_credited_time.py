"""each play's arrival and credited time (fair races)

Revision ID: 7d41b2a9e0c3
Revises: b31e56230df1
Created: 2026-12-01 08:50:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7d41b2a9e0c3"
down_revision: str | Sequence[str] | None = "b31e56230df1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("inputs", sa.Column("arrival_ms", sa.BigInteger(), nullable=True))
    op.add_column("inputs", sa.Column("credited_ms", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    op.drop_column("inputs", "credited_ms")
    op.drop_column("inputs", "arrival_ms")
