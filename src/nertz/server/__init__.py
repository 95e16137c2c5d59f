"""The real-time server (``nertz serve``): lobby, table actors, WebSocket play, store.

Modules, one idea each: ``protocol`` (messages), ``commands`` (what a table takes and
gives), ``table`` (the sans-I/O table: dispatch, the match, timers) with its parts
``seats`` (places and connections), ``partners`` (holds, R40) and ``bots`` (bots in
seats), ``records`` (what a table stores), ``settings``, ``actor`` (one asyncio task
per table), ``store`` (SQLAlchemy), ``lobby`` (tables, codes, tokens), ``app``
(Starlette routes), ``web`` and ``sheets`` (the client's pages, score sheets), ``cli``.
See ``docs/protocol.md`` and ``docs/server.md``.
"""
