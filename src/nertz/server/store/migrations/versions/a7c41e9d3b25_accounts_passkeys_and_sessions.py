"""accounts, their passkeys and sessions, and the devices they played on (issue 26)

Revision ID: a7c41e9d3b25
Revises: e3b9a0c4d217
Created: 2026-12-03 20:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "a7c41e9d3b25"
down_revision: str | Sequence[str] | None = "e3b9a0c4d217"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("recovery_hash", sa.String(length=64), nullable=False),
        sa.Column("owner_address", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "passkeys",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("account", sa.String(length=40), nullable=False),
        sa.Column("credential_id", sa.String(length=1400), nullable=False),
        sa.Column("public_key", sa.LargeBinary(), nullable=False),
        sa.Column("sign_count", sa.BigInteger(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("used", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("credential_id"),
    )
    op.create_index(op.f("ix_passkeys_account"), "passkeys", ["account"], unique=False)
    op.create_table(
        "account_sessions",
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("account", sa.String(length=40), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("expires", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("hash"),
    )
    op.create_index(
        op.f("ix_account_sessions_account"), "account_sessions", ["account"], unique=False
    )
    op.create_table(
        "account_devices",
        sa.Column("device", sa.String(length=64), nullable=False),
        sa.Column("account", sa.String(length=40), nullable=False),
        sa.Column("linked", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("device"),
    )
    op.create_index(
        op.f("ix_account_devices_account"), "account_devices", ["account"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_account_devices_account"), table_name="account_devices")
    op.drop_table("account_devices")
    op.drop_index(op.f("ix_account_sessions_account"), table_name="account_sessions")
    op.drop_table("account_sessions")
    op.drop_index(op.f("ix_passkeys_account"), table_name="passkeys")
    op.drop_table("passkeys")
    op.drop_table("accounts")
