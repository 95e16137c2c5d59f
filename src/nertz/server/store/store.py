"""Persistence: SQLAlchemy 2 (Core) over SQLite in WAL mode, or any SQLAlchemy URL.

What is stored (and what a restart needs): each table (code, a hash of its private key,
rules, settings), its seats (names and token *hashes*, never tokens), its matches (the
series), each hand (deal and seed, scores once over), each hand's accepted inputs
(``Hand.log``), each hand's races won and lost per seat (``hand_races``), the public
event log and the chat. A table is rebuilt by replaying every hand.

One writer thread group-commits everything queued, over and over, then tells the actor
(acks wait for it; docs/server.md has the guarantee); ``commit_lag`` reports the waits.
"""

from __future__ import annotations

import asyncio
import bisect
import collections
import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    Table,
    bindparam,
    create_engine,
    delete,
    event,
    func,
    or_,
    select,
    update,
)

from nertz.server.store.chat_rows import write_chat
from nertz.server.store.migrate import upgrade
from nertz.server.store.schema import (
    add_sqlite_columns,
    device_places_t,
    events_t,
    forget_table,
    hand_races_t,
    hands_t,
    inputs_t,
    matches_t,
    metadata,
    seats_t,
    series_t,
    sqlite_pragmas,
    tables_t,
)
from nertz.server.store.stored_rows import read_records
from nertz.server.table.records import (
    ChatRecord,
    DealRecord,
    DiscardRecord,
    EventRecord,
    InputRecord,
    MatchBegunRecord,
    MatchRecord,
    RacesRecord,
    Record,
    ScoreRecord,
    SeatRecord,
)

__all__ = ["Guard", "Store", "StoredTable", "TableCreated", "db_url"]

log = logging.getLogger("nertz.store")

_CHUNK = 400
"""Rows per multi-row INSERT (6 columns x 400 stays under SQLite's 32766 variables)."""
_TICK = 0.005
"""The writer's pause after each transaction while the next batch gathers (a command waits
at most this plus one write); an idle writer is woken by the first command queued. The
same on PostgreSQL: 1 ms there gave saturated nodes one-command transactions."""
_IDLE_S = 0.25
"""How long an idle writer sleeps when nothing wakes it (a safety net, not the path)."""
CHECKPOINT_S = 1.0

_DELETE_SEAT = delete(seats_t).where(
    seats_t.c.table_id == bindparam("t"),
    seats_t.c.seat == bindparam("s"),
    seats_t.c.partner == bindparam("p"),
)
_SCORE_HAND = (
    update(hands_t)
    .where(hands_t.c.table_id == bindparam("t"), hands_t.c.number == bindparam("n"))
    .values(
        scores=bindparam("scores"), caller=bindparam("caller"), end_reason=bindparam("end_reason")
    )
)
_LEFT = (  # a place lost: the device that held it did so through the last scored hand
    update(device_places_t)
    .where(
        device_places_t.c.table_id == bindparam("t"),
        device_places_t.c.seat == bindparam("s"),
        device_places_t.c.partner == bindparam("p"),
        device_places_t.c.until_hand.is_(None),
    )
    .values(
        until_hand=select(func.coalesce(func.max(hands_t.c.number), 0))
        .where(hands_t.c.table_id == bindparam("t"), hands_t.c.scores.is_not(None))
        .scalar_subquery()
    )
)
_DELETE_RACES = delete(hand_races_t).where(
    hand_races_t.c.table_id == bindparam("t"), hand_races_t.c.hand == bindparam("h")
)
_AGAIN = update(matches_t).where(matches_t.c.table_id == bindparam("t")).values(finished=None)
_END_MATCH = (
    update(matches_t)
    .where(matches_t.c.table_id == bindparam("t"))
    .values(
        finished=bindparam("finished"), totals=bindparam("totals"), winners=bindparam("winners")
    )
)


@dataclass(frozen=True, slots=True)
class TableCreated:
    """A new table: written before any of its other records."""

    code: str
    key_hash: str | None
    public: bool
    rules: dict[str, Any]
    settings: dict[str, Any]
    created: float
    watch_hash: str | None = None
    """The watch link's secret, hashed (``invites.py``)."""


@dataclass(frozen=True, slots=True)
class StoredTable:
    """An unfinished table as stored: enough to ``restore_from_records``."""

    id: str
    code: str
    key_hash: str | None
    rules: dict[str, Any]
    settings: dict[str, Any]
    records: list[Record]
    watch_hash: str | None = None
    created: float = 0.0  # wall clock: a restored table never dealt expires by it


_Work = tuple[str, Sequence[Any], float, Callable[[], None] | None]
"""A queued command: its table, its records, when it was queued, its ``committed``."""
Guard = Callable[[Connection, set[str]], set[str]]
"""(a batch's transaction, its tables) to the tables whose writes it refuses (fencing)."""


def db_url(db: str) -> str:
    """``--db``: a file name (SQLite) or an SQLAlchemy URL."""
    return db if "://" in db else f"sqlite:///{db}"


class Store:
    """The database and its writer thread."""

    def __init__(self, db: str) -> None:
        url = db_url(db)
        self.sqlite = url.startswith("sqlite")
        if self.sqlite:
            self.engine: Engine = create_engine(url)
            event.listen(self.engine, "connect", sqlite_pragmas)
            add_sqlite_columns(self.engine)
            metadata.create_all(self.engine)
        else:
            # The writer holds one connection and the readers (restores, history) a few.
            # A transaction left open by a paused node (SIGSTOP mid-batch) would hold its
            # fencing rows' locks, and so a takeover, until it resumed: PostgreSQL ends it.
            ended = {"options": "-c idle_in_transaction_session_timeout=2000"}
            self.engine = create_engine(url, pool_size=4, max_overflow=8, connect_args=ended)
            upgrade(self.engine)  # Alembic: the same tables, by revision (migrate.py)
        self._qmark = self.engine.dialect.paramstyle == "qmark" and self.sqlite
        self._queue: collections.deque[_Work | threading.Event | None] = collections.deque()
        self._writer: Connection | None = None  # the writer's own (SQLite; ``_transaction``)
        self._wake = threading.Event()
        """Set when something is queued; cleared by the writer only once it is idle."""
        self._loop: asyncio.AbstractEventLoop | None = None
        """The event loop that ``submit``'s ``committed`` callbacks run on."""
        self.commit_lag_ms = 0.0
        """The wait from queueing to commit of the oldest command of the last batch (ms)."""
        self.max_lag_ms = 0.0
        """The longest such wait so far (ms)."""
        self._lags: collections.deque[tuple[float, float]] = collections.deque(maxlen=20_000)
        self._writes: collections.deque[tuple[float, float, int]] = collections.deque(maxlen=20_000)
        self.batches = 0
        self.errors = 0
        self.guard: Guard | None = None  # checked in every batch's transaction (a cluster's)
        self.fast: Callable[[list[_Work]], bool] | None = None  # first: True if it wrote all
        self.on_refused: Callable[[str], None] | None = None
        """Told, on the event loop, of each table whose writes ``guard`` refused."""
        self.after_match: Callable[[Connection, list[tuple[str, int]]], None] | None = None
        """Called in the writer's transaction with the (table id, match number) of each
        match whose end a batch wrote, once it is written: a rated match's ratings change
        in the same transaction as the result they come from (``lobby/ratings.py``). An
        error in it is logged and leaves the batch to commit: a rating never costs a game."""
        self.refused = 0  # commands dropped because ``guard`` refused their table
        self._thread = threading.Thread(target=self._run, name="nertz-store", daemon=True)
        self._thread.start()
        self._stop = threading.Event()
        self._checkpointer: threading.Thread | None = None
        if self.sqlite:
            self._checkpointer = threading.Thread(
                target=self._checkpoints, name="nertz-checkpoint", daemon=True
            )
            self._checkpointer.start()

    # ------------------------------------------------------------------ writing

    def submit(
        self,
        table_id: str,
        records: Sequence[Record | TableCreated],
        committed: Callable[[], None] | None = None,
    ) -> None:
        """Queue one command's records; they are committed together, in order. Called
        from the event loop with ``committed``, that callback runs on the loop once the
        transaction holding them has committed (an acknowledgement waits for it)."""
        if committed is not None and self._loop is None:
            self._loop = asyncio.get_running_loop()
        if records:
            self._put((table_id, records, time.monotonic(), committed))
        elif committed is not None:
            committed()

    def recent_lag_ms(self, seconds: float = 10.0) -> float:
        """The longest wait from queueing to commit over the last ``seconds``."""
        lags = list(self._lags)  # in time order; the copy is C's, the search a bisection
        recent = lags[bisect.bisect_left(lags, (time.monotonic() - seconds,)) :]
        return max((lag for _, lag in recent), default=0.0)

    def recent_writes(self, seconds: float = 10.0) -> dict[str, float]:
        """Transactions over the last ``seconds``: how many, the longest (ms), the
        largest (commands)."""
        writes = list(self._writes)  # as recent_lag_ms: not a Python pass over 20,000
        recent = writes[bisect.bisect_left(writes, (time.monotonic() - seconds,)) :]
        return {
            "count": len(recent),
            "max_ms": round(max((w[1] for w in recent), default=0.0), 1),
            "mean_ms": round(sum(w[1] for w in recent) / max(1, len(recent)), 2),
            "max_commands": max((w[2] for w in recent), default=0),
        }

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until everything queued so far is committed."""
        done = threading.Event()
        self._put(done)
        if not done.wait(timeout):
            raise TimeoutError("the store writer did not catch up")

    def close(self) -> None:
        self._put(None)
        self._thread.join(10)
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join(10)
            with self.engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        self.engine.dispose()

    def _put(self, item: _Work | threading.Event | None) -> None:
        self._queue.append(item)
        # Only an idle writer has cleared the event: while it is busy, or pausing between
        # transactions, a play costs the event loop no more than the append.
        if not self._wake.is_set():
            self._wake.set()

    def _run(self) -> None:
        # A deque and an event rather than a blocking queue: the event loop appends
        # without waking this thread for every play (only an idle writer is woken), and
        # each transaction holds everything that came in since the last one (the group
        # commit), gathered during the pause of ``_TICK`` after each.
        pending = self._queue
        while True:
            if not pending:
                self._wake.clear()
                if not pending:  # an append between the test and the clear is not lost
                    self._wake.wait(_IDLE_S)
                continue
            batch = []
            while pending:
                batch.append(pending.popleft())
            stop = None in batch
            waiters = [b for b in batch if isinstance(b, threading.Event)]
            work = written = [b for b in batch if isinstance(b, tuple)]
            if work:
                began = time.monotonic()
                try:
                    refused = self._write(work)
                except Exception:  # never lose the writer; the error is logged loudly
                    self.errors += 1
                    log.exception("store: a batch of %d commands failed to commit", len(work))
                    # A cluster node's messages never report an uncommitted write: its
                    # tables go back to the database and come back from what is there.
                    refused = {w[0] for w in work} if self.guard is not None else set()
                if refused:
                    written = self._refuse(work, refused)
                # One wake-up of the loop per batch, not per command. After a failed batch
                # the messages go out all the same (``errors`` counts it): a table that
                # stopped talking would be worse than a play the disk refused.
                callbacks = [w[3] for w in written if w[3] is not None]
                if callbacks and self._loop is not None:
                    # RuntimeError: the loop has closed, nobody is left to tell.
                    with contextlib.suppress(RuntimeError):
                        self._loop.call_soon_threadsafe(_run_all, callbacks)
                oldest = min(w[2] for w in work)
                self.commit_lag_ms = (time.monotonic() - oldest) * 1000
                self.max_lag_ms = max(self.max_lag_ms, self.commit_lag_ms)
                done_at = time.monotonic()
                self._lags.append((done_at, self.commit_lag_ms))
                self._writes.append((done_at, (done_at - began) * 1000, len(work)))
                self.batches += 1
            for waiter in waiters:
                waiter.set()
            if stop:
                if self._writer is not None:
                    self._writer.close()
                return
            time.sleep(_TICK)

    def _checkpoints(self) -> None:
        """SQLite WAL checkpoints off the writer's path: the writer's commits only
        append to the WAL (no fsync with ``synchronous=NORMAL``); this thread copies the
        WAL into the database once a second, which is where the disk waits are, and a
        PASSIVE checkpoint never blocks the writer."""
        while not self._stop.wait(CHECKPOINT_S):
            try:
                with self.engine.connect() as conn:
                    conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
            except Exception:
                log.exception("store: checkpoint failed (the WAL keeps the data)")

    def _refuse(self, work: list[_Work], refused: set[str]) -> list[_Work]:
        """Drop the commands of ``refused`` tables (their messages never go out);
        ``on_refused`` hears of each such table once, on the event loop."""
        self.refused += sum(1 for w in work if w[0] in refused)
        log.warning("store: writes of %d table(s) refused by the guard", len(refused))
        if self.on_refused is not None and self._loop is not None:
            for table_id in refused:
                with contextlib.suppress(RuntimeError):
                    self._loop.call_soon_threadsafe(self.on_refused, table_id)
        return [w for w in work if w[0] not in refused]

    def _write(self, work: list[_Work]) -> set[str]:
        """One transaction for a whole batch, one ``executemany`` per kind of row;
        returns the tables whose writes ``guard`` refused (nothing of theirs written).

        Rows of different tables do not depend on each other, so inserts go first in
        bulk; then seats (only the latest record of each seat in the batch matters);
        then the updates that need their rows (a hand's scores, a match's end)."""
        if self.fast is not None and self.fast(work):
            return set()
        with self._transaction() as conn:
            refused = set() if self.guard is None else self.guard(conn, {w[0] for w in work})
            work = [w for w in work if w[0] not in refused] if refused else work
            self._write_rows(conn, work)
            for table_id in {w[0] for w in work if DiscardRecord() in w[1]}:  # never dealt
                forget_table(conn, table_id)
        return refused

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Connection]:
        """The writer's transaction, on SQLite on a connection it keeps (a checkout from
        the pool and its reset were half a small batch); a networked one may drop."""
        writer = self._writer
        if self.sqlite and (writer is None or writer.invalidated or writer.closed):
            writer = self._writer = self.engine.connect()
        if writer is None:
            with self.engine.begin() as conn:
                yield conn
        else:
            with writer.begin():
                yield writer

    def _write_rows(self, conn: Connection, work: list[_Work]) -> None:
        created: list[dict[str, Any]] = []
        started: list[dict[str, Any]] = []
        hands: list[dict[str, Any]] = []
        inputs: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        seats: dict[tuple[str, int, int], dict[str, Any]] = {}
        scores: list[dict[str, Any]] = []
        ended: list[dict[str, Any]] = []
        races: dict[tuple[str, int], list[dict[str, Any]]] = {}
        again: list[dict[str, Any]] = []
        for table_id, records, _, _ in work:
            for r in records:
                kind = type(r)
                if kind is InputRecord:
                    inputs.append({"table_id": table_id, **r.row()})
                elif kind is EventRecord:
                    events.append({"table_id": table_id, "version": r.version, "body": r.body})
                elif kind is SeatRecord:
                    seats[(table_id, r.seat, r.partner)] = {"table_id": table_id, **asdict(r)}
                elif kind is DealRecord:
                    hands.append(
                        {
                            "table_id": table_id,
                            "number": r.hand,
                            "layouts": json.dumps(list(r.layouts)),
                            "seed": r.seed,
                            "middle": json.dumps(list(r.middle)),
                        }
                    )
                elif kind is ScoreRecord:
                    scores.append(
                        {
                            "t": table_id,
                            "n": r.hand,
                            "scores": json.dumps(list(r.scores)),
                            "caller": r.caller,
                            "end_reason": r.end,
                        }
                    )
                elif kind is MatchRecord:
                    ended.append(
                        {
                            "t": table_id,
                            "finished": time.time(),
                            "totals": json.dumps(list(r.totals)),
                            "winners": json.dumps(list(r.winners)),
                            "number": r.number,
                            "first_hand": r.first_hand,
                            "players": json.dumps(
                                [
                                    {"seat": seat, "partner": partner, "name": name, "bot": bot}
                                    | ({"away": True} if (seat, partner) in r.away else {})
                                    for seat, partner, name, bot in r.players
                                ]
                            ),
                        }
                    )
                elif kind is RacesRecord:
                    races[(table_id, r.hand)] = [
                        {
                            "table_id": table_id,
                            "hand": r.hand,
                            "seat": seat,
                            "match": r.match,
                            "won": won,
                            "lost": lost,
                        }
                        for seat, (won, lost) in enumerate(zip(r.won, r.lost, strict=True))
                    ]
                elif kind is MatchBegunRecord:
                    again.append({"t": table_id})
                elif kind is ChatRecord:
                    write_chat(conn, table_id, r)
                elif kind is TableCreated:
                    created.append(
                        {
                            "id": table_id,
                            "code": r.code,
                            "key_hash": r.key_hash,
                            "watch_hash": r.watch_hash,
                            "public": r.public,
                            "rules": json.dumps(r.rules),
                            "settings": json.dumps(r.settings),
                            "created": r.created,
                            "practice": bool(r.settings.get("practice")),
                        }
                    )
                    started.append({"table_id": table_id, "started": r.created})
                elif kind is not DiscardRecord:  # that one is for ``_write``
                    raise TypeError(f"unknown record {r!r}")
        for table, rows in (
            (tables_t, created),
            (matches_t, started),
            (hands_t, hands),
            (inputs_t, inputs),
            (events_t, events),
        ):
            if rows:
                self._insert(conn, table, rows)
        if seats:
            conn.execute(_DELETE_SEAT, [{"t": t, "s": n, "p": p} for t, n, p in seats])
            conn.execute(seats_t.insert(), list(seats.values()))
        gone = [{"t": t, "s": n, "p": p} for (t, n, p), r in seats.items() if not r["token_hash"]]
        if gone:
            conn.execute(_LEFT, gone)
        if scores:
            conn.execute(_SCORE_HAND, scores)
        if races:  # a hand's races once, even if a rebuilt table ended it again
            conn.execute(_DELETE_RACES, [{"t": t, "h": n} for t, n in races])
            conn.execute(hand_races_t.insert(), [r for rows in races.values() for r in rows])
        if ended:
            conn.execute(_END_MATCH, ended)
            series = [{"table_id": e.pop("t"), **e} for e in ended]
            self._insert(conn, series_t, series)
            if self.after_match is not None:
                self._after_match(conn, [(s["table_id"], s["number"]) for s in series])
        if again:
            conn.execute(_AGAIN, again)

    def _after_match(self, conn: Connection, ended: list[tuple[str, int]]) -> None:
        """``after_match``, whose failure costs the batch nothing: the ratings can be
        rebuilt from the store, a game could not. On PostgreSQL in a savepoint (an error
        there would abort the whole transaction); on SQLite a failed statement does not."""
        assert self.after_match is not None
        try:
            if self.sqlite:
                self.after_match(conn, ended)
            else:
                with conn.begin_nested():
                    self.after_match(conn, ended)
        except Exception:
            log.exception("store: rating the matches just ended failed")

    def _insert(self, conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
        """Insert rows; on SQLite one multi-row INSERT per chunk: ``executemany`` gives up
        the GIL at every row, and won it back slowly from a busy loop (performance.md)."""
        if not self._qmark:
            conn.execute(table.insert(), rows)
            return
        names = list(rows[0])
        width = len(names)
        head = f"INSERT INTO {table.name} ({', '.join(names)}) VALUES "
        one = "(" + ", ".join("?" * width) + ")"
        for i in range(0, len(rows), _CHUNK):
            chunk = rows[i : i + _CHUNK]
            params = [row[name] for row in chunk for name in names]
            conn.exec_driver_sql(head + ", ".join([one] * len(chunk)), tuple(params))

    # ------------------------------------------------------------------ reading

    def unfinished(
        self, table_id: str | Collection[str] | None = None, over_s: float = 0
    ) -> list[StoredTable]:
        """Every table whose match is not over, or ended less than ``over_s`` ago (its
        series may go on), or only those of ``table_id`` (one id, or several); with their
        records in order (``stored_rows.py``: a few queries for them all)."""
        finished = matches_t.c.finished
        query = (
            select(tables_t)
            .join(matches_t, matches_t.c.table_id == tables_t.c.id)
            .where(or_(finished.is_(None), finished > time.time() - over_s))
            .order_by(tables_t.c.created)
        )
        if isinstance(table_id, str):
            query = query.where(tables_t.c.id == table_id)
        elif table_id is not None:
            query = query.where(tables_t.c.id.in_(sorted(table_id)))
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
            records = read_records(conn, [row.id for row in rows])
        return [
            StoredTable(
                row.id,
                row.code,
                row.key_hash,
                json.loads(row.rules),
                json.loads(row.settings),
                records[row.id],
                row.watch_hash,
                row.created,
            )
            for row in rows
        ]

    def unfinished_ids(self) -> list[str]:
        """The ids of the tables whose match is not over."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(matches_t.c.table_id).where(matches_t.c.finished.is_(None))
            ).all()
        return [row.table_id for row in rows]

    def records_of(self, table_id: str) -> list[Record]:
        """One table's records in order (what ``restore_from_records`` reads)."""
        with self.engine.connect() as conn:
            return read_records(conn, [table_id])[table_id]

    def history(self, limit: int = 50) -> list[dict[str, Any]]:
        """Finished matches, newest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(tables_t.c.id, tables_t.c.code, tables_t.c.public, matches_t)
                .join(matches_t, matches_t.c.table_id == tables_t.c.id)
                .where(
                    matches_t.c.finished.is_not(None),
                    tables_t.c.public.is_(True),
                    tables_t.c.practice.is_(False),
                )
                .order_by(matches_t.c.finished.desc())
                .limit(limit)
            ).all()
            return [
                {
                    "match": row.id,
                    "code": row.code,
                    "started": row.started,
                    "finished": row.finished,
                    "totals": json.loads(row.totals),
                    "winners": json.loads(row.winners),
                }
                for row in rows
            ]

    def table_id(self, code: str) -> str | None:
        """The id of the table whose code is ``code``, finished or not (a cluster's
        directory, when Redis does not have it)."""
        with self.engine.connect() as conn:
            found = conn.execute(select(tables_t.c.id).where(tables_t.c.code == code)).scalar()
        return None if found is None else str(found)

    def code_used(self, code: str) -> bool:
        """Has any table had the code ``code``?"""
        return self.table_id(code) is not None

    def finished_codes(self) -> set[str]:
        with self.engine.connect() as conn:
            return {r.code for r in conn.execute(select(tables_t.c.code))}


def _run_all(callbacks: list[Callable[[], None]]) -> None:
    for callback in callbacks:
        callback()
