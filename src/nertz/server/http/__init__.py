"""The HTTP front end (Starlette on uvicorn): the app and its routes.

``app.py`` builds the app and holds the play socket's adapter; the routes of a
player's history (``me.py``), sharing (``sharing.py``), the client's pages and files
(``web.py``, ``files.py``, ``installable.py``), practice (``practice_api.py``), score
sheets (``sheets.py``), ``/metrics`` (``metrics.py``) and answers kept once made
(``kept.py``).
"""
