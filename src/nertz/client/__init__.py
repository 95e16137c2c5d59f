"""A small async client for bots that play on a real server (docs/bots.md, "Outside
bots"): register a bot, join a table with its token, read the seat's view and the
table's events, send moves in the engine's notation and get refusals back as values.

It sits beside the simulator in the package's layers: it reads the engine's values and
the protocol's message types (``nertz.server.protocol``), never the server's insides."""

from nertz.client.http import ClientError, create_table, join_as_bot, register_bot, revoke_bot
from nertz.client.table import (
    Closed,
    Dealt,
    HandOver,
    MatchOver,
    Problem,
    Refusal,
    Seen,
    Table,
    Update,
)
from nertz.client.view import KeptView, engine_event

__all__ = [
    "ClientError",
    "Closed",
    "Dealt",
    "HandOver",
    "KeptView",
    "MatchOver",
    "Problem",
    "Refusal",
    "Seen",
    "Table",
    "Update",
    "create_table",
    "engine_event",
    "join_as_bot",
    "register_bot",
    "revoke_bot",
]
