"""the account that held each place, whose rating it counts for (issue 26)

Revision ID: a9d3e5f1c7b2
Revises: f4c1d2e8a9b6
Created: 2026-12-03 21:10:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "a9d3e5f1c7b2"
down_revision: str | Sequence[str] | None = "f4c1d2e8a9b6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("device_places", sa.Column("account", sa.String(length=40), nullable=True))


def downgrade() -> None:
    op.drop_column("device_places", "account")
