"""who played each finished match (its players, whatever happens to the seats after)

Revision ID: d5e8a1b07f42
Revises: 47c3f1cec345
Created: 2026-12-03 10:50:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "d5e8a1b07f42"
down_revision: str | Sequence[str] | None = "47c3f1cec345"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("series", sa.Column("players", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("series", "players")
