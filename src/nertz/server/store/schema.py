"""The database's tables (SQLAlchemy Core) and the one migration a stored database
may need: what ``store.py`` writes and reads, declared once."""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    delete,
    inspect,
)

__all__ = [
    "account_devices_t",
    "account_sessions_t",
    "accounts_t",
    "add_outside_column",
    "add_partner_column",
    "add_play_times",
    "add_players_column",
    "add_practice_column",
    "add_sqlite_columns",
    "add_until_column",
    "add_watch_column",
    "bots_t",
    "chat_t",
    "daily_attempts_t",
    "device_places_t",
    "devices_t",
    "events_t",
    "forget_table",
    "hand_races_t",
    "hands_t",
    "inputs_t",
    "matches_t",
    "metadata",
    "names_t",
    "passkeys_t",
    "rating_changes_t",
    "ratings_t",
    "seats_t",
    "series_t",
    "server_secrets_t",
    "sqlite_pragmas",
    "table_owners_t",
    "tables_t",
]

metadata = MetaData()
tables_t = Table(
    "tables",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("code", String(16), nullable=False, unique=True),
    Column("key_hash", String(64)),
    Column("watch_hash", String(64)),  # the watch link's secret, hashed (invites.py)
    Column("public", Boolean, nullable=False),
    Column("rules", Text, nullable=False),
    Column("settings", Text, nullable=False),
    Column("created", Float, nullable=False),
    # A practice table (Settings.practice) is never in anyone's history.
    Column("practice", Boolean, nullable=False, server_default="0"),
)
seats_t = Table(
    "seats",
    metadata,
    Column("table_id", String(40), primary_key=True),
    Column("seat", Integer, primary_key=True),
    # R40: which of a partnership seat's two people; 0 at other tables.
    Column("partner", Integer, primary_key=True, server_default="0"),
    Column("name", String(64), nullable=False),
    Column("token_hash", String(64), index=True),
    Column("bot", String(40)),
    # An outside bot's place (a program registered at ``POST /api/bots``, bots_api.py):
    # marked as a bot on every page, though no server bot plays it.
    Column("outside", Boolean, nullable=False, server_default="0"),
)
matches_t = Table(
    "matches",
    metadata,
    Column("table_id", String(40), primary_key=True),
    Column("started", Float, nullable=False),
    Column("finished", Float),
    Column("totals", Text),
    Column("winners", Text),
)
series_t = Table(  # each finished match of a table's series; ``matches`` has the current one
    "series",
    metadata,
    Column("table_id", String(40), primary_key=True),
    Column("number", Integer, primary_key=True),
    Column("first_hand", Integer, nullable=False),
    Column("finished", Float, nullable=False),
    Column("totals", Text, nullable=False),
    Column("winners", Text, nullable=False),
    # Who held each place at the match's end, a JSON list of {seat, partner, name, bot}:
    # the match's records name them whatever happens to the seats afterwards. Null for
    # a match stored before it (history.py then names the seats as before).
    Column("players", Text),
)
hands_t = Table(
    "hands",
    metadata,
    Column("table_id", String(40), primary_key=True),
    Column("number", Integer, primary_key=True),
    Column("layouts", Text, nullable=False),
    Column("seed", BigInteger),
    Column("middle", Text),
    Column("scores", Text),
    Column("caller", Integer),
    Column("end_reason", String(16)),
)
inputs_t = Table(
    "inputs",
    metadata,
    Column("table_id", String(40), primary_key=True),
    Column("hand", Integer, primary_key=True),
    Column("idx", Integer, primary_key=True),
    Column("at_ms", BigInteger, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("text", String(16), nullable=False),
    # A play's arrival and credited time at a table with fair_races (docs/fairness.md).
    Column("arrival_ms", BigInteger),
    Column("credited_ms", BigInteger),
)
events_t = Table(
    "events",
    metadata,
    Column("table_id", String(40), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("body", LargeBinary, nullable=False),
)
hand_races_t = Table(  # each seat's races in each finished hand (R16, R27; fair.py)
    "hand_races",
    metadata,
    Column("table_id", String(40), primary_key=True),
    Column("hand", Integer, primary_key=True),
    Column("seat", Integer, primary_key=True),
    # Which match of the table's series the hand was part of: ``hands`` does not say.
    Column("match", Integer, nullable=False),
    Column("won", Integer, nullable=False),
    Column("lost", Integer, nullable=False),
)
devices_t = Table(  # a browser's identity: the SHA-256 of its secret, never the secret
    "devices",
    metadata,
    Column("hash", String(64), primary_key=True),
    Column("name", String(64)),
    Column("created", Float, nullable=False),
    Column("seen", Float, nullable=False),
)
names_t = Table(  # every name held for good: no two share one, nobody sits under it
    "names",
    metadata,
    # The name's key (``names.name_key``: NFKC, case and look-alikes folded), so two
    # names that look the same are one name.
    Column("key", String(128), primary_key=True),
    Column("name", String(64), nullable=False),  # as it was given
    Column("kind", String(16), nullable=False),  # "bot" or "account" (later "device")
    Column("owner", String(64), nullable=False),  # the id of its holder of that kind
    Column("created", Float, nullable=False),
)
bots_t = Table(  # outside bots (lobby/outside.py): only the token's SHA-256, never the token
    "bots",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("created", Float, nullable=False),
    Column("revoked", Float),  # when its owner revoked it (null: in use)
    # Who registered it: the SHA-256 of their address (and device, if any), for quotas
    # and abuse reports, never the address itself.
    Column("owner_address", String(64), nullable=False, index=True),
    Column("owner_device", String(64)),
)
accounts_t = Table(  # a person's account (lobby/accounts.py): a passkey, never a password
    "accounts",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("name", String(64), nullable=False),  # as held in ``names`` (kind "account")
    Column("created", Float, nullable=False),
    # The one-time recovery code's SHA-256 (``hash_secret``), never the code.
    Column("recovery_hash", String(64), nullable=False),
    # Who made it: the SHA-256 of their address, for abuse reports, never the address.
    Column("owner_address", String(64), nullable=False),
)
passkeys_t = Table(  # each passkey (WebAuthn credential) of an account
    "passkeys",
    metadata,
    Column("id", String(64), primary_key=True),  # a short handle the account page shows
    Column("account", String(40), nullable=False, index=True),
    # The authenticator's credential id (base64url), as it names the key in an assertion.
    Column("credential_id", String(1400), nullable=False, unique=True),
    Column("public_key", LargeBinary, nullable=False),  # COSE, as registered
    Column("sign_count", BigInteger, nullable=False),
    Column("created", Float, nullable=False),
    Column("used", Float),  # its last sign-in
)
account_sessions_t = Table(  # signed-in browsers: the session cookie's SHA-256, never it
    "account_sessions",
    metadata,
    Column("hash", String(64), primary_key=True),
    Column("account", String(40), nullable=False, index=True),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
)
account_devices_t = Table(  # which account a device played for: its history is the account's
    "account_devices",
    metadata,
    Column("device", String(64), primary_key=True),  # a ``devices`` hash
    Column("account", String(40), nullable=False, index=True),
    Column("linked", Float, nullable=False),
)
device_places_t = Table(  # each place a device took: from which hand of the table it held it
    "device_places",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("device", String(64), nullable=False, index=True),
    Column("table_id", String(40), nullable=False, index=True),
    Column("seat", Integer, nullable=False),
    Column("partner", Integer, nullable=False),
    Column("since_hand", Integer, nullable=False),
    Column("name", String(64), nullable=False),
    Column("joined", Float, nullable=False),
    # The last hand it held, once the place went to someone else's token or none (it
    # left, was released or removed): the table's last scored hand then.
    Column("until_hand", Integer),
    # The account its person was signed in to (lobby/accounts.py; null: none): whose
    # rating a rated table's place counts for (lobby/ratings.py, ``player_key``).
    Column("account", String(40)),
)
chat_t = Table(  # each line of a table's chat (chat.py), with the match it was said in
    "chat",
    metadata,
    Column("table_id", String(40), primary_key=True),
    Column("n", Integer, primary_key=True),
    Column("match", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("partner", Integer, nullable=False),
    Column("name", String(64), nullable=False),
    Column("text", Text, nullable=False),
    Column("said", Float, nullable=False),
)
daily_attempts_t = Table(  # each start of a daily deal (lobby/daily.py): who, which day, where
    "daily_attempts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("day", String(10), nullable=False),  # YYYY-MM-DD, UTC
    Column("table_id", String(40), nullable=False, unique=True),
    Column("counted", Boolean, nullable=False),  # the day's one counted try, or practice
    Column("name", String(64), nullable=False),
    # Who: the device's hash (devices.py) and the address keyed with the daily secret
    # (never the address itself); an account once there are accounts (null: none).
    Column("device", String(64), nullable=False),
    Column("address", String(64), nullable=False),
    Column("account", String(64)),
    Column("started", Float, nullable=False),
    Index("ix_daily_attempts_day_device", "day", "device"),
    Index("ix_daily_attempts_day_address", "day", "address"),
)
server_secrets_t = Table(  # a secret the server made once and keeps (the daily deal's)
    "server_secrets",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("value", String(128), nullable=False),
    Column("created", Float, nullable=False),
)

ratings_t = Table(  # each person's rating per mode (lobby/ratings.py; nertz.rating), as of now
    "ratings",
    metadata,
    # The person's key (``ratings.player_key``): their account's id (a place taken
    # before rated play needed one: its device's hash).
    Column("key", String(64), primary_key=True),
    Column("mode", String(16), primary_key=True),  # "solo" or "partners" (R40)
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("matches", Integer, nullable=False),
    Column("last", Float),  # when its last rated match finished (absence counts from it)
)
rating_changes_t = Table(  # each change, with the stored match that explains it
    "rating_changes",
    metadata,
    Column("table_id", String(40), primary_key=True),
    Column("number", Integer, primary_key=True),  # the match of the table's series
    Column("key", String(64), primary_key=True),
    Column("mode", String(16), nullable=False),
    Column("place", Integer, nullable=False),  # in the order rated: leavers after every seat
    Column("finished", Float, nullable=False),
    Column("mu_before", Float, nullable=False),
    Column("sigma_before", Float, nullable=False),
    Column("mu_after", Float, nullable=False),
    Column("sigma_after", Float, nullable=False),
    Column("matches", Integer, nullable=False),  # rated matches in the mode, this one counted
    Index("ix_rating_changes_key", "key", "mode"),
)

table_owners_t = Table(  # a cluster's fencing (cluster/fencing.py); unused by a single node
    "table_owners",
    metadata,
    Column("table_id", String(40), primary_key=True),
    Column("node", String(64), nullable=False),
    Column("token", BigInteger, nullable=False),
)


def add_sqlite_columns(engine: Engine) -> None:
    """A SQLite database made by an earlier server gains what was added since, in order
    (elsewhere Alembic's revisions do it, ``migrate.py``)."""
    add_partner_column(engine)
    add_practice_column(engine)
    add_watch_column(engine)
    add_until_column(engine)
    add_play_times(engine)
    add_players_column(engine)
    add_outside_column(engine)
    add_place_account_column(engine)


def add_until_column(engine: Engine) -> None:
    """A database whose ``device_places`` came before ``until_hand``: it gains it (null,
    every place still held)."""
    if "device_places" not in inspect(engine).get_table_names():
        return
    if "until_hand" in {c["name"] for c in inspect(engine).get_columns("device_places")}:
        return
    with engine.begin() as conn:
        conn.exec_driver_sql("ALTER TABLE device_places ADD COLUMN until_hand INTEGER")


def add_place_account_column(engine: Engine) -> None:
    """A database whose ``device_places`` came before accounts at rated tables: it gains
    ``account`` (null: every place kept was a device's alone)."""
    if "device_places" not in inspect(engine).get_table_names():
        return
    if "account" in {c["name"] for c in inspect(engine).get_columns("device_places")}:
        return
    with engine.begin() as conn:
        conn.exec_driver_sql("ALTER TABLE device_places ADD COLUMN account VARCHAR(40)")


def add_partner_column(engine: Engine) -> None:
    """A database made before partnerships (R40) has one row per seat: rebuild its
    ``seats`` with the ``partner`` column in the key (0 for every row kept)."""
    if "seats" not in inspect(engine).get_table_names():
        return
    if "partner" in {c["name"] for c in inspect(engine).get_columns("seats")}:
        return
    with engine.begin() as conn:
        conn.exec_driver_sql("ALTER TABLE seats RENAME TO seats_before_partners")
        for index in inspect(conn).get_indexes("seats_before_partners"):
            conn.exec_driver_sql(f"DROP INDEX {index['name']}")
        seats_t.create(conn)
        conn.exec_driver_sql(
            "INSERT INTO seats (table_id, seat, partner, name, token_hash, bot) "
            "SELECT table_id, seat, 0, name, token_hash, bot FROM seats_before_partners"
        )
        conn.exec_driver_sql("DROP TABLE seats_before_partners")
    logging.getLogger("nertz.store").info("store: seats now have a partner column (R40)")


def add_practice_column(engine: Engine) -> None:
    """A database made before practice tables: ``tables`` gains ``practice`` (false for
    every table kept)."""
    if "tables" not in inspect(engine).get_table_names():
        return
    if "practice" in {c["name"] for c in inspect(engine).get_columns("tables")}:
        return
    with engine.begin() as conn:
        conn.exec_driver_sql("ALTER TABLE tables ADD COLUMN practice BOOLEAN NOT NULL DEFAULT 0")
    logging.getLogger("nertz.store").info("store: tables now have a practice column")


def add_watch_column(engine: Engine) -> None:
    """A database made before watch links has no ``watch_hash``: add it (its private
    tables keep working by their links; they have no watch link)."""
    if "tables" not in inspect(engine).get_table_names():
        return
    if "watch_hash" in {c["name"] for c in inspect(engine).get_columns("tables")}:
        return
    with engine.begin() as conn:
        conn.exec_driver_sql("ALTER TABLE tables ADD COLUMN watch_hash VARCHAR(64)")
    logging.getLogger("nertz.store").info("store: tables now have a watch_hash column")


def forget_table(conn: Connection, table_id: str) -> None:
    """Delete every row of one table (one that ended before its first deal, which
    nothing needs again), the ``tables`` row last. A daily deal's try at it goes too:
    nobody saw its cards, so it was no try (``daily.py``)."""
    every = (events_t, inputs_t, hands_t, hand_races_t, device_places_t, seats_t, series_t, chat_t)
    for table in (*every, daily_attempts_t, matches_t, tables_t):
        key = table.c.id if table is tables_t else table.c.table_id
        conn.execute(delete(table).where(key == table_id))


def add_play_times(engine: Engine) -> None:
    """A database made before fair races keeps its inputs: add the two nullable
    columns of each play's arrival and credited time (old rows: unknown, None)."""
    if "inputs" not in inspect(engine).get_table_names():
        return
    have = {c["name"] for c in inspect(engine).get_columns("inputs")}
    with engine.begin() as conn:
        for name in ("arrival_ms", "credited_ms"):
            if name not in have:
                conn.exec_driver_sql(f"ALTER TABLE inputs ADD COLUMN {name} BIGINT")


def add_players_column(engine: Engine) -> None:
    """A database made before finished matches kept their players: ``series`` gains
    ``players`` (null for every match kept; history.py names their seats as before)."""
    if "series" not in inspect(engine).get_table_names():
        return
    if "players" in {c["name"] for c in inspect(engine).get_columns("series")}:
        return
    with engine.begin() as conn:
        conn.exec_driver_sql("ALTER TABLE series ADD COLUMN players TEXT")


def add_outside_column(engine: Engine) -> None:
    """A database made before outside bots: ``seats`` gains ``outside`` (false for every
    place kept)."""
    if "seats" not in inspect(engine).get_table_names():
        return
    if "outside" in {c["name"] for c in inspect(engine).get_columns("seats")}:
        return
    with engine.begin() as conn:
        conn.exec_driver_sql("ALTER TABLE seats ADD COLUMN outside BOOLEAN NOT NULL DEFAULT 0")


def sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    # WAL: readers never block the writer; NORMAL: a commit survives the process being
    # killed (not a power cut), which is the crash this server promises to survive.
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA wal_autocheckpoint=0")  # the checkpoint thread does it
    cursor.close()
