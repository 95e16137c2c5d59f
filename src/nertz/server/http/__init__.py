"""The HTTP front end (Starlette on uvicorn): the app and its routes.

``app.py`` builds the app: the server's services in one typed object
(``services.py``), each module's routes mounted with them, the middleware, the
lifespan (``startup.py``) and the settings (``config.py``). The routes by concern: the
tables (``tables_api.py``), finished matches (``matches_api.py``), a player's history
(``me.py``), sharing (``sharing.py``), the play socket's adapter (``sockets.py``, all of
it in ``session.py``), the client's pages and files (``web.py``, ``files.py``,
``installable.py``), practice (``practice_api.py``), score sheets (``sheets.py``), the
server's figures and ``/metrics`` (``status.py``, ``metrics.py``) and answers kept once
made (``kept.py``).
"""
