"""The real-time server (``nertz serve``): lobby, table actors, WebSocket play, store.

Modules, one idea each: ``protocol`` (messages), ``table`` (the sans-I/O table),
``bots`` (bots in seats), ``actor`` (one asyncio task per table), ``store``
(SQLAlchemy), ``lobby`` (tables, codes, tokens), ``app`` (Starlette routes), ``cli``.
See ``docs/protocol.md`` and ``docs/server.md``.
"""
