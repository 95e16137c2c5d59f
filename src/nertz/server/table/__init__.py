"""The table core, sans-I/O: one match at one table, commands in and messages out.

``table.py`` is the table, composed of collaborators that share its state through one
``TableContext`` (``context.py``, with the ``Timer`` kinds); the rest are its parts:
seats and places kept for people who left (``seats.py``, ``lifetimes.py``), partners
(``partners.py``), bots in seats (``bots.py``), the series and rematches
(``series.py``), the host (``host.py``), practice and the guided first hand
(``practice.py``, ``lessons.py``), chat (``chat.py``) and races settled by credited
time (``fair.py``, ``races.py``, ``clock.py``). Nothing here does I/O or imports the
store, the lobby or the web.
"""
